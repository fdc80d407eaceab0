"""An e-mail and ticket server whose records can be changed right after a call made them: the
stand-in for a server that sends another message, or sets other fields, than it was asked to,
or a record something else edits between the call and Gatehouse's read-back of its effect
(graph/effect_readback.py).

Its capabilities are the bundled servers' (servers/email.py, servers/tickets.py):
``send_email(to, body, subject, cc)`` returning the message's ``id``, read back as the resource
``mail://sent/{id}``; ``update_ticket(id, status, priority, note)``, read back as
``ticket://{id}`` (ticket 7 exists: open, medium priority, no notes). Records are JSON files in
one folder (``--root``). With ``--drift JSON`` every send and update then overwrites the
record's fields with that object's (``{"subject": "changed"}``, ``{"status": "open"}``); with
``--failing-reads`` every read answers an error; with ``--log FILE`` every call appends its
tool's name, or the URI it read, to FILE (which calls reached the server).

Run it over stdio with ``python -m tests.drifting_records_server --root DIR [...]`` from the
repository root (``entry`` writes that servers-file entry).
"""

from __future__ import annotations

import argparse
import json
import sys
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError, ToolError
from mcp.types import ToolAnnotations
from pydantic import Field

from servers.tickets import Priority, Status

REPO = Path(__file__).resolve().parents[1]
TICKET = {
    "id": 7,
    "title": "Invoice shows wrong VAT rate",
    "status": "open",
    "priority": "medium",
    "notes": [],
}


def records_server(
    root: Path, drift: dict[str, Any] | None, *, failing_reads: bool, log: Path | None
) -> MCPServer:
    server = MCPServer("drifting-records")
    root.mkdir(parents=True, exist_ok=True)
    outbox, tickets = root / "outbox.json", root / "tickets.json"
    if not tickets.exists():
        tickets.write_text(json.dumps({"7": TICKET}), encoding="utf-8")

    def called(name: str) -> None:
        if log is not None:
            with log.open("a", encoding="utf-8") as handle:
                handle.write(name + "\n")

    def load(store: Path) -> dict[str, dict[str, Any]]:
        return json.loads(store.read_text(encoding="utf-8")) if store.exists() else {}

    def save(store: Path, key: str, record: dict[str, Any]) -> None:
        records = load(store)
        # What the call was asked to store, then (with --drift) the change right after it.
        records[key] = record | (drift or {})
        store.write_text(json.dumps(records), encoding="utf-8")

    def read(store: Path, key: str, what: str) -> str:
        if failing_reads:
            raise ResourceError(f"the {what} store is locked for maintenance")
        record = load(store).get(key)
        if record is None:
            raise ResourceNotFoundError(f"no such {what}: {key}")
        return json.dumps(record)

    @server.tool(
        description="Send an e-mail message.",
        annotations=ToolAnnotations(title="Send e-mail", read_only_hint=False, open_world_hint=True),
    )
    def send_email(
        to: str, body: str, subject: str = "(no subject)", cc: list[str] | None = None
    ) -> dict[str, Any]:
        called("send_email")
        message_id = uuid.uuid4().hex
        save(
            outbox, message_id, {"id": message_id, "to": to, "cc": cc or [], "subject": subject, "body": body}
        )
        return {"queued": True, "id": message_id, "to": to}

    @server.tool(
        description="Change a support ticket's status or priority and/or add an internal note to it.",
        annotations=ToolAnnotations(title="Update ticket", read_only_hint=False, destructive_hint=True),
    )
    def update_ticket(
        id: Annotated[int, Field(description="Number of the ticket to update.")],
        status: Annotated[Status | None, Field(description="New status; omit to keep it.")] = None,
        priority: Annotated[Priority | None, Field(description="New priority; omit to keep it.")] = None,
        note: Annotated[str | None, Field(description="Internal note to add to the ticket.")] = None,
    ) -> dict[str, Any]:
        called("update_ticket")
        ticket = load(tickets).get(str(id))
        if ticket is None:
            raise ToolError(f"no such ticket: {id}")
        changed = {"status": status or ticket["status"], "priority": priority or ticket["priority"]}
        notes = [*ticket["notes"], note.strip()] if note and note.strip() else ticket["notes"]
        save(tickets, str(id), ticket | changed | {"notes": notes})
        return ticket | changed | {"notes": notes}

    @server.resource("mail://sent/{id}", name="outbox_entry", mime_type="application/json")
    def outbox_entry(id: str) -> str:
        called(f"mail://sent/{id}")
        return read(outbox, id, "message")

    @server.resource("ticket://{id}", name="ticket", mime_type="application/json")
    def ticket(id: str) -> str:
        called(f"ticket://{id}")
        return read(tickets, id, "ticket")

    return server


def entry(
    root: Path, *, drift: dict[str, Any] | None = None, failing_reads: bool = False, log: Path | None = None
) -> dict[str, Any]:
    """The servers-file entry that starts this server over stdio (from the repository root, so
    the module imports)."""
    args = ["-m", __name__, "--root", str(root)]
    if drift is not None:
        args += ["--drift", json.dumps(drift)]
    if failing_reads:
        args.append("--failing-reads")
    if log is not None:
        args += ["--log", str(log)]
    return {"command": sys.executable, "args": args, "cwd": str(REPO)}


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--root", type=Path, required=True, help="the folder the records are in")
    parser.add_argument(
        "--drift", type=json.loads, help="fields overwritten right after every send and update"
    )
    parser.add_argument("--failing-reads", action="store_true", help="every read answers an error")
    parser.add_argument("--log", type=Path, help="gets one line per call: the tool's name or the URI read")
    args = parser.parse_args(argv)
    records_server(args.root, args.drift, failing_reads=args.failing_reads, log=args.log).run("stdio")


if __name__ == "__main__":
    main()
