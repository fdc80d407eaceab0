"""The benchmark's figures for a person (text) and for machines (JSON)."""

from __future__ import annotations

from typing import Any

from eval.scoring import TARGET_ACCURACY, TARGET_INVENTED, TARGET_SIDE_EFFECTS, CaseResult, Figures


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


def render_text(results: list[CaseResult], figures: Figures, *, planner: str | None, seconds: float) -> str:
    met = figures.targets_met
    lines = [
        f"Selection benchmark: {figures.overall.cases} cases through `gatehouse ask` on the real servers"
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
    ]
    failing = [r for r in results if r.problems]
    if failing:
        lines += ["", f"Cases with a problem ({len(failing)}):"]
        for result in failing:
            lines.append(f"  {result.case.id}  [{result.case.group}]  {result.case.request}")
            lines.append(f"      expected {_expected(result)}")
            lines.append(f"      got      {_got(result)}")
            lines += [f"      - {problem}" for problem in result.problems]
    lines += ["", "all targets met" if figures.passed else "target(s) missed"]
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
        },
        "right": result.right,
        "capability_right": result.capability_right,
        "status_right": result.status_right,
        "side_effect": result.side_effect or None,
        "invented": result.invented,
        "argument_problems": result.argument_problems,
        "problems": result.problems,
    }


def render_json(
    results: list[CaseResult], figures: Figures, *, planner: str | None, seconds: float
) -> dict[str, Any]:
    return {
        "planner": planner,
        "seconds": round(seconds, 1),
        "targets": {
            "accuracy": TARGET_ACCURACY,
            "side_effects": TARGET_SIDE_EFFECTS,
            "invented": TARGET_INVENTED,
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
        },
        "targets_met": figures.targets_met,
        "passed": figures.passed,
        "cases": [_case_json(r) for r in results],
    }
