"""Retrieval that does not hang on a tool's name: requests worded unlike the capability they
need, requests in German, Spanish and French, and the shortlist a language model is shown.

The capabilities are made up here (nobody tuned the planner on their words); the embedding
model is the real one, loaded from the installed wheel."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from graph.context import Limits
from graph.planner.deterministic import DeterministicPlanner
from graph.planner.languages import read
from graph.planner.protocol import PlanningRequest, Selection
from graph.planner.shortlist import SHORTLIST, shortlist
from graph.planner.similarity import (
    SimilarityUnavailableError,
    capability_text,
    load_model,
    model,
    model_folder,
    similarities,
)
from mcp_host.manifest import Capability
from tests.capabilities import tool

READ_ONLY = {"readOnlyHint": True}


def path(description: str = "") -> dict[str, Any]:
    return {"type": "string", "description": description}


OFFER = [
    tool(
        "fs",
        "list_directory",
        "Get a detailed listing of all files and directories in a specified path.",
        {"path": path()},
        ["path"],
        READ_ONLY,
    ),
    tool(
        "fs",
        "read_text_file",
        "Read the complete contents of a file from the file system as text.",
        {"path": path()},
        ["path"],
        READ_ONLY,
    ),
    tool(
        "fs",
        "write_file",
        "Create a new file or completely overwrite an existing file with new content.",
        {"path": path(), "content": path()},
        ["path", "content"],
    ),
    tool(
        "fs",
        "move_file",
        "Move or rename files and directories.",
        {"source": path(), "destination": path()},
        ["source", "destination"],
    ),
    tool(
        "clock",
        "get_current_time",
        "Get the current time in a specific IANA timezone.",
        {"timezone": path("IANA timezone name, e.g. Europe/Berlin")},
        ["timezone"],
        READ_ONLY,
    ),
    tool(
        "clock",
        "convert_time",
        "Convert a time between timezones.",
        {"source_timezone": path(), "time": path(), "target_timezone": path()},
        ["source_timezone", "time", "target_timezone"],
        READ_ONLY,
    ),
    tool(
        "weather",
        "forecast",
        "Temperature, rain and wind for the coming days at a place.",
        {"city": path()},
        ["city"],
        READ_ONLY,
    ),
    tool(
        "ledger",
        "record_expense",
        "Book a spending entry (amount, category) into the household budget.",
        {"amount": {"type": "number"}, "category": path()},
        ["amount", "category"],
    ),
    tool("ledger", "balance", "Money left in the household budget this month.", {}, [], READ_ONLY),
    tool(
        "kb",
        "lookup_article",
        "Find help-centre articles that answer a customer question.",
        {"question": path()},
        ["question"],
        READ_ONLY,
    ),
]


def select(text: str, offer: list[Capability] | None = None) -> Selection:
    return DeterministicPlanner().select(PlanningRequest(text), offer or OFFER, Limits())


def outcome(selection: Selection) -> tuple[str | None, set[str]]:
    """The capability chosen, and the choices the operator is asked between (empty: it runs)."""
    chosen = selection.chosen.capability.key if selection.chosen else None
    other = selection.ambiguous_with.capability.key if selection.ambiguous_with else None
    return chosen, ({chosen, other} - {None} if other else set())  # type: ignore[return-value]


# -- the model ------------------------------------------------------------------------------


def test_the_embedding_model_loads_from_the_installed_wheel_without_the_network(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def no_network(*args: object, **kwargs: object) -> None:
        raise AssertionError("the embedding model tried to open a network connection")

    monkeypatch.setattr(socket, "socket", no_network)
    monkeypatch.setattr(socket, "create_connection", no_network)
    started = time.perf_counter()

    loaded = load_model(model_folder())

    assert time.perf_counter() - started < 5.0
    assert loaded.embed(["list the files"]).shape == (1, loaded.table.shape[1])


def test_missing_weights_fail_with_an_error_naming_the_file_and_never_download(tmp_path: Path) -> None:
    with pytest.raises(
        SimilarityUnavailableError, match=r"l2_supercat_256\.safetensors is missing.*never downloads"
    ):
        load_model(tmp_path)


def test_the_model_is_loaded_once_per_process() -> None:
    assert model() is model()


@pytest.mark.processes
def test_the_model_is_loaded_only_when_a_request_is_planned_not_when_the_graph_is_imported() -> None:
    probe = (
        "import logging, sys\n"
        "import graph.planner.deterministic, graph.planner.shortlist\n"
        "from graph.planner import similarity\n"
        "assert similarity._loaded is None, 'loaded at import'\n"
        "similarity.model()\n"
        # The package's own loader configures the root logger (basicConfig) when imported.
        "assert 'wordllama.inference' not in sys.modules and not logging.root.handlers\n"
    )

    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=False
    )

    assert done.returncode == 0, done.stderr


def test_a_capability_is_read_as_its_name_in_words_title_description_and_extra_text_not_its_parameters() -> (
    None
):
    capability = tool(
        "crm", "upsertContact", "Adds or changes a person.", {"email_address": path("where mail goes")},
        title="Save contact",
    )  # fmt: skip

    text = capability_text(capability, extra=["add Dana to the address book"])

    # Stop words are left out: a mean over "the" and "or" says nothing.
    for part in ("upsert contact", "Save contact", "Adds changes person", "add Dana", "address book"):
        assert part in text
    assert "email" not in text
    assert "mail goes" not in text


def test_the_admins_example_requests_move_a_capability_closer_to_requests_worded_like_them() -> None:
    helped = [
        c.model_copy(update={"examples": ["add someone to the address book"]})
        if c.key == "kb__lookup_article"
        else c
        for c in OFFER
    ]
    index = [c.key for c in OFFER].index("kb__lookup_article")

    plain = similarities("add Dana to the address book", OFFER)[index]
    closer = similarities("add Dana to the address book", helped)[index]

    assert closer > plain + 0.1


def test_extra_text_for_a_capability_moves_it_closer_to_requests_worded_like_it() -> None:
    plain = similarities("add Dana to the address book", OFFER)
    helped = similarities(
        "add Dana to the address book",
        OFFER,
        extra={"kb__lookup_article": ["add someone to the address book"]},
    )

    index = [c.key for c in OFFER].index("kb__lookup_article")
    assert helped[index] > plain[index] + 0.1


# -- requests worded unlike the capability's name -------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Do I need an umbrella in Hamburg tomorrow?", "weather__forecast"),
        ("Are there any help articles about refunds?", "kb__lookup_article"),
        ("rename /data/a.txt to /data/b.txt", "fs__move_file"),
    ],
)
def test_a_request_worded_unlike_the_tools_name_finds_the_tool(text: str, expected: str) -> None:
    chosen, _ = outcome(select(text))

    assert chosen == expected


def test_a_choice_carried_by_meaning_more_than_words_is_asked_about_with_it_among_the_choices() -> None:
    chosen, choices = outcome(select("How much can we still spend this month?"))

    assert chosen == "ledger__balance"
    assert "ledger__balance" in choices


def test_meaning_does_not_lift_a_request_nothing_serves_over_the_threshold() -> None:
    for text in ("order a pizza", "I spent the weekend hiking", "tell me a joke about penguins"):
        assert select(text).chosen is None, text


# -- requests in other languages ------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("Wie spät ist es in Berlin?", "de"),
        ("¿Qué hora es en Madrid?", "es"),
        ("Quelle heure est-il à Paris ?", "fr"),
        ("List the files in /tmp please", None),
        ("Show me the git log for the last week", None),
        ("Add Dana to memory as an engineer", None),
    ],
)
def test_a_requests_language_is_recognised_and_english_is_left_as_it_is(
    text: str, language: str | None
) -> None:
    reading = read(text)

    assert reading.language == language
    if language is None:
        assert reading.text == text


def test_values_in_a_foreign_request_are_kept_exactly_as_written() -> None:
    reading = read("Erstelle eine neue Datei /data/die Liste.txt mit dem Inhalt 'die Liste der Dinge'")

    assert "'die Liste der Dinge'" in reading.text
    assert reading.text.startswith("create a new file /data/")


@pytest.mark.parametrize("token", ["y80F8Y240J4HrxNo1R237sMV", "Ya9de7y2Ly", "le4Y1ay0", "der9Die0Das"])
def test_a_token_of_letters_and_digits_is_no_foreign_word_and_is_kept_exactly(token: str) -> None:
    # A secret, a key or an id: its letters ("y", "no", "le", "die") are no Spanish, French or
    # German word. Found as a random Basic credential's "y" read as Spanish "and", twice, which
    # made the request Spanish and rewrote the credential in the e-mail's body.
    english = read(f"Send an email to bob@example.com saying Authorization: Basic {token}")
    assert (english.language, english.text) == (
        None,
        f"Send an email to bob@example.com saying Authorization: Basic {token}",
    )
    spanish = read(f"Envía un correo a bob@example.com y dile que la clave es {token}")
    assert spanish.language == "es"
    assert token in spanish.text


def test_the_same_request_means_the_same_in_any_folder_and_with_any_id() -> None:
    # Found as a benchmark case that chose another tool from run to run: the letters of its
    # temporary folder's random name ("/tmp/tmpk5vxqzen") moved the request's meaning.
    offered = [
        tool("fs", "list_directory", "List the files and folders in a directory."),
        tool("fs", "directory_tree", "A recursive tree view of files and folders."),
        tool("fs", "get_file_info", "Size, times and permissions of a file or folder."),
    ]
    asked = "anything with 'notes' in its filename under {folder}? the key is {key}"
    first = similarities(asked.format(folder="/tmp/tmpk5vxqzen/shared", key="y80F8Y2"), offered)
    second = similarities(asked.format(folder="/srv/team/zfbff_3d", key="Xq7aZ9"), offered)

    assert first == second


# Each request with the capability that serves it; None where nothing offered does.
FOREIGN = [
    ("Wie spät ist es in Europe/Berlin?", "clock__get_current_time"),
    ("Zeige mir die Dateien im Ordner /data", "fs__list_directory"),
    ("Lies die Datei /data/notes.md", "fs__read_text_file"),
    ("Wird es morgen in Hamburg regnen?", "weather__forecast"),
    ("Benenne /data/a.txt in /data/b.txt um", "fs__move_file"),
    ("Lösche die Datei /data/alt.txt", None),
    ("¿Qué hora es en America/Mexico_City?", "clock__get_current_time"),
    ("Muestra los archivos en la carpeta /data", "fs__list_directory"),
    ("Escribe 'hola' en el archivo /data/saludo.txt", "fs__write_file"),
    ("¿Va a llover mañana en Sevilla?", "weather__forecast"),
    ("Borra la carpeta /data/viejo", None),
    ("Quelle heure est-il à Europe/Paris ?", "clock__get_current_time"),
    ("Lis le fichier /data/notes.md", "fs__read_text_file"),
    ("Renomme /data/a.txt en /data/b.txt", "fs__move_file"),
    ("Quel temps fera-t-il demain à Lyon ?", "weather__forecast"),
    ("Supprime le fichier /data/vieux.txt", None),
]


def test_a_foreign_request_never_runs_the_wrong_capability_and_most_find_the_right_one() -> None:
    found = 0
    for text, expected in FOREIGN:
        chosen, choices = outcome(select(text))
        runs = chosen if not choices else None
        # Never runs anything but the capability asked for (nothing, where nothing serves it).
        assert runs in {expected, None}, (text, chosen, choices)
        if expected is not None and (runs == expected or expected in choices):
            found += 1
    assert found >= len([e for _, e in FOREIGN if e]) * 0.75, found


def test_a_foreign_request_for_a_capability_that_acts_with_words_left_unread_is_asked_about_first() -> None:
    chosen, choices = outcome(select("Escribe rápidamente 'hola' en el archivo /data/saludo.txt, gracias"))

    assert chosen == "fs__write_file"
    assert "fs__write_file" in choices


def test_a_foreign_request_for_a_capability_that_acts_read_in_full_is_chosen_as_in_english() -> None:
    chosen, choices = outcome(select("Escribe 'hola' en el archivo /data/saludo.txt"))

    assert chosen == "fs__write_file"
    assert choices == set()


# -- the language model's shortlist ---------------------------------------------------------


def gadgets(count: int) -> list[Capability]:
    return [
        tool("many", f"gadget_{n}", f"Look up gadget number {n} in the gadget catalogue.", {"note": path()})
        for n in range(count)
    ]


def test_the_model_is_shown_a_bounded_shortlist_that_holds_the_tool_the_request_needs() -> None:
    offer = [*gadgets(1000), *OFFER]

    shown = shortlist(PlanningRequest("Will it rain in Hamburg tomorrow?"), offer)

    assert len(shown) <= SHORTLIST
    assert "weather__forecast" in [c.key for c in shown[:5]]


def test_a_capability_the_request_names_is_always_on_the_shortlist() -> None:
    offer = [*OFFER, *gadgets(1000)]

    shown = shortlist(PlanningRequest("Use gadget_717 to look up the blue widget"), offer)

    assert "many__gadget_717" in [c.key for c in shown]
    assert len(shown) <= SHORTLIST + 1


def test_a_small_offer_is_shown_whole() -> None:
    assert shortlist(PlanningRequest("anything"), OFFER) == OFFER
