"""The deterministic planner: the default, offline, and the same plan for the same request and
manifest every time, so every route the graph takes can be reproduced and explained."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from graph.planner.actions import capability_action, is_known_verb
from graph.planner.arguments import Extraction, extract_arguments
from graph.planner.explain import explanation
from graph.planner.intent import IntentDecision, classify
from graph.planner.languages import LANGUAGE_NAMES, Reading, read
from graph.planner.protocol import Composition, PlanningRequest, Selection
from graph.planner.provenance import with_provenance
from graph.planner.scoring import ScoredCapability, is_unbounded_listing, known_concepts, rank
from graph.planner.similarity import is_one_token
from graph.planner.spelling import respelled
from graph.planner.text import STOPWORDS, compiled, concepts_of_words

if TYPE_CHECKING:
    from graph.context import Limits
    from graph.state import AskReason
    from mcp_host.manifest import Capability

CANDIDATES_KEPT = 5
# A request read through the glossary (graph/planner/languages.py) that leaves words unread is
# read roughly: two capabilities this many times closer than the usual margin are asked about,
# not guessed.
FOREIGN_MARGIN_FACTOR = 4.0


def _by_words(scored: ScoredCapability) -> float:
    """The score without what meaning added."""
    return scored.score - scored.similarity_points


def _respelled(text: str, capabilities: Sequence[Capability]) -> str:
    """``text`` with its typing slips ("shwo", "tikcet") read as the words the capabilities or
    the verb tables use (graph/planner/spelling.py)."""
    known = known_concepts(capabilities)

    def is_known(word: str) -> bool:
        return word in STOPWORDS or is_known_verb(word) or bool(concepts_of_words([word]) & known)

    return respelled(text, is_known, is_one_token)


def unread_words(reading: Reading, capabilities: Sequence[Capability]) -> list[str]:
    """The words of a request in another language that neither the glossary nor the
    capabilities' own words read: what the planner did not understand. Names are values, not
    words to understand ("Jürgen", "Acme"), except in German, which capitalises every noun."""
    known = known_concepts(capabilities)
    return [
        word
        for word in reading.untranslated
        if word.lower() not in STOPWORDS
        and not (word[:1].isupper() and reading.language != "de")
        and not concepts_of_words([word.lower()]) <= known
    ]


def unread_by(chosen: ScoredCapability, unread: Sequence[str]) -> list[str]:
    """``unread`` less the words the chosen capability's arguments take as values: "Alice" in
    "Suche im Wissensgraphen nach Alice" is the query, read as written."""
    values = " ".join(str(v) for v in (chosen.extraction.arguments.values() if chosen.extraction else ()))
    return [w for w in unread if not compiled(rf"(?<!\w){re.escape(w)}(?!\w)").search(values)]


def _doubt(
    chosen: ScoredCapability, reading: Reading, unread: Sequence[str], min_score: float
) -> AskReason | None:
    """Why a choice the scores allow should still be asked about (None: it may stand): one
    that words alone would not have chosen ("doubt": meaning is evidence, not proof, "12 times
    12" is close to a sum tool), or ("language") one that acts, for a request in another
    language of which some words were not read ("Leg ... an": what is done with the file is
    unread), or that leaves a capitalised word unread (a noun or a name the request is about)."""
    acts = capability_action(chosen.capability).acts
    carried = chosen.similarity_points > 0 and _by_words(chosen) < min_score
    if carried or chosen.by_meaning_only:
        return "doubt"
    if reading.foreign and acts and unread:
        return "language"
    # A capitalised word left unread in German is a noun the glossary does not know or a name:
    # what the request is about, and the chosen read takes none of it ("Welche Kommentare hat
    # Tomas ... hinterlassen?": comments by Tomas, not all comments).
    untaken = [word for word in unread if word[:1].isupper()]
    if reading.foreign and untaken:
        return "language"
    return None


def _close(best: ScoredCapability, other: ScoredCapability, margin: float) -> bool:
    """Two candidates within ``margin`` of each other, by score or by words alone."""
    return best.score - other.score < margin or _by_words(best) - _by_words(other) < margin


def _equivalent_reads(best: ScoredCapability, other: ScoredCapability, request: PlanningRequest) -> bool:
    """Two reads of one server that use exactly the same values of the request and lack none:
    they differ only in what they return, so running the better-evidenced one harms nothing and
    shows which ran, and the operator is not asked to choose ("the memory graph, all of it": the
    read_graph tool or the graph resource). So are two reads of which only the better-evidenced
    one can run as asked (the other lacks a value the request does not state), or that uses every
    value the other uses and more ("show ticket 13": the ticket, not a search that ignores 13).
    Anything that acts, lacks an argument, or leaves a stated value the other uses unused is
    asked."""
    if best.capability.server != other.capability.server:
        return False
    used: list[list[str]] = []
    lacking: list[bool] = []
    for scored in (best, other):
        extraction = extract_arguments(
            scored.capability.input_schema, request.full_text, server=scored.capability.server
        )
        if capability_action(scored.capability).acts:
            return False
        values = [
            v
            for value in extraction.arguments.values()
            for v in (value if isinstance(value, list) else [value])
        ]
        used.append(sorted(str(value) for value in values))
        lacking.append(bool(extraction.missing))
    if lacking[0]:
        return False
    # "What sheets does sales.xlsx have?": the workbook's description needs nothing more; the
    # sheet's needs a sheet the request does not name. The other read could not run as asked,
    # and uses nothing the better one leaves out: asking would only ask for what was not meant.
    if lacking[1]:
        return set(used[0]) >= set(used[1])
    # "Show me cells A1 to D6 on the Q3 sheet": the range read takes the sheet and the range,
    # the sheet's description only the sheet. The better-evidenced read uses every value the
    # other uses and more; the other would leave a stated value unused.
    return used[0] == used[1] or set(used[0]) > set(used[1])


def _classified(extraction: Extraction, capability: Capability, request: PlanningRequest) -> Extraction:
    """The extraction with each value stated or derived: only the chosen capability's, as
    scoring reads every capability's arguments and needs no provenance for that."""
    return with_provenance(
        extraction, request.full_text, capability.input_schema, request.folders.get(capability.server, ())
    )


class DeterministicPlanner:
    """Scores every capability on the evidence in the request (graph/planner/scoring.py) and
    reads arguments off the capability's JSON Schema (graph/planner/arguments.py)."""

    @property
    def label(self) -> str:
        return "deterministic (offline, no language model)"

    def classify(self, text: str) -> IntentDecision:
        return classify(read(text).text)

    def select(
        self, request: PlanningRequest, capabilities: Sequence[Capability], limits: Limits
    ) -> Selection:
        reading = read(request.full_text)
        ranked = rank(
            list(capabilities),
            _respelled(reading.text, capabilities).replace("\n", " "),
            request.operation_type,
            list(request.preferences),
            exclude=set(request.exclude),
            folders=request.folders,
        )
        selection = Selection(candidates=ranked[:CANDIDATES_KEPT])
        viable = [s for s in ranked if s.score >= limits.min_score]
        bounded = [s for s in viable if not is_unbounded_listing(s.capability)]
        if bounded:
            # A broad legacy listing is only considered when nothing bounded fits.
            viable = bounded
        if not viable:
            return selection
        selection.chosen = viable[0]
        if not request.answer and "\n" not in request.text and not reading.foreign:
            # Scoring read the arguments from the request's text alone, as extract() would read
            # them without an answer to a question (rank's text has its line breaks joined): the
            # chosen capability's reading is the one extract() would make again.
            extraction = viable[0].extraction
            selection.arguments = (
                None if extraction is None else _classified(extraction, viable[0].capability, request)
            )
        runner_up = viable[1] if len(viable) > 1 else None
        unread = unread_by(viable[0], unread_words(reading, capabilities)) if reading.foreign else []
        margin = limits.ambiguity_margin * (FOREIGN_MARGIN_FACTOR if unread else 1.0)
        selection.language = LANGUAGE_NAMES.get(reading.language or "")
        # Meaning may order the two, never settle them: two that words alone put close (or the
        # other way round) are asked about, so similarity never makes the planner run a
        # capability that words alone would not have run.
        close = runner_up is not None and _close(viable[0], runner_up, margin)
        doubt = _doubt(viable[0], reading, unread, limits.min_score)
        if close and runner_up is not None and not _equivalent_reads(viable[0], runner_up, request):
            selection.ambiguous_with = runner_up
            # Close only within the wider margin of a request read roughly: asked for its
            # language, not because the two fit equally well.
            tie = _close(viable[0], runner_up, limits.ambiguity_margin)
            selection.ask_reason = "tie" if tie else "language"
        elif doubt and not request.answer:
            # Asked with the next best among the choices, viable or not: the operator settles it.
            selection.ambiguous_with = runner_up or next((s for s in ranked if s is not viable[0]), None)
            selection.ask_reason = doubt if selection.ambiguous_with is not None else None
        selection.explanation = explanation(viable[0])
        return selection

    def extract(self, capability: Capability, request: PlanningRequest) -> Extraction:
        extraction = extract_arguments(
            capability.input_schema,
            read(request.text).text,
            answer=request.answer,
            asked=list(request.asked) or None,
            server=capability.server,
        )
        return _classified(extraction, capability, request)

    def answer(self, question: str) -> str | None:
        return None

    def compose(self, composition: Composition) -> str:
        return composition.draft
