"""Demo support-ticket server backed by a small SQLite database.

Several server processes may share `tickets.db`, so every call opens (and closes) its own
connection, and writes run inside a single transaction.
"""

import base64
import binascii
import json
import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import closing, contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Literal

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError, ToolError
from mcp.types import ToolAnnotations
from pydantic import BaseModel, Field

from gatehouse_verify.keys import PublicKeys
from gatehouse_verify.verifier import verifying_server
from servers._common import SERVER_VERSION, approval_keys, run_stdio

DATABASE_FILE = "tickets.db"
MAX_PAGE_SIZE = 50
BUSY_TIMEOUT_SECONDS = 10.0

Priority = Literal["low", "medium", "high", "urgent"]
Status = Literal["open", "pending", "closed"]

# Ids are 1..40 in this order. Exactly five tickets are high priority and open.
# fmt: off
SEED_TICKETS: tuple[tuple[Priority, Status, str, str, str, str], ...] = (
    # (priority, status, customer, created, title, description)
    ("high", "open", "Acme Corp", "2025-01-06", "Cannot log in after password reset",
     "The reset link works but the new password is rejected."),
    ("medium", "open", "Birchwood Books", "2025-01-07", "Invoice shows wrong VAT rate",
     "January invoice applies 19% instead of 7% on books."),
    ("high", "closed", "Northwind Traders", "2025-01-08", "Export to CSV times out",
     "Exporting more than 10,000 rows never finishes."),
    ("low", "closed", "Globex", "2025-01-09", "Typo on the pricing page",
     "'Anual' should read 'Annual' in the plan table."),
    ("urgent", "closed", "Initech", "2025-01-10", "Production API returns 500 on every request",
     "All calls to /v2/orders fail since 09:12 UTC."),
    ("high", "open", "Umbrella Health", "2025-01-13", "Two-factor codes arrive late",
     "SMS codes take several minutes, so they expire first."),
    ("low", "open", "Hooli", "2025-01-14", "Request for dark mode",
     "Several team members would like a dark theme."),
    ("medium", "pending", "Stark Logistics", "2025-01-15", "Webhook retries flood our endpoint",
     "Failed deliveries are retried every second without backoff."),
    ("medium", "closed", "Wayne Retail", "2025-01-16", "Dashboard charts render blank in Safari",
     "Charts stay empty in Safari 17; Chrome is fine."),
    ("high", "open", "Acme Corp", "2025-01-17", "Duplicate charge on credit card",
     "The February renewal was charged twice."),
    ("low", "closed", "Birchwood Books", "2025-01-20", "How do I add a second admin?",
     "Looking for the setting to promote a user to admin."),
    ("medium", "open", "Globex", "2025-01-21", "Data import skips rows with accents",
     "Names such as 'Zoë' are dropped during import."),
    ("high", "pending", "Initech", "2025-01-22", "SSO login loops back to the start page",
     "After the identity provider redirect we land on login again."),
    ("urgent", "open", "Umbrella Health", "2025-01-23", "Mobile app crashes on launch",
     "Android 14 devices crash immediately after the splash screen."),
    ("low", "pending", "Hooli", "2025-01-24", "Please update our billing address",
     "We moved offices; the new address is attached."),
    ("medium", "open", "Northwind Traders", "2025-01-27", "Search results ignore the date filter",
     "Filtering by last 7 days still shows older items."),
    ("high", "open", "Stark Logistics", "2025-01-28", "Scheduled reports not delivered",
     "The Monday 08:00 report has not arrived for two weeks."),
    ("low", "closed", "Wayne Retail", "2025-01-29", "Feature request: bulk tag editing",
     "We would like to change tags on many records at once."),
    ("medium", "pending", "Globex", "2025-01-30", "Slow page loads in the EU region",
     "Pages take 6-8 seconds to load from Frankfurt."),
    ("urgent", "closed", "Acme Corp", "2025-01-31", "Customer data visible to wrong tenant",
     "A user reports seeing another company's contacts."),
    ("low", "open", "Birchwood Books", "2025-02-03", "Password policy too strict",
     "Users complain about the 20-character minimum."),
    ("high", "closed", "Northwind Traders", "2025-02-04", "API rate limit lower than contracted",
     "We are throttled at 100 req/min; the contract says 500."),
    ("medium", "closed", "Initech", "2025-02-05", "Attachment upload fails over 5 MB",
     "Uploads above 5 MB stop at 99% and fail."),
    ("high", "open", "Umbrella Health", "2025-02-06", "Audit log missing delete events",
     "Deleted records do not appear in the audit log."),
    ("medium", "open", "Hooli", "2025-02-07", "Wrong time zone in e-mail notifications",
     "Notification times are shown in UTC instead of local time."),
    ("low", "closed", "Stark Logistics", "2025-02-10", "Cancel our trial account",
     "We decided not to continue after the trial."),
    ("urgent", "pending", "Wayne Retail", "2025-02-11", "Payment page down for all customers",
     "Checkout shows a blank page; no payments since noon."),
    ("medium", "pending", "Globex", "2025-02-12", "Keyboard shortcuts conflict with screen reader",
     "Ctrl+K is captured before the screen reader sees it."),
    ("medium", "closed", "Acme Corp", "2025-02-13", "Report totals off by one cent",
     "Rounding makes monthly totals differ from the invoice."),
    ("high", "closed", "Birchwood Books", "2025-02-14", "Locked out after too many attempts",
     "The lockout does not expire after the documented 15 minutes."),
    ("low", "open", "Northwind Traders", "2025-02-17", "Request for a Spanish translation",
     "Our Madrid team would prefer the interface in Spanish."),
    ("medium", "open", "Initech", "2025-02-18", "Sync with calendar creates duplicates",
     "Every sync adds another copy of recurring events."),
    ("low", "closed", "Umbrella Health", "2025-02-19", "Broken link in the welcome e-mail",
     "The 'Get started' button points to a 404 page."),
    ("urgent", "open", "Hooli", "2025-02-20", "Backups failing since the last update",
     "Nightly backup jobs end with 'snapshot quota exceeded'."),
    ("medium", "closed", "Stark Logistics", "2025-02-21", "Clarify the data retention policy",
     "Legal asks how long deleted records are kept."),
    ("low", "pending", "Wayne Retail", "2025-02-24", "User invitations expire too quickly",
     "Invites expire after 24 hours; new hires miss them."),
    ("medium", "closed", "Globex", "2025-02-25", "PDF invoices are blank when printed",
     "Printing a downloaded invoice produces empty pages."),
    ("high", "pending", "Acme Corp", "2025-02-26", "Roles lost after plan upgrade",
     "All users were reset to 'viewer' after upgrading the plan."),
    ("low", "closed", "Birchwood Books", "2025-02-27", "Feature request: export to Excel",
     "We would like a native .xlsx export next to CSV."),
    ("medium", "pending", "Northwind Traders", "2025-02-28", "Inbox counts do not refresh",
     "Unread counts stay stale until the page is reloaded."),
)
# fmt: on

SCHEMA = """
CREATE TABLE tickets (
    id INTEGER PRIMARY KEY,
    title TEXT NOT NULL,
    description TEXT NOT NULL,
    priority TEXT NOT NULL CHECK (priority IN ('low', 'medium', 'high', 'urgent')),
    status TEXT NOT NULL CHECK (status IN ('open', 'pending', 'closed')),
    customer TEXT NOT NULL,
    created TEXT NOT NULL,
    updated TEXT
);
CREATE TABLE ticket_notes (
    id INTEGER PRIMARY KEY,
    ticket_id INTEGER NOT NULL REFERENCES tickets (id),
    note TEXT NOT NULL,
    added TEXT NOT NULL
);
"""

TICKET_COLUMNS = "id, title, description, priority, status, customer, created, updated"


class Ticket(BaseModel):
    id: int = Field(description="Ticket number.")
    title: str = Field(description="One-line summary of the problem.")
    description: str = Field(description="What the customer reported.")
    priority: Priority = Field(description="Priority: low, medium, high or urgent.")
    status: Status = Field(description="Status: open, pending or closed.")
    customer: str = Field(description="The customer who raised the ticket.")
    created: str = Field(description="Date the ticket was created (ISO 8601).")
    updated: str | None = Field(default=None, description="When the ticket last changed (ISO 8601), if ever.")
    notes: list[str] = Field(default_factory=list, description="Internal notes on the ticket, oldest first.")


class TicketPage(BaseModel):
    tickets: list[Ticket] = Field(description="The tickets on this page, ordered by id.")
    total: int = Field(description="How many tickets match the filters across all pages.")
    next_cursor: str | None = Field(description="Pass as `cursor` for the next page; null on the last page.")


class TicketList(BaseModel):
    tickets: list[Ticket] = Field(description="Every ticket in the database, ordered by id.")
    total: int = Field(description="How many tickets there are.")


@contextmanager
def connect(db_path: Path) -> Iterator[sqlite3.Connection]:
    """One short-lived connection; `with conn` commits on success and rolls back on error."""
    with closing(sqlite3.connect(db_path, timeout=BUSY_TIMEOUT_SECONDS)) as conn, conn:
        conn.row_factory = sqlite3.Row
        yield conn


def seed_database(db_path: Path) -> bool:
    """Create and fill the tickets table if the database has none yet; return whether it seeded.

    BEGIN IMMEDIATE takes the write lock before the existence check, so two processes starting
    together cannot both seed. An existing table is left alone even if the user emptied it.
    """
    db_path.parent.mkdir(parents=True, exist_ok=True)
    with closing(sqlite3.connect(db_path, timeout=BUSY_TIMEOUT_SECONDS, isolation_level=None)) as conn:
        conn.execute("BEGIN IMMEDIATE")
        try:
            exists = conn.execute(
                "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'tickets'"
            ).fetchone()
            if exists is None:
                for statement in SCHEMA.split(";"):
                    if statement.strip():
                        conn.execute(statement)
                conn.executemany(
                    "INSERT INTO tickets (id, priority, status, customer, created, title, description)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?)",
                    [(number, *row) for number, row in enumerate(SEED_TICKETS, start=1)],
                )
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
    return exists is None


def _tickets_from_rows(conn: sqlite3.Connection, rows: list[sqlite3.Row]) -> list[Ticket]:
    ids = [row["id"] for row in rows]
    notes: dict[int, list[str]] = {ticket_id: [] for ticket_id in ids}
    if ids:
        placeholders = ", ".join("?" for _ in ids)
        for note in conn.execute(
            f"SELECT ticket_id, note FROM ticket_notes WHERE ticket_id IN ({placeholders}) ORDER BY id", ids
        ):
            notes[note["ticket_id"]].append(note["note"])
    return [Ticket(**dict(row), notes=notes[row["id"]]) for row in rows]


def fetch_ticket(conn: sqlite3.Connection, ticket_id: int) -> Ticket | None:
    row = conn.execute(f"SELECT {TICKET_COLUMNS} FROM tickets WHERE id = ?", (ticket_id,)).fetchone()
    return None if row is None else _tickets_from_rows(conn, [row])[0]


def encode_cursor(offset: int, priority: Priority | None, status: Status | None) -> str:
    # The filters ride along so a cursor cannot silently be replayed against a different query.
    payload = json.dumps({"offset": offset, "priority": priority, "status": status}, separators=(",", ":"))
    return base64.urlsafe_b64encode(payload.encode()).decode().rstrip("=")


def decode_cursor(cursor: str, priority: Priority | None, status: Status | None) -> int:
    invalid = ToolError(
        f"invalid cursor: {cursor!r} (pass back a next_cursor from a previous search_tickets call)"
    )
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        payload = json.loads(raw)
    except (binascii.Error, ValueError):
        raise invalid from None
    if not isinstance(payload, dict):
        raise invalid
    offset = payload.get("offset")
    # SQLite OFFSET is a 64-bit integer; anything near that is forged, not a real position.
    if not isinstance(offset, int) or isinstance(offset, bool) or not 0 <= offset < 2**31:
        raise invalid
    if payload.get("priority") != priority or payload.get("status") != status:
        raise ToolError(
            f"cursor {cursor!r} belongs to a search with other filters; repeat the same priority and status"
        )
    return offset


def build_server(data_dir: Path, approvals: PublicKeys | None = None) -> MCPServer:
    """The server on ``data_dir``; with ``approvals`` (Gatehouse's public keys) its
    side-effecting tools run only under a grant Gatehouse signed (gatehouse_verify/)."""
    db_path = data_dir / DATABASE_FILE
    seed_database(db_path)

    server = verifying_server(
        "tickets",
        approvals,
        version=SERVER_VERSION,
        instructions=(
            "Search, read and update customer support tickets. "
            "Prefer search_tickets with filters; it is paginated."
        ),
    )

    @server.tool(
        annotations=ToolAnnotations(
            title="Search tickets",
            read_only_hint=True,
            idempotent_hint=True,
            open_world_hint=False,
        )
    )
    def search_tickets(
        priority: Annotated[Priority | None, Field(description="Only tickets with this priority.")] = None,
        status: Annotated[Status | None, Field(description="Only tickets with this status.")] = None,
        limit: Annotated[int, Field(ge=1, le=MAX_PAGE_SIZE, description="Page size, 1 to 50.")] = 20,
        cursor: Annotated[
            str | None, Field(description="next_cursor from the previous page; omit for the first page.")
        ] = None,
    ) -> TicketPage:
        """Search support tickets by priority and status, one page at a time (use next_cursor for more)."""
        offset = 0 if cursor is None else decode_cursor(cursor, priority, status)
        conditions: list[str] = []
        params: list[str] = []
        if priority is not None:
            conditions.append("priority = ?")
            params.append(priority)
        if status is not None:
            conditions.append("status = ?")
            params.append(status)
        where = f"WHERE {' AND '.join(conditions)}" if conditions else ""
        with connect(db_path) as conn:
            total = conn.execute(f"SELECT COUNT(*) FROM tickets {where}", params).fetchone()[0]
            rows = conn.execute(
                f"SELECT {TICKET_COLUMNS} FROM tickets {where} ORDER BY id LIMIT ? OFFSET ?",
                [*params, limit, offset],
            ).fetchall()
            tickets = _tickets_from_rows(conn, rows)
        end = offset + len(tickets)
        next_cursor = encode_cursor(end, priority, status) if end < total else None
        return TicketPage(tickets=tickets, total=total, next_cursor=next_cursor)

    @server.tool(
        annotations=ToolAnnotations(
            title="Update ticket",
            read_only_hint=False,
            destructive_hint=True,
            idempotent_hint=False,
            open_world_hint=False,
        )
    )
    def update_ticket(
        id: Annotated[int, Field(description="Number of the ticket to update.")],
        status: Annotated[Status | None, Field(description="New status; omit to keep it.")] = None,
        priority: Annotated[Priority | None, Field(description="New priority; omit to keep it.")] = None,
        note: Annotated[str | None, Field(description="Internal note to add to the ticket.")] = None,
    ) -> Ticket:
        """Change a support ticket's status or priority and/or add an internal note to it."""
        note = note.strip() if note is not None else None
        if status is None and priority is None and not note:
            raise ToolError("nothing to change: give at least one of status, priority or note")
        now = datetime.now(UTC).isoformat(timespec="seconds")
        with connect(db_path) as conn:
            changed = conn.execute(
                "UPDATE tickets"
                " SET status = COALESCE(?, status), priority = COALESCE(?, priority), updated = ?"
                " WHERE id = ?",
                (status, priority, now, id),
            )
            if changed.rowcount == 0:
                raise ToolError(f"no such ticket: {id}")
            if note:
                conn.execute(
                    "INSERT INTO ticket_notes (ticket_id, note, added) VALUES (?, ?, ?)", (id, note, now)
                )
            ticket = fetch_ticket(conn, id)
        assert ticket is not None  # the UPDATE matched it and held the write lock until the read
        return ticket

    @server.tool(
        annotations=ToolAnnotations(
            title="List all tickets (legacy)",
            read_only_hint=True,
            idempotent_hint=True,
            open_world_hint=False,
        )
    )
    def list_all_tickets() -> TicketList:
        """Legacy: return every ticket with no filters or paging."""
        with connect(db_path) as conn:
            rows = conn.execute(f"SELECT {TICKET_COLUMNS} FROM tickets ORDER BY id").fetchall()
            tickets = _tickets_from_rows(conn, rows)
        return TicketList(tickets=tickets, total=len(tickets))

    @server.resource(
        "ticket://{id}",
        name="ticket",
        title="Support ticket",
        description="One support ticket, by id, as JSON.",
        mime_type="application/json",
    )
    def ticket_resource(id: str) -> str:
        """One support ticket, by id, as JSON."""
        try:
            ticket_id = int(id)
        except ValueError:
            raise ResourceError(f"ticket id must be a whole number, got {id!r}") from None
        with connect(db_path) as conn:
            ticket = fetch_ticket(conn, ticket_id)
        if ticket is None:
            raise ResourceNotFoundError(f"no such ticket: {ticket_id}")
        return ticket.model_dump_json(indent=2)

    return server


def main(argv: Sequence[str] | None = None) -> None:
    run_stdio(
        lambda data_dir: build_server(data_dir, approval_keys("tickets")),
        argv,
        description="Gatehouse demo support-ticket MCP server (stdio).",
    )


if __name__ == "__main__":
    main()
