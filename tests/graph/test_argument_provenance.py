"""Which argument values are the operator's words (stated) and which a planner made (derived):
a citation is tied to its value, and only a normalisation Gatehouse can show counts as stated."""

from __future__ import annotations

from typing import Any

import pytest

from graph.planner.citations import verify_arguments
from graph.planner.deterministic import DeterministicPlanner
from graph.planner.protocol import PlanningRequest
from mcp_host.manifest import Capability, capability_key


def tool(name: str, properties: dict[str, Any], server: str = "files") -> Capability:
    return Capability(
        key=capability_key(server, name),
        server=server,
        type="tool",
        name=name,
        description="A tool.",
        input_schema={"type": "object", "properties": properties},
    )


def proposed(
    capability: Capability, value: Any, citation: str, said: str, roots: tuple[str, ...] = ()
) -> tuple[str, str]:
    """The kind and words of the one argument a model proposes, citing ``citation``."""
    (name,) = capability.properties
    extraction = verify_arguments(capability, {name: value}, {name: citation}, said, roots).extraction
    provenance = extraction.provenance[name]
    return provenance.kind, provenance.words


TEXT = tool("lookup", {"city": {"type": "string"}})
PATH = tool("read_file", {"path": {"type": "string"}})
COUNT = tool("tail", {"lines": {"type": "integer"}})
TIMEOUT = tool("wait", {"timeout_seconds": {"type": "number"}})
ZONE = tool("now", {"timezone": {"type": "string", "description": "An IANA time zone."}})
AT = tool("remind", {"time": {"type": "string"}})
LEVEL = tool("filter", {"priority": {"type": "string", "enum": ["low", "high"]}})
PATTERN = tool("find", {"pattern": {"type": "string"}})
FLAG = tool("list", {"recursive": {"type": "boolean"}})
PATHS = tool("stage", {"paths": {"type": "array", "items": {"type": "string"}}})


@pytest.mark.parametrize(
    ("capability", "value", "citation", "said", "words"),
    [
        (TEXT, "Paris", "Paris", "What's the weather in Paris?", "Paris"),
        (TEXT, "New York", "new  york", "Weather in New\nYork", "New\nYork"),
        (ZONE, "Asia/Tokyo", "in Tokyo", "What time is it in Tokyo?", "Tokyo"),
        (COUNT, 5, "last five lines", "Show the last five lines", "five"),
        (COUNT, 21, "twenty-one lines", "Show twenty-one lines", "twenty-one"),
        (COUNT, 42, "#42", "Show line #42", "#42"),
        (TIMEOUT, 7200, "2 hours", "Wait 2 hours", "2 hours"),
        (TIMEOUT, 90, "wait 1.5 minutes", "wait 1.5 minutes", "1.5 minutes"),
        (TIMEOUT, 600, "ten minutes", "wait ten minutes", "ten minutes"),
        (AT, "09:00", "9am", "Remind me at 9am", "9am"),
        (LEVEL, "high", "HIGH priority", "Only HIGH priority tickets", "HIGH"),
        (LEVEL, "high", "high-priority", "the high-priority tickets", "high"),
        (PATTERN, "*.py", "Python files", "Find the Python files", "Python files"),
        (FLAG, True, "recursive=yes", "list it recursive=yes", "recursive=yes"),
        (PATHS, ["a.py", "b.py"], "a.py and b.py", "stage a.py and b.py", "a.py, b.py"),
    ],
)
def test_the_operators_words_or_a_normalisation_gatehouse_can_show_are_stated(
    capability: Capability, value: Any, citation: str, said: str, words: str
) -> None:
    assert proposed(capability, value, citation, said) == ("stated", words)


def test_a_path_named_relative_to_its_servers_folder_is_stated_when_joined_to_it() -> None:
    said = "Read sample.txt"

    assert proposed(PATH, "/srv/project/sample.txt", "sample.txt", said, ("/srv/project",)) == (
        "stated",
        "sample.txt",
    )
    # Joined to another folder, or climbing out of it, it is the model's making.
    assert proposed(PATH, "/srv/other/sample.txt", "sample.txt", said, ("/srv/project",))[0] == "derived"
    assert proposed(PATH, "/srv/sample.txt", "sample.txt", said, ("/srv/project",))[0] == "derived"
    assert proposed(PATH, "/srv/project/sample.txt", "sample.txt", said)[0] == "derived"


@pytest.mark.parametrize(
    ("capability", "value", "citation", "said"),
    [
        # More than the citation says, or something else entirely.
        (
            TEXT,
            "Paris ghp_8fK2mQ7vX1cR9tB4nW6yL3pZ0sD5hJaE",
            "Paris",
            "Paris. ghp_8fK2mQ7vX1cR9tB4nW6yL3pZ0sD5hJaE",
        ),
        (PATH, "notes.md", "sample.txt", "Read sample.txt, not notes.md"),
        (TEXT, "Lyon", "Paris", "Weather in Paris"),
        # Part of a word, of a path, of an address or of a number.
        (TEXT, "Par", "Paris", "Weather in Paris"),
        (PATH, "sample.txt", "notes/sample.txt", "Read notes/sample.txt"),
        (PATH, "notes", "notes.md", "Read notes.md"),
        (TEXT, "example.com", "bob@example.com", "Mail bob@example.com"),
        (COUNT, 1, "100 lines", "Show 100 lines"),
        # Case and look-alike characters are not whitespace: the value differs.
        (PATH, "Notes.md", "notes.md", "Read notes.md"),
        (TEXT, "Ｐaris", "Paris", "Weather in Paris"),
        # A number the words do not give, or a conversion to a unit the argument does not name.
        (COUNT, 6, "five lines", "Show five lines"),
        (COUNT, 120, "2 hours", "Show 2 hours of lines"),
        (ZONE, "Europe/Paris", "in Tokyo", "What time is it in Tokyo?"),
        (FLAG, True, "recursively", "list it recursively"),
        (FLAG, False, "recursive", "not recursive, no"),
        (PATHS, ["a.py", "secrets.env"], "a.py", "stage a.py"),
        (TEXT, {"city": "Paris"}, "Paris", "Weather in Paris"),
    ],
)
def test_a_value_its_citation_does_not_state_is_derived_from_the_cited_words(
    capability: Capability, value: Any, citation: str, said: str
) -> None:
    assert proposed(capability, value, citation, said) == ("derived", citation)


def test_the_deterministic_planners_normalisations_are_stated_with_the_words_they_came_from() -> None:
    convert = tool(
        "convert_time",
        {
            "source_timezone": {"type": "string", "description": "IANA zone"},
            "time": {"type": "string"},
            "target_timezone": {"type": "string", "description": "IANA zone"},
        },
        server="time",
    )
    request = PlanningRequest("Convert 9am from Tokyo to New York")

    extraction = DeterministicPlanner().extract(convert, request)

    assert extraction.arguments == {
        "source_timezone": "Asia/Tokyo",
        "time": "09:00",
        "target_timezone": "America/New_York",
    }
    assert {name: (p.kind, p.words) for name, p in extraction.provenance.items()} == {
        "source_timezone": ("stated", "Tokyo"),
        "time": ("stated", "9am"),
        "target_timezone": ("stated", "New York"),
    }


def test_every_argument_the_deterministic_planner_reads_is_stated() -> None:
    send = tool(
        "send_email",
        {"to": {"type": "string"}, "subject": {"type": "string"}, "body": {"type": "string"}},
        server="email",
    )
    request = PlanningRequest("Email bob@example.com with subject 'Build' saying the build is green.")

    extraction = DeterministicPlanner().extract(send, request)

    assert set(extraction.arguments) == {"to", "subject", "body"}
    assert {p.kind for p in extraction.provenance.values()} == {"stated"}
