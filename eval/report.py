"""The benchmark's figures for a person (text) and for machines (JSON)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from eval.case_sets import OVERALL, Tally
from eval.scoring import (
    TARGET_ACCURACY,
    TARGET_INVARIANTS,
    TARGET_INVENTED,
    TARGET_NOT_SCORED,
    TARGET_OTHER_LANGUAGES_REACHED,
    TARGET_SIDE_EFFECTS,
    BatchFigure,
    CaseResult,
    Figures,
    GroupFigure,
    LanguageFigure,
)
from eval.teaching import EntryExamples, suggestion_lines, suggestions_json


def _verdict(met: bool) -> str:
    return "PASS" if met else "FAIL"


def _expected(result: CaseResult) -> str:
    case = result.case
    capability = " or ".join(case.capabilities) if case.capabilities else "no capability"
    return f"{capability} / {' or '.join(case.statuses)}"


def _got(result: CaseResult) -> str:
    if result.answer is None:
        return "no answer"
    return f"{result.answer.capability or 'no capability'} / {result.answer.status}"


def _score(right: int, of: int) -> str:
    return f"{right}/{of} {right / of if of else 0.0:.0%}"


def _before(tally: Tally | None) -> str:
    return _score(tally.right, tally.of) if tally is not None else "not recorded"


def _batch_lines(figure: BatchFigure) -> list[str]:
    """One batch: its score now beside the score it recorded before tuning, overall, then for
    each group with the server it measured."""
    batch = figure.batch
    made = " ".join(part for part in (batch.written, f"by {batch.by}" if batch.by else "") if part)
    lines = [f"  {batch.id}" + (f"  ({made})" if made else "")]
    rows: list[tuple[str, str, GroupFigure, Tally | None]] = [
        ("all groups", "", figure.overall, batch.before_tuning.get(OVERALL))
    ]
    rows += [
        (g.group, batch.servers.get(g.group, ""), g, batch.before_tuning.get(g.group)) for g in figure.groups
    ]
    for name, server, now, before in rows:
        lines.append(
            f"    {name:<12} {server:<50} now {_score(now.right, now.cases):<12} before tuning {_before(before)}"
        )
    if figure.other_languages.cases:
        lines.append(f"    {languages_line(figure.other_languages)}")
    return lines


def languages_line(figure: LanguageFigure) -> str:
    """The requests in other languages: how many reached the right capability, and which ran
    another."""
    wrong = f" ({', '.join(figure.ran_wrong)})" if figure.ran_wrong else ""
    return (
        f"requests in other languages: {figure.cases}; reached the right capability (chosen or among the"
        f" choices): {figure.reached} ({figure.share:.0%}); run wrong: {len(figure.ran_wrong)}{wrong}"
    )


def invariants_line(figures: Figures) -> str:
    broken = figures.invariants_broken
    parts = [
        f"write requests answered by running a read: {len(figures.write_answered_by_read)}"
        + (f" ({', '.join(figures.write_answered_by_read)})" if figures.write_answered_by_read else ""),
        f"requests expecting nothing answered by running something: {len(figures.ran_for_nothing)}"
        + (f" ({', '.join(figures.ran_for_nothing)})" if figures.ran_for_nothing else ""),
    ]
    return (
        f"invariants: {broken} broken; "
        + "; ".join(parts)
        + f"   target {TARGET_INVARIANTS}  {_verdict(figures.targets_met['invariants'])}"
    )


def not_scored_line(figures: Figures) -> str:
    ids = f" ({', '.join(figures.not_scored)})" if figures.not_scored else ""
    return (
        f"cases the file gets wrong (not asked, not scored): {len(figures.not_scored)}{ids}"
        f"   target {TARGET_NOT_SCORED}  {_verdict(figures.targets_met['cases_file'])}"
    )


def _case_lines(result: CaseResult) -> list[str]:
    return [f"  {result.case.id}  [{result.case.group}]  {result.case.request}"]


def render_text(
    results: list[CaseResult],
    figures: Figures,
    *,
    planner: str | None,
    seconds: float,
    title: str = "Selection benchmark",
    suggestions: Sequence[EntryExamples] = (),
) -> str:
    """The report; it ends with the servers-file snippets that teach the planner the requests
    it missed (``suggestions``, eval/teaching.py), the one thing in it to act on at once."""
    met = figures.targets_met
    # Every case of the file, those it gets wrong included (the figures below leave them out).
    lines = [
        f"{title}: {len(results)} cases through `gatehouse ask` on the real servers"
        f" (planner: {planner or 'unknown'}) in {seconds:.0f} s",
        "",
        f"{'group':<12} {'cases':>5} {'right':>5} {'accuracy':>9}",
    ]
    lines += [f"{g.group:<12} {g.cases:>5} {g.right:>5} {g.accuracy:>9.1%}" for g in figures.groups]
    overall = figures.overall
    lines += [
        f"{'overall':<12} {overall.cases:>5} {overall.right:>5} {overall.accuracy:>9.1%}"
        f"   target >= {TARGET_ACCURACY:.0%}  {_verdict(met['accuracy'])}",
        "",
        f"side-effecting capability selected for a read-only request: {figures.side_effects}"
        f"   target {TARGET_SIDE_EFFECTS}  {_verdict(met['side_effects'])}",
        f"invented arguments: {figures.invented}   target {TARGET_INVENTED}  {_verdict(met['invented'])}",
        f"expected arguments all right, where the capability was (context): "
        f"{figures.arguments_right} of {figures.arguments_checked}",
        invariants_line(figures),
        languages_line(figures.other_languages)
        + f"   target >= {TARGET_OTHER_LANGUAGES_REACHED:.0%} reached, 0 run wrong  {_verdict(met['other_languages'])}",
        not_scored_line(figures),
    ]
    if figures.batches:
        lines += ["", "Batches (right now, beside the score recorded before the planner was tuned for them):"]
        for batch in figures.batches:
            lines += _batch_lines(batch)
    # First what to fix in the file: such a case says nothing of the planner until it is.
    unscored = [r for r in results if not r.scored]
    if unscored:
        lines += ["", f"Cases the file gets wrong ({len(unscored)}): fix the file, then run again"]
        for result in unscored:
            lines += _case_lines(result)
            lines += [f"      - {problem}" for problem in result.file_problems]
    failing = [r for r in results if r.scored and r.problems]
    if failing:
        lines += ["", f"Cases with a problem ({len(failing)}):"]
        for result in failing:
            lines += _case_lines(result)
            lines.append(f"      expected {_expected(result)}")
            lines.append(f"      got      {_got(result)}")
            lines += [f"      - {problem}" for problem in result.problems]
    lines += ["", "all targets met" if figures.passed else "target(s) missed"]
    lines += suggestion_lines(suggestions)
    return "\n".join(lines)


def _case_json(result: CaseResult) -> dict[str, Any]:
    answer = result.answer
    return {
        "id": result.case.id,
        "group": result.case.group,
        "request": result.case.request,
        "read_only": result.case.read_only,
        "expected": {
            "capability": list(result.case.capabilities),
            "status": list(result.case.statuses),
            "arguments": result.case.arguments,
            "missing": list(result.case.missing),
        },
        "got": None
        if answer is None
        else {
            "capability": answer.capability,
            "status": answer.status,
            "arguments": answer.arguments,
            "missing": list(answer.missing),
            "response": answer.response,
            "choices": list(answer.choices),
        },
        "right": result.right,
        # False for a case the file gets wrong: not asked, in no figure (file_problems says why).
        "scored": result.scored,
        "file_problems": list(result.file_problems),
        "capability_right": result.capability_right,
        "status_right": result.status_right,
        "batch": result.case.batch,
        "side_effect": result.side_effect or None,
        "invariants_broken": list(result.broken),
        "invented": result.invented,
        "argument_problems": result.argument_problems,
        "problems": result.problems,
    }


def _tally_json(tally: Tally | None) -> dict[str, Any] | None:
    if tally is None:
        return None
    return {"right": tally.right, "of": tally.of, "accuracy": tally.accuracy}


def _languages_json(figure: LanguageFigure) -> dict[str, Any]:
    return {"cases": figure.cases, "reached": figure.reached, "ran_wrong": figure.ran_wrong}


def _batch_json(figure: BatchFigure) -> dict[str, Any]:
    batch = figure.batch
    return {
        "id": batch.id,
        "written": batch.written or None,
        "by": batch.by or None,
        "source": batch.source or None,
        "note": batch.note or None,
        "now": {
            "cases": figure.overall.cases,
            "right": figure.overall.right,
            "accuracy": figure.overall.accuracy,
        },
        "before_tuning": _tally_json(batch.before_tuning.get(OVERALL)),
        "other_languages": _languages_json(figure.other_languages),
        "groups": {
            g.group: {
                "server": batch.servers.get(g.group),
                "now": {"cases": g.cases, "right": g.right, "accuracy": g.accuracy},
                "before_tuning": _tally_json(batch.before_tuning.get(g.group)),
            }
            for g in figure.groups
        },
    }


def render_json(
    results: list[CaseResult],
    figures: Figures,
    *,
    planner: str | None,
    seconds: float,
    suggestions: Sequence[EntryExamples] | None = None,
) -> dict[str, Any]:
    """The report as data; with ``suggestions`` (`gatehouse eval FILE`), also under
    ``suggested_examples``."""
    report = {
        "planner": planner,
        "seconds": round(seconds, 1),
        "targets": {
            "accuracy": TARGET_ACCURACY,
            "side_effects": TARGET_SIDE_EFFECTS,
            "invented": TARGET_INVENTED,
            "invariants": TARGET_INVARIANTS,
            "other_languages_reached": TARGET_OTHER_LANGUAGES_REACHED,
            "cases_file": TARGET_NOT_SCORED,
        },
        "figures": {
            "accuracy": figures.overall.accuracy,
            "cases": figures.overall.cases,
            "right": figures.overall.right,
            "side_effects": figures.side_effects,
            "invented": figures.invented,
            "arguments_checked": figures.arguments_checked,
            "arguments_right": figures.arguments_right,
            "groups": {
                g.group: {"cases": g.cases, "right": g.right, "accuracy": g.accuracy} for g in figures.groups
            },
            "invariants": {
                "broken": figures.invariants_broken,
                "write_answered_by_read": figures.write_answered_by_read,
                "ran_for_nothing": figures.ran_for_nothing,
            },
            "other_languages": _languages_json(figures.other_languages),
            "not_scored": figures.not_scored,
        },
        "batches": [_batch_json(b) for b in figures.batches],
        "targets_met": figures.targets_met,
        "passed": figures.passed,
        "cases": [_case_json(r) for r in results],
    }
    if suggestions is not None:
        report["suggested_examples"] = suggestions_json(suggestions)
    return report
