import base64
import re
from pathlib import Path

import anyio
import pytest
from mcp import Client
from mcp.types import BlobResourceContents, TextResourceContents

from servers.documents import QUARTERLY_REPORT_PDF, build_server

pytestmark = pytest.mark.anyio


async def test_quarterly_report_comes_back_as_a_pdf_blob(data_dir: Path) -> None:
    with anyio.fail_after(10):
        async with Client(build_server(data_dir)) as client:
            result = await client.read_resource("docs://quarterly-report.pdf")
    [content] = result.contents
    assert isinstance(content, BlobResourceContents)
    assert content.mime_type == "application/pdf"
    data = base64.b64decode(content.blob)
    assert data == QUARTERLY_REPORT_PDF
    assert data.startswith(b"%PDF-1.4\n")
    assert data.rstrip().endswith(b"%%EOF")


def test_quarterly_report_pdf_is_small_and_structurally_valid() -> None:
    pdf = QUARTERLY_REPORT_PDF
    assert 200 < len(pdf) < 2000
    startxref = int(re.search(rb"startxref\n(\d+)\n", pdf).group(1))  # type: ignore[union-attr]
    assert pdf[startxref:].startswith(b"xref\n")
    offsets = [int(entry) for entry in re.findall(rb"^(\d{10}) 00000 n $", pdf, re.MULTILINE)]
    assert len(offsets) == 5
    for number, offset in enumerate(offsets, start=1):
        assert pdf[offset:].startswith(b"%d 0 obj\n" % number)
    length = int(re.search(rb"/Length (\d+)", pdf).group(1))  # type: ignore[union-attr]
    stream_start = pdf.index(b"stream\n") + len(b"stream\n")
    assert pdf[stream_start + length :].startswith(b"\nendstream")


async def test_support_handbook_is_readable_markdown(data_dir: Path) -> None:
    with anyio.fail_after(10):
        async with Client(build_server(data_dir)) as client:
            resources = {str(r.uri): r for r in (await client.list_resources()).resources}
            result = await client.read_resource("docs://support-handbook")
    handbook = resources["docs://support-handbook"]
    assert handbook.mime_type == "text/markdown"
    assert handbook.description == "Support handbook: how the support team triages and answers tickets."
    assert resources["docs://quarterly-report.pdf"].mime_type == "application/pdf"
    [content] = result.contents
    assert isinstance(content, TextResourceContents)
    assert content.mime_type == "text/markdown"
    assert content.text.startswith("# Support handbook")
    assert 12 <= len(content.text.splitlines()) <= 20
