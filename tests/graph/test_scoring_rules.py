"""One case per rule of graph/planner/scoring.py's tables (SCORING_RULES, KIND_RULES,
ACTION_RULES): each hand-made capability and request makes its rule speak, so the reason is
in the score with the table whole and gone with that rule taken out. And the order the
tables' comments promise: what reads the score so far comes after what it reads."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pytest

from graph.planner import scoring
from graph.planner.scoring import ScoredCapability, Vocabulary, score_capability
from mcp_host.manifest import Capability


def cap(
    name: str,
    description: str = "",
    properties: dict[str, Any] | None = None,
    required: Sequence[str] = (),
    *,
    server: str = "desk",
    type: str = "tool",
    **extra: Any,
) -> Capability:
    schema: dict[str, Any] = {"type": "object", "properties": properties or {}}
    if required:
        schema["required"] = list(required)
    return Capability(
        key=f"{server}__{name}",
        server=server,
        type=type,  # type: ignore[arg-type]
        name=name,
        description=description,
        input_schema=schema,
        **extra,
    )


TEXT = {"type": "string"}
PATH = {"type": "string", "description": "Path of the file"}


@dataclass(frozen=True)
class Case:
    rule: Callable[..., Any]
    capability: Capability
    text: str
    # The start of the reason the rule gives (after its points).
    reason: str
    operation_type: str = "tool"
    others: tuple[Capability, ...] = ()
    preferences: tuple[str, ...] = ()
    folders: Mapping[str, Sequence[str]] = field(default_factory=dict)
    similarity: float | None = None
    next_similarity: float = 0.0

    @property
    def id(self) -> str:
        return self.rule.__name__

    def score(self) -> ScoredCapability:
        vocabulary = Vocabulary.of([self.capability, *self.others])
        return score_capability(
            self.capability,
            self.text,
            self.operation_type,
            list(self.preferences),
            vocabulary,
            self.folders,
            self.similarity,
            self.next_similarity,
        )


def _said(scored: ScoredCapability, points: tuple[float, str]) -> bool:
    return f"{points[0]:+g} {points[1]}" in scored.reasons


READ_FILE = cap("read_file", "Read a file's contents.", {"path": PATH}, ["path"], server="files")
DELETE_FILE = cap("delete_file", "Delete a file.", {"path": PATH}, ["path"], server="files")
GIT_COMMIT = cap(
    "git_commit", "Record changes to the repository.", {"message": TEXT}, ["message"], server="git"
)
CALCULATE = cap(
    "calculate",
    "Evaluate a math expression.",
    {"expression": {"type": "string", "description": "A math expression"}},
)
DEPOT_QUERY = cap(
    "query_rows", "Execute a SELECT statement on the depot database.", {"sql": TEXT}, ["sql"], server="depot"
)
DEPOT_CHANGE = cap(
    "change_rows",
    "Execute an INSERT, UPDATE or DELETE statement on the depot database.",
    {"sql": TEXT},
    ["sql"],
    server="depot",
)
NOTES_LIST = cap("list_notes", "List the notes kept in the jotter.", server="jotter")
NOTES_SEARCH = cap(
    "search_notes", "Search the notes for a phrase.", {"query": TEXT}, ["query"], server="jotter"
)

SCORING_CASES = [
    Case(scoring._name_matches, READ_FILE, "read notes.md", "name matches"),
    Case(
        scoring._name_says_more,
        cap("list_allowed_directories", "List the directories it may use.", server="files"),
        "list the directories",
        "name also says allowed",
    ),
    Case(scoring._name_says_the_request_word, READ_FILE, "read notes.md", "name says read as asked"),
    Case(scoring._server_named, GIT_COMMIT, "commit in git with message fix", "server git named"),
    Case(
        scoring._another_server_named,
        cap("get_current_time", "The current time in a zone.", {"timezone": TEXT}, server="time"),
        "Add Globex to memory",
        "the request names memory, not time",
        others=(cap("create_entities", "Create entities in the graph.", {"names": TEXT}, server="memory"),),
    ),
    Case(
        scoring._file_of_another_servers_format,
        READ_FILE,
        "Find Marketing in budget.xlsx",
        "the request's file is of a format only excel works with",
        others=(cap("read_sheet", "Read a sheet of an Excel workbook.", {"workbook": TEXT}, server="excel"),),
    ),
    Case(
        scoring._parameters_named,
        cap("checkout", "Switch to another place.", {"branch": TEXT}, server="git"),
        "checkout the branch main",
        "parameters branch named",
    ),
    Case(
        scoring._enum_values_stated,
        cap("list_tickets", "List tickets.", {"status": {"type": "string", "enum": ["open", "closed"]}}),
        "list the closed tickets",
        "values closed stated",
    ),
    Case(
        scoring._description_mentions,
        cap("outlook", "Shows the weather forecast."),
        "what's the forecast",
        "description mentions",
    ),
    Case(
        scoring._description_phrases,
        cap("recent", "Entries sorted by last modified date."),
        "entries by last modified",
        "description says last modify as asked",
    ),
    Case(
        scoring._uri_named,
        cap("readme", "The readme.", type="resource", uri="file:///docs/readme.md"),
        "show file:///docs/readme.md",
        "URI named in the request",
        operation_type="resource",
    ),
    Case(
        scoring._description_opens_with_the_verb,
        cap("git_reset", "Unstage all staged changes.", server="git"),
        "unstage the changes",
        "its description opens with the request's verb (unstage)",
    ),
    Case(
        scoring._admin_alias,
        cap("deploy", "Deploy the service.", aliases=["ship it"]),
        "ship it now",
        "the request says 'ship it', another name the admin gave it",
    ),
    Case(
        scoring._admin_example,
        cap("deploy", "Deploy the service.", examples=["roll the service out to production"]),
        "roll the service out to production",
        "the request is worded like the admin's example",
    ),
    Case(
        scoring._word_problem,
        CALCULATE,
        "If one pizza has 8 slices, how many slices do 7 pizzas have?",
        "the request is a word problem",
    ),
    Case(
        scoring._data_question,
        DEPOT_QUERY,
        "How many shipments went out since 1 November?",
        "",
        others=(DEPOT_CHANGE, NOTES_LIST, NOTES_SEARCH),
    ),
    Case(
        scoring._data_change,
        DEPOT_CHANGE,
        "Set the price of the Mouse to 17.90",
        "",
        others=(DEPOT_QUERY, NOTES_LIST, NOTES_SEARCH),
    ),
    Case(
        scoring._similar_in_meaning,
        cap("move_file", "Move or rename a file.", {"source": TEXT, "destination": TEXT}),
        "zzz",
        "its description means what the request asks (similarity 0.60)",
        similarity=0.6,
        next_similarity=0.3,
    ),
    Case(scoring._kind_asked_for, READ_FILE, "read notes.md", "a tool was asked for"),
    Case(
        scoring._prompt_not_asked_for,
        cap("summarise", "Summarise a text.", type="prompt"),
        "summarise this text",
        "a prompt, but none was asked for",
    ),
    Case(
        scoring._prompt_asked_for, READ_FILE, "read notes.md", "a tool, but a prompt was asked for", "prompt"
    ),
    Case(
        scoring._reading_tool_for_a_resource,
        READ_FILE,
        "read notes.md",
        "a tool that reads, for a read",
        "resource",
    ),
    Case(
        scoring._resource_for_a_read,
        cap("notes", "The notes.", type="resource", uri="notes://all"),
        "show the notes",
        "a read, as asked",
    ),
    Case(
        scoring._another_kind,
        cap("notes", "The notes.", type="resource", uri="notes://all"),
        "delete the notes",
        "a resource, but a tool was asked for",
    ),
    Case(
        scoring._search_without_a_query,
        NOTES_LIST,
        "search the notes",
        "it takes nothing to search by",
    ),
    Case(scoring._another_verb, GIT_COMMIT, "push the commits", "the request asks to push; it would commit"),
    Case(
        scoring._opens_with_its_verb,
        cap(
            "uproot_plant",
            "Pull a plant out of the bed.",
            {"plant": TEXT},
            annotations={"destructiveHint": True},
        ),
        "uproot the basil",
        "the request opens with its verb (uproot)",
    ),
    Case(
        scoring._orders_what_it_says,
        cap("copy_sheet", "Duplicate a sheet of a workbook.", {"sheet": TEXT}, server="excel"),
        "Duplicate the Q3 sheet",
        "the request orders what it does (duplicate)",
    ),
    Case(
        scoring._asked_in_the_admins_words,
        cap("deploy_release", "Deploy a release.", {"version": TEXT}, aliases=["ship to production"]),
        "Ship to production",
        "the request asks for it in the admin's words for it",
    ),
    Case(scoring._acts_for_a_read, DELETE_FILE, "show me the files", "it changes something"),
    Case(
        scoring._only_reads_for_a_change,
        READ_FILE,
        "delete notes.md",
        "the request asks to delete; it only reads",
    ),
    Case(
        scoring._does_what_is_asked, DELETE_FILE, "delete notes.md", "it does what the request asks (delete)"
    ),
    Case(
        scoring._does_another_act,
        cap("mailer", "Sends an email to someone.", {"to": TEXT}),
        "delete notes.md",
        "the request asks to delete; ",
    ),
    Case(
        scoring._object_named_rule,
        cap("drop_column", "Drop a column of a table.", {"column": TEXT}),
        "Drop column D",
        "it drops what the request names (column)",
    ),
    Case(
        scoring._undoes_the_order,
        GIT_COMMIT,
        "Undo the last commit",
        "the request asks to undo; it would commit, the opposite",
    ),
    Case(
        scoring._renames_without_a_new_name,
        cap(
            "set_value",
            "Set the value of a key.",
            {"key": TEXT, "value": TEXT},
            ["key", "value"],
            server="store",
        ),
        "Rename the key a to b",
        "the request asks to rename; it takes no new name",
    ),
    Case(scoring._reads_for_a_change, READ_FILE, "delete notes.md", ""),
    Case(
        scoring._preferred_server,
        READ_FILE,
        "read notes.md",
        "server files preferred",
        preferences=("files",),
    ),
    Case(
        scoring._unbounded_listing,
        cap("list_all_records", "Every record."),
        "list the records",
        "returns everything, with no filters or paging",
    ),
    Case(
        scoring._path_in_its_folders,
        READ_FILE,
        "read /srv/notes.md",
        "the path stated is in a folder its server was given",
        folders={"files": ["/srv"]},
    ),
    Case(
        scoring._file_for_a_folder_tool,
        cap("list_directory", "List a folder.", {"path": PATH}, ["path"], server="files"),
        "list sample.txt",
        "the path stated names a file; it works on folders",
    ),
    Case(scoring._arithmetic_stated, CALCULATE, "what's 3 + 4", "the request states arithmetic"),
    Case(scoring._required_arguments_stated, READ_FILE, "read notes.md", "request states path"),
    Case(
        scoring._options_stated,
        cap("read_file", "Read a file.", {"path": PATH, "encoding": TEXT}, ["path"], server="files"),
        "read notes.md with encoding=utf8",
        "request states encoding too",
    ),
    Case(scoring._arguments_missing_or_complete, READ_FILE, "read the file", "request lacks path"),
    Case(
        scoring._paths_left_over, READ_FILE, "show a.md next to b.md", "the request names 2 paths; it takes 1"
    ),
    Case(
        scoring._typed_value_left,
        cap("get_current_time", "The current time in a zone.", {"timezone": TEXT}, server="time"),
        "what would 10:00 Tokyo time be",
        "the request states 10:00",
    ),
    Case(scoring._value_without_a_place, NOTES_LIST, "show /srv/todo.txt", "the request names a path"),
    Case(
        scoring._sql_statement, DEPOT_CHANGE, "Run UPDATE products SET price = 2", "", others=(DEPOT_QUERY,)
    ),
    Case(
        scoring._deprecated,
        cap("old_read", "Deprecated: use read_file.", {"path": PATH}),
        "read notes.md",
        "its server marks it deprecated",
    ),
    Case(scoring._unknown_words_rule, READ_FILE, "order a pizza", "no capability mentions order, pizza"),
]


@pytest.mark.parametrize("case", SCORING_CASES, ids=lambda c: c.id)
def test_the_rule_gives_its_reason(case: Case, monkeypatch: pytest.MonkeyPatch) -> None:
    direct = case.rule(_context(case))
    assert direct is not None, f"{case.id} says nothing of its case"
    assert direct[1].startswith(case.reason)
    assert _said(case.score(), direct)
    # Without the rule, its reason is gone.
    for table in ("SCORING_RULES", "KIND_RULES", "ACTION_RULES"):
        rules = getattr(scoring, table)
        if case.rule in rules:
            monkeypatch.setattr(scoring, table, tuple(r for r in rules if r is not case.rule))
    assert not _said(case.score(), direct)


def _context(case: Case) -> Any:
    """The rule's view of its case, once the rules before it have run (some read what those
    noted)."""
    built: list[Any] = []
    original = scoring._Scoring.finish

    def keep(self: Any) -> ScoredCapability:
        built.append(self)
        return original(self)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(scoring._Scoring, "finish", keep)
        case.score()
    (context,) = built
    if case.rule is scoring._similar_in_meaning:
        context.scored.similarity_points = 0.0  # as before the rule ran
        context.scored.score = 0.0
    return context


def test_every_rule_has_a_case() -> None:
    covered = {case.rule for case in SCORING_CASES}
    steps = {scoring._note_words_said, scoring._note_topic, scoring._kind_fit, scoring._action_fit}
    for rule in (*scoring.SCORING_RULES, *scoring.KIND_RULES, *scoring.ACTION_RULES):
        assert rule in covered | steps, f"{rule.__name__} has no case here"
        assert rule.__doc__, f"{rule.__name__} does not say why it exists"


def test_the_order_the_table_promises() -> None:
    rules = scoring.SCORING_RULES
    at = rules.index
    # Meaning reads what the words gave, and the topic is settled before any bonus.
    assert max(at(r) for r in rules[: at(scoring._note_words_said)]) < at(scoring._similar_in_meaning)
    assert at(scoring._note_words_said) < at(scoring._similar_in_meaning) < at(scoring._note_topic)
    assert at(scoring._note_topic) < min(
        at(scoring._kind_fit), at(scoring._preferred_server), at(scoring._required_arguments_stated)
    )


def test_meaning_fades_as_words_said_it() -> None:
    move = cap("move_file", "Move or rename a file.", {"source": TEXT, "destination": TEXT})
    alone = score_capability(move, "zzz", "tool", [], similarity=0.6, next_similarity=0.3)
    with_words = score_capability(move, "rename it", "tool", [], similarity=0.6, next_similarity=0.3)
    assert alone.similarity_points == scoring.SIMILARITY_WEIGHT
    assert 0 < with_words.similarity_points < alone.similarity_points
    assert alone.by_meaning_only and not with_words.by_meaning_only


def test_a_bonus_lifts_nothing_the_request_is_not_about(monkeypatch: pytest.MonkeyPatch) -> None:
    scored = score_capability(READ_FILE, "hello there", "tool", ["files"])
    assert scored.score == 0.0
    assert scored.reasons[-1] == "capped at 0: nothing in the request refers to files__read_file"
    # With the topic settled after the bonuses, they would make it topical: order matters.
    rules = [r for r in scoring.SCORING_RULES if r is not scoring._note_topic]
    monkeypatch.setattr(scoring, "SCORING_RULES", (*rules, scoring._note_topic))
    assert score_capability(READ_FILE, "hello there", "tool", ["files"]).score > 0


def test_the_first_action_rule_that_speaks_decides(monkeypatch: pytest.MonkeyPatch) -> None:
    uproot = next(c for c in SCORING_CASES if c.rule is scoring._opens_with_its_verb)
    assert not _said(uproot.score(), (scoring.READ_REQUEST_ACTING_TOOL, "it changes something"))
    assert any(r.endswith("the request opens with its verb (uproot)") for r in uproot.score().reasons)
    # Were "it acts, for a read" asked first, the tool would never be chosen.
    rules = [r for r in scoring.ACTION_RULES if r is not scoring._acts_for_a_read]
    monkeypatch.setattr(scoring, "ACTION_RULES", (scoring._acts_for_a_read, *rules))
    assert any("it changes something" in r for r in uproot.score().reasons)


def test_the_first_kind_rule_that_speaks_decides() -> None:
    prompt = cap("summarise", "Summarise a text.", type="prompt")
    reasons = score_capability(prompt, "summarise this text", "prompt", []).reasons
    assert "+2 a prompt was asked for" in reasons
    assert not any("none was asked for" in r for r in reasons)
