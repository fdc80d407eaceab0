"""Demo e-mail server: "sending" appends the message to a local outbox file and nothing leaves the
machine; a sent message reads back by its id (``mail://sent/{id}``)."""

import json
import re
import uuid
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceNotFoundError, ToolError
from mcp.types import ToolAnnotations
from pydantic import BaseModel, Field

from gatehouse_verify.keys import PublicKeys
from gatehouse_verify.verifier import verifying_server
from servers._common import SERVER_VERSION, approval_keys, run_stdio

OUTBOX_FILE = "outbox.jsonl"

# Deliberately simple: one @, no whitespace, a dot in the domain. Enough to catch slips, not RFC 5322.
ADDRESS_PATTERN = re.compile(r"[^@\s]+@[^@\s]+\.[^@\s.]+")


class QueuedEmail(BaseModel):
    queued: bool = Field(description="Always true: the message was written to the outbox.")
    id: str = Field(description="Identifier of the queued message.")
    to: str = Field(description="The recipient address.")


def validate_address(address: str, field: str) -> str:
    cleaned = address.strip()
    if not ADDRESS_PATTERN.fullmatch(cleaned):
        raise ToolError(f"invalid e-mail address in {field}: {address!r}")
    return cleaned


def find_message(outbox: Path, message_id: str) -> dict[str, Any] | None:
    """The outbox's message with this id (the last, should an id ever repeat), or None."""
    if not outbox.exists():
        return None
    found = None
    with outbox.open(encoding="utf-8") as lines:
        for line in lines:
            try:
                message = json.loads(line)
            except ValueError:
                continue  # a line cut short by a crash mid-write is no message
            if isinstance(message, dict) and message.get("id") == message_id:
                found = message
    return found


def build_server(data_dir: Path, approvals: PublicKeys | None = None) -> MCPServer:
    """The server on ``data_dir``; with ``approvals`` (Gatehouse's public keys) its
    side-effecting tools run only under a grant Gatehouse signed (gatehouse_verify/)."""
    outbox = data_dir / OUTBOX_FILE
    data_dir.mkdir(parents=True, exist_ok=True)

    server = verifying_server(
        "email",
        approvals,
        version=SERVER_VERSION,
        instructions="Send e-mail messages. Demo only: messages go to a local outbox file, never delivered.",
    )

    # Annotated as a real mail sender (open world, not idempotent) so that review policies
    # treat it the way they would treat one, even though this demo only writes a file.
    @server.tool(
        annotations=ToolAnnotations(
            title="Send e-mail",
            read_only_hint=False,
            destructive_hint=False,
            idempotent_hint=False,
            open_world_hint=True,
        )
    )
    def send_email(
        to: Annotated[str, Field(description="Recipient e-mail address.")],
        body: Annotated[str, Field(description="Plain-text message body.")],
        subject: Annotated[str, Field(description="Subject line.")] = "(no subject)",
        cc: Annotated[list[str] | None, Field(description="Addresses to copy the message to.")] = None,
    ) -> QueuedEmail:
        """Send an e-mail message (demo: appended to a local outbox file, never delivered)."""
        recipient = validate_address(to, "to")
        copies = [validate_address(address, "cc") for address in cc or []]
        message_id = uuid.uuid4().hex
        message = {
            "id": message_id,
            "to": recipient,
            "cc": copies,
            "subject": subject,
            "body": body,
            "queued_at": datetime.now(UTC).isoformat(timespec="seconds"),
        }
        line = json.dumps(message, ensure_ascii=False) + "\n"
        # One write() on an O_APPEND handle, so lines from concurrent processes do not interleave.
        with outbox.open("a", encoding="utf-8", newline="\n") as handle:
            handle.write(line)
        return QueuedEmail(queued=True, id=message_id, to=recipient)

    # A resource, not a tool: what was sent is read by the message id a send returned (Gatehouse
    # reads it back to check the message is the one approved), and a template is not a tool the
    # planner offers for "send an e-mail".
    @server.resource(
        "mail://sent/{id}",
        # Named and described in words that rate as a read: "send", "mail" or "message" in
        # its name would put it among outgoing messages (policies/risk.py) and hold the read
        # for a review.
        name="outbox_entry",
        title="Sent e-mail",
        description="One message in the outbox, by the id its queued receipt gave, as JSON: to, cc, subject, body.",
        mime_type="application/json",
    )
    def outbox_entry(id: str) -> str:
        """One message in the outbox, by the id its queued receipt gave, as JSON."""
        message = find_message(outbox, id)
        if message is None:
            raise ResourceNotFoundError(f"no such message: {id}")
        return json.dumps(message, ensure_ascii=False, indent=2)

    return server


def main(argv: Sequence[str] | None = None) -> None:
    run_stdio(
        lambda data_dir: build_server(data_dir, approval_keys("email")),
        argv,
        description="Gatehouse demo e-mail MCP server (stdio, outbox file only).",
    )


if __name__ == "__main__":
    main()
