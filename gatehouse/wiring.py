"""Build the process-wide services once: MCP sessions, the checkpointer and the compiled graph.

What commands that only read need (the policy, the database check) is in gatehouse/read_only.py,
which imports neither LangGraph nor the MCP SDK; it is re-exported here for the callers that
build everything anyway."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import psycopg
from langgraph.checkpoint.base import BaseCheckpointSaver
from psycopg_pool import PoolTimeout

from gatehouse.approval_keys import ApprovalSigner
from gatehouse.credentials.server_credentials import EncryptedCredentialStore, credential_key
from gatehouse.errors import ConfigurationError
from gatehouse.notifications.webhook import WebhookSender
from gatehouse.planner_choice import planner_for
from gatehouse.read_only import open_audit_log as open_audit_log
from gatehouse.read_only import policy_file as policy_file
from gatehouse.read_only import policy_parser, policy_text
from gatehouse.read_only import require_existing_database as require_existing_database
from gatehouse.sampling_model import sampler_for
from gatehouse.settings import helper_variables
from graph.builder import (
    CompiledGraph,
    compile_graph,
    open_postgres_checkpointer,
    open_sqlite_checkpointer,
    open_sqlite_reader,
)
from graph.context import GraphContext, Limits
from graph.runner import thread_secret_sources
from mcp_host.config import (
    ConfigError,
    ConfigProblem,
    HttpServer,
    ServersConfig,
    StdioServer,
    load_servers_config,
)
from mcp_host.elicitation import ElicitationHandler
from mcp_host.folders import names_a_place, root_folders
from mcp_host.oauth import Authorizer, SignIn
from mcp_host.results import DEFAULT_OUTPUT_CAP_BYTES
from mcp_host.sampling import SamplingHandler
from mcp_host.sdk_client import SdkMcpClient
from policies.constraints import DeclaredRoots
from policies.engine import PolicyEngine
from policies.live import database_feed
from policies.model import PolicyFile
from policies.pins import DatabasePinStore, MemoryPinStore, PinStore
from policies.secrets import SecretRedactor
from policies.versions import PolicyVersions, file_source, standing_version
from reviews.asking import OperatorQuestions
from reviews.audit import AuditLog
from reviews.conversations import Conversations
from reviews.grant_service import GrantService
from reviews.grants import GrantStore
from reviews.hooks import LedgerHooks
from reviews.ledger import ReviewLedger
from reviews.notifications import NoNotifications, Notifier, Outbox
from reviews.policy_changes import PolicyChanges, start_on_file
from reviews.questions import QuestionStore
from reviews.requests import RequestService
from reviews.sampling import SamplingReviews
from reviews.service import ReviewService
from reviews.suggestions import Suggestions
from servers.catalog import BUNDLED_CONFIG
from storage import Database
from telemetry.setup import configure_from_environment

if TYPE_CHECKING:
    from gatehouse.settings import Settings
    from mcp_host.client import McpClient


@dataclass
class Services:
    graph: CompiledGraph
    context: GraphContext
    checkpointer: BaseCheckpointSaver[Any]
    policy: PolicyEngine
    pins: DatabasePinStore
    ledger: ReviewLedger
    audit: AuditLog
    conversations: Conversations
    reviews: ReviewService
    # The operator's side: requests, answers, traces, the servers' health (reviews/requests.py).
    requests: RequestService
    settings: Settings
    # Servers' questions during calls, put to the operator who asked (the pool's elicitation
    # handler when the pool is this process's own).
    questions: OperatorQuestions
    # Changes to the policy proposed and approved from the app or the CLI.
    policy_changes: PolicyChanges
    # Remembered approvals: made with a decision, used by the graph, listed and revoked.
    grants: GrantService
    # Hides secrets in whatever is kept or shown (the policy's secret names on top of the built-in).
    secrets: SecretRedactor = field(default_factory=SecretRedactor)
    # The servers file the pool was started from, with its broken entries (None: a client was
    # handed in without one).
    servers: ServersConfig | None = None
    owns_mcp: bool = True
    # Review notifications waiting to be posted, and the thread posting them (None when no
    # webhook is configured).
    outbox: Outbox | None = None
    webhook: WebhookSender | None = None
    # Recalls threads' secrets from their checkpoints (_Storage.checkpoint_reader).
    checkpoint_reader: BaseCheckpointSaver[Any] | None = None

    @property
    def suggestions(self) -> Suggestions:
        """Rules learned from the ledger's decisions, proven on its history, adopted as
        policy changes (`gatehouse policy suggest`)."""
        return Suggestions(self.ledger, self.policy_changes)

    @property
    def mcp(self) -> McpClient:
        return self.context.mcp

    def close(self) -> None:
        if self.webhook is not None:
            self.webhook.stop()
        if self.owns_mcp:
            self.mcp.close()
        _close_checkpointer(self.checkpointer)
        if self.checkpoint_reader is not None and self.checkpoint_reader is not self.checkpointer:
            _close_checkpointer(self.checkpoint_reader)
        self.pins.close()
        self.ledger.close()
        self.audit.close()
        self.conversations.close()
        self.questions.store.close()
        if self.outbox is not None:
            self.outbox.close()


def _close_checkpointer(checkpointer: BaseCheckpointSaver[Any]) -> None:
    # SqliteSaver holds a sqlite3 connection, PostgresSaver a connection pool: both close().
    connection = getattr(checkpointer, "conn", None)
    if connection is not None:
        connection.close()


@dataclass
class _Storage:
    checkpointer: BaseCheckpointSaver[Any]
    # What recalls a thread's secrets from its checkpoint: on SQLite a reader of its own
    # (graph/builder.py open_sqlite_reader), on PostgreSQL the checkpointer (a pool: each read
    # takes a connection of its own and waits for no write).
    checkpoint_reader: BaseCheckpointSaver[Any]
    pins: DatabasePinStore
    ledger: ReviewLedger
    audit: AuditLog
    conversations: Conversations
    outbox: Outbox
    questions: QuestionStore

    def close(self) -> None:
        for store in (self.pins, self.ledger, self.audit, self.conversations, self.outbox, self.questions):
            store.close()
        _close_checkpointer(self.checkpointer)
        if self.checkpoint_reader is not self.checkpointer:
            _close_checkpointer(self.checkpoint_reader)


# What opening or reading a database raises when it cannot be used: a file that is not a
# database, a folder in the way, an unreachable or absent PostgreSQL database.
_DATABASE_ERRORS = (sqlite3.Error, psycopg.Error, PoolTimeout, OSError)


@contextmanager
def _opening(settings: Settings) -> Iterator[None]:
    """Opening a store on a database that cannot be used is one configuration error naming it."""
    try:
        yield
    except _DATABASE_ERRORS as exc:
        raise ConfigurationError(f"database {settings.database}: cannot open it: {exc}") from exc


def policy_in_force(settings: Settings, from_file: PolicyFile, pins: PinStore) -> PolicyFile:
    """For a command that only reads (``policy explain``): the policy a process starting now
    runs on, the file's or a newer version approved in the app (policies/versions.py), read
    from the database the pins are on; the file's when there is none."""
    if not isinstance(pins, DatabasePinStore):
        return from_file
    text, path = policy_text(settings)
    standing = standing_version(pins.database, text, file_source(str(path)))
    if standing is None:
        return from_file
    return policy_parser(settings)(standing.text, f"policy version {standing.seq} ({standing.origin})")


def open_pins_for_reading(settings: Settings) -> AbstractContextManager[PinStore]:
    """The pinned definitions, to explain a decision. Without a database nothing is pinned
    yet, and explaining does not create one."""
    if settings.db_url is None and not settings.db_path.exists():
        return nullcontext(MemoryPinStore())
    require_existing_database(settings)
    return _database_pins(settings)


@contextmanager
def _database_pins(settings: Settings) -> Iterator[PinStore]:
    with _opening(settings):
        pins = DatabasePinStore(settings.open_database())
    try:
        yield pins
    finally:
        pins.close()


def _open_storage(settings: Settings, secrets: SecretRedactor) -> _Storage:
    """The checkpointer and the stores, on the SQLite file or the PostgreSQL database.

    The stores share one database (one SQLite connection, or one PostgreSQL pool), so a
    service can write to several in one transaction (storage/transactions.py); the
    checkpointer has its own connection or pool. On a failure, what was
    opened is closed again and the error names the database (never its password)."""
    # A bad audit key is refused before anything is opened (AuditKeyError, naming the variable).
    audit_keys = settings.audit_keys()
    opened: list[Callable[[], None]] = []
    try:
        if settings.db_url is not None:
            checkpointer: BaseCheckpointSaver[Any] = open_postgres_checkpointer(
                settings.db_url,
                pool_size=settings.db_pool_size,
                prepared_statements=settings.db_prepared_statements,
            )
        else:
            checkpointer = open_sqlite_checkpointer(settings.db_path)
        opened.append(lambda: _close_checkpointer(checkpointer))
        reader = checkpointer if settings.db_url is not None else open_sqlite_reader(settings.db_path)
        if reader is not checkpointer:
            opened.append(lambda: _close_checkpointer(reader))
        target = settings.open_database()
        opened.append(target.close)
        pins = DatabasePinStore(target)
        opened.append(pins.close)
        ledger = ReviewLedger(target)
        opened.append(ledger.close)
        audit = AuditLog(target, secrets=secrets, keys=audit_keys)
        opened.append(audit.close)
        conversations = Conversations(target, secrets=secrets)
        opened.append(conversations.close)
        outbox = Outbox(target, secrets=secrets)
        opened.append(outbox.close)
        questions = QuestionStore(target)
    except _DATABASE_ERRORS as exc:
        for close in reversed(opened):
            close()
        raise ConfigurationError(f"database {settings.database}: cannot open it: {exc}") from exc
    except BaseException:
        for close in reversed(opened):
            close()
        raise
    return _Storage(checkpointer, reader, pins, ledger, audit, conversations, outbox, questions)


def _policy_in_force(
    settings: Settings,
    audit: AuditLog,
    text: str,
    path: Path,
    parse: Callable[[str, str], PolicyFile],
    from_file: PolicyFile,
) -> tuple[PolicyVersions, PolicyFile, int]:
    """The versions of the policy in this database, the one this process runs on and its
    number: the file's, or a newer one approved in the app (policies/versions.py reconcile)."""
    with _opening(settings):
        versions = PolicyVersions(audit.database)
        started = start_on_file(versions, audit, text, str(path))
    version = started.version
    if started.outcome == "kept_newer":
        return versions, parse(version.text, f"policy version {version.seq} ({version.origin})"), version.seq
    return versions, from_file, version.seq


def servers_config(settings: Settings) -> ServersConfig:
    """The configured servers file, or the shipped one that runs the bundled demo servers; in
    either, Gatehouse's helpers (${GATEHOUSE_PYTHON}, ...) mean the same (helper_variables), so
    a copy of the shipped file loads as it does.

    A broken entry is left out and kept in the config's ``problems`` (one server's mistake
    never takes down the others); a file that cannot be read, or that names one of
    Gatehouse's secrets, raises ConfigError, which reports itself (mcp_host/reported.py)."""
    if settings.servers_path is not None:
        return load_servers_config(
            settings.servers_path, environ={**os.environ, **settings.file_variables}, skip_broken=True
        )
    return bundled_servers_config(settings.demo_data_dir)


def servers_config_or_problem(settings: Settings) -> ServersConfig:
    """The servers file as servers_config reads it, or, when the file as a whole cannot be
    used, no servers and that one problem: for the app, which shows it on the Servers page
    and keeps serving its other pages instead of a traceback on each."""
    try:
        return servers_config(settings)
    except ConfigError as exc:
        source = str(settings.servers_path) if settings.servers_path is not None else str(BUNDLED_CONFIG)
        return ServersConfig(source=source, problems=[ConfigProblem.of(exc, None)])


def bundled_servers_config(demo_data_dir: Path) -> ServersConfig:
    """The shipped servers file with Gatehouse's helpers filled in for this interpreter and
    this demo data folder (the data folder is the one around it, as Settings.demo_data_dir)."""
    variables = helper_variables(demo_data_dir.parent, demo_data_dir)
    return load_servers_config(BUNDLED_CONFIG, environ={**os.environ, **variables})


def declared_roots(config: ServersConfig | None) -> DeclaredRoots | None:
    """The roots the servers file declares per server, for the policy engine: they confine
    those servers' path arguments unless the policy names roots for them (PolicyEngine.roots_for).
    A server that declares none is held to the folders it is started on, if any (read now:
    a folder that does not exist yet is no root)."""
    if config is None:
        return None
    declared = config.declared_roots()
    started_on = {
        entry.name: folders
        for entry in config.servers
        if entry.name not in declared and (folders := root_folders(entry))
    }
    # A local server given no folder (no roots, none in its arguments) reads a relative path
    # from where it runs: its cwd, else Gatehouse's, which it inherits.
    here = os.getcwd()  # noqa: PTH109 - a str is what the roots compare
    working_folders = {
        entry.name: entry.cwd or here
        for entry in config.servers
        if isinstance(entry, StdioServer) and entry.name not in declared and not names_a_place(entry)
    }
    return DeclaredRoots(
        source=config.source, servers=declared, started_on=started_on, working_folders=working_folders
    )


def server_pool(
    settings: Settings,
    *,
    output_cap_bytes: int = DEFAULT_OUTPUT_CAP_BYTES,
    config: ServersConfig | None = None,
    authorizer: Authorizer | None = None,
    connect_timeout: float = 30.0,
    sampling: SamplingHandler | None = None,
    elicitation: ElicitationHandler | None = None,
    database: Database | None = None,
) -> SdkMcpClient:
    """One long-lived session per configured server. Remote servers' sign-ins are kept in the
    database, encrypted (gatehouse/credentials/server_credentials.py); with an ``authorizer`` a person can
    sign in during the connection (``gatehouse servers login``), without one a server that
    needs it says "needs sign-in". With ``sampling``, servers may ask for model completions
    (each one reviewed: reviews/sampling.py); ``elicitation`` answers their questions
    (reviews/asking.py). ``database``: the process's open stores' database, for the sign-ins
    (None: the pool opens its own from the settings and closes it with itself). Side-effecting
    calls carry a grant signed with the data folder's key (gatehouse/approval_keys.py), made
    on first use."""
    config = config or servers_config(settings)
    targets = {entry.name: entry for entry in config.servers}
    # Before any server starts: the bundled ones read the public keys file it writes.
    signer = ApprovalSigner(settings.data_dir)
    return SdkMcpClient(
        targets,
        signer=signer,
        log_dir=settings.server_log_dir,
        output_cap_bytes=output_cap_bytes,
        sign_in=server_sign_in(settings, config, authorizer, database),
        connect_timeout=connect_timeout,
        sampling=sampling,
        elicitation=elicitation,
    )


def server_sign_in(
    settings: Settings,
    config: ServersConfig,
    authorizer: Authorizer | None,
    database: Database | None = None,
) -> SignIn | None:
    """Where remote servers' sign-ins live, or None when no server is remote (no table, no key).
    On ``database`` when given (its owner closes it), else on one opened from the settings that
    the pool closes."""
    if not any(isinstance(entry, HttpServer) for entry in config.servers):
        return None
    key = credential_key(settings.secret_key)
    with _opening(settings):
        store = EncryptedCredentialStore(database or settings.open_database(), key)
    return SignIn(
        store=store,
        authorizer=authorizer,
        app_redirect_uri=settings.sign_in_return_url,
        close=None if database is not None else store.close,
    )


def start_telemetry() -> None:
    """OpenTelemetry as the standard OTEL_* variables ask (telemetry/setup.py: off unless they
    do), once per process, before anything that traces is built. A variable it cannot honour
    is a configuration error naming it (TelemetryConfigError, exit 2)."""
    configure_from_environment()


def build_services(
    settings: Settings,
    *,
    mcp: McpClient | None = None,
    limits: Limits | None = None,
    connect_servers: bool = True,
    create_database: bool = True,
    send_notifications: bool = True,
    servers: ServersConfig | None = None,
    served_by: str | None = None,
) -> Services:
    """Open the database and the MCP sessions. The caller closes them (Services.close).

    The policy engine holds each server to the roots its entry declares: those of ``servers``,
    or of the servers file this function reads to start its own sessions (a client handed in
    comes with no file unless ``servers`` names it).

    ``connect_servers=False`` is for commands that only read the database (the queue, a
    trace): no server process is started for them. ``create_database=False`` is for those
    too: a database that is not there is an error, not a new empty one. With a webhook
    configured, review events go to the outbox, and (unless ``send_notifications=False``) a
    background thread posts them until Services.close. ``served_by``: the graph runs on a
    server that checkpoints its threads itself (gatehouse/langgraph_server.py): its reviews
    are marked so (reviews/hooks.py LedgerHooks)."""
    # Whatever client this function makes, it owns (and Services.close closes); a client
    # handed in belongs to the caller.
    owns_mcp = mcp is None
    start_telemetry()
    text, path = policy_text(settings)
    parse = policy_parser(settings)
    # The file is checked before anything is opened: a bad one is one line naming the key.
    policy = parse(text, str(path))
    if servers is None and mcp is None and connect_servers:
        servers = servers_config(settings)
    if not create_database:
        require_existing_database(settings)
    secrets = SecretRedactor(policy.audit.redact_arguments)
    storage = _open_storage(settings, secrets)
    checkpointer, pins, ledger, audit, conversations = (
        storage.checkpointer,
        storage.pins,
        storage.ledger,
        storage.audit,
        storage.conversations,
    )
    try:
        versions, policy, version = _policy_in_force(settings, storage.audit, text, path, parse, policy)
    except BaseException:
        storage.close()
        raise
    secrets.use_names(policy.audit.redact_arguments)
    engine = PolicyEngine(policy, pins=pins, declared_roots=declared_roots(servers))
    engine.follow(database_feed(versions, parse), version=version)
    engine.when_changed(lambda newer: secrets.use_names(newer.audit.redact_arguments))
    notifier: Notifier = storage.outbox if settings.webhook_url else NoNotifications()
    questions = OperatorQuestions(storage.questions, audit, engine, secrets)
    try:
        with _opening(settings):
            grants = GrantService(GrantStore(ledger.database), audit, engine)
    except BaseException:
        storage.close()
        raise
    try:
        if mcp is not None:
            client = mcp
        elif connect_servers:
            # A server's request for a model completion is a review in this database.
            sampling = SamplingReviews(ledger, audit, engine, notifier)
            client = server_pool(
                settings,
                output_cap_bytes=policy.output.max_bytes,
                config=servers,
                sampling=sampling,
                elicitation=questions,
                # Sign-ins on the stores' own database: one pool per process, not one more.
                database=ledger.database,
            )
        else:
            client = SdkMcpClient({})
    except BaseException:
        storage.close()
        raise
    context = GraphContext(
        mcp=client,
        policy=engine,
        limits=limits or Limits(),
        reviews=LedgerHooks(
            ledger,
            audit,
            notifier,
            time_limit=client.call_time_limit if isinstance(client, SdkMcpClient) else None,
            served_by=served_by,
        ),
        planner=planner_for(settings.model, timeout=settings.model_timeout),
        grants=grants,
    )
    graph = compile_graph(checkpointer)
    # A thread this process meets for the first time (a reviewer's command, the app after a
    # restart) has the secrets of its request, arguments and result recalled from its
    # checkpoint, and hidden wherever they appear in what is written or shown for it.
    secrets.recall_threads_with(partial(thread_secret_sources, storage.checkpoint_reader))
    webhook = (
        WebhookSender(
            storage.outbox,
            settings.webhook_url,
            public_url=settings.public_url,
            secret=settings.webhook_secret,
            message_format=settings.webhook_format,
        )
        if settings.webhook_url
        else None
    )
    if webhook is not None and send_notifications:
        webhook.start()
    reviews = ReviewService(
        graph,
        context,
        ledger,
        audit,
        engine,
        conversations,
        notifier=notifier,
        sampler=sampler_for(settings.model, timeout=settings.model_timeout),
        grants=grants,
    )
    return Services(
        graph=graph,
        context=context,
        checkpointer=checkpointer,
        policy=engine,
        pins=pins,
        ledger=ledger,
        audit=audit,
        conversations=conversations,
        reviews=reviews,
        requests=RequestService(
            graph,
            context,
            engine,
            audit,
            conversations,
            reviews,
            secrets=secrets,
            servers=servers,
            read_servers_file=partial(servers_config, settings),
        ),
        settings=settings,
        questions=questions,
        policy_changes=PolicyChanges(versions, audit, engine, parse, policy_file=settings.policy_path),
        secrets=secrets,
        servers=servers,
        owns_mcp=owns_mcp,
        outbox=storage.outbox,
        webhook=webhook,
        checkpoint_reader=storage.checkpoint_reader,
        grants=grants,
    )


@contextmanager
def open_services(
    settings: Settings,
    *,
    mcp: McpClient | None = None,
    limits: Limits | None = None,
    connect_servers: bool = True,
    create_database: bool = True,
    send_notifications: bool = True,
    servers: ServersConfig | None = None,
) -> Iterator[Services]:
    services = build_services(
        settings,
        mcp=mcp,
        limits=limits,
        connect_servers=connect_servers,
        create_database=create_database,
        send_notifications=send_notifications,
        servers=servers,
    )
    try:
        yield services
    finally:
        services.close()
