"""Which of a database's query tools an SQL statement written in the request is for.

A database server often offers several tools that each take one SQL string (one for reads, one
for changes, one for new tables) and tell them apart only in their descriptions ("Execute a
SELECT query", "Execute an INSERT, UPDATE, or DELETE query", "CREATE TABLE SQL statement").
The statement's own keyword says which: a capability whose words name that kind of statement
fits, one whose words name only other kinds does not. Read off any manifest, never a server's
name.
"""

from __future__ import annotations

import re

from graph.planner.plain_words import sql_change, sql_reads, takes_sql
from graph.planner.quantities import unit_of
from graph.planner.store_words import keys_in
from graph.planner.text import STOPWORDS, concepts_of_words
from graph.planner.word_problems import asks_for_arithmetic
from mcp_host.manifest import Capability

# The kinds of statement a description may name, by the keyword that opens them.
_KINDS = ("select", "insert", "update", "delete", "create", "drop", "alter")
_KIND_WORDS = re.compile(r"\b(SELECT|INSERT|UPDATE|DELETE|CREATE|DROP|ALTER)\b")
# Points for a capability whose words name the statement's kind, and against one whose words
# name only other kinds: as strong as a name word, since the description is all that tells
# such tools apart.
KIND_NAMED = 4.0
OTHER_KINDS_NAMED = -3.0
NO_PLACE_FOR_IT = -3.0
# Properties a statement may go in besides those plain_words.takes_sql knows.
_STATEMENT_NAMES = frozenset({"sql", "query", "statement", "sql_query", "stmt"})


def statement_kind(text: str) -> str | None:
    """The kind of the SQL statement ``text`` writes out: select for a read, else the keyword of
    its change (insert, update, delete, create, ...); None when it writes none."""
    reads = sql_reads(text)
    if reads is None:
        return None
    return "select" if reads else sql_change(text)


def _statement_properties(capability: Capability) -> list[dict[str, object]]:
    return [
        schema
        for name, schema in capability.properties.items()
        if isinstance(schema, dict) and (takes_sql(name, schema) or name.lower() in _STATEMENT_NAMES)
    ]


def takes_a_statement(capability: Capability) -> bool:
    """Whether a capability has a property an SQL statement goes in (sql, query, statement)."""
    return bool(_statement_properties(capability))


def kinds_named(capability: Capability) -> frozenset[str]:
    """The statement kinds a capability that takes SQL names, in capitals as SQL is written,
    in its description or its parameters' (empty for one that takes no SQL)."""
    shapes = _statement_properties(capability)
    if not shapes:
        return frozenset()
    texts = [capability.description, *(str(shape.get("description") or "") for shape in shapes)]
    return frozenset(m.lower() for text in texts for m in _KIND_WORDS.findall(text) if m.lower() in _KINDS)


def statement_fit(capability: Capability, text: str) -> tuple[float, str] | None:
    """Points for (or against) ``capability`` given the SQL statement ``text`` writes out, with
    the reason; None when the request writes no statement or the capability names no kinds."""
    kind = statement_kind(text)
    if kind is None or capability.type != "tool":
        return None
    if not takes_a_statement(capability):
        # The statement's words (its table, columns, values) are not arguments for another
        # tool: "INSERT INTO accounts (id, owner) ..." is no request to add an account entry.
        return NO_PLACE_FOR_IT, f"the request writes an SQL statement ({kind.upper()}); it takes none"
    named = kinds_named(capability)
    if not named:
        return None
    if kind in named:
        return KIND_NAMED, f"it executes {kind.upper()} statements, the kind the request writes"
    return (
        OTHER_KINDS_NAMED,
        f"it executes {', '.join(sorted(k.upper() for k in named))}; the request writes {kind.upper()}",
    )


# A question about records, stated in words: counting, filtering, ranking or ordering them
# ("how many orders since ...", "which products have fewer than 20 ...", "the 2 most recent
# orders", "newest first"). A database's read-query tool answers such questions once someone
# writes the query.
_ABOUT_RECORDS = re.compile(
    r"\bhow\s+many\b|\b(?:fewer|more|less|greater|larger|smaller)\s+than\b|\bmost\s+recent\b|\bnewest\b|\boldest\b"
    r"|\b(?:biggest|largest|smallest|highest|lowest)\b|\btop\s+\d+\b|\bby\s+total\b|\baverage\b|\bsince\b"
    r"|\b(?:newest|oldest|latest)\s+first\b",
    re.IGNORECASE,
)
# The things a question is about: the word after "how many", "which", "every", "most recent"...
_SUBJECT = re.compile(
    r"\b(?:how\s+many|which|every|all|biggest|largest|smallest|highest|lowest|recent|newest|oldest|top\s+\d+)"
    r"\s+(?:(?:of\s+)?(?:the|our|my|your)\s+)?([A-Za-z]+)",
    re.IGNORECASE,
)
# Points for a database's read-query tool, for such a question about things no capability's
# words mention: enough to ask for the query with it, never to run it (the query is missing).
DATA_QUESTION = 5.0


def reads_by_query(capability: Capability) -> bool:
    """A tool that takes an SQL statement and whose words name SELECT and no change."""
    named = kinds_named(capability)
    return capability.type == "tool" and "select" in named and not named - {"select"}


def data_question(capability: Capability, text: str, named: frozenset[str]) -> tuple[float, str] | None:
    """Points for a read-query tool when ``text`` asks, in words, about records no capability
    is named for (``named``: the concepts of every capability's name); None otherwise."""
    if statement_kind(text) is not None or not reads_by_query(capability):
        return None
    cue = _ABOUT_RECORDS.search(text)
    # What is asked about must be what no tool is named for: "how many keys" is a store's
    # listing where a store has a keys tool, and a key written out (counter:visits) names its store.
    subjects = [m.group(1).lower() for m in _SUBJECT.finditer(text)]
    about_records = [s for s in subjects if s not in STOPWORDS and not concepts_of_words([s]) & named]
    # "How many seconds are in 3.5 hours?", "how many slices do 7 pizzas have?": a quantity of a
    # unit, or a word problem's amounts, is arithmetic, not a question about stored records.
    about_records = [s for s in about_records if unit_of(s, {}) is None]
    if cue is None or not about_records or keys_in(text) or asks_for_arithmetic(text):
        return None
    return DATA_QUESTION, f"a question about records in words ('{cue.group(0)}'); it queries a database"


# A question or a request to be shown something: "What is the price of the keyboard ...?",
# "show me ...", "who ordered ...".
_ASKS = re.compile(
    r"^\W*(?:(?:please|can|could|would|you)\s+)*(?:who|what|whats|which|where|when|how|whose|show|list|give|find|tell)\b"
    r"|\?\s*$",
    re.IGNORECASE,
)


def question_to_a_named_database(
    capability: Capability, text: str, unmentioned: list[str]
) -> tuple[float, str] | None:
    """Points for a read-query tool of the database ``text`` names ("in the shop database")
    when it asks about things no capability mentions (``unmentioned``: "price", "keyboard"):
    those are the database's records, whatever their words, and only a query reads them. Asked
    about, as a data question is (the query is the operator's to give)."""
    if statement_kind(text) is not None or not reads_by_query(capability) or not unmentioned:
        return None
    if not _ASKS.search(text) or keys_in(text) or asks_for_arithmetic(text):
        return None
    about = ", ".join(unmentioned[:3])
    return DATA_QUESTION, f"a question put to the database the request names, about {about}; it queries it"


# The statement a change to records ordered in words comes to, by the family of its verb
# (graph/planner/scoring.py's act families): "add a new customer" inserts, "set the price"
# updates, "delete order 103" deletes.
_STATEMENT_OF_FAMILY = {"+create": "insert", "+update": "update", "+write": "update", "+delete": "delete"}
# The thing an order acts on: the first word after its verb and any article or adjective
# ("Add a new customer", "Set the price of ...", "Delete order 103").
_ORDER_OBJECT = re.compile(
    r"^\W*(?:(?:please|can|could|would|you|kindly|just)\s+)*[A-Za-z]+\s+"
    r"(?:(?:a|an|the|this|that|one|new|another|our|my)\s+)*([a-z][a-z-]+)\b"
)
# Points for a database's change-query tool, for such an order about things no capability's
# words mention: enough to ask for the statement with it, never to run it (it is missing).
DATA_CHANGE = DATA_QUESTION


def changes_by_query(capability: Capability) -> frozenset[str]:
    """The changes (insert, update, delete) a tool that takes an SQL statement names and runs."""
    if capability.type != "tool":
        return frozenset()
    return kinds_named(capability) & frozenset({"insert", "update", "delete"})


def data_change(
    capability: Capability, text: str, named: frozenset[str], family: str | None
) -> tuple[float, str] | None:
    """Points for a change-query tool when ``text`` orders, in words, a change to records no
    capability is named for ("Add a new customer called Eva", "Set the price of the Mouse to
    17.90"); None otherwise. ``named`` holds the concepts of every capability's name (and any
    word that names no thing, "everything"). The statement is the operator's to give: it is
    asked for."""
    statement = _STATEMENT_OF_FAMILY.get(family or "")
    if statement is None or statement_kind(text) is not None or statement not in changes_by_query(capability):
        return None
    found = _ORDER_OBJECT.match(text)
    if found is None or keys_in(text):
        return None
    thing = found.group(1).lower()
    if thing in STOPWORDS or thing in named or concepts_of_words([thing]) & named:
        return None
    return (
        DATA_CHANGE,
        f"an order to {statement} records in words ('{thing}'); it runs {statement.upper()} statements",
    )
