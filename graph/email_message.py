"""An e-mail message as a reviewer approves it and as its server reads it back: the same shape
for both (recipients as lists, the server's default subject), so the two compare field by field.
The Reviews page shows the approved one (gatehouse/web/effect_preview.py); the read-back
compares them (graph/effect_readback.py)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

# What the bundled e-mail server (servers/email.py) sends when the call names no subject.
NO_SUBJECT = "(no subject)"


@dataclass(frozen=True)
class EmailMessage:
    to: list[str]
    cc: list[str]
    subject: str
    body: str

    def differences(self, other: EmailMessage) -> list[str]:
        """The fields in which ``other`` is not this message."""
        return [
            name for name in ("to", "cc", "subject", "body") if getattr(self, name) != getattr(other, name)
        ]


def addresses(value: Any) -> list[str]:
    """Recipients as a list, from a list or from one string of them (comma or semicolon)."""
    if isinstance(value, list):
        return [str(v).strip() for v in value]
    if isinstance(value, str) and value.strip():
        return [part.strip() for part in value.replace(";", ",").split(",") if part.strip()]
    return []


def email_message(fields: dict[str, Any]) -> EmailMessage:
    """The message ``fields`` describe: a send's arguments, or a sent message read back."""
    return EmailMessage(
        to=addresses(fields.get("to")),
        cc=addresses(fields.get("cc")),
        subject=str(fields.get("subject") or NO_SUBJECT),
        body=str(fields.get("body") or ""),
    )
