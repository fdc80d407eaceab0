"""The request service: what an operator does, as ReviewService is what a reviewer does.

An operator's message starts a request or answers the question a thread asked; the operator
follows a thread (whose it is, its trace from the checkpoints, the graph drawn with its route),
reads what the servers offer and their health and connects them again after a sign-in. The pages and the command
line call these methods and never reach into the graph or the MCP pool themselves
(tests/app/test_pages_use_services.py keeps the pages to that).

Why here, beside ReviewService, and not in a ``services`` package of its own: a request's
text goes to the ledger, through the graph and back to the ledger in one use case, and
``reviews/`` is already the layer above ``graph/`` that holds the ledger, the audit log and
the only code that resumes a thread (reviews/resume.py). A separate room would import all
of ``reviews/`` and add a layer between the front ends and it with nothing of its own.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from graph.diagram import to_dot
from graph.planner.client_call import ClientCallPlanner, client_call_text
from graph.runner import (
    RunOutcome,
    StepListener,
    TextListener,
    new_thread_id,
    pending_interrupt,
    start_request,
    thread_config,
    thread_exists,
)
from graph.state import ReviewDecision
from graph.trace import route_from_checkpoints, summarise_changes, trace_steps
from mcp_host.config import HttpServer
from mcp_host.health import broken_entry
from mcp_host.sdk_client import SdkMcpClient
from policies.secrets import DEFAULT_REDACTOR
from reviews.errors import NotAllowedError, NothingToResumeError, ThreadBusyError
from reviews.resume import resume

if TYPE_CHECKING:
    from graph.builder import CompiledGraph
    from graph.context import GraphContext
    from mcp_host.config import ServerEntry, ServersConfig
    from mcp_host.health import ServerHealth
    from mcp_host.manifest import Manifest
    from policies.engine import PolicyEngine
    from policies.secrets import SecretRedactor
    from reviews.audit import AuditLog
    from reviews.conversations import Conversations
    from reviews.service import ReviewService


@dataclass(frozen=True)
class ThreadTrace:
    """A thread as its checkpoints tell it: the route it took and its steps (secrets hidden;
    graph/trace.py trace_steps says what each holds). No checkpoints: ``exists`` False."""

    thread_id: str | None
    exists: bool
    route: list[str]
    steps: list[dict[str, Any]] = field(default_factory=list)

    @staticmethod
    def changes_of(step: dict[str, Any]) -> str:
        """``a, b, c and 5 more``: what a step changed, in one line."""
        return summarise_changes(step["changed"])


@dataclass(frozen=True)
class ServerRow:
    """One entry of the servers file as the Servers page shows it: its name, where it runs
    (an address or a command line), whether it is remote and needs a person to sign in, and
    its health (None: no session was started for it). A broken entry has no ``entry``."""

    name: str
    health: ServerHealth | None
    entry: ServerEntry | None = None
    # For a server that cannot be used, the error line its log ends with, when the state does
    # not say it already (secrets hidden); and where its full log is, once it wrote one.
    reason_in_log: str | None = None
    log: str | None = None

    @property
    def remote(self) -> bool:
        return isinstance(self.entry, HttpServer)

    @property
    def needs_person(self) -> bool:
        """A remote server behind OAuth that a person signs in to (mcp_host/oauth_config.py)."""
        return isinstance(self.entry, HttpServer) and self.entry.oauth.needs_person

    @property
    def where(self) -> str | None:
        """The address, or the command line with its arguments (secrets hidden)."""
        return self.entry.shown() if self.entry is not None else None


class RequestService:
    """The operator's use cases over the graph, the ledger and the MCP pool."""

    def __init__(
        self,
        graph: CompiledGraph,
        context: GraphContext,
        policy: PolicyEngine,
        audit: AuditLog,
        conversations: Conversations,
        reviews: ReviewService,
        *,
        secrets: SecretRedactor = DEFAULT_REDACTOR,
        servers: ServersConfig | None = None,
        read_servers_file: Callable[[], ServersConfig] | None = None,
    ) -> None:
        self.graph = graph
        self.context = context
        self.policy = policy
        self.audit = audit
        self.conversations = conversations
        self.reviews = reviews
        self.secrets = secrets
        # The servers file the pool was started from (None: a client was handed in without one),
        # and how to read it then (the wiring's reader, gatehouse/wiring.py servers_config).
        self._servers = servers
        self._read_servers_file = read_servers_file

    # -- a request ---------------------------------------------------------------------------

    @staticmethod
    def new_thread_id() -> str:
        """A fresh thread's id (what a new conversation starts on)."""
        return new_thread_id()

    def ask(
        self,
        text: str,
        *,
        thread_id: str | None = None,
        requester: str = "operator",
        server_preferences: list[str] | None = None,
        on_step: StepListener | None = None,
        on_text: TextListener | None = None,
        answers: dict[str, Any] | None = None,
    ) -> RunOutcome:
        """Send an operator's message. On a thread waiting for clarification it is the answer,
        and ``answers`` the values typed into the clarification form for what was asked (taken
        as typed; ``text`` says them in words, for the conversation and the planner).
        ``on_step`` hears each graph step as it completes (the chat's progress display), and
        ``on_text`` each piece of an answer a language model writes.

        Raises NotAllowedError for someone off the policy's roster or another person's thread,
        ThreadBusyError for a thread waiting for a reviewer, NothingToResumeError for answers
        to a thread that asks nothing (answered or withdrawn meanwhile)."""
        refusal = self.policy.refusal_to_request(requester)
        if refusal is not None:
            raise NotAllowedError(refusal)
        if thread_id is not None:
            self._check_ownership(thread_id, requester)
            pending = pending_interrupt(self.graph, thread_id)
            if pending is not None and pending["stage"] == "clarification":
                decision = ReviewDecision(action="answer", by=requester, text=text, arguments=answers)
                self.reviews.record_request(text, thread_id=thread_id, requester=requester)
                answered = resume(
                    self.graph, self.context, thread_id, decision, on_step=on_step, on_text=on_text
                )
                self.reviews.record_run(answered, actor=requester)
                return answered
            if pending is not None:
                raise ThreadBusyError(
                    f"thread {thread_id} waits for a reviewer (review {pending['review_id']}); "
                    "your message was not applied"
                )
        if answers is not None:
            raise NothingToResumeError(str(thread_id))
        thread = thread_id or new_thread_id()
        self.reviews.record_request(text, thread_id=thread, requester=requester)
        run = start_request(
            self.graph,
            self.context,
            text,
            thread_id=thread,
            requester=requester,
            server_preferences=server_preferences,
            on_step=on_step,
            on_text=on_text,
        )
        self.reviews.record_run(run, actor=requester)
        return run

    def call(
        self,
        key: str,
        arguments: dict[str, Any],
        *,
        requester: str,
        client: str | None = None,
        thread_id: str | None = None,
    ) -> RunOutcome:
        """An MCP client's own call of capability ``key`` with the arguments it supplied, for
        ``requester`` (the person its token names), on a new thread: through the same graph,
        policy, grants, review and output checks as an operator's request; only the planning
        is the client's (graph/planner/client_call.py). ``client``: what the client calls
        itself, shown in the request's text. ``thread_id``: the new thread's id, when the
        caller recorded it before the run (a client's retry finds the thread by it).

        Raises NotAllowedError for someone off the policy's roster."""
        refusal = self.policy.refusal_to_request(requester)
        if refusal is not None:
            raise NotAllowedError(refusal)
        thread = thread_id or new_thread_id()
        text = client_call_text(key, client)
        self.reviews.record_request(text, thread_id=thread, requester=requester)
        # The context per run: only the planner differs, and only for this thread's first run
        # (a reviewer's decision resumes it with the process's own context; the approve route
        # plans nothing).
        context = replace(self.context, planner=ClientCallPlanner(key, arguments))
        run = start_request(self.graph, context, text, thread_id=thread, requester=requester)
        self.reviews.record_run(run, actor=requester)
        return run

    def thread_owner(self, thread_id: str) -> str | None:
        """Who started a thread: its conversation's owner, else the requester in its checkpoints."""
        conversation = self.conversations.get(thread_id)
        if conversation is not None:
            return conversation.owner
        if not thread_exists(self.graph, thread_id):
            return None
        requester = self.graph.get_state(thread_config(thread_id)).values.get("requester")
        return str(requester) if requester else None

    def _check_ownership(self, thread_id: str, requester: str) -> None:
        """Only a thread's owner continues it or answers its questions; a role allowed to take
        threads over may, and that is recorded."""
        owner = self.thread_owner(thread_id)
        if owner is None or owner == requester:
            return
        if not self.policy.may_take_over(requester):
            raise NotAllowedError(
                f"thread {thread_id} belongs to {owner}; only {owner}, or a role allowed to take threads over, "
                "may continue it"
            )
        self.audit.append("thread_taken_over", {"owner": owner}, thread_id=thread_id, actor=requester)

    # -- following a thread ------------------------------------------------------------------

    def resolve_thread(self, reference: str) -> str:
        """The full id of the thread ``reference`` names: its id or one of its reviews', full
        or short as shown on screen. Raises ThreadNotFoundError (AmbiguousThreadIdError when
        several fit, naming them); reviews/thread_ids.py says what is looked up."""
        return self.reviews.resolve_thread(reference)

    def trace(self, thread_id: str | None, *, with_route: bool = True) -> ThreadTrace:
        """The thread's route and steps from its checkpoints (None: no thread picked, nothing
        read). ``with_route=False`` leaves the route out (the command line shows steps only)."""
        route = route_from_checkpoints(self.graph, thread_id) if thread_id and with_route else []
        if not thread_id or not thread_exists(self.graph, thread_id):
            return ThreadTrace(thread_id, False, route)
        return ThreadTrace(thread_id, True, route, trace_steps(self.graph, thread_id, self.secrets))

    def diagram(self, route: list[str] | None = None, labels: Mapping[str, str] | None = None) -> str:
        """The compiled graph in Graphviz's language, drawn from its own structure, with a
        route (the nodes a trace ran, in order) highlighted and numbered, and each node named
        by ``labels`` where it has one (graph/diagram.py)."""
        return to_dot(self.graph, route, labels)

    # -- the servers -------------------------------------------------------------------------

    def offered(self) -> Manifest:
        """What the servers offer now (the catalogue an operator reads before asking): each
        server's listing, from the pool's cache unless it is out of date."""
        return self.context.mcp.discover()

    def when_offer_changes(self, listener: Callable[[str, str], None]) -> Callable[[], None]:
        """Call ``listener(server, method)`` when a server says one of its lists changed
        (mcp_host/sdk_client.py when_lists_change says which servers can, and on what thread);
        a client handed in that is not the host's own pool says nothing. Returns what stops it."""
        pool = self.context.mcp
        if isinstance(pool, SdkMcpClient):
            return pool.when_lists_change(listener)
        return lambda: None

    def servers_file(self) -> ServersConfig:
        """The servers file the pool was started from, else the file read now (which raises
        ConfigError, a ReportedError, when it cannot be used)."""
        if self._servers is not None:
            return self._servers
        if self._read_servers_file is None:
            raise LookupError("no servers file: the pool was handed in without one")
        return self._read_servers_file()

    def server_rows(self, config: ServersConfig) -> list[ServerRow]:
        """Each entry of the servers file with its health: the loaded ones, then the broken ones.

        Discovery first: it re-opens a session waiting for a sign-in (someone may have signed
        in), and the health read next says what the listing found."""
        pool = self.context.mcp
        pool.discover()
        healths = {h.name: h for h in pool.health()} if isinstance(pool, SdkMcpClient) else {}
        loaded = [self._row(entry, healths.get(entry.name)) for entry in config.servers]
        broken = [
            ServerRow(health.name, health)
            for problem in config.problems
            if problem.entry is not None
            for health in (broken_entry(problem),)
        ]
        return loaded + broken

    def _row(self, entry: ServerEntry, health: ServerHealth | None) -> ServerRow:
        if health is None:
            return ServerRow(entry.name, None, entry)
        # A server's log is its own words: a secret it printed is not shown.
        reason = health.reason_in_log()
        return ServerRow(
            entry.name,
            health,
            entry,
            reason_in_log=self.secrets.text(reason) if reason is not None else None,
            log=health.written_log(),
        )

    def reconnect(self, server: str) -> None:
        """After a sign-in: this replica's session to the server reads the new tokens."""
        pool = self.context.mcp
        if isinstance(pool, SdkMcpClient):
            pool.reconnect(server)
