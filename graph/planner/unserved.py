"""A request that asks for a change is never answered by a capability that only reads.

graph/planner/actions.py knows the verbs the policy's tables know ("delete", "send", "rename").
People also ask for changes in verbs no table lists ("pin ticket 3", "bookmark the handbook",
"subscribe me to ticket 3"): a read of the ticket would run and report ``ok`` though nothing
the operator asked for happened. So a request that opens with an order whose verb no table
knows, and that the reading capability neither names nor describes, is not served by it
either: the planner answers that nothing configured can do it, or asks.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from graph.planner.actions import capability_action, is_known_verb, leading_verb, request_action
from graph.planner.calculation import expression_in
from graph.planner.text import STOPWORDS, compiled, concepts_of_words, split_identifier, stem, words
from policies.risk import is_read_word

if TYPE_CHECKING:
    from mcp_host.manifest import Capability

# Words a request may open with that are no order: questions, greetings, fillers, quantities.
_NO_ORDER = frozenset(
    "what which who whom whose how when where why is are was were does do did has have had can could would "
    "will shall should may might must any anything something everything nothing all every each some my our "
    "your their his her its the a an this that these those there here hey hi hello ok okay yes no not "
    "quick quickly urgent current currently latest last first next recent new old today tomorrow yesterday "
    "again also only just still already now maybe perhaps actually basically i we you they it me us "
    "one two three four five six seven eight nine ten".split()
)
# Verbs no table lists that ask for something to be shown or handed over, not changed.
_READING_VERBS = frozenset(
    "give gimme dump open pull use grab bring load access output return print display render tell help try "
    "need want see peek scan walk go lemme pls please".split()
)
# Verbs that run whatever they are given ("run SELECT ...", "execute the report"): what runs
# decides whether it changes anything, so they rule no read out.
_RUNNING_VERBS = frozenset({"run", "execute", "exec", "perform", "do", "process", "handle"})
# What follows an order's verb: its object (a determiner, a pronoun, a number, a value).
_OBJECT_START = re.compile(
    r"^\s*(?:the|a|an|my|our|your|this|that|these|those|it|them|me|us|all|every|each|both|[#\d\"'“/.~]|[\w-]+\s*\d"
    r"|[\w-]+\.[A-Za-z]\w{0,7}\b)",
    re.IGNORECASE,
)


# "Convert sales.xlsx to a PDF": converting a file makes another file, which no read does
# (converting an amount or a time is arithmetic or a look-up, and changes nothing).
# "Export the graph to a CSV file", "save the sheet as q3.csv": what is exported or saved goes
# into a file, which no read makes either.
_FILE_CONVERSION = re.compile(
    r"^\W*(?:please\s+)?(?:(?:convert|turn|transform)\s+(?:the\s+|my\s+|this\s+)?[\w~/.-]*\.[A-Za-z]\w{0,7}\s+(?:to|into)\b"
    r"|(?:export|save|dump|download)\b[^?]{1,80}?\s(?:to|into|as)\s+(?:an?\s+|the\s+)?"
    r"(?:[\w~/.-]*\.[A-Za-z]\w{0,7}\b|(?:csv|pdf|json|xml|xlsx|xls|html|markdown|txt|text|png|jpe?g|zip)\b))",
    re.IGNORECASE,
)

# "I need minutes.docx as a PDF", "sales.xlsx in CSV please": a file asked for in a format it is
# not in is a conversion, which makes another file (reading it shows the one there is).
_IN_ANOTHER_FORMAT = re.compile(
    r"[\w~/-]+\.(?P<ext>[A-Za-z]\w{0,7})\s+(?:as|in|into|to)\s+(?:an?\s+|the\s+)?"
    r"(?P<format>pdf|csv|docx?|xlsx?|odt|ods|rtf|html?|epub|png|jpe?g|zip)\b",
    re.IGNORECASE,
)
# "flip debug from false to true": an order whose object is a field changed from one value to another.
_FROM_VALUE_TO_VALUE = re.compile(r"^\s*[\w.-]+\s+from\s+\S+\s+to\s+\S+", re.IGNORECASE)


def _other_format(text: str) -> str | None:
    """The format a file is asked for in, when it is not the file's own ("PDF" for minutes.docx)."""
    for found in _IN_ANOTHER_FORMAT.finditer(text):
        wanted = found.group("format").lower()
        # docx and doc, xlsx and xls: one format in its old and new spelling.
        if found.group("ext").lower().rstrip("x") != wanted.rstrip("x"):
            return wanted.upper()
    return None


def _order_verb(text: str) -> str | None:
    """The unknown verb a request opens with as an order ("Pin ticket 3": pin), or None: a
    question, a known verb (actions.py weighs those), or a first word that is no verb."""
    if text.rstrip().endswith("?") or expression_in(text) is not None:
        return None  # a question, or arithmetic ("multiply 6 by 7"): no change to make
    verb = leading_verb(text)
    if verb is None or not verb.isalpha() or len(verb) < 3 or verb in _NO_ORDER | _READING_VERBS:
        return None
    if verb in STOPWORDS or verb.endswith(("ing", "ed")):  # "Testing a macro: ..." sets a scene
        return None
    if is_known_verb(verb) and not _FILE_CONVERSION.match(text):
        return None
    opened = compiled(rf"\b{re.escape(verb)}\b(.*)$", re.IGNORECASE | re.DOTALL).search(text)
    if opened is None or not (
        _OBJECT_START.match(opened.group(1)) or _FROM_VALUE_TO_VALUE.match(opened.group(1))
    ):
        return None
    return verb


def _says(capability: Capability, verb: str, *, as_state: bool = False) -> bool:
    """Whether the capability's name or description says the verb (or a form or synonym of it).
    A participle ("defined names", "pinned tickets") names a state, not the act: it counts only
    ``as_state``, for a capability that acts (set_defined_name makes a name defined; a read that
    lists defined names defines none)."""
    said = [
        w
        for w in words(f"{' '.join(split_identifier(capability.name))} {capability.description}")
        if as_state or not (len(w) > 4 and w.endswith("ed"))
    ]
    if stem(verb) in {stem(w) for w in said}:
        return True
    return bool(concepts_of_words([verb]) & concepts_of_words(said))


_ONLY_READS = "; it only reads"


def read_cannot_serve(capability: Capability, text: str) -> str | None:
    """Why ``capability`` cannot serve ``text``: the request asks for a change and the
    capability only reads. None when it may serve it."""
    opening = leading_verb(text)
    denied = _denies_running(capability, opening)
    if denied:
        return denied  # whatever it is rated, it says it never runs what it shows
    if capability_action(capability).acts:
        return None
    asked = request_action(text)
    # "Read the deploy status board": after a read verb an acting word is its object, which the
    # score already weighs against the read (actions.py's ACTION_MISMATCH); only an order is ruled out.
    ordered = [verb for verb in asked.verbs if verb not in _RUNNING_VERBS]
    if ordered and not (opening is not None and is_read_word(opening)):
        return f"the request asks to {', '.join(asked.verbs)}{_ONLY_READS}"
    verb = _order_verb(text)
    if verb is not None and not _says(capability, verb):
        return f"the request asks to {verb}{_ONLY_READS}, and says nothing of {verb}"
    wanted = _other_format(text)
    if wanted is not None:
        return f"the request asks to convert a file to {wanted}{_ONLY_READS}"
    return None


def change_nothing_can_make(reasons: list[str]) -> str | None:
    """What the request asked to change, when a scored capability's ``reasons`` say it only
    reads ("pin"); None otherwise. For the sentence that says nothing configured can do it."""
    for reason in reasons:
        found = re.search(rf"the request asks to (.+?){re.escape(_ONLY_READS)}", reason)
        if found:
            return found.group(1)
    return None


def _denies_running(capability: Capability, opening: str | None) -> str | None:
    """Why a read cannot serve "run the macro X": its own description says it never runs
    what it shows ("only read, never run")."""
    if opening is None or opening.lower() not in _RUNNING_VERBS:
        return None
    forms = "|".join(re.escape(f) for f in {opening.lower(), "run", "execute", "executed", "runs"})
    denial = compiled(rf"\b(?:never|not|no)\s+(?:be\s+)?(?:{forms})\b", re.IGNORECASE)
    if denial.search(capability.description):
        return f"the request asks to {opening.lower()}{_ONLY_READS}: it says it never does"
    return None


def acting_order_said(capability: Capability, text: str) -> str | None:
    """The unknown verb a request opens with as an order ("Define the name ...", "Duplicate the
    sheet ..."), when ``capability`` acts and says it (in any form or synonym): it does what was
    ordered, though no verb table knows the verb. None otherwise."""
    if not capability_action(capability).acts:
        return None
    verb = _order_verb(text)
    return verb if verb is not None and _says(capability, verb, as_state=True) else None
