"""One case per rule of graph/planner/arguments.py's tables (ROLE_RULES, NUMBER_RULES): a
hand-made property and request the rule decides, so the value is read with the table whole
and not with that rule taken out. A rule that answers NO_VALUE is shown stopping the looser
rules after it; and the order the table's comment promises."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from graph.planner import arguments
from graph.planner.arguments import _role_value

TEXT = {"type": "string"}
NUMBER = {"type": "integer"}
STRINGS = {"type": "array", "items": {"type": "string"}}


def described(description: str, kind: str = "string", **more: Any) -> dict[str, Any]:
    return {"type": kind, "description": description, **more}


@dataclass(frozen=True)
class Case:
    rule: Callable[..., Any]
    name: str
    shape: dict[str, Any]
    text: str
    expected: tuple[Any, str] | None
    # Whether the rule alone decides the case (taken out, the answer changes); a rule whose
    # value another rule would also find still has a case that shows why it comes first.
    decisive: bool = True

    @property
    def id(self) -> str:
        return f"{self.rule.__name__}:{self.name}:{self.text}"

    def value(self) -> tuple[Any, str] | None:
        return _role_value(self.name, self.shape, self.text, set())


ROLE_CASES = [
    Case(
        arguments._copies,
        "cc",
        STRINGS,
        "email bob@x.org, cc grace@example.org",
        (["grace@example.org"], "addresses after 'cc'"),
    ),
    # NO_VALUE: an address that is not labelled a copy is the recipient's.
    Case(arguments._copies, "cc", STRINGS, "email bob@x.org about cc things", None),
    Case(
        arguments._list_of_values,
        "tags",
        STRINGS,
        "label it with tags a, b and c",
        (["a", "b", "c"], "the tags listed in the request (a, b and c)"),
    ),
    Case(
        arguments._in_plain_words,
        "expression",
        described("A math expression"),
        "what is 3 + 4",
        ("3 + 4", "arithmetic in the request (3 + 4)"),
    ),
    Case(arguments._sql_never_made_up, "sql", TEXT, "run sql fast", None),
    Case(
        arguments._quantity_in_its_unit,
        "timeout_seconds",
        NUMBER,
        "wait 2 minutes",
        ("120", "'2 minutes' in seconds (2 minutes)"),
    ),
    Case(
        arguments._declared_uri,
        "source",
        {"type": "string", "format": "uri"},
        "fetch source data from https://example.org/a",
        ("https://example.org/a", "URI in the request"),
        decisive=False,
    ),
    Case(arguments._declared_uri, "source", {"type": "string", "format": "uri"}, "fetch source data", None),
    Case(arguments._pattern, "pattern", TEXT, "find *.md files", ("*.md", "pattern in the request")),
    Case(arguments._pattern, "pattern", TEXT, "match pattern foo", None),
    Case(arguments._revision, "rev", TEXT, "show rev abc1234", ("abc1234", "revision in the request")),
    Case(arguments._revision, "rev", TEXT, "show rev foo", None),
    Case(
        arguments._branch, "branch", TEXT, "switch to feature-x", ("feature-x", "the branch after 'switch'")
    ),
    Case(
        arguments._name_of_a_thing,
        "sheet_name",
        TEXT,
        "open the sheet named Q3",
        ("Q3", "the name after 'named'"),
    ),
    Case(arguments._place, "city", TEXT, "the weather in Paris", ("Paris", "the place named in the request")),
    Case(
        arguments._reference, "target", TEXT, "diff compared to main", ("main", "the name after 'compared'")
    ),
    Case(
        arguments._topic,
        "topic",
        TEXT,
        "write a poem about the sea, and make it short",
        ("sea", "text after 'on'"),
    ),
    Case(
        arguments._time_zone,
        "timezone",
        TEXT,
        "the time in Europe/Paris",
        ("Europe/Paris", "time zone named in the request (Europe/Paris)"),
    ),
    Case(arguments._time_zone, "timezone", TEXT, "timezone foo", None),
    Case(
        arguments._end_of_a_period,
        "start_date",
        described("Start date"),
        "sales between 2024-03-01 and 2024-03-31",
        ("2024-03-01", "'between 2024-03-01 and 2024-03-31' in the request"),
    ),
    Case(
        arguments._relative_date,
        "since",
        described("Start, relative like 2 weeks ago"),
        "commits in the last 2 weeks",
        ("2 weeks", "'in the last 2 weeks' in the request"),
    ),
    Case(
        arguments._declared_date,
        "when",
        {"type": "string", "format": "date"},
        "on 2024-03-01 please",
        ("2024-03-01", "date in the request"),
    ),
    Case(arguments._declared_date, "due", {"type": "string", "format": "date"}, "due friday", None),
    Case(
        arguments._time_of_day_rule,
        "time",
        TEXT,
        "wake me at 9am",
        ("09:00", "time of day in the request (9am)"),
    ),
    Case(arguments._time_of_day_rule, "time", TEXT, "time foo", None),
    Case(
        arguments._anchor_quoted,
        "search_text",
        TEXT,
        "add a footnote right after '48,000 euros' saying: see Q3",
        ("48,000 euros", "the text after 'after' (48,000 euros)"),
    ),
    Case(
        arguments._email_address,
        "to",
        TEXT,
        "send it to bob@x.org",
        ("bob@x.org", "e-mail address in the request"),
    ),
    Case(
        arguments._folder_path,
        "repo_path",
        TEXT,
        "status of /srv/repo",
        ("/srv/repo", "folder path in the request"),
    ),
    Case(arguments._folder_path, "repo", TEXT, "repo foo", None),
    Case(arguments._file_path, "path", TEXT, "read notes.md", ("notes.md", "file name in the request")),
    Case(
        arguments._folder_in_words,
        "pathPrefix",
        TEXT,
        "look only in the Meetings folder",
        ("Meetings", "the folder named in the request (Meetings)"),
    ),
    Case(
        arguments._file_name,
        "doc_name",
        described("the file to open"),
        "open report.pdf",
        ("report.pdf", "file name in the request"),
    ),
    Case(
        arguments._uri, "url", TEXT, "open https://example.org", ("https://example.org", "URI in the request")
    ),
    Case(arguments._number_or_id, "limit", NUMBER, "limit 5", ("5", "number after 'limit'")),
    Case(arguments._number_after_its_name, "limit", NUMBER, "limit 5", ("5", "number after 'limit'")),
    Case(
        arguments._said_by_its_noun,
        "start_line",
        NUMBER,
        "show lines ten through twenty",
        (10, "the start of 'lines ten through twenty' (ten)"),
    ),
    Case(arguments._count_stated, "limit", NUMBER, "the first 5 please", ("5", "'first 5' in the request")),
    Case(
        arguments._things_counted,
        "count",
        described("Number of lines", "integer"),
        "show me 3 lines of the log",
        ("3", "'3 lines' in the request"),
    ),
    Case(arguments._count_in_words, "limit", NUMBER, "limit five", ("5", "number after 'limit'")),
    Case(
        arguments._count_placed,
        "tail_size",
        described("returns only the last N lines", "integer"),
        "the last 3 lines",
        ("3", "'last 3' in the request"),
    ),
    Case(
        arguments._the_only_number,
        "id",
        NUMBER,
        "close the one numbered 42",
        ("42", "the only number in the request"),
    ),
    Case(
        arguments._text_after_its_colon,
        "insight",
        TEXT,
        "Add this insight to the memo: Madrid customers buy monitors",
        ("Madrid customers buy monitors", "text after the colon that follows its name"),
    ),
    Case(
        arguments._content_said,
        "body",
        TEXT,
        "email bob saying hello there",
        ("hello there", "text after 'saying'"),
    ),
    Case(
        arguments._subject,
        "subject",
        TEXT,
        "mail bob with subject Quarterly numbers",
        ("Quarterly numbers", "text after 'subject'"),
    ),
    Case(arguments._person, "name", TEXT, "greet Alice", ("Alice", "capitalised name in the request")),
    Case(arguments._query, "query", TEXT, "search for billing", ("billing", "text after 'for'")),
    Case(
        arguments._name_before_its_label,
        "customer",
        TEXT,
        "show the Acme customer",
        ("Acme", "the name before 'customer'"),
    ),
    Case(
        arguments._word_after_its_label,
        "priority",
        TEXT,
        "set priority urgent",
        ("urgent", "word after 'priority'"),
    ),
]


@pytest.mark.parametrize("case", ROLE_CASES, ids=lambda c: c.id)
def test_the_rule_decides_its_case(case: Case, monkeypatch: pytest.MonkeyPatch) -> None:
    assert case.value() == case.expected
    for table in ("ROLE_RULES", "NUMBER_RULES"):
        rules = getattr(arguments, table)
        monkeypatch.setattr(arguments, table, tuple(r for r in rules if r is not case.rule))
    if case.decisive:
        assert case.value() != case.expected


def test_every_rule_has_a_decisive_case() -> None:
    decided = {case.rule for case in ROLE_CASES if case.decisive}
    for rule in (*arguments.ROLE_RULES, *arguments.NUMBER_RULES):
        assert rule in decided, f"{rule.__name__} has no case here"
        assert rule.__doc__, f"{rule.__name__} does not say why it exists"


def test_a_list_comes_before_any_single_value(monkeypatch: pytest.MonkeyPatch) -> None:
    # Copies before the list: "cc" lists only labelled addresses, not every word after it.
    case = ROLE_CASES[1]
    assert case.value() is None
    rules = [r for r in arguments.ROLE_RULES if r is not arguments._copies]
    monkeypatch.setattr(arguments, "ROLE_RULES", (arguments._list_of_values, arguments._copies, *rules[1:]))
    assert case.value() == (["things"], "the ccs listed in the request (things)")


def test_what_the_schema_declares_comes_before_the_word_after_the_name(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rules = arguments.ROLE_RULES
    assert rules[-1] is arguments._word_after_its_label
    assert rules.index(arguments._declared_uri) < rules.index(arguments._uri)
    assert rules.index(arguments._in_plain_words) < rules.index(arguments._sql_never_made_up)
    assert rules.index(arguments._number_or_id) < rules.index(arguments._text_after_its_colon)
    # Last resort last: put first, a time would be the word as written, not a time of day.
    assert _role_value("time", TEXT, "time 9am", set()) == ("09:00", "time of day in the request (9am)")
    monkeypatch.setattr(arguments, "ROLE_RULES", (arguments._word_after_its_label, *rules[:-1]))
    assert _role_value("time", TEXT, "time 9am", set()) == ("9am", "word after 'time'")
