"""Demo documents server: one opaque binary report and one readable markdown handbook."""

from collections.abc import Sequence
from pathlib import Path

from mcp.server.mcpserver import MCPServer

from servers._common import SERVER_VERSION, run_stdio

REPORT_URI = "docs://quarterly-report.pdf"
HANDBOOK_URI = "docs://support-handbook"

SUPPORT_HANDBOOK = """\
# Support handbook

## Triage
- Read every new ticket within one business hour.
- Set the priority: **urgent** for outages or data exposure, **high** when a customer is blocked,
  **medium** for degraded features, **low** for questions and requests.
- Leave the ticket **open** while we owe the customer an answer, **pending** while we wait for them.

## Answering
- Reply in the customer's language and restate the problem in one sentence.
- Give a workaround first if one exists, then the fix or the next step and when to expect it.
- Never paste other customers' data, credentials or internal links into a reply.

## Closing
- Close a ticket only after the customer confirms the fix or stays silent for 7 days.
- Add an internal note explaining the cause, so the next person can find it.
"""


def build_pdf(lines: Sequence[str]) -> bytes:
    """A minimal single-page PDF 1.4 with the given text lines and a correct xref table."""

    def escape(text: str) -> str:
        return text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")

    text_ops = " ".join(f"({escape(line)}) Tj 0 -16 Td" for line in lines)
    stream = f"BT /F1 12 Tf 72 720 Td {text_ops} ET".encode("latin-1")
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792]"
        b" /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
        b"<< /Length %d >>\nstream\n%s\nendstream" % (len(stream), stream),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets: list[int] = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref_at = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    for offset in offsets:
        out += b"%010d 00000 n \n" % offset
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref_at)
    return bytes(out)


QUARTERLY_REPORT_PDF = build_pdf(["Quarterly report", "Q1: 40 tickets received, 5 high priority still open."])


def build_server(data_dir: Path) -> MCPServer:
    # The documents are built in memory; data_dir keeps the build signature uniform.
    del data_dir
    server = MCPServer(
        name="documents",
        version=SERVER_VERSION,
        instructions="Company documents: the quarterly report and the support handbook.",
    )

    @server.resource(
        REPORT_URI,
        name="quarterly-report",
        title="Quarterly report (PDF)",
        description="Quarterly report as a PDF document (binary).",
        mime_type="application/pdf",
    )
    def quarterly_report() -> bytes:
        return QUARTERLY_REPORT_PDF

    @server.resource(
        HANDBOOK_URI,
        name="support-handbook",
        title="Support handbook",
        description="Support handbook: how the support team triages and answers tickets.",
        mime_type="text/markdown",
    )
    def support_handbook() -> str:
        return SUPPORT_HANDBOOK

    return server


def main(argv: Sequence[str] | None = None) -> None:
    run_stdio(build_server, argv, description="Gatehouse demo documents MCP server (stdio).")


if __name__ == "__main__":
    main()
