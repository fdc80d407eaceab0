"""Where Gatehouse keeps its data, from flags, then environment variables, then defaults."""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal, get_args

from storage.database import DEFAULT_POOL_SIZE, is_postgres_url

if TYPE_CHECKING:
    from reviews.audit_keys import AuditKeys
    from storage import Database

DATA_ENV = "GATEHOUSE_DATA"
DB_ENV = "GATEHOUSE_DB"
SERVERS_ENV = "GATEHOUSE_SERVERS"
POLICY_ENV = "GATEHOUSE_POLICY"
POOL_ENV = "GATEHOUSE_DB_POOL_SIZE"
# off: prepare nothing on PostgreSQL, for a transaction-pooling proxy that cannot keep prepared
# statements (storage/postgres.py checkpointer_pool says why they are on by default).
PREPARED_STATEMENTS_ENV = "GATEHOUSE_DB_PREPARED_STATEMENTS"
WEBHOOK_ENV = "GATEHOUSE_WEBHOOK_URL"
PUBLIC_URL_ENV = "GATEHOUSE_PUBLIC_URL"
# A key shared with the webhook's receiver: each post is signed with it (Gatehouse-Signature).
WEBHOOK_SECRET_ENV = "GATEHOUSE_WEBHOOK_SECRET"
# What the webhook's receiver reads (gatehouse/notifications/message_formats.py): Gatehouse's own
# JSON (generic), a Slack incoming webhook's Block Kit message (slack), or a Teams workflow's
# Adaptive Card (teams).
WEBHOOK_FORMAT_ENV = "GATEHOUSE_WEBHOOK_FORMAT"
WebhookFormat = Literal["generic", "slack", "teams"]
WEBHOOK_FORMATS: tuple[WebhookFormat, ...] = get_args(WebhookFormat)
# provider:model, e.g. openai:gpt-4.1-mini; unset: the deterministic planner.
MODEL_ENV = "GATEHOUSE_MODEL"
# Seconds a language model may take to answer before the deterministic planner stands in.
MODEL_TIMEOUT_ENV = "GATEHOUSE_MODEL_TIMEOUT"
DEFAULT_MODEL_TIMEOUT = 30.0
# Encrypts remote servers' sign-ins in the database (gatehouse/credentials/server_credentials.py); a root-level
# entry of .streamlit/secrets.toml is exported as this variable by Streamlit itself.
SECRET_KEY_ENV = "GATEHOUSE_SECRET_KEY"
# The audit key that chains new audit events and signs anchors, and the keys it replaced, which
# only verify what they made (reviews/audit_keys.py).
AUDIT_KEY_ENV = "GATEHOUSE_AUDIT_KEY"
AUDIT_OLD_KEYS_ENV = "GATEHOUSE_AUDIT_OLD_KEYS"
# How far back `gatehouse policy suggest` reads reviewers' decisions (days), and how many decisions
# on one capability it needs before it suggests a rule for it (reviews/suggestions.py).
SUGGEST_DAYS_ENV = "GATEHOUSE_SUGGEST_DAYS"
SUGGEST_MIN_DECISIONS_ENV = "GATEHOUSE_SUGGEST_MIN_DECISIONS"
DEFAULT_SUGGEST_DAYS = 30
DEFAULT_SUGGEST_MIN_DECISIONS = 5
# The Servers page's address in the app (app.py), where sign-ins started there return.
SERVERS_PAGE_PATH = "servers"
# The Reviews page's address (app.py), where a notification's link to a review goes; the one it had
# before, /review_queue, still opens it.
REVIEWS_PAGE_PATH = "reviews"
# The bearer token `gatehouse bridge` calls a `gatehouse serve` endpoint with (gatehouse/gateway/
# upstream.py): read from the environment only, since a command line is visible to everyone (ps).
BRIDGE_TOKEN_ENV = "GATEHOUSE_TOKEN"
# How long `gatehouse serve` keeps open a call waiting for a reviewer, for a client without the
# tasks extension (gatehouse/gateway/waits.py; `--wait`). Under the 60 s a request waits by
# default in the TypeScript SDK's client (and so in the many clients built on it): a wait that
# outlived the client's own timeout would end in the client cancelling, which withdraws the
# review. Here, not in the gateway, so that `gatehouse --help` imports no MCP SDK.
DEFAULT_GATEWAY_WAIT_SECONDS = 45.0
# `gatehouse serve` as an OAuth 2.1 resource server (gatehouse/gateway/resource_server.py): the
# authorization server whose access tokens it accepts, the endpoint's own address as clients
# reach it, the audiences tokens must carry (default: that address), the claim naming the roster
# member (default: the verified e-mail address) and the scopes every token must hold.
OAUTH_ISSUER_ENV = "GATEHOUSE_OAUTH_ISSUER"
OAUTH_RESOURCE_ENV = "GATEHOUSE_OAUTH_RESOURCE"
OAUTH_AUDIENCE_ENV = "GATEHOUSE_OAUTH_AUDIENCE"
OAUTH_CLAIM_ENV = "GATEHOUSE_OAUTH_CLAIM"
OAUTH_SCOPES_ENV = "GATEHOUSE_OAUTH_SCOPES"
# Set by Gatehouse for its configuration files only (helper_variables), never read from outside.
PYTHON_VARIABLE = "GATEHOUSE_PYTHON"
DEMO_DATA_VARIABLE = "GATEHOUSE_DEMO_DATA"
# The file of Gatehouse's public keys for approvals (gatehouse/approval_keys.py), which the
# bundled servers verify side-effecting calls with: public, never a secret.
APPROVAL_KEYS_FILE_VARIABLE = "GATEHOUSE_APPROVAL_KEYS_FILE"
# Where in the data folder Gatehouse keeps its signing key and the public keys file.
KEYS_FOLDER = "keys"
PUBLIC_KEYS_FILE = "approval-public-keys.txt"
DEFAULT_DATA_DIR = Path("data")
DB_FILE_NAME = "gatehouse.db"


def helper_variables(data_dir: Path, demo_data_dir: Path) -> dict[str, str]:
    """What ``${GATEHOUSE_PYTHON}`` (this interpreter), ``${GATEHOUSE_DATA}`` (the data folder),
    ``${GATEHOUSE_DEMO_DATA}`` (the demo servers' folder) and ``${GATEHOUSE_APPROVAL_KEYS_FILE}``
    (Gatehouse's public keys for approvals, gatehouse/approval_keys.py) mean in any servers file, the
    shipped one or a person's copy of it, and in the policy file. Nothing secret: Gatehouse's
    credentials are never expanded (mcp_host/variables.py GATEHOUSE_SECRETS)."""
    return {
        PYTHON_VARIABLE: sys.executable,
        DATA_ENV: str(data_dir.resolve()),
        DEMO_DATA_VARIABLE: str(demo_data_dir.resolve()),
        APPROVAL_KEYS_FILE_VARIABLE: str((data_dir / KEYS_FOLDER / PUBLIC_KEYS_FILE).resolve()),
    }


@dataclass(frozen=True)
class Settings:
    data_dir: Path
    db_path: Path
    # A servers file (mcpServers / servers JSON); None means the bundled demo servers.
    servers_path: Path | None = None
    # A policy file; None means the shipped policies/default.toml.
    policy_path: Path | None = None
    # GATEHOUSE_DB=postgresql://...: checkpoints, ledger and audit log in that database
    # (several replicas share it); None means the SQLite file db_path.
    db_url: str | None = None
    # Connections per pool a process opens to PostgreSQL (one pool for the checkpoints, one
    # for the ledger, audit log, conversations and pins).
    db_pool_size: int = DEFAULT_POOL_SIZE
    # Whether PostgreSQL connections prepare the statements they run often (GATEHOUSE_DB_PREPARED_STATEMENTS).
    db_prepared_statements: bool = True
    # Where review notifications are posted (JSON, Slack-compatible); None: no notifications.
    webhook_url: str | None = None
    # The shape of each post: Gatehouse's JSON, a Slack message or a Teams Adaptive Card.
    webhook_format: WebhookFormat = "generic"
    # Signs each post (HMAC-SHA256, ``Gatehouse-Signature``) so the receiver can tell a post
    # from Gatehouse from a forgery or an old one replayed; None: posts are not signed.
    webhook_secret: str | None = None
    # The app's address as reviewers reach it, for the ``?review=ID`` link in notifications.
    public_url: str | None = None
    # The language model that plans requests (provider:model); None: the deterministic planner.
    model: str | None = None
    # How long the model may take per call before the deterministic planner stands in.
    model_timeout: float = DEFAULT_MODEL_TIMEOUT
    # The key(s) that encrypt sign-ins to remote servers; None: sign-ins cannot be kept.
    secret_key: str | None = field(default=None, repr=False)
    # GATEHOUSE_AUDIT_KEY and GATEHOUSE_AUDIT_OLD_KEYS as set; None: the audit chain is unkeyed.
    audit_key: str | None = field(default=None, repr=False)
    audit_old_keys: str | None = field(default=None, repr=False)
    # The window of decisions `policy suggest` learns from, and the evidence it needs per rule.
    suggest_days: int = DEFAULT_SUGGEST_DAYS
    suggest_min_decisions: int = DEFAULT_SUGGEST_MIN_DECISIONS

    @property
    def demo_data_dir(self) -> Path:
        """Where the bundled demo servers keep their files (the managed folder, tickets, outbox)."""
        return self.data_dir / "demo"

    @property
    def app_url(self) -> str:
        """The app's address as browsers reach it (GATEHOUSE_PUBLIC_URL), Streamlit's default
        without one."""
        return (self.public_url or "http://localhost:8501").rstrip("/")

    @property
    def sign_in_return_url(self) -> str:
        """Where a remote server's authorization server sends the browser back after a sign-in
        started from the app: its Servers page."""
        return f"{self.app_url}/{SERVERS_PAGE_PATH}"

    @property
    def file_variables(self) -> dict[str, str]:
        """The ``${VAR}`` helpers Gatehouse fills in for its configuration files (helper_variables)."""
        return helper_variables(self.data_dir, self.demo_data_dir)

    @property
    def server_log_dir(self) -> Path:
        """Where each stdio server's stderr goes, one file per server."""
        return self.data_dir / "logs" / "servers"

    @classmethod
    def resolve(
        cls,
        *,
        db: str | None = None,
        servers: str | None = None,
        policy: str | None = None,
        environ: Mapping[str, str] | None = None,
    ) -> Settings:
        env = os.environ if environ is None else environ
        data_dir = Path(env.get(DATA_ENV) or DEFAULT_DATA_DIR)
        database = db or env.get(DB_ENV)
        db_url = database if database and is_postgres_url(database) else None
        db_path = Path(database) if database and db_url is None else data_dir / DB_FILE_NAME
        pool_size = env.get(POOL_ENV)
        servers_file = servers or env.get(SERVERS_ENV)
        policy_file = policy or env.get(POLICY_ENV)
        return cls(
            data_dir=data_dir,
            db_path=db_path,
            servers_path=Path(servers_file) if servers_file else None,
            policy_path=Path(policy_file) if policy_file else None,
            db_url=db_url,
            db_pool_size=_pool_size(pool_size),
            db_prepared_statements=_switch(
                env.get(PREPARED_STATEMENTS_ENV), PREPARED_STATEMENTS_ENV, default=True
            ),
            webhook_url=_http_url(env.get(WEBHOOK_ENV), WEBHOOK_ENV),
            webhook_format=parse_webhook_format(env.get(WEBHOOK_FORMAT_ENV)),
            public_url=_http_url(env.get(PUBLIC_URL_ENV), PUBLIC_URL_ENV),
            webhook_secret=(env.get(WEBHOOK_SECRET_ENV) or "").strip() or None,
            model=(env.get(MODEL_ENV) or "").strip() or None,
            model_timeout=_seconds(env.get(MODEL_TIMEOUT_ENV), MODEL_TIMEOUT_ENV, DEFAULT_MODEL_TIMEOUT),
            secret_key=(env.get(SECRET_KEY_ENV) or "").strip() or None,
            audit_key=env.get(AUDIT_KEY_ENV) or None,
            audit_old_keys=env.get(AUDIT_OLD_KEYS_ENV) or None,
            suggest_days=whole_number(env.get(SUGGEST_DAYS_ENV), SUGGEST_DAYS_ENV, DEFAULT_SUGGEST_DAYS),
            suggest_min_decisions=whole_number(
                env.get(SUGGEST_MIN_DECISIONS_ENV), SUGGEST_MIN_DECISIONS_ENV, DEFAULT_SUGGEST_MIN_DECISIONS
            ),
        )

    def audit_keys(self) -> AuditKeys | None:
        """The audit keys these settings name, checked; None when no audit key is set.

        Raises:
            AuditKeyError: a key is too short, or old keys are set without a current one.
        """
        from reviews.audit_keys import parse_audit_keys

        return parse_audit_keys(self.audit_key, self.audit_old_keys)

    def open_database(self) -> Database:
        """A new connection to the stores' database as these settings say: the SQLite file, or
        a PostgreSQL pool of ``db_pool_size`` connections that prepares statements unless
        ``db_prepared_statements`` is off. Every store a process opens goes through here, so
        none of them prepares statements behind a proxy that cannot keep them. The caller
        closes it (a store closes the database it was given).

        Raises:
            sqlite3.Error, psycopg.Error, OSError: the database cannot be opened.
        """
        # Imported here: the command line reads its settings before it knows it needs a database.
        from storage import open_database

        return open_database(
            self.db_url if self.db_url is not None else self.db_path,
            pool_size=self.db_pool_size,
            prepared_statements=self.db_prepared_statements,
        )

    @property
    def database(self) -> str:
        """Where the data is, for messages: the file, or the URL without its password."""
        if self.db_url is None:
            return str(self.db_path)
        from storage.postgres import redacted

        return redacted(self.db_url)


def _pool_size(value: str | None) -> int:
    if value is None or not value.strip():
        return DEFAULT_POOL_SIZE
    if not value.strip().isdigit() or int(value) < 1:
        from gatehouse.errors import ConfigurationError

        raise ConfigurationError(
            f"{POOL_ENV}: expected a whole number of connections (1 or more), got {value!r}"
        )
    return int(value)


def whole_number(value: str | None, variable: str, default: int) -> int:
    """A whole number of 1 or more from a setting, the default when unset."""
    if value is None or not value.strip():
        return default
    if not value.strip().isdigit() or int(value) < 1:
        from gatehouse.errors import ConfigurationError

        raise ConfigurationError(f"{variable}: expected a whole number (1 or more), got {value!r}")
    return int(value)


_ON = ("on", "true", "yes", "1")
_OFF = ("off", "false", "no", "0")


def _switch(value: str | None, variable: str, *, default: bool) -> bool:
    if value is None or not value.strip():
        return default
    word = value.strip().lower()
    if word in _ON or word in _OFF:
        return word in _ON
    from gatehouse.errors import ConfigurationError

    raise ConfigurationError(f"{variable}: expected on or off, got {value!r}")


def parse_webhook_format(value: str | None) -> WebhookFormat:
    """GATEHOUSE_WEBHOOK_FORMAT as one of WEBHOOK_FORMATS (any case), generic when unset."""
    word = (value or "").strip().lower()
    if not word:
        return "generic"
    for known in WEBHOOK_FORMATS:
        if word == known:
            return known
    from gatehouse.errors import ConfigurationError

    raise ConfigurationError(
        f"{WEBHOOK_FORMAT_ENV}: expected {', '.join(WEBHOOK_FORMATS[:-1])} or {WEBHOOK_FORMATS[-1]}, got {value!r}"
    )


def _seconds(value: str | None, variable: str, default: float) -> float:
    if value is None or not value.strip():
        return default
    try:
        seconds = float(value)
    except ValueError:
        seconds = 0.0
    if not seconds > 0 or seconds == float("inf"):
        from gatehouse.errors import ConfigurationError

        raise ConfigurationError(f"{variable}: expected a number of seconds above 0, got {value!r}")
    return seconds


def _http_url(value: str | None, variable: str) -> str | None:
    """An http(s) URL with a host, or None when unset; a mistake names the variable, never
    the URL's token."""
    if value is None or not value.strip():
        return None
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(value.strip())
        usable = parts.scheme in ("http", "https") and bool(parts.hostname)
    except ValueError:  # a malformed host ("http://[abc")
        usable = False
    if not usable:
        from gatehouse.errors import ConfigurationError
        from gatehouse.notifications.webhook_message import shown_url

        raise ConfigurationError(
            f"{variable}: expected an http:// or https:// URL with a host, got {shown_url(value.strip())!r}"
        )
    return value.strip()
