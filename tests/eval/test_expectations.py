"""A team's cases checked against the live listing before any is asked (eval/expectations.py):
a key no configured server offers, or an argument name the capability's schema does not have, is
a mistake in the file, said plainly, and the case is left out of the score, not counted as the
planner's miss (the run on real servers: tests/gatehouse/cli/test_cli_eval.py)."""

from __future__ import annotations

from typing import Any

from eval.cases import Case
from eval.expectations import expectation_problems
from eval.report import render_json, render_text
from eval.scoring import Answer, figures, score_case, unscored_case
from mcp_host.errors import ErrorInfo
from mcp_host.manifest import Capability, Manifest, ServerManifest, capability_key


def _tool(server: str, name: str, schema: dict[str, Any] | None = None) -> Capability:
    return Capability(
        key=capability_key(server, name),
        server=server,
        type="tool",
        name=name,
        input_schema=schema if schema is not None else {"type": "object", "properties": {}},
    )


def _schema(*names: str, **more: Any) -> dict[str, Any]:
    return {"type": "object", "properties": {name: {"type": "string"} for name in names}} | more


MANIFEST = Manifest(
    servers=[
        ServerManifest(
            name="shop-db",
            ok=True,
            capabilities=[_tool("shop-db", "list_tables"), _tool("shop-db", "read_query", _schema("query"))],
        ),
        ServerManifest(
            name="team-files",
            ok=True,
            capabilities=[
                _tool("team-files", "read_text_file", _schema("path", "head", "tail")),
                _tool("team-files", "read_file", _schema("path")),
                _tool("team-files", "anything", {"type": "object", "additionalProperties": True}),
                _tool("team-files", "untyped", {"type": "object"}),
            ],
        ),
        ServerManifest(name="down", ok=False, error=ErrorInfo(kind="unavailable", message="no such file")),
    ]
)


def _case(capability: str | tuple[str, ...] | None, **more: Any) -> Case:
    keys = (capability,) if isinstance(capability, str) else (capability or ())
    fields: dict[str, Any] = {
        "id": "a-case",
        "group": "shop-db",
        "request": "Which tables does the shop database have?",
        "capabilities": keys,
        "statuses": ("ok",),
        "read_only": True,
    }
    return Case(**(fields | more))


def test_a_key_no_configured_server_offers_says_so_with_the_closest_one() -> None:
    assert expectation_problems(_case("shop-db__list_table"), MANIFEST) == [
        "no configured server offers shop-db__list_table; did you mean shop-db__list_tables?"
    ]
    # Another server's name, or nothing near: how many there are, and where to look.
    assert expectation_problems(_case("shop__list_tables"), MANIFEST) == [
        "no configured server offers shop__list_tables; did you mean shop-db__list_tables?"
    ]
    assert expectation_problems(_case("weather__forecast"), MANIFEST) == [
        "no configured server offers weather__forecast; 6 capabilities are offered"
        " (`gatehouse capabilities` lists them)"
    ]


def test_one_wrong_key_among_several_is_still_the_files_problem() -> None:
    case = _case(("team-files__read_text_file", "team-files__read_fil"), group="team-files")
    assert expectation_problems(case, MANIFEST) == [
        "no configured server offers team-files__read_fil; did you mean team-files__read_file?"
    ]


def test_a_key_of_a_server_that_failed_to_start_is_the_servers_problem_not_the_files() -> None:
    # The server's own problem is reported as a warning, and its cases count as wrong, as before.
    assert expectation_problems(_case("down__anything"), MANIFEST) == []


def test_an_argument_name_the_schema_does_not_have_is_named_with_the_one_it_likely_meant() -> None:
    case = _case("team-files__read_text_file", arguments={"pth": "plan.md"})
    assert expectation_problems(case, MANIFEST) == [
        "team-files__read_text_file has no argument 'pth'; did you mean path?"
    ]
    far = _case("team-files__read_text_file", arguments={"encoding": "utf-8"})
    assert expectation_problems(far, MANIFEST) == [
        "team-files__read_text_file has no argument 'encoding'; it takes head, path, tail"
    ]
    none = _case("shop-db__list_tables", arguments={"schema": "main"})
    assert expectation_problems(none, MANIFEST) == [
        "shop-db__list_tables has no argument 'schema'; it takes none"
    ]


def test_the_names_a_question_must_ask_for_are_argument_names_too() -> None:
    case = _case("shop-db__read_query", statuses=("needs_clarification",), missing=("qurey",))
    assert expectation_problems(case, MANIFEST) == [
        "shop-db__read_query has no argument 'qurey' (named in missing); did you mean query?"
    ]


def test_with_several_keys_a_name_any_of_them_takes_is_right() -> None:
    keys = ("team-files__read_text_file", "team-files__read_file")
    assert expectation_problems(_case(keys, arguments={"path": "a", "head": 3}), MANIFEST) == []
    assert expectation_problems(_case(keys, arguments={"pth": "a"}), MANIFEST) == [
        "none of team-files__read_text_file, team-files__read_file has an argument 'pth'; did you mean path?"
    ]


def test_a_schema_open_to_any_name_accepts_every_name() -> None:
    for name in ("team-files__anything", "team-files__untyped"):
        assert expectation_problems(_case(name, arguments={"whatever": 1}), MANIFEST) == []


def test_a_right_case_and_one_expecting_nothing_have_no_problem() -> None:
    assert expectation_problems(_case("shop-db__list_tables"), MANIFEST) == []
    assert expectation_problems(_case(None, statuses=("answered_without_mcp",)), MANIFEST) == []


def test_a_case_the_file_gets_wrong_is_out_of_the_accuracy_listed_and_fails_its_own_target() -> None:
    right = score_case(
        _case("shop-db__list_tables", id="tables"),
        Answer(status="ok", capability="shop-db__list_tables", arguments={}, missing=()),
        {},
    )
    typo = unscored_case(
        _case("shop-db__list_table", id="tables-typo"),
        ["no configured server offers shop-db__list_table; did you mean shop-db__list_tables?"],
    )
    results = [right, typo]
    summary = figures(results)

    assert (summary.overall.cases, summary.overall.right) == (1, 1)
    assert [(g.group, g.cases, g.right) for g in summary.groups] == [("shop-db", 1, 1)]
    assert summary.not_scored == ["tables-typo"]
    assert summary.targets_met["accuracy"] is True
    assert summary.targets_met["cases_file"] is False
    assert not summary.passed
    assert not typo.right and not typo.scored

    text = render_text(results, summary, planner="p", seconds=1.0)
    assert "wrong capability" not in text
    assert "got      shop-db__list_tables" not in text
    assert "2 cases through `gatehouse ask`" in text
    assert "cases the file gets wrong (not asked, not scored): 1 (tables-typo)   target 0  FAIL" in text
    lines = text.splitlines()
    start = lines.index("Cases the file gets wrong (1): fix the file, then run again")
    assert lines[start + 1 : start + 3] == [
        "  tables-typo  [shop-db]  Which tables does the shop database have?",
        "      - no configured server offers shop-db__list_table; did you mean shop-db__list_tables?",
    ]
    assert "Cases with a problem" not in text

    data = render_json(results, summary, planner="p", seconds=1.0)
    assert data["figures"]["not_scored"] == ["tables-typo"]
    assert data["targets"]["cases_file"] == 0
    assert data["targets_met"]["cases_file"] is False
    assert [(c["id"], c["scored"], c["file_problems"]) for c in data["cases"]] == [
        ("tables", True, []),
        ("tables-typo", False, [typo.file_problems[0]]),
    ]


def test_a_file_with_no_such_case_passes_its_target() -> None:
    right = score_case(
        _case("shop-db__list_tables"),
        Answer(status="ok", capability="shop-db__list_tables", arguments={}, missing=()),
        {},
    )
    summary = figures([right])
    assert summary.targets_met["cases_file"] is True and summary.passed
    text = render_text([right], summary, planner="p", seconds=1.0)
    assert "cases the file gets wrong (not asked, not scored): 0   target 0  PASS" in text
    assert "Cases the file gets wrong (" not in text
