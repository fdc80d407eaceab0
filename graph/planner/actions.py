"""What a request asks to do, and what a capability would do: reading, or acting.

A request that only reads or looks up must never be served by a capability that writes,
creates, deletes, sends or moves. Both sides are read with the policy's word tables
(policies/risk.py), so the planner and the policy agree on what "acting" means; the planner
adds how a sentence is built: in "show the latest commit" the word commit is a noun, in
"commit the staged files" it is what to do.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

from graph.planner.calculation import Expression, expression_in
from graph.planner.definitions import per_definition
from graph.planner.plain_words import sql_change, sql_reads
from graph.planner.text import TELL_SOMEONE, affirmed, concepts_of_words, join_phrasal
from policies.names import words
from policies.risk import action_of_word, described_verbs, is_read_word, stated_actions, verb_form

if TYPE_CHECKING:
    from mcp_host.manifest import Capability
    from policies.model import Category

# Words that name an action only where a verb stands (first, or after "please", "to"...):
# elsewhere they are usually nouns ("the last message", "recent commits", "the git log").
_NOUN_LIKE = frozenset(
    "message messages email emails mail post posts tag tags log logs commit commits store set sets add "
    "record records note notes change changes branch branches stage reset checkout post patch merge "
    "archive clear close order orders run runs start stop switch turn lock lock copy format share link links "
    "book books note notes schedule launch launches cache".split()
)
# Verbs the policy's tables leave out that still change something when a person asks for them.
_EXTRA_ACTING: dict[str, Category] = {
    "toggle": "controls devices",
    "trigger": "controls devices",
    "kick": "controls devices",
    "launch": "controls devices",
    "turn": "controls devices",
    "reopen": "updates records",
    "note": "updates records",
    "link": "updates records",
    "relate": "updates records",
    "associate": "updates records",
    "attach": "updates records",
    "undo": "destructive",
    # Reservations and purchases change something in the world.
    "book": "updates records",
    "replace": "writes files",
    "reserve": "updates records",
    "schedule": "updates records",
    "remember": "updates records",
    "make": "updates records",
    "mark": "updates records",
    "unstage": "updates records",
    "stage": "updates records",
    "rename": "writes files",
    "restore": "updates records",
    "forget": "destructive",
    "bump": "updates records",
    "escalate": "updates records",
    "raise": "updates records",
    "lower": "updates records",
    # "Cache the value 'pong' at key health:last": to cache is to store (as a verb only).
    "cache": "updates records",
}
# Concepts of the planner's synonym table that are actions: a word standing for one acts.
_ACTING_CONCEPTS = frozenset({"create", "delete", "update", "write", "send"})
# Words after which the next word is the verb of a request.
_VERB_LEADS = frozenset("please to and then also you lets let us i d like want need go now just".split())
# A word followed by one of these is the subject of a statement ("Messages are enough",
# "Names will do"), not an order, wherever it stands.
_STATEMENT_VERBS = frozenset("is are was were will would should shall can could must may might".split())
_READ_OPENERS = re.compile(
    r"^\s*(what|which|who|whom|whose|how|when|where|why|is|are|was|were|does|do|did|has|have|can i see|"
    r"show|list|get|find|search|look|tell me|give me|display|view|read|fetch|check|count)\b",
    re.IGNORECASE,
)
# "Open a new ticket", "start a new branch": making something that does not exist yet.
_NEW_THING = re.compile(
    r"^\W*(?:please\s+)?(?:open|start|add|make|file|raise|log|create|set\s+up|begin|draft)\s+(?:a|an)\s+new\b"
    r"|\b(?:a|an)\s+new\s+[\w-]+\s+(?:called|named)\b",
    re.IGNORECASE,
)
_SUBORDINATORS = frozenset(
    "before after when whenever once until unless if while since because although".split()
)
_CLAUSE_BREAK = re.compile(r"[,;:!?](?=\s|$)|\.(?:\s|$)")
_NUMBER = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?!\w|\.\d)")
# Values are not verbs: a path, an address, a file name or a quotation says nothing about what
# to do with it (/tmp/eval-runs/x holds "eval", a command word).
_VALUES = re.compile(r"""\S*[/@=\\]\S*|\S+\.\w{1,8}\b|"[^"]*"|“[^”]*”|'[^']*'""")
# policies.names.words splits "don't" into "don" and "t".
_NEGATED = re.compile(r"\b(?:don t|do not|never|not|without|no need to|doesn t|won t)\b(?: \w+)?$")
_RUNNING_SQL = frozenset({"run", "execute", "exec", "perform"})
# "Run a query against the shop database": running a query not yet written says nothing of
# what it does (the statement will), so "run" orders no change.
_RUNS_A_QUERY = re.compile(
    r"\b(?:run|execute|exec|perform)\s+(?:(?:a|an|the|this|that|my|some)\s+)?(?:sql\s+)?(?:query|queries|statement)\b",
    re.IGNORECASE,
)
_PRINTED_COPIES = re.compile(r"\bprint\s+(?:out\s+)?(?:\w+\s+)?cop(?:y|ies)\b", re.IGNORECASE)
_OPEN_A_NEW = re.compile(
    r"^\W*(?:please\s+)?(?:can\s+you\s+)?open\s+(?:a|an|another|one\s+more)\s+(?!file\b|folder\b|document\b|copy\b)",
    re.IGNORECASE,
)
_QUESTION_OPENERS = frozenset({"how", "what", "whats", "which"})
_ARITHMETIC = frozenset({"add", "plus", "sum", "total", "minus", "subtract", "times", "multiply", "divide"})


@dataclass(frozen=True)
class RequestAction:
    """The acting categories a request asks for (empty: it only reads) and the words that did."""

    categories: frozenset[Category]
    verbs: tuple[str, ...]

    @property
    def reads_only(self) -> bool:
        return not self.categories


def _acting(word: str) -> Category | None:
    """The acting category of a word, or of the concept it stands for ("record" is to create)."""
    found = _EXTRA_ACTING.get(word) or action_of_word(word)
    if found is not None:
        return found
    for concept in sorted(concepts_of_words([word]) & _ACTING_CONCEPTS):
        return action_of_word(concept)
    return None


@lru_cache(maxsize=512)
def request_action(text: str) -> RequestAction:
    """What ``text`` asks to do. A verb counts where a verb stands: the first word, or after a
    lead such as "please", "to", "and" or "can you"; a word that is no noun ("delete", "send")
    counts anywhere unless it is a participle ("deleted files" is a filter, not an order)."""
    # A word problem ("Our bill is 86.40. How much is an 18% tip?", "2 to the power of 10")
    # orders nothing with its own words: the expression is a value, a question in it asks an
    # amount ("how much does each pay?"), and a noun of the story ("bill") is no order.
    expression = expression_in(text)
    said = _verb_places(text, expression)
    tokens = said.tokens
    numbers = len(_NUMBER.findall(text)) >= 2 or bool({"number", "numbers"} & set(tokens))
    # "Add two empty rows" adds rows: "add" is arithmetic only where the words make a sum, or
    # speak of numbers ("add up two numbers").
    sums = expression is not None or bool({"number", "numbers"} & set(tokens))
    arithmetic = numbers and sums and bool(_ARITHMETIC & set(tokens))
    found: dict[str, Category] = {}
    for index, word in enumerate(tokens):
        category = _acting(word)
        if category is None or (arithmetic and word in _ARITHMETIC) or _orders_nothing_at(said, index):
            continue
        found[word] = category
    _add_orders_of_the_whole(text, found)
    return RequestAction(frozenset(found.values()), tuple(found))


@dataclass(frozen=True)
class _VerbPlaces:
    """The words of a request's clauses that may order something, and where each clause
    starts (a verb place)."""

    text: str
    tokens: list[str]
    clause_starts: set[int]
    question: bool
    # Whether the request states arithmetic (an expression), whose words order nothing.
    expression: bool


def _verb_places(text: str, expression: Expression | None) -> _VerbPlaces:
    """Every clause opens a verb place: "In notes.txt, change 'a' to 'b'" orders a change. A
    clause that sets the scene ("Before I close it, ...", "once it is merged") orders nothing,
    nor does a question inside a word problem."""
    tokens: list[str] = []
    clause_starts: set[int] = set()
    story = text.replace(expression.words, " ") if expression is not None else text
    story = _LEADING_SETTING.sub("", story, count=1)
    for clause in _CLAUSE_BREAK.split(join_phrasal(affirmed(story))):
        clause_words = _joined_email(words(_VALUES.sub(" ", clause)))
        if clause_words[:1] and clause_words[0] in _SUBORDINATORS:
            continue
        if expression is not None and clause_words[:1] and clause_words[0] in _QUESTION_OPENERS:
            continue
        clause_starts.add(len(tokens))
        tokens.extend(clause_words)
    return _VerbPlaces(text, tokens, clause_starts, text.rstrip().endswith("?"), expression is not None)


def _orders_nothing_at(said: _VerbPlaces, index: int) -> bool:
    """Whether the acting word at ``index`` orders nothing where it stands: negated, asked
    about, the subject of a statement, a gerund or a participle, or a noun."""
    tokens = said.tokens
    word = tokens[index]
    if _NEGATED.search(" ".join(tokens[max(0, index - 3) : index])):
        return True  # "just look, don't create anything"
    if said.question and index >= 2 and tokens[index - 1] == "to" and tokens[index - 2] in _PERMISSION:
        return True  # "what is it allowed to touch?"
    in_verb_place = index in said.clause_starts or tokens[index - 1] in _VERB_LEADS
    if index + 1 < len(tokens) and tokens[index + 1] in _STATEMENT_VERBS:
        return True  # "Messages are enough": the subject of a statement
    if word.endswith("ing") and index > 0 and tokens[index - 1] == "to" and index not in said.clause_starts:
        return True  # "closest to running out": after "to" a gerund, never an infinitive
    if said.expression and not in_verb_place:
        return True
    # A participle is a filter or a report ("deleted files", "I removed"), not an order; a
    # verb's noun ("the creation date") names a thing.
    if (
        word.endswith(("tion", "sion"))
        or (word.endswith("ed") and index > 0)
        or (word.endswith("ing") and not in_verb_place)
    ):
        return True
    if (word in _NOUN_LIKE or _is_plural(word)) and not in_verb_place:
        return True  # "the payments team": a noun, whatever verb it shares a stem with
    return index > 0 and not in_verb_place and bool(_READ_OPENERS.match(said.text)) and word in _NOUN_LIKE


def _add_orders_of_the_whole(text: str, found: dict[str, Category]) -> None:
    """Orders the request's wording as a whole gives, beside its verbs' (``found``, changed in
    place): an SQL statement's, a message to someone, printed copies, opening a new thing."""
    change = sql_change(text)
    if sql_reads(text) or change or _RUNS_A_QUERY.search(text):
        # "Run SELECT * FROM orders": what runs is the statement, so it says what running does.
        for verb in [v for v in found if v in _RUNNING_SQL]:
            del found[verb]
    category = _acting(change) if change else None
    if change and category:
        found.setdefault(change, category)
    if TELL_SOMEONE.search(text):
        found.setdefault("tell", "sends messages")
    if _PRINTED_COPIES.search(text):
        # "Print two copies of minutes.docx": copies come out of a printer; showing makes none.
        found.setdefault("print", "controls devices")
    if _OPEN_A_NEW.search(text):
        # "Open a pull request", "open an issue": opening *a* thing makes it ("open the file" reads).
        found.setdefault("open", "updates records")
    if _NEW_THING.search(text):
        found.setdefault("new", "updates records")


def _is_plural(word: str) -> bool:
    return len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is"))


def _joined_email(tokens: list[str]) -> list[str]:
    """ "e-mail" is split into "e" and "mail"; as one word it is the verb "email"."""
    joined: list[str] = []
    for token in tokens:
        if token == "mail" and joined and joined[-1] == "e":
            joined[-1] = "email"
        else:
            joined.append(token)
    return joined


@dataclass(frozen=True)
class CapabilityAction:
    """Whether a capability changes something, which categories, and what said so."""

    categories: frozenset[Category]
    why: str
    # The words that said it acts, as its name or description has them (none when only an
    # annotation did).
    verbs: tuple[str, ...] = ()

    @property
    def acts(self) -> bool:
        return bool(self.categories)


@per_definition  # asked of every capability scored, on every request
def capability_action(capability: Capability) -> CapabilityAction:
    """What ``capability`` would do. Resources and prompts only read (the protocol gives them
    no way to act). A tool's name says most: its first word is its verb ("get_annotated_message"
    reads, whatever noun follows); its description speaks when the name has no read verb; a
    destructive annotation always counts, a read-only one never clears an acting name."""
    if capability.type != "tool":
        return CapabilityAction(frozenset(), f"a {capability.type.replace('_', ' ')} only reads")
    # git_commit's verb is commit: a name that repeats its server's name starts after it.
    server_words = set(words(capability.server))
    name_words = words(capability.name)
    while len(name_words) > 1 and name_words[0] in server_words:
        name_words = name_words[1:]
    annotations = capability.annotations
    destructive = annotations.get("destructiveHint", annotations.get("destructive_hint")) is True
    reads_first = bool(name_words) and is_read_word(name_words[0])
    by_name: dict[str, Category] = {}
    for word in name_words:
        category = _acting(word)
        # After a read verb, action-like words are its object: get_annotated_message reads.
        if category is not None and not (reads_first and word in _NOUN_LIKE):
            by_name[word] = category
    if by_name:
        return CapabilityAction(
            frozenset(by_name.values()), f"its name says {', '.join(by_name)}", tuple(by_name)
        )
    if destructive:
        return CapabilityAction(frozenset({"destructive"}), "the server marks it destructive")
    if reads_first:
        return CapabilityAction(frozenset(), f"its name says {name_words[0]}")
    described = stated_actions(capability.model_copy(update={"name": "", "input_schema": {}}))
    if described:
        return CapabilityAction(
            frozenset(described),
            "its description says it changes something",
            tuple(described_verbs(capability.description)),
        )
    return CapabilityAction(frozenset(), "nothing in its name or description says it changes anything")


_POLITE = frozenset("please can could would you kindly just now".split())
# A phrase that sets where or what before the order ("In sales.xlsx, define ...", "For ticket 3,
# pin it"): the imperative's verb comes after its comma.
# "In /srv/app/config.json change the port": a path or a file name alone sets it, comma or not.
_LEADING_SETTING = re.compile(
    r"^\s*(?:in|on|inside|within|for|at|from|under|over|with|across|into)\b"
    r"(?:[^,;:?!]{1,80},|\s+(?:\S*[/\\]\S*|[\w-]+\.[A-Za-z]\w{0,7})(?=\s))\s*",
    re.IGNORECASE,
)
# "Which folders is it allowed to touch?": a verb after a permission names what may be done,
# in a question about it; it orders nothing.
_PERMISSION = frozenset({"allowed", "able", "permitted", "authorized", "authorised", "supposed"})


@lru_cache(maxsize=256)  # asked several times per capability scored, of the same request
def leading_verb(text: str) -> str | None:
    """The word a request opens with once politeness is set aside ("Please uproot the basil"
    opens with uproot): where an imperative puts its verb."""
    for word in words(_VALUES.sub(" ", _LEADING_SETTING.sub("", text, count=1))):
        if word not in _POLITE:
            return word
    return None


def acting_verb(word: str) -> Category | None:
    """The acting category of a verb the tables know ("push", "delete", "kick"); None for a
    reading word, an unknown one, or one acting only through a synonym."""
    return _EXTRA_ACTING.get(word) or action_of_word(word)


def is_known_verb(word: str) -> bool:
    """Whether a word is one the action tables read (acting or reading) either way."""
    return _acting(word) is not None or is_read_word(word)


def imperative_verb(capability: Capability) -> str | None:
    """The verb to ask a capability that acts with, in its base form; None for one that reads,
    or one no word says the action of (only an annotation does). The name's word comes first,
    unless it is a word that names an action only where a verb stands: in channel_message the
    message is a noun, and the description's "Sends a message" says the verb."""
    action = capability_action(capability)
    if not action.acts:
        return None
    said = [verb_form(word) for word in action.verbs if word not in _NOUN_LIKE]
    nouns = [verb_form(word) for word in action.verbs if word in _NOUN_LIKE]
    return next(iter([*said, *described_verbs(capability.description), *nouns]), None)
