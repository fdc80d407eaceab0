"""Where a server's capabilities say they work: "on the SQLite database", "from Redis", "in the
jotter". A request that names that place ("the shop database", "in the jotter") names the
server, as its configured name would, when no other server's capabilities use the word.
Read off the descriptions of any manifest, never off a list of servers."""

from __future__ import annotations

import re

from graph.planner.definitions import per_definition
from graph.planner.text import STOPWORDS, concepts_of_words, stated_paths
from mcp_host.manifest import Capability

# "on the SQLite database", "from Redis", "to the memo", "in the jotter": the noun that ends
# the place (one or two words after the preposition and an article).
# "on the SQLite database", "to the memo", "in the jotter": the noun after the article (one
# word may come between), ending the phrase; or a proper name alone ("from Redis").
_PLACE = re.compile(
    r"\b(?:in|on|from|to|into)\s+(?:the\s+(?:[\w-]+\s+)?([a-z][\w-]*)|([A-Z][\w-]*))"
    r"(?=\s*(?:[.,;:)]|$))"
)


@per_definition
def places_of(capability: Capability) -> frozenset[str]:
    """The concepts of the places ``capability``'s description says it works on."""
    found = {(m.group(1) or m.group(2)).lower() for m in _PLACE.finditer(capability.description)}
    return frozenset(concepts_of_words([w for w in found if w not in STOPWORDS]))


# Formats a program has to open (a text tool cannot read them), by extension, with the words a
# tool's description uses for them. A request naming "budget.xlsx" asks for whatever works on
# workbooks, as "the shop database" asks for what works on the database. Text formats (csv, md,
# json) are left out: any tool that reads text serves them.
_FORMATS: dict[str, tuple[str, ...]] = {
    **dict.fromkeys("xlsx xlsm xls xlsb ods".split(), ("excel", "workbook", "spreadsheet")),
    **dict.fromkeys("docx doc odt".split(), ("word", "document")),
    **dict.fromkeys("pptx ppt odp".split(), ("powerpoint", "presentation", "slides")),
    "pdf": ("pdf",),
    **dict.fromkeys("sqlite sqlite3 db".split(), ("sqlite", "database")),
    "ipynb": ("notebook", "jupyter"),
    **dict.fromkeys("zip tar gz tgz 7z".split(), ("archive",)),
}


def formats_named(text: str) -> list[tuple[frozenset[str], ...]]:
    """For each file ``text`` names that needs a program to open, the concepts of its format's
    words, the most particular first ("letter.docx": word, then document)."""
    files, _ = stated_paths(text)
    return [
        tuple(frozenset(concepts_of_words([w])) for w in _FORMATS[ext])
        for name in files
        if (ext := name.rsplit(".", 1)[-1].lower()) in _FORMATS
    ]


def formats_stated(text: str) -> frozenset[str]:
    """The concepts of the formats of the files ``text`` names that need a program to open
    ("sales.xlsx": excel, workbook, spreadsheet)."""
    return frozenset(c for format_words in formats_named(text) for concepts in format_words for c in concepts)
