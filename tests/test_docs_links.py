"""Every relative link and #anchor in README.md and docs/*.md leads somewhere: a file that exists
and, for an anchor, a heading of that file as GitHub names it. Pages move and headings get
renamed; this keeps the README's links into docs/ (and the pages' links to each other) alive."""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path
from urllib.parse import unquote

ROOT = Path(__file__).resolve().parents[1]

_FENCE = re.compile(r"^(```|~~~)")
_HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*#*\s*$")
# A code span's text is shown as it is, so a link inside one is no link (`[x](y)` in prose).
_CODE_SPAN = re.compile(r"`[^`]*`")
# [text](target) and ![alt](target), the text one level of brackets deep and free to wrap lines.
_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_EXTERNAL = ("http://", "https://", "mailto:")


def markdown_pages(root: Path) -> list[Path]:
    """The pages whose links are checked: the README and every page under docs/."""
    return [root / "README.md", *sorted((root / "docs").glob("*.md"))]


def _prose_lines(text: str) -> list[str]:
    """The lines of ``text`` outside fenced code blocks (those inside become empty)."""
    lines, fenced = [], False
    for line in text.splitlines():
        if _FENCE.match(line):
            fenced = not fenced
            lines.append("")
        else:
            lines.append("" if fenced else line)
    return lines


def github_anchor(heading: str) -> str:
    """The anchor GitHub gives a heading: its text as rendered (code spans and links keep their
    text, emphasis marks go), lower-cased, every character but letters, digits, ``_``, ``-`` and
    spaces dropped, each space a hyphen."""
    text = re.sub(r"`([^`]*)`", r"\1", heading)
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = text.replace("*", "")
    text = re.sub(r"[^\w\- ]", "", text.strip().lower())
    return text.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    """Every heading anchor of ``page``; a repeated heading's anchor gets -1, -2, ... as on GitHub."""
    found: set[str] = set()
    seen: dict[str, int] = {}
    for line in _prose_lines(page.read_text(encoding="utf-8")):
        match = _HEADING.match(line)
        if match is None:
            continue
        anchor = github_anchor(match.group(1))
        count = seen.get(anchor, 0)
        seen[anchor] = count + 1
        found.add(anchor if count == 0 else f"{anchor}-{count}")
    return found


def links(page: Path) -> list[str]:
    """The targets of the links on ``page``, outside code blocks and code spans."""
    prose = "\n".join(_prose_lines(page.read_text(encoding="utf-8")))
    return _LINK.findall(_CODE_SPAN.sub("", prose))


def broken_links(root: Path, pages: Iterable[Path]) -> list[str]:
    """One line per relative link or anchor on ``pages`` that leads nowhere: the page, the
    target and what is missing."""
    problems: list[str] = []
    for page in pages:
        name = page.relative_to(root).as_posix()
        for target in links(page):
            if target.startswith(_EXTERNAL):
                continue
            path_part, _, anchor = target.partition("#")
            linked = (page.parent / unquote(path_part)).resolve() if path_part else page
            if not linked.exists():
                problems.append(f"{name}: {target}: no such file")
            elif anchor and linked.suffix != ".md":
                problems.append(f"{name}: {target}: an anchor into a file that is not Markdown")
            elif anchor and anchor not in anchors(linked):
                problems.append(f"{name}: {target}: no heading with the anchor #{anchor}")
    return problems


def test_every_relative_link_and_anchor_in_the_readme_and_docs_resolves() -> None:
    assert broken_links(ROOT, markdown_pages(ROOT)) == []


def test_every_docs_page_is_listed_in_the_docs_index() -> None:
    index = ROOT / "docs" / "README.md"
    listed = {(index.parent / target).resolve() for target in links(index)}
    pages = {page.resolve() for page in markdown_pages(ROOT)[1:] if page != index}
    assert pages - listed == set()


def test_a_link_to_a_missing_file_or_heading_is_reported_and_code_is_not_a_link(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "page.md").write_text(
        "# Page\n\n## Adding your own server: the first hour\n\n## `final_output`\n\n## Page\n\n"
        "```toml\n# not a heading\n[x](nowhere.md)\n```\n\n"
        "Back to [the README](../README.md#top), a [wrapped\nlink](#page-1), `[code](gone.md)`.\n",
        encoding="utf-8",
    )
    (tmp_path / "README.md").write_text(
        "# Top\n\n"
        "[ok](docs/page.md#adding-your-own-server-the-first-hour), [ok](docs/page.md#final_output),\n"
        "[ok](docs/), [ok](https://example.com/missing), ![img](docs/page.md)\n\n"
        "[gone](docs/none.md), [stale](docs/page.md#first-hour), [here](#nowhere),\n"
        "[fenced](docs/page.md#not-a-heading), [dir](docs/#x)\n",
        encoding="utf-8",
    )

    assert broken_links(tmp_path, markdown_pages(tmp_path)) == [
        "README.md: docs/none.md: no such file",
        "README.md: docs/page.md#first-hour: no heading with the anchor #first-hour",
        "README.md: #nowhere: no heading with the anchor #nowhere",
        "README.md: docs/page.md#not-a-heading: no heading with the anchor #not-a-heading",
        "README.md: docs/#x: an anchor into a file that is not Markdown",
    ]


def test_headings_get_the_anchors_github_gives_them() -> None:
    assert github_anchor("Adding your own server: the first hour") == "adding-your-own-server-the-first-hour"
    assert github_anchor("Figure 2: the bundled servers' launcher") == "figure-2-the-bundled-servers-launcher"
    assert github_anchor("`final_output`") == "final_output"
    assert github_anchor("**What it cannot do.**") == "what-it-cannot-do"
    assert github_anchor("Where the [benchmark](docs/benchmark.md) stands") == "where-the-benchmark-stands"
