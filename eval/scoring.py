"""Scoring one answer of Gatehouse against one case, and the figures over all of them.

Pure functions on plain data (a case, a final_output dict, the capability facts), so the
scoring is tested on hand-made answers without any server (tests/eval/test_scoring.py).

- **Right**: the selected capability is one the case accepts (none, when it expects none) and
  the status is one it accepts; a case that expects a clarification also needs the question to
  ask for every argument it names.
- **Side-effecting selection**: a read-only case for which a side-effecting capability was
  selected (eval/facts.py), whatever the status: a review or a refusal still means the wrong
  kind of tool was chosen.
- **Broken invariant** (a failure whatever else is right): a request that asks for a write
  (``read_only`` false) answered by running a capability the host does not rate as acting, with
  the status ``ok``; and a request that expects no capability answered by running one. "Running"
  is the status ``ok`` with a capability selected: what the operator reads as done.
- **Other languages**: a request in another language (its id ends in the language's code, as
  ``-de``, or the planner reads it as one) *reaches* the right capability when it is chosen,
  whatever the status (held for a reviewer, asking for a value), or is among the choices of a
  question; for a case that expects none, when nothing ran. It *runs wrong* when the status is
  ``ok`` with another capability (or any, where none is expected). The bar: none run wrong and at
  least half reach it.
- **Not scored**: a case whose expectation names what no configured server offers (a key, an
  argument name: eval/expectations.py) is a mistake in the cases file, not the planner's miss.
  It is not asked and is left out of every figure but its own: the ids of such cases, with the
  target that there are none (``unscored_case``).
- **Invented argument**: a proposed argument that the case does not expect with that value, whose
  value the request does not state (after normalising case, spaces, quotes and trailing
  slashes) and that is not the default the capability's schema declares.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from eval.case_sets import Batch
from eval.cases import Case
from eval.facts import CapabilityFacts
from graph.planner import languages
from policies.secrets import REDACTED

TARGET_ACCURACY = 0.90
TARGET_SIDE_EFFECTS = 0
TARGET_INVENTED = 0
TARGET_INVARIANTS = 0
TARGET_OTHER_LANGUAGES_REACHED = 0.5
# Cases the file gets wrong (not scored): a run with one measures less than the file says.
TARGET_NOT_SCORED = 0

# The languages a case's id may name at its end ("h3-vault-apollo-de"): ISO 639-1 codes of
# languages operators write in, English aside. A closed list, so "-v2" or "-db" is no language;
# the codes that are also English words or abbreviations ids end in ("ticket-missing-id",
# "greet-hi", "answer-no") are left out: a request in Hebrew, Hindi, Indonesian, Malay or
# Norwegian counts when the planner reads it as another language.
_LANGUAGE_CODES = frozenset(
    "ar bg ca cs da de el es et fa fi fr hr hu it ja ko lt lv nb nl nn pl pt ro ru sk sl sr sv "
    "th tr uk vi zh".split()
)
_ID_LANGUAGE = re.compile(r"-([a-z]{2})$")

# The invariants a case can break, as the report names them.
WRITE_ANSWERED_BY_READ = "a write request answered by running a read"
RAN_FOR_NOTHING = "a request nothing should serve answered by running something"


@dataclass(frozen=True)
class Answer:
    """What Gatehouse answered for one request, read from its final_output."""

    status: str
    capability: str | None
    arguments: dict[str, Any]
    missing: tuple[str, ...]
    response: str = ""
    # The capabilities a question offered the operator to choose between (a clarification).
    choices: tuple[str, ...] = ()

    @property
    def ran(self) -> bool:
        """Whether the operator reads it as done: a capability ran (status ok)."""
        return self.status == "ok" and self.capability is not None


def answer_from_output(output: Mapping[str, Any]) -> Answer:
    selected = output.get("selected_capability")
    key = f"{selected['server']}__{selected['name']}" if selected else None
    review = output.get("review") or {}
    return Answer(
        status=str(output.get("status")),
        capability=key,
        # The planner's proposal, as final_output carries it (graph/output.py).
        arguments=dict(output.get("arguments") or {}),
        missing=tuple(output.get("missing_arguments") or ()),
        response=str(output.get("response") or ""),
        choices=tuple(str(choice["key"]) for choice in review.get("choices") or ()),
    )


def case_language(case: Case) -> str | None:
    """The language a case's request is written in, English being None: the code its id ends
    in, else the one the planner reads it as. The id comes first so a language the planner does
    not know still counts (and counts against it)."""
    named = _ID_LANGUAGE.search(case.id)
    if named and named.group(1) in _LANGUAGE_CODES:
        return named.group(1)
    return languages.detect(case.request)


# -- values ----------------------------------------------------------------------------------


def _text(value: str) -> str:
    """A value or a request as compared: lower case, one space, no surrounding quotes, no
    trailing slash on a path."""
    flat = " ".join(value.casefold().split()).strip("'\"`")
    return flat.rstrip("/") if len(flat) > 1 else flat


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            return None
        return number if math.isfinite(number) else None
    return None


def value_matches(expected: Any, got: Any) -> bool:
    """Whether a proposed value is the expected one, after normalisation."""
    if isinstance(expected, dict) and "one_of" in expected:
        return any(value_matches(option, got) for option in expected["one_of"])
    if isinstance(expected, bool) or isinstance(got, bool):
        return expected is got
    if isinstance(expected, list):
        if not isinstance(got, list) or len(got) != len(expected):
            return False
        remaining = list(got)
        for item in expected:
            found = next((i for i, candidate in enumerate(remaining) if value_matches(item, candidate)), None)
            if found is None:
                return False
            remaining.pop(found)
        return True
    wanted, offered = _number(expected), _number(got)
    if wanted is not None and offered is not None:
        return wanted == offered
    if isinstance(expected, str) and isinstance(got, str):
        return _text(expected) == _text(got)
    return bool(expected == got)


def _number_forms(number: float) -> list[str]:
    if not number.is_integer():
        return [repr(number), str(number), str(number).replace(".", ",")]
    whole = int(number)
    # "1,250" and "1 250" state 1250 as well as "1250" does.
    return list(dict.fromkeys([str(whole), f"{whole:,}", f"{whole:,}".replace(",", " ")]))


def _contains(text: str, fragment: str) -> bool:
    """``fragment`` occurs in ``text`` and is not a piece of a longer word."""
    if not fragment:
        return False
    pattern = re.escape(fragment)
    if fragment[0].isalnum():
        pattern = r"(?<![\w])" + pattern
    if fragment[-1].isalnum():
        pattern += r"(?![\w])"
    return re.search(pattern, text) is not None


def stated_in(value: Any, request: str) -> bool:
    """Whether the request states ``value``: every string and number in it occurs in the text."""
    text = _text(request)
    if isinstance(value, bool) or value is None:
        return False  # a flag is an inference, never a quotation
    number = _number(value) if not isinstance(value, str) else None
    if number is not None:
        return any(_contains(text, form) for form in _number_forms(number))
    if isinstance(value, str):
        return _contains(text, _text(value))
    if isinstance(value, list):
        return bool(value) and all(stated_in(item, request) for item in value)
    if isinstance(value, dict):
        leaves = [item for item in value.values() if item is not None]
        return bool(leaves) and all(stated_in(item, request) for item in leaves)
    return False


_EXPRESSION = re.compile(r"^[\d\s.+\-*/%()^]*[+\-*/%^][\d\s.+\-*/%()^]*$")


# Numbers that words fix exactly, whatever the request: small counts and powers (an average's
# count, a root's 0.5, "1 +" of interest), and the definitions of units ("5 miles in km" is
# 5*1.609344; "°F in Celsius" is (F-32)*5/9). A fixed list here, never the planner's own table,
# so the benchmark does not grade the planner by itself.
_DEFINED_NUMBERS = frozenset(
    {
        "0.5",
        "1",
        "2",
        "3",
        "4",
        "5",
        "6",
        "7",
        "8",
        "9",
        "10",
        "12",
        "24",
        "32",
        "60",
        "100",
        "1000",
        "1024",
        "3600",
        "86400",
        "1.8",
        "273.15",
        "1.609344",
        "0.621371",
        "0.3048",
        "3.28084",
        "2.54",
        "0.0254",
        "0.9144",
        "0.45359237",
        "2.20462",
        "28.349523125",
        "3.785411784",
        "0.264172",
        "1.852",
        "0.001",
        "0.01",
        "0.1",
    }
)


def expression_of_stated_numbers(value: Any, request: str) -> bool:
    """Whether ``value`` is arithmetic built only of numbers the request states ("48 multiplied
    by 12" as ``48*12``; "15% of 240" as ``240*15/100``) and numbers words fix exactly (a unit's
    definition, a root's 0.5): the words put in symbols, not a value from nowhere."""
    if not isinstance(value, str) or not _EXPRESSION.match(value):
        return False
    numbers = re.findall(r"\d+(?:\.\d+)?", value)
    return bool(numbers) and all(
        _contains(_text(request), n)
        or stated_in(float(n) if "." in n else int(n), request)
        or n in _DEFINED_NUMBERS
        for n in numbers
    )


def invented_arguments(case: Case, answer: Answer, defaults: Mapping[str, Any]) -> list[str]:
    """The proposed arguments nobody can point at: not expected, not stated, not a default."""
    invented = []
    for name, value in answer.arguments.items():
        if value is None:
            continue  # an explicit null is an omitted optional argument
        if value == REDACTED:
            continue  # a secret argument's value is hidden in what `ask` prints: nothing to judge
        if name in case.arguments and value_matches(case.arguments[name], value):
            continue
        if name in defaults and value_matches(defaults[name], value):
            continue
        if stated_in(value, case.request) or expression_of_stated_numbers(value, case.request):
            continue
        if stated_in(value, languages.read(case.request).text):
            continue  # said in another language: "Ajoute" is "add" (graph/planner/languages.py)
        invented.append(f"{name}={value!r}")
    return invented


def argument_mismatches(case: Case, answer: Answer) -> list[str]:
    """The expected arguments the proposal lacks or gives another value."""
    problems = []
    for name, expected in case.arguments.items():
        if name not in answer.arguments:
            asked = " (asked for, though the request states it)" if name in answer.missing else ""
            problems.append(f"{name}: not proposed{asked}, expected {expected!r}")
        elif not value_matches(expected, answer.arguments[name]):
            problems.append(f"{name}: {answer.arguments[name]!r}, expected {expected!r}")
    return problems


# -- one case --------------------------------------------------------------------------------


@dataclass(frozen=True)
class CaseResult:
    case: Case
    answer: Answer | None
    capability_right: bool
    status_right: bool
    argument_problems: list[str] = field(default_factory=list)
    invented: list[str] = field(default_factory=list)
    # Why the selection counts as side-effecting for a read-only request ("" when it does not).
    side_effect: str = ""
    # The command failed (exit code and its error line), so there is no answer to score.
    failure: str = ""
    # For a clarification: the arguments the case expects it to ask for that it did not.
    unasked: list[str] = field(default_factory=list)
    # The invariants the answer breaks (WRITE_ANSWERED_BY_READ, RAN_FOR_NOTHING).
    broken: tuple[str, ...] = ()
    # What the case names that no configured server offers (eval/expectations.py): the case was
    # not asked, and counts in no figure but the cases the file gets wrong.
    file_problems: tuple[str, ...] = ()

    @property
    def scored(self) -> bool:
        return not self.file_problems

    @property
    def right(self) -> bool:
        return self.capability_right and self.status_right

    @property
    def ran(self) -> bool:
        return self.answer is not None and self.answer.ran

    @property
    def reached(self) -> bool:
        """The right capability chosen, whatever the status, or offered among a question's
        choices; for a case that expects none, nothing ran."""
        answer = self.answer
        if answer is None:
            return False
        if not self.case.capabilities:
            return not self.ran
        return answer.capability in self.case.capabilities or bool(
            set(answer.choices) & set(self.case.capabilities)
        )

    @property
    def ran_wrong(self) -> bool:
        return self.ran and not self.capability_right

    @property
    def problems(self) -> list[str]:
        found = list(self.file_problems)
        if self.failure:
            found.append(self.failure)
        if self.answer is not None and not self.capability_right:
            found.append("wrong capability")
        if self.answer is not None and not self.status_right:
            if self.unasked and self.answer.status in self.case.statuses:
                found.append(f"the question does not ask for {', '.join(self.unasked)}")
            else:
                found.append("wrong status")
        found += [f"invariant broken: {name}" for name in self.broken]
        if self.side_effect:
            found.append(f"side-effecting selection for a read-only request ({self.side_effect})")
        found += [f"invented {item}" for item in self.invented]
        found += [f"argument {item}" for item in self.argument_problems]
        return found


def broken_invariants(case: Case, answer: Answer, selected: CapabilityFacts | None) -> tuple[str, ...]:
    """What the answer breaks that no accuracy makes up for (see the module's docstring)."""
    if not answer.ran:
        return ()
    broken = []
    # A capability the host does not know to act is a read here: a write needs one it does.
    if not case.read_only and (selected is None or not selected.side_effecting):
        broken.append(WRITE_ANSWERED_BY_READ)
    if not case.capabilities:
        broken.append(RAN_FOR_NOTHING)
    return tuple(broken)


def score_case(case: Case, answer: Answer, facts: Mapping[str, CapabilityFacts]) -> CaseResult:
    if case.capabilities:
        capability_right = answer.capability in case.capabilities
    else:
        capability_right = answer.capability is None
    unasked = []
    if answer.status == "needs_clarification":
        unasked = [name for name in case.missing if name not in answer.missing]
    status_right = answer.status in case.statuses and not unasked
    selected = facts.get(answer.capability) if answer.capability else None
    # A side effect is another capability that says it acts (its name or its annotations). The
    # MCP defaults alone (a third-party server's unannotated `list_tables`) do not make one:
    # choosing the wrong unannotated read is a wrong capability, not an act.
    chose_another = answer.capability not in case.capabilities
    side_effect = (
        selected.why
        if case.read_only and selected is not None and selected.rated_acting and chose_another
        else ""
    )
    defaults = selected.defaults if selected is not None else {}
    return CaseResult(
        case=case,
        answer=answer,
        capability_right=capability_right,
        status_right=status_right,
        argument_problems=argument_mismatches(case, answer) if capability_right else [],
        invented=invented_arguments(case, answer, defaults),
        side_effect=side_effect,
        unasked=unasked,
        broken=broken_invariants(case, answer, selected),
    )


def failed_case(case: Case, failure: str) -> CaseResult:
    """A case whose command did not answer (a usage error, an internal error): wrong."""
    return CaseResult(case=case, answer=None, capability_right=False, status_right=False, failure=failure)


def unscored_case(case: Case, problems: list[str]) -> CaseResult:
    """A case the file gets wrong (eval/expectations.py): not asked, not scored."""
    return CaseResult(
        case=case, answer=None, capability_right=False, status_right=False, file_problems=tuple(problems)
    )


# -- all cases -------------------------------------------------------------------------------


@dataclass(frozen=True)
class GroupFigure:
    group: str
    cases: int
    right: int

    @property
    def accuracy(self) -> float:
        return self.right / self.cases if self.cases else 0.0


@dataclass(frozen=True)
class LanguageFigure:
    """The requests in other languages: how many reached the right capability, and the ids of
    those that ran another."""

    cases: int = 0
    reached: int = 0
    ran_wrong: list[str] = field(default_factory=list)

    @property
    def share(self) -> float:
        return self.reached / self.cases if self.cases else 0.0

    @property
    def met(self) -> bool:
        return not self.ran_wrong and (not self.cases or self.share >= TARGET_OTHER_LANGUAGES_REACHED)


def _language_figure(results: Iterable[CaseResult]) -> LanguageFigure:
    foreign = [r for r in results if case_language(r.case) is not None]
    return LanguageFigure(
        cases=len(foreign),
        reached=sum(r.reached for r in foreign),
        ran_wrong=[r.case.id for r in foreign if r.ran_wrong],
    )


@dataclass(frozen=True)
class BatchFigure:
    """One batch's score now, overall and per group, beside what it recorded before tuning."""

    batch: Batch
    overall: GroupFigure
    groups: list[GroupFigure]
    other_languages: LanguageFigure = field(default_factory=LanguageFigure)


@dataclass(frozen=True)
class Figures:
    groups: list[GroupFigure]
    overall: GroupFigure
    side_effects: int
    invented: int
    # Of the cases with the right capability and expected arguments: how many got them all.
    arguments_checked: int
    arguments_right: int
    # The ids of the cases that broke each invariant.
    write_answered_by_read: list[str] = field(default_factory=list)
    ran_for_nothing: list[str] = field(default_factory=list)
    batches: list[BatchFigure] = field(default_factory=list)
    other_languages: LanguageFigure = field(default_factory=LanguageFigure)
    # The ids of the cases the file gets wrong, left out of every figure above.
    not_scored: list[str] = field(default_factory=list)

    @property
    def invariants_broken(self) -> int:
        return len(self.write_answered_by_read) + len(self.ran_for_nothing)

    @property
    def targets_met(self) -> dict[str, bool]:
        return {
            "accuracy": self.overall.accuracy >= TARGET_ACCURACY,
            "side_effects": self.side_effects <= TARGET_SIDE_EFFECTS,
            "invented": self.invented <= TARGET_INVENTED,
            "invariants": self.invariants_broken <= TARGET_INVARIANTS,
            "other_languages": self.other_languages.met,
            "cases_file": len(self.not_scored) <= TARGET_NOT_SCORED,
        }

    @property
    def passed(self) -> bool:
        return all(self.targets_met.values())


def _group_figures(results: list[CaseResult], order: list[str]) -> list[GroupFigure]:
    groups = []
    for group in order:
        members = [r for r in results if r.case.group == group]
        if members:
            groups.append(GroupFigure(group, len(members), sum(r.right for r in members)))
    return groups


def figures(
    results: Iterable[CaseResult], group_order: Iterable[str] = (), batches: Iterable[Batch] = ()
) -> Figures:
    every = list(results)
    # A case the file gets wrong measures nothing of the planner: it is only listed.
    results = [r for r in every if r.scored]
    group_order = list(group_order)
    order = group_order + sorted({r.case.group for r in results} - set(group_order))
    groups = _group_figures(results, order)
    by_batch = []
    for batch in batches:
        members = [r for r in results if r.case.batch == batch.id]
        if members:
            overall = GroupFigure(batch.id, len(members), sum(r.right for r in members))
            by_batch.append(
                BatchFigure(batch, overall, _group_figures(members, order), _language_figure(members))
            )
    with_arguments = [r for r in results if r.capability_right and r.case.arguments]
    return Figures(
        groups=groups,
        overall=GroupFigure("overall", len(results), sum(r.right for r in results)),
        side_effects=sum(1 for r in results if r.side_effect),
        invented=sum(len(r.invented) for r in results),
        arguments_checked=len(with_arguments),
        arguments_right=sum(1 for r in with_arguments if not r.argument_problems),
        write_answered_by_read=[r.case.id for r in results if WRITE_ANSWERED_BY_READ in r.broken],
        ran_for_nothing=[r.case.id for r in results if RAN_FOR_NOTHING in r.broken],
        batches=by_batch,
        other_languages=_language_figure(results),
        not_scored=[r.case.id for r in every if not r.scored],
    )
