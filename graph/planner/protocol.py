"""The planner seam: what the graph asks of whoever plans a request.

A planner classifies a request, selects a capability with the reasons for it, extracts the
arguments with the words each came from, and writes the answers a person reads. Two planners
implement it: the deterministic one (graph/planner/deterministic.py, the default, offline) and
one that asks a language model (graph/planner/model.py, when one is configured). Whatever a
planner proposes goes through the same validation and policy nodes: a planner chooses, it
never permits.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from graph.planner.arguments import Extraction
from graph.planner.intent import IntentDecision
from graph.planner.scoring import ScoredCapability

if TYPE_CHECKING:
    from graph.context import Limits
    from graph.state import AskReason
    from mcp_host.manifest import Capability


@dataclass(frozen=True)
class PlanningRequest:
    """What a planner plans from: the request with any earlier clarifications (``text``), the
    operator's latest reply to a question (``answer``) and what that question asked for."""

    text: str
    operation_type: str = "tool"
    answer: str | None = None
    asked: Sequence[str] = ()
    preferences: Sequence[str] = ()
    exclude: frozenset[str] = frozenset()
    # Each server's configured folders (ServerManifest.folders): a path names its server.
    folders: Mapping[str, Sequence[str]] = field(default_factory=dict)

    @property
    def full_text(self) -> str:
        """Every word the operator has said on this request, the reply last."""
        return f"{self.text}\n{self.answer}" if self.answer else self.text


@dataclass
class Selection:
    """A planner's choice, with the evidence for it.

    ``candidates`` are the capabilities considered, best first, each with its reasons (kept
    in the trace); ``chosen`` is None when nothing fits, and then ``no_match`` says so to a
    person. ``explanation`` is the one sentence the operator and the reviewer read.
    ``arguments`` is set by a planner that proposes arguments with its choice (a model's tool
    call); the graph asks ``extract`` otherwise. ``fallback`` names why another planner's
    choice stands in (a model that failed or timed out), shown as a flag; ``ignored_calls``
    the further calls a model proposed in one reply, also flagged. ``ask_reason`` says why the
    operator is asked to pick between ``chosen`` and ``ambiguous_with`` (set with it), and
    ``language`` names the language the request reads as, for a question asked for it.
    """

    candidates: list[ScoredCapability] = field(default_factory=list)
    chosen: ScoredCapability | None = None
    ambiguous_with: ScoredCapability | None = None
    ask_reason: AskReason | None = None
    language: str | None = None
    explanation: str = ""
    no_match: str | None = None
    # Said before why nothing fits, when another planner looked too (a model that failed):
    # the graph says why nothing fits itself, knowing what the policy refuses.
    no_match_preface: str | None = None
    arguments: Extraction | None = None
    fallback: str | None = None
    # Further tool calls a model proposed in the same reply, as "key(arguments)": never run.
    ignored_calls: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Composition:
    """What a planner writes the operator's answer from: the request, the status, the text the
    graph would show anyway (``draft``) and the call's result as plain text (data, never
    instructions), or None when nothing ran."""

    request: str
    status: str
    draft: str
    result_text: str | None = None
    capability: str | None = None


class Planner(Protocol):
    """Classify, select, extract, answer: the four things the graph asks a planner."""

    @property
    def label(self) -> str:
        """Which planner this is, for a person: shown in the sidebar and by `servers check`."""
        ...

    def classify(self, text: str) -> IntentDecision:
        """Whether the request needs an MCP capability at all, and of which kind."""
        ...

    def select(
        self, request: PlanningRequest, capabilities: Sequence[Capability], limits: Limits
    ) -> Selection:
        """The capability that serves the request, if one does, with its reasons."""
        ...

    def extract(self, capability: Capability, request: PlanningRequest) -> Extraction:
        """The arguments the request states for ``capability``, each with its evidence; a
        required one it does not state is missing, never invented."""
        ...

    def answer(self, question: str) -> str | None:
        """An answer to a request that needs no MCP server; None when this planner has none."""
        ...

    def compose(self, composition: Composition) -> str:
        """The answer the operator reads."""
        ...
