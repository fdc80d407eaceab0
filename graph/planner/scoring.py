"""Rank discovered capabilities against a request, with reasons a reviewer can read.

The score adds evidence: the capability's name parts matching the request's concepts weigh
most, then its server's name, parameters and enum values the request states, and words of
its description. A capability of the wrong kind (a prompt when nobody asked for one), a
broad listing with no filters, or required arguments the request does not state count
against it. Preferred servers get a bonus, never a free pass: a weak match stays weak.

Each piece of evidence is one rule of SCORING_RULES, a small function with its reason, applied
in the table's order (which kind fits and which act it does are first-match tables of their
own, KIND_RULES and ACTION_RULES); tests/graph/test_scoring_rules.py has a case per rule.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from itertools import pairwise
from typing import TYPE_CHECKING, Any

from graph.planner.actions import (
    CapabilityAction,
    RequestAction,
    acting_verb,
    capability_action,
    is_known_verb,
    leading_verb,
    request_action,
)
from graph.planner.admin_words import (
    ALIAS_WEIGHT,
    EXAMPLE_WEIGHT,
    admin_text,
    alias_in,
    closest_example,
    states_its_action,
)
from graph.planner.arguments import (
    Extraction,
    extract_arguments,
    property_shape,
    takes_a_location,
)
from graph.planner.calculation import expression_in, takes_an_expression
from graph.planner.clock_words import TimeSaid, times_of_day
from graph.planner.definitions import DefinitionKey, definition_key, per_definition
from graph.planner.opposites import opposite
from graph.planner.places import formats_named, formats_stated, places_of
from graph.planner.plain_words import states_arithmetic, without_values
from graph.planner.relative_places import servers_holding
from graph.planner.similarity import similarities
from graph.planner.sql_words import data_change, data_question, question_to_a_named_database, statement_fit
from graph.planner.store_words import without_the_question_of_what_a_key_holds
from graph.planner.text import (
    PROPER_NAME,
    STOPWORDS,
    affirmed,
    asks_about_a_name,
    compiled,
    concepts,
    concepts_of_words,
    key_parts,
    path_kinds,
    split_identifier,
    stated_paths,
    stem,
    words,
)
from graph.planner.unserved import acting_order_said, read_cannot_serve
from graph.planner.word_problems import asks_for_arithmetic
from mcp_host.folders import holds
from policies.risk import is_read_word

if TYPE_CHECKING:
    from mcp_host.manifest import Capability

NAME_WEIGHT = 3.0
# A name's generic verb (list, read, search) says less than its object: "show the staged
# changes" is about staged changes more than about showing.
NAME_VERB_WEIGHT = 1.5
_VERB_CONCEPTS = frozenset({"list", "read", "search"})
# Verbs a read's name starts with that say nothing about what it reads (get_x, fetch_x).
# (list and read are operations of their own: "read" in read_file is a narrowing; a search
# without a filter lists.)
_GENERIC_READ_VERBS = frozenset(
    {"get", "show", "fetch", "view", "display", "retrieve", "search", "find", "query", "lookup"}
)
# What a listing's name may say of what it lists without narrowing it (list_available_documents,
# list_all_tags): a request for a listing asks for what is there, which is what is available.
_LISTING_QUALIFIERS = frozenset({"available", "existing", "all", "every"})
SERVER_WEIGHT = 1.5
# A server called by a word other servers use too ("files", "documents") is hardly named by it.
COMMON_SERVER_NAME = 0.2
# A path inside a folder the server was started with is strong evidence for that server.
IN_ITS_FOLDER = 2.0
OUTSIDE_ITS_FOLDERS = -2.0
# A folder tool given a file's path ("sample.txt" for list_directory) is the wrong tool.
FILE_FOR_A_FOLDER_TOOL = -2.5
# What a stated path implies (a file, a folder) weighs half what a word saying it does.
IMPLIED_SHARE = 0.5
# The request's verb is the one the capability's description opens with ("Switches branches").
DESCRIPTION_VERB = 2.0
STATED_OPTION = 0.75
PARAMETER_WEIGHT = 1.0
ENUM_WEIGHT = 1.0
DESCRIPTION_WEIGHT = 0.5
DESCRIPTION_CAP = 3.0
# Two words of the request side by side in the description ("last modified"): a phrase says
# more than its words apart.
PHRASE_WEIGHT = 0.75
PHRASE_CAP = 1.5
KIND_MATCH = 2.0
KIND_MISMATCH = -1.0
UNREQUESTED_PROMPT = -4.0
PREFERRED_SERVER = 2.5
# Another server is named by the request (and this one is not).
ANOTHER_SERVER_NAMED = -2.0
UNBOUNDED_LISTING = -2.0
# "Search the knowledge graph": a capability with no parameters cannot search, it returns all.
SEARCH_WITHOUT_QUERY = -5.0
STATED_ARGUMENT = 1.5
URI_MATCH = 5.0
ACTION_MISMATCH = -6.0
ACTION_MATCH = 1.5
# The request's acting verb is not the tool's, nor a synonym, nor in its description.
VERB_MISMATCH = -3.0
# Paths the request names that the capability has no place for, when it takes some.
PATHS_LEFT_OVER = -1.5
# A time of day, a date, an address or a URI the request states that no argument takes.
TYPED_VALUE_LEFT = -1.5
# A path, a name or a number the request states that the capability has no parameter for.
VALUE_WITHOUT_A_PLACE = -3.0
# A capability that acts, for a request that only reads: never chosen, whatever else matched.
READ_REQUEST_ACTING_TOOL = -100.0
# Arithmetic the request states, for a capability that takes an expression to evaluate.
ARITHMETIC_STATED = 2.0
# The request's order verb is the tool's, and the object it names is the tool's object.
OBJECT_NAMED = 2.0
# The tool's name verb undoes the request's order (import for "save as", delete for "put").
OPPOSITE_VERB = -4.0
# An order to rename, for a tool that acts and has no parameter for the new name: whatever it
# would be given ("Rename the key a to b": b as a value) is not what was asked.
RENAME_WITHOUT_A_NAME = -6.0
# A word problem whose expression no rule can build, for a capability that takes an expression.
WORD_PROBLEM = 4.0
# And the other way round: a capability that only reads, for a request to change something.
WRITE_REQUEST_READING_CAPABILITY = -100.0
# How much of a match's weight holds for a word every capability shares (1 for one unique to
# a capability): a common word still counts, a distinctive one counts for more.
COMMON_WORD_SHARE = 0.4
UNMATCHED_NAME_WORD = -1.5
# Even a word many capabilities share narrows a name (list_allowed_directories is not a listing).
UNMATCHED_FLOOR = 0.6
# An acting name's verb the request does not say (create, when it says "add a new entity")
# narrows less than a noun: another verb for the same change.
UNMATCHED_VERB_SHARE = 0.5
MISSING_ARGUMENT = -0.75
LITERAL_NAME_WORD = 0.5
UNKNOWN_WORD = -0.75
# Content words from which a request counts as long (its unknown words weigh by their share).
LONG_REQUEST = 6
# Paths and file names are values, not words of the request (/tmp/eval-runs/x).
_PATHS = re.compile(r"\S*/\S*|\S+\.\w{1,8}\b")
# Words of a request that say how, not what: they are not expected in any capability.
_FILLER = frozenset(
    "just only also now right today current currently please thanks thank tell know let like want need give "
    "show see look find get make use using into under over about within inside there exist exists anything "
    "something everything every whole entire first last next new old recent latest one two three both each "
    "say says said contents content called named whether which does happen still yet already anymore sitting "
    "currently there many much".split()
)
# Closeness in meaning (graph/planner/similarity.py), for the capability closest to the request
# only, by its lead over the next closest: up to SIMILARITY_WEIGHT points for a lead of
# SIMILARITY_LEAD, none below SIMILARITY_FLOOR, where a cosine says little. A lead, not a
# level: near neighbours (open_nodes and search_nodes) are told apart by words, not by a
# cosine a few hundredths higher.
SIMILARITY_WEIGHT = 3.0
SIMILARITY_LEAD = 0.15
SIMILARITY_FLOOR = 0.25
# Meaning stands in for words, it does not count them twice: the points fade as the words
# matched so far approach this many points (a request that says the tool's words needs no help).
SIMILARITY_WORDS_ENOUGH = 4.0
# Every required argument stated: the request was written for this capability.
COMPLETE_ARGUMENTS = 1.0
DEPRECATED = -2.0
_DEPRECATED = re.compile(r"\bdeprecated\b", re.IGNORECASE)

_KIND_OF_TYPE = {"tool": "tool", "resource": "resource", "resource_template": "resource", "prompt": "prompt"}
_UNBOUNDED_WORDS = re.compile(
    r"\b(legacy|every|no filters?|no paging|unpaginated|all records)\b", re.IGNORECASE
)


@dataclass(frozen=True, eq=False)
class Vocabulary:
    """How many capabilities of the manifest use each concept (in their name, description or
    parameters): the rarer a concept, the more a request naming it says about which one."""

    document_frequency: dict[str, int]
    size: int
    servers_of: dict[str, frozenset[str]] = field(default_factory=dict)
    # The places each server's capabilities say they work on ("the SQLite database"), by concept.
    places_of: dict[str, frozenset[str]] = field(default_factory=dict)
    # The concepts of every capability's name and parameters: what the manifest's tools are
    # named for, and the things they take.
    named: frozenset[str] = frozenset()

    @classmethod
    def of(cls, capabilities: list[Capability]) -> Vocabulary:
        counts: dict[str, int] = {}
        servers: dict[str, set[str]] = {}
        named: set[str] = set()
        places: dict[str, set[str]] = {}
        for capability in capabilities:
            for place in places_of(capability):
                places.setdefault(place, set()).add(capability.server)
            for concept in _concepts_of_capability(capability):
                counts[concept] = counts.get(concept, 0) + 1
                servers.setdefault(concept, set()).add(capability.server)
            named |= concepts_of_words(_name_words(capability))
            # (A parameter of one word, key or table, names what the tool takes; date_order does not.)
            named |= {
                c
                for p in capability.properties
                if len(split_identifier(p)) == 1
                for c in concepts_of_words([p])
            }
        return cls(
            counts,
            len(capabilities),
            {c: frozenset(s) for c, s in servers.items()},
            named=frozenset(named),
            places_of={c: frozenset(s) for c, s in places.items()},
        )

    def other_servers_use(self, server: str) -> bool:
        """Whether the words of ``server``'s name are words other servers' capabilities use."""
        named = concepts_of_words(split_identifier(server))
        return any(self.servers_of.get(concept, frozenset()) - {server} for concept in named)

    def servers_named(self, text: str) -> frozenset[str]:
        """The servers a request names for sure: by a name no other server's capabilities use
        ("memory", "git"), or as a server ("the time server")."""
        return _servers_named(text, self)

    def weight(self, concept: str) -> float:
        """From COMMON_WORD_SHARE (every capability has it) to 1 (only one has it)."""
        if self.size <= 1:
            return 1.0
        seen = max(self.document_frequency.get(concept, 1), 1)
        rarity = math.log(self.size / seen) / math.log(self.size)
        return COMMON_WORD_SHARE + (1 - COMMON_WORD_SHARE) * rarity

    def total(self, concepts_found: set[str] | frozenset[str]) -> float:
        return sum(self.weight(concept) for concept in concepts_found)


_ANY_SEPARATOR = r"[\s_-]+"


@lru_cache(maxsize=256)
def _servers_named(text: str, vocabulary: Vocabulary) -> frozenset[str]:
    wanted = _concepts_of_request(text)
    named = set()
    for server in {s for servers in vocabulary.servers_of.values() for s in servers}:
        parts = split_identifier(server)
        spelled = _ANY_SEPARATOR.join(map(re.escape, parts))
        said_as_server = compiled(rf"\b{spelled}(?:'s)?\s+(?:server|mcp)\b", re.IGNORECASE).search(text)
        if said_as_server or (concepts_of_words(parts) & wanted and not vocabulary.other_servers_use(server)):
            named.add(server)
    # "The shop database": a place only one server's capabilities work on, and no other
    # server's capabilities mention, names that server.
    for place in sorted(wanted & vocabulary.places_of.keys()):
        owners = vocabulary.servers_of.get(place, frozenset())
        if len(owners) == 1 and owners == vocabulary.places_of[place]:
            named |= owners
    return frozenset(named)


@lru_cache(maxsize=256)
def _format_owner(text: str, vocabulary: Vocabulary) -> str | None:
    """The one server whose capabilities say they work with the format of a file the request
    names ("budget.xlsx": the one that mentions Excel or workbooks), if only one does."""
    owners = {s for concept in formats_stated(text) for s in vocabulary.servers_of.get(concept, frozenset())}
    if len(owners) == 1:
        return owners.pop()
    # "letter.docx": "document" is in many servers' words, "Word" in one server's only. The
    # format's most particular word that some server uses decides, when one server alone does.
    particular: set[str] = set()
    for words_of_format in formats_named(text):
        for word_concepts in words_of_format:
            servers = {s for c in word_concepts for s in vocabulary.servers_of.get(c, frozenset())}
            if servers:
                particular |= servers
                break
    return particular.pop() if len(particular) == 1 else None


@per_definition
def _concepts_of_capability(capability: Capability) -> frozenset[str]:
    found = set(concepts_of_words([w for w in split_identifier(capability.name) if w not in STOPWORDS]))
    found |= _concepts_of_description(capability.description)
    found |= concepts_of_words(split_identifier(capability.server))
    # The admin's words for it are words it uses: a request in them is not about unknown things.
    found |= _concepts_of_description(admin_text(capability))
    for name, schema in capability.properties.items():
        found |= concepts_of_words(split_identifier(name))
        shape = property_shape(schema) if isinstance(schema, dict) else {}
        found |= _concepts_of_description(str(shape.get("description") or ""))
        enum = shape.get("enum")
        if isinstance(enum, list):
            found |= concepts_of_words([str(v).lower() for v in enum])
    return frozenset(found)


@dataclass
class ScoredCapability:
    capability: Capability
    score: float
    reasons: list[str] = field(default_factory=list)
    # The arguments read off the request while scoring (the request alone, no answer to a
    # question): a planner reuses them for the capability it chooses instead of reading again.
    extraction: Extraction | None = field(default=None, compare=False, repr=False)
    # The cosine between the request and the capability's text, and the points it earned.
    similarity: float | None = field(default=None, compare=False)
    similarity_points: float = field(default=0.0, compare=False)
    # Nothing but its meaning pointed at it: no word, value or argument of the request did.
    by_meaning_only: bool = field(default=False, compare=False)
    # Something in the request pointed at it (a word, a value only it takes, or its meaning)
    # before the bonuses that only rank what a request is about (kind, preference, stated
    # arguments): a candidate nothing pointed at is near the request only for want of a better.
    referred_to: bool = field(default=False, compare=False)


@per_definition
def is_unbounded_listing(capability: Capability) -> bool:
    """A tool that can only return everything: no parameters to filter or page with."""
    if capability.type != "tool" or capability.properties:
        return False
    name_words = set(split_identifier(capability.name))
    return bool(name_words & {"all", "every", "dump", "export"}) or bool(
        _UNBOUNDED_WORDS.search(capability.description)
    )


@per_definition
def _evaluates_expressions(capability: Capability) -> bool:
    """Whether a tool is an expression evaluator: everything it requires (or its one property)
    is an expression (graph/planner/calculation.py). A spreadsheet tool whose options mention
    formulas is not one: it needs a workbook first."""
    needed = list(capability.required_arguments) or list(capability.properties)
    if capability.type != "tool" or not needed or (len(needed) > 1 and not capability.required_arguments):
        return False
    for name in needed:
        schema = capability.properties.get(name)
        shape = property_shape(schema) if isinstance(schema, dict) else {}
        kind = shape.get("type")
        types = set(kind) if isinstance(kind, list) else {kind} if isinstance(kind, str) else set()
        if not takes_an_expression(name, str(shape.get("description") or ""), types):
            return False
    return True


def _word_problem_for(capability: Capability, text: str) -> bool:
    """A word problem no rule puts in symbols, for a capability that evaluates expressions."""
    return expression_in(text) is None and asks_for_arithmetic(text) and _evaluates_expressions(capability)


# Orders that take back what another did: "undo the last commit" is no commit.
_TAKING_BACK = frozenset({"undo", "revert", "reverse", "rollback", "unsend", "undelete"})


def _undoes(capability: Capability, text: str) -> tuple[str, str] | None:
    """The request's order verb and the tool's name verb, when one undoes the other: opposite
    verbs (import for "save as"), or an order to take back the very act the tool's name does
    ("Undo the last commit" for git_commit)."""
    asked = leading_verb(text)
    if asked is None or not _opens_with(text, asked) or capability.type != "tool":
        return None
    own = _without_server_prefix(_name_words(capability), capability.server)
    if not own:
        return None
    if asked.lower() in _TAKING_BACK:
        after = compiled(rf"\b{re.escape(asked)}\b(.*)$", re.IGNORECASE | re.DOTALL).search(text)
        taken_back = {stem(w) for w in words(after.group(1))} if after else set()
        return (asked, own[0]) if stem(own[0]) in taken_back else None
    return (asked, own[0]) if opposite(asked, own[0]) else None


# Words of a parameter's name that take what something is renamed to.
_NEW_NAME_WORDS = frozenset({"name", "new", "destination", "target", "to", "title", "rename", "dest"})


def _renames_without_a_name(capability: Capability, text: str) -> bool:
    """An order to rename something, for a tool that acts but has no parameter for the new
    name ("Rename the key a to b" for a tool that sets a key's value)."""
    asked = leading_verb(text)
    if asked is None or stem(asked.lower()) != stem("rename") or capability.type != "tool":
        return False
    return not any(set(split_identifier(name)) & _NEW_NAME_WORDS for name in capability.properties)


def _ordered_and_said(capability: Capability, text: str) -> str | None:
    """The request's unknown order verb, when the acting ``capability`` says it and its name
    does no other act: set_defined_name serves "define the name X" (set is a verb of many
    acts), delete_defined_name does not (it deletes, whatever it says of defined names)."""
    ordered = acting_order_said(capability, text)
    if ordered is None:
        return None
    # Its own verb: its name's, or its description's first word (unlabel_block: "Delete ...").
    own = _name_verb(capability)
    if own is None:
        opening = words(capability.description)[:1]
        own = opening[0] if opening and is_known_verb(opening[0]) else None
    if own is None or own in _MANY_ACTS:
        return ordered
    # An order no table knows makes or sets something, unless it says it undoes ("unpin").
    removes = _ACT_FAMILY.get(stem(own)) == "+delete"
    return ordered if removes == ordered.lower().startswith("un") else None


def _object_named(capability: Capability, text: str) -> str | None:
    """The request's object (the noun its order verb acts on: "Drop column D" drops a column),
    when this tool does that verb and its name or its options name the object; a tool of the
    same verb for another object (drop_tab) is left to the words it shares."""
    verb = leading_verb(text)
    own = _without_server_prefix(_name_words(capability), capability.server)
    if verb is None or not own or capability.type != "tool":
        return None
    if stem(own[0]) != stem(verb) and not concepts_of_words([own[0]]) & concepts_of_words([verb]):
        return None
    after = compiled(rf"\b{re.escape(verb)}\s+(.*)$", re.IGNORECASE | re.DOTALL).search(text)
    if after is None:
        return None
    # The object as a noun and its label: "column C", "row 4", "tab 2" (an adjective such as
    # "simulated" in "switch the simulated updates off" is no object).
    found = re.match(
        r"(?:(?:the|a|an|one|\d+|empty|blank|new)\s+)*([a-z]+)\s+(?:[A-Z]{1,3}|\d+)\b", after.group(1)
    )
    if found is None:
        return None
    noun = found.group(1)
    named = {stem(w) for w in own[1:]}
    for schema in capability.properties.values():
        enum = property_shape(schema).get("enum") if isinstance(schema, dict) else None
        named |= {stem(str(v).lower()) for v in enum or []}
    return noun.lower() if stem(noun.lower()) in named else None


def _uri_matches(capability: Capability, text: str) -> bool:
    if capability.uri and capability.uri in text:
        return True
    # A resource named like a file ("features.md") is named by that file name.
    named = rf"(?<![\w./-]){re.escape(capability.name)}(?![\w/-])"
    if capability.type != "tool" and "." in capability.name and compiled(named, re.IGNORECASE).search(text):
        return True
    if capability.uri_template:
        prefix = capability.uri_template.split("{", 1)[0]
        return bool(prefix) and prefix in text
    return False


# Points and the reason for them, as one rule of the table below gives them.
Points = tuple[float, str]


@dataclass(eq=False)
class _Scoring:
    """One capability scored against one request: what the rules read (each fact worked out
    once, when a rule first asks for it) and the score so far."""

    capability: Capability
    text: str
    operation_type: str
    preferences: list[str]
    vocabulary: Vocabulary
    folders: Mapping[str, Sequence[str]]
    similarity: float | None
    next_similarity: float
    scored: ScoredCapability
    # Whether a word, a value or an argument of the request pointed at it before its meaning
    # was weighed (set by _note_words_said), and whether anything did once its arguments were
    # read (set by _note_topic).
    said_by_words: bool = False
    topical: bool = False
    # Whether any rule so far gave it points (a word, a value or its meaning pointed at it):
    # a rule that takes points away ("the request names another server") points elsewhere.
    pointed_at: bool = False

    def add(self, points: float, reason: str) -> None:
        self.scored.score += points
        self.scored.reasons.append(f"{points:+g} {reason}")
        self.pointed_at = self.pointed_at or points > 0

    @cached_property
    def server_concepts(self) -> set[str]:
        return concepts_of_words(split_identifier(self.capability.server))

    @cached_property
    def wanted(self) -> frozenset[str]:
        wanted = _concepts_of_request(self.text)
        if self.server_concepts & wanted and asks_about_a_name(self.text, frozenset(self.server_concepts)):
            # Asking a named server about a named thing is a look-up there: "according to memory,
            # who does Alice work with?" (not for questions at large: those may need no server).
            wanted = wanted | {"search"}
        return wanted

    @cached_property
    def paths_named(self) -> int:
        named_files, named_folders = stated_paths(self.text)
        return len(named_files) + len(named_folders)

    @cached_property
    def implied_kinds(self) -> set[str]:
        # A path says what it names without a word for it: "/srv/notes.md" is a file, "/srv" a folder.
        implied_kinds = path_kinds(self.text) - self.wanted
        # "letter.docx" is a Word document without the words: a name saying "document" or
        # "workbook" says no more than the file's format does.
        implied_kinds |= formats_stated(self.text) - self.wanted
        if times_of_day(self.text):
            implied_kinds.add("time")  # "Convert 16:45", "at noon": a time of day names what it is
        if self.paths_named >= 2:
            implied_kinds.add("multiple")  # two paths ask for several at once
        return implied_kinds

    @cached_property
    def implied(self) -> set[str]:
        # A file, a folder or several count (at a share); what a file holds (text, an image) only
        # excuses a name for saying it (read_text_file for notes.md), it is no evidence of its own.
        return self.implied_kinds & {"file", "directory", "multiple", "time"}

    @cached_property
    def name_words(self) -> tuple[str, ...]:
        return _name_words(self.capability)

    @cached_property
    def name_hits(self) -> list[str]:
        name_concepts = concepts_of_words(self.name_words)
        return sorted(_one_per_word(name_concepts & (self.wanted | self.implied), self.text, self.vocabulary))

    @cached_property
    def name_verb(self) -> str | None:
        return _name_verb(self.capability)

    @cached_property
    def asked(self) -> RequestAction:
        return request_action(self.text)

    @cached_property
    def does(self) -> CapabilityAction:
        return capability_action(self.capability)

    @cached_property
    def servers_named(self) -> frozenset[str]:
        return self.vocabulary.servers_named(self.text)

    @cached_property
    def named_elsewhere(self) -> list[str]:
        return sorted(self.servers_named - {self.capability.server})

    @cached_property
    def enum_hits(self) -> list[str]:
        enum_hits = _stated_enum_values(self.capability, self.text)
        verb_word = leading_verb(self.text)
        if verb_word is not None and _opens_with(self.text, verb_word):
            # The request's own verb is not a value it states: "Open a new ticket" sets no status.
            enum_hits = [v for v in enum_hits if stem(v.lower()) != stem(verb_word)]
        return enum_hits

    @cached_property
    def said_verb(self) -> str | None:
        return _verb_its_description_opens_with(self.capability, self.text)

    @cached_property
    def in_admin_words(self) -> bool:
        # The admin's words say what the capability does, in verbs no word list may know.
        return states_its_action(self.capability, self.text)

    @cached_property
    def statement(self) -> Points | None:
        # The SQL statement the request writes out, and whether this tool executes its kind: the
        # statement's verb (UPDATE) is then what the tool does, whatever its name says (write_x).
        return statement_fit(self.capability, self.text)

    @cached_property
    def word_problem(self) -> bool:
        return _word_problem_for(self.capability, self.text)

    @cached_property
    def changed(self) -> Points | None:
        # "Set the price of the Mouse to 17.90": a change to records nothing else mentions, for the
        # database tool that runs that kind of change (asked about: the statement is missing). Its
        # verb is then what the tool does, as a statement's is.
        ordered_verb = None if path_kinds(self.text) else leading_verb(self.text)
        if ordered_verb is None or self.asked.reads_only:
            return None
        family = _ACT_FAMILY.get(stem(ordered_verb))
        return data_change(self.capability, self.text, self.vocabulary.named | _FILLER, family)

    @cached_property
    def extraction(self) -> Extraction:
        return extract_arguments(self.capability.input_schema, self.text, server=self.capability.server)

    @cached_property
    def kind(self) -> str:
        return _KIND_OF_TYPE[self.capability.type]

    def finish(self) -> ScoredCapability:
        """The score, capped at 0 when nothing in the request refers to the capability (the
        bonuses for kind, preference and stated arguments only rank what the request is about:
        without a word pointing at it they must not lift it over the threshold), rounded."""
        scored = self.scored
        if not self.topical and scored.score > 0:
            scored.reasons.append(f"capped at 0: nothing in the request refers to {self.capability.key}")
            scored.score = 0.0
        scored.score = round(scored.score, 2)
        return scored


# A rule of the table: the points it gives (None: it says nothing). A few rules only note a
# fact later rules read (what the request said before its meaning was weighed).
ScoringRule = Callable[[_Scoring], Points | None]


def _name_matches(s: _Scoring) -> Points | None:
    """Name parts the request says weigh most: a name says what a capability is for. Its verb
    (create in create_entities) says less than its object ("set the clock" is not about tickets
    because update_ticket's verb is a synonym of set), and what a path only implies (a file)
    counts at a share."""
    if not s.name_hits:
        return None
    verb_concepts = _VERB_CONCEPTS | (concepts_of_words([s.name_verb]) if s.name_verb else set())
    nouns = {c for c in s.name_hits if c not in verb_concepts}
    verbs = set(s.name_hits) - nouns
    points = NAME_WEIGHT * s.vocabulary.total(nouns) + NAME_VERB_WEIGHT * s.vocabulary.total(verbs)
    points -= NAME_WEIGHT * (1 - IMPLIED_SHARE) * s.vocabulary.total(nouns & s.implied)
    return points, f"name matches {', '.join(s.name_hits)}"


def _name_says_more(s: _Scoring) -> Points | None:
    """A name that says more than the request asked for is a narrower fit: "list files" is
    list_directory, not list_allowed_directories. Not counted: the server's own name repeated
    (git_log) and a generic read verb (get_x), which the request's action already covers. A
    common word narrows less than a rare one, and another verb for the same object (create for
    "add a new entity") less than a noun."""
    if not s.name_hits:
        return None
    acting = not s.asked.reads_only
    unmatched = [
        w
        for w in _without_server_prefix(s.name_words, s.capability.server)
        if not concepts_of_words([w]) & (s.wanted | s.implied_kinds)
        and w not in _GENERIC_READ_VERBS
        and not (w in _LISTING_QUALIFIERS and "list" in s.wanted)
    ]
    if not unmatched:
        return None
    penalty = sum(
        max(s.vocabulary.weight(c), UNMATCHED_FLOOR)
        * (UNMATCHED_VERB_SHARE if w == s.name_verb and acting else 1.0)
        for w in unmatched
        for c in sorted(concepts_of_words([w]))[:1]
    )
    return UNMATCHED_NAME_WORD * penalty, f"name also says {', '.join(unmatched)}"


def _name_says_the_request_word(s: _Scoring) -> Points | None:
    """The request's own word in the name (read for read_text_file) beats a synonym (get)."""
    if not s.name_hits:
        return None
    literal = sorted({stem(w) for w in s.name_words} & _stems_of_request(s.text))
    if not literal:
        return None
    points = LITERAL_NAME_WORD * s.vocabulary.total(set(concepts_of_words(literal)))
    return points, f"name says {', '.join(literal)} as asked"


def _server_named(s: _Scoring) -> Points | None:
    """The server by its own name ("in git", "from memory"), not by a synonym; a server called
    "files" is hardly named by "list the files" (a common word names it less); "the shop
    database" names the server whose capabilities say they work on it."""
    server = s.capability.server
    if s.server_concepts & s.wanted:
        if s.vocabulary.other_servers_use(server):
            return SERVER_WEIGHT * COMMON_SERVER_NAME, f"server {server} named by a common word"
        return SERVER_WEIGHT, f"server {server} named"
    if server in s.servers_named:
        return SERVER_WEIGHT, f"the request names where server {server} works"
    return None


def _another_server_named(s: _Scoring) -> Points | None:
    """ "Add Globex to memory", "the time server's zone": the operator said where, and it is
    not here."""
    if s.named_elsewhere and s.capability.server not in s.servers_named:
        return (
            ANOTHER_SERVER_NAMED,
            f"the request names {', '.join(s.named_elsewhere)}, not {s.capability.server}",
        )
    return None


def _file_of_another_servers_format(s: _Scoring) -> Points | None:
    """ "Find 'Marketing' in budget.xlsx": a file only another server's capabilities say they
    open. No points for the owner's tools: the file says which server, not which tool. As
    strong as naming that server twice: a workbook tool cannot open a Word document."""
    owner = _format_owner(s.text, s.vocabulary)
    if owner is not None and owner != s.capability.server and not s.named_elsewhere:
        return 2 * ANOTHER_SERVER_NAMED, f"the request's file is of a format only {owner} works with"
    return None


def _parameters_named(s: _Scoring) -> Points | None:
    """Parameters the request names (a "branch", a "query") are what the capability takes."""
    properties = s.capability.properties
    named = {n: _parameter_concepts_named(n, schema, s.wanted) for n, schema in properties.items()}
    param_hits = sorted(n for n, hit in named.items() if hit)
    if not param_hits:
        return None
    param_concepts = {c for n in param_hits for c in named[n]}
    points = PARAMETER_WEIGHT * min(s.vocabulary.total(param_concepts), 3.0)
    return points, f"parameters {', '.join(param_hits)} named"


def _parameter_concepts_named(name: str, schema: Any, wanted: frozenset[str]) -> set[str]:
    """The concepts of a parameter's name the request says. A switch (a boolean) says how a tool
    reads, not what: the request's verb is no sign of it ("open" or "show" for prettyPrint,
    "read" for includeContent), or every tool with such an option is named by every read."""
    found = concepts_of_words(split_identifier(name)) & wanted
    if isinstance(schema, dict) and property_shape(schema).get("type") == "boolean":
        found -= _VERB_CONCEPTS
    return found


def _enum_values_stated(s: _Scoring) -> Points | None:
    """Options the request says in so many words ("closed") are values it would take."""
    if not s.enum_hits:
        return None
    return ENUM_WEIGHT * min(len(s.enum_hits), 3), f"values {', '.join(s.enum_hits)} stated"


def _description_mentions(s: _Scoring) -> Points | None:
    """Words of the description the request says: weaker than the name, and capped."""
    description_hits = _concepts_of_description(s.capability.description) & s.wanted
    if not description_hits:
        return None
    return (
        min(DESCRIPTION_WEIGHT * 2 * s.vocabulary.total(description_hits), DESCRIPTION_CAP),
        f"description mentions {', '.join(sorted(description_hits))}",
    )


def _description_phrases(s: _Scoring) -> Points | None:
    """Two words of the request side by side in the description ("last modified"): a phrase
    says more than its words apart."""
    phrases = _shared_phrases(s.capability.description, s.text)
    if not phrases:
        return None
    return min(PHRASE_WEIGHT * len(phrases), PHRASE_CAP), f"description says {', '.join(phrases)} as asked"


def _uri_named(s: _Scoring) -> Points | None:
    """A resource's URI (or a file name it is called by) written in the request names it."""
    return (URI_MATCH, "URI named in the request") if _uri_matches(s.capability, s.text) else None


def _description_opens_with_the_verb(s: _Scoring) -> Points | None:
    """The request's verb is the one the description opens with ("Switches branches"); once:
    a name that says the verb already counted it."""
    if s.said_verb and not concepts_of_words([s.said_verb]) & set(s.name_hits):
        return DESCRIPTION_VERB, f"its description opens with the request's verb ({s.said_verb})"
    return None


def _admin_alias(s: _Scoring) -> Points | None:
    """Another name the admin gave the capability, said by the request."""
    alias = alias_in(s.capability, s.text)
    if alias is None:
        return None
    return ALIAS_WEIGHT, f"the request says {alias!r}, another name the admin gave it"


def _admin_example(s: _Scoring) -> Points | None:
    """A request worded like one of the admin's examples for the capability, by how alike."""
    example = closest_example(s.capability, s.text)
    if example is None:
        return None
    return round(
        EXAMPLE_WEIGHT * example[1], 2
    ), f"the request is worded like the admin's example {example[0]!r}"


def _word_problem(s: _Scoring) -> Points | None:
    """ "If one pizza has 8 slices, how many slices do 7 pizzas have?": no rule builds the
    expression, but a calculator is what to ask with (it is asked for, never guessed)."""
    if not s.word_problem:
        return None
    return WORD_PROBLEM, "the request is a word problem; it evaluates expressions"


def _data_question(s: _Scoring) -> Points | None:
    """ "How many orders since 1 November?": about records nothing else mentions, for a
    database's read-query tool (asked about: the query is the operator's to give)."""
    if not s.asked.reads_only or path_kinds(s.text):
        return None
    found = data_question(s.capability, s.text, s.vocabulary.named)
    if found is None and s.capability.server in s.servers_named:
        # Not the words that named it ("the shop database"): they say where, not what about.
        places = s.vocabulary.places_of.keys()
        naming = {
            word
            for word, after in pairwise(words(s.text))
            if concepts_of_words([after]) & places or concepts_of_words([word]) & places
        }
        about = [w for w in _unknown_words(s.text, s.vocabulary) if w not in naming]
        found = question_to_a_named_database(s.capability, s.text, about)
    return found


def _data_change(s: _Scoring) -> Points | None:
    """ "Set the price of the Mouse to 17.90": a change to records nothing else mentions, for
    the database tool that runs that kind of change (asked about: the statement is missing)."""
    return s.changed


def _note_words_said(s: _Scoring) -> None:
    """Notes whether the rules above (words, values, the admin's words) found anything: meaning
    alone pointing at a capability is told apart (ScoredCapability.by_meaning_only)."""
    s.said_by_words = bool(s.scored.reasons)


def _similar_in_meaning(s: _Scoring) -> Points | None:
    """Meaning, not words: "rename report.txt" is move_file's job though no word of its name is
    said. Only for the capability closest in meaning, by its lead over the next, and fading as
    the words matched so far (the score up to here) approach SIMILARITY_WORDS_ENOUGH."""
    similarity = s.similarity
    if similarity is not None and similarity >= SIMILARITY_FLOOR and similarity > s.next_similarity:
        lead = min((similarity - s.next_similarity) / SIMILARITY_LEAD, 1.0)
        unsaid = max(0.0, 1.0 - max(s.scored.score, 0.0) / SIMILARITY_WORDS_ENOUGH)
        s.scored.similarity_points = round(SIMILARITY_WEIGHT * lead * unsaid, 2)
    if s.scored.similarity_points <= 0:
        return None
    return (
        s.scored.similarity_points,
        f"its description means what the request asks (similarity {similarity:.2f})",
    )


def _note_topic(s: _Scoring) -> None:
    """Notes whether the request is about the capability at all, before the bonuses below
    (kind, preference, stated arguments), which only rank capabilities the request is about. A
    value only one kind of parameter takes (a time zone, an address, a URI, a date, a time of
    day) points at the capability as a word does: "9am Denver -> Honolulu?"."""
    extraction = s.extraction
    s.scored.extraction = extraction
    s.topical = bool(s.scored.reasons) or bool(extraction.distinctive)
    s.scored.referred_to = s.pointed_at or bool(extraction.distinctive)
    s.scored.by_meaning_only = s.topical and not (s.said_by_words or extraction.distinctive)


def _kind_asked_for(s: _Scoring) -> Points | None:
    """The kind the request asked for (a tool, a resource, a prompt)."""
    return (KIND_MATCH, f"a {s.kind} was asked for") if s.operation_type == s.kind else None


def _prompt_not_asked_for(s: _Scoring) -> Points | None:
    """A prompt, when nobody asked for one, is far off: it answers nothing by itself."""
    return (UNREQUESTED_PROMPT, "a prompt, but none was asked for") if s.kind == "prompt" else None


def _prompt_asked_for(s: _Scoring) -> Points | None:
    """A prompt was asked for, and this is none."""
    if s.operation_type != "prompt":
        return None
    return KIND_MISMATCH, f"a {s.kind}, but a prompt was asked for"


def _reading_tool_for_a_resource(s: _Scoring) -> Points | None:
    """ "Get a reference to text resource 3": a tool that reads serves a read of a resource."""
    if s.kind == "tool" and s.operation_type == "resource" and not s.does.acts:
        return KIND_MATCH / 2, "a tool that reads, for a read"
    return None


def _resource_for_a_read(s: _Scoring) -> Points | None:
    """Nobody says "resource": to someone who asks to read, a resource serves like a tool."""
    if s.kind == "resource" and s.operation_type == "tool" and s.asked.reads_only:
        return KIND_MATCH, "a read, as asked"
    return None


def _another_kind(s: _Scoring) -> Points | None:
    """A tool for a resource, or a resource for a change: the other kind."""
    if s.operation_type not in {"tool", "resource"}:
        return None
    return KIND_MISMATCH, f"a {s.kind}, but a {s.operation_type} was asked for"


# Which kind fits: the first rule that speaks decides.
KIND_RULES: tuple[ScoringRule, ...] = (
    _kind_asked_for,
    _prompt_not_asked_for,
    _prompt_asked_for,
    _reading_tool_for_a_resource,
    _resource_for_a_read,
    _another_kind,
)


def _first_that_speaks(rules: Sequence[ScoringRule], s: _Scoring) -> Points | None:
    for rule in rules:
        found = rule(s)
        if found is not None:
            return found
    return None


def _kind_fit(s: _Scoring) -> Points | None:
    """Whether it is the kind asked for: the first of KIND_RULES that speaks."""
    return _first_that_speaks(KIND_RULES, s)


def _search_without_a_query(s: _Scoring) -> Points | None:
    """ "Search the knowledge graph": a capability with no parameters cannot search, it returns
    all."""
    if not s.capability.properties and s.capability.type != "prompt" and _asks_to_search(s.text):
        return SEARCH_WITHOUT_QUERY, "it takes nothing to search by; the request asks to search"
    return None


def _another_verb(s: _Scoring) -> Points | None:
    """ "Push the commits" is not git_commit: the request's acting verb is one of its own the
    tool does not say (unless its description's verb, an option, the admin's words or a
    change to records already said what it does)."""
    if s.said_verb or s.enum_hits or s.asked.reads_only or s.in_admin_words or s.changed:
        return None
    other_verb = _other_verb(s.capability, s.does.acts, s.text)
    if not other_verb:
        return None
    return VERB_MISMATCH, f"the request asks to {other_verb[0]}; it would {other_verb[1]}"


def _opens_with_its_verb(s: _Scoring) -> Points | None:
    """A verb no word list knows, said as an order and named by the tool: "uproot the basil"."""
    if not (s.does.acts and s.asked.reads_only):
        return None
    verb = _opens_with_name_verb(s.capability, s.text)
    return (ACTION_MATCH, f"the request opens with its verb ({verb})") if verb else None


def _orders_what_it_says(s: _Scoring) -> Points | None:
    """ "Duplicate the Q3 sheet", "define the name X": an order in a verb no table knows, which
    the tool says (copy_sheet, set_defined_name)."""
    if not (s.does.acts and s.asked.reads_only):
        return None
    ordered = _ordered_and_said(s.capability, s.text)
    return (ACTION_MATCH, f"the request orders what it does ({ordered})") if ordered else None


def _asked_in_the_admins_words(s: _Scoring) -> Points | None:
    """The admin's words for an acting tool say what to do, in verbs no table knows."""
    if s.does.acts and s.asked.reads_only and s.in_admin_words:
        return ACTION_MATCH, "the request asks for it in the admin's words for it"
    return None


def _acts_for_a_read(s: _Scoring) -> Points | None:
    """A capability that acts, for a request that only reads: never chosen, whatever else
    matched."""
    if s.does.acts and s.asked.reads_only:
        return READ_REQUEST_ACTING_TOOL, f"it changes something ({s.does.why}); the request only reads"
    return None


def _only_reads_for_a_change(s: _Scoring) -> Points | None:
    """A request to change something, for a capability that only reads."""
    if s.asked.categories and not s.does.acts:
        return ACTION_MISMATCH, f"the request asks to {', '.join(s.asked.verbs)}; it only reads"
    return None


def _does_what_is_asked(s: _Scoring) -> Points | None:
    """It does the act asked for: by its action's category, its description's verb, the
    admin's words, the SQL statement it runs, the change to records it makes, or a setting
    verb for a request to write or update."""
    asked = s.asked
    if asked.categories and (
        s.does.categories & asked.categories
        or s.said_verb
        or s.in_admin_words
        or (s.statement is not None and s.statement[0] > 0)
        or s.changed is not None
        or _sets_what_is_asked(s.capability, asked.categories)
    ):
        return ACTION_MATCH, f"it does what the request asks ({', '.join(asked.verbs)})"
    return None


def _does_another_act(s: _Scoring) -> Points | None:
    """It acts, but otherwise than asked (half the penalty: a verb of several acts, "add",
    says nothing against any one of them)."""
    if s.asked.categories and not set(s.asked.verbs) <= _MANY_ACTS:
        return ACTION_MISMATCH / 2, f"the request asks to {', '.join(s.asked.verbs)}; {s.does.why}"
    return None


# Whether it does what the request asks: the first rule that speaks decides.
ACTION_RULES: tuple[ScoringRule, ...] = (
    _another_verb,
    _opens_with_its_verb,
    _orders_what_it_says,
    _asked_in_the_admins_words,
    _acts_for_a_read,
    _only_reads_for_a_change,
    _does_what_is_asked,
    _does_another_act,
)


def _action_fit(s: _Scoring) -> Points | None:
    """Whether it does the act asked for: the first of ACTION_RULES that speaks."""
    return _first_that_speaks(ACTION_RULES, s)


def _object_named_rule(s: _Scoring) -> Points | None:
    """The request's order verb is the tool's, and the object it names is the tool's object
    ("Drop column D" for drop_column)."""
    object_named = _object_named(s.capability, s.text)
    if not object_named:
        return None
    return OBJECT_NAMED, f"it {leading_verb(s.text)}s what the request names ({object_named})"


def _undoes_the_order(s: _Scoring) -> Points | None:
    """The tool's name verb undoes the request's order (import for "save as", commit for "undo
    the last commit"); not when a change to records already said what it does."""
    undoes = None if s.changed else _undoes(s.capability, s.text)
    if not undoes:
        return None
    return OPPOSITE_VERB, f"the request asks to {undoes[0]}; it would {undoes[1]}, the opposite"


def _renames_without_a_new_name(s: _Scoring) -> Points | None:
    """An order to rename, for a tool that acts and has no parameter for the new name:
    whatever it would be given ("Rename the key a to b": b as a value) is not what was asked."""
    if s.does.acts and _renames_without_a_name(s.capability, s.text):
        return RENAME_WITHOUT_A_NAME, "the request asks to rename; it takes no new name"
    return None


def _reads_for_a_change(s: _Scoring) -> Points | None:
    """Never a read for a change, however well it matches: it would report ok, having done
    nothing."""
    unserved = read_cannot_serve(s.capability, s.text)
    return (WRITE_REQUEST_READING_CAPABILITY, unserved) if unserved else None


def _preferred_server(s: _Scoring) -> Points | None:
    """The operator prefers its server: a bonus, never a free pass (a weak match stays weak)."""
    if s.capability.server in s.preferences:
        return PREFERRED_SERVER, f"server {s.capability.server} preferred"
    return None


def _unbounded_listing(s: _Scoring) -> Points | None:
    """A tool that can only return everything (no filters, no paging) is a last resort."""
    if is_unbounded_listing(s.capability):
        return UNBOUNDED_LISTING, "returns everything, with no filters or paging"
    return None


def _path_in_its_folders(s: _Scoring) -> Points | None:
    """A path inside a folder the server was started with is strong evidence for that server;
    one outside all of them is evidence against."""
    placed = _paths_placed(s.extraction.arguments, s.folders.get(s.capability.server, ()))
    if placed is True:
        return IN_ITS_FOLDER, "the path stated is in a folder its server was given"
    if placed is False:
        return OUTSIDE_ITS_FOLDERS, "the path stated is outside the folders its server was given"
    # A relative path: the servers whose folders hold it (graph/planner/relative_places.py). As
    # with a file's format, the other servers' tools lose as much (they cannot even see the
    # file) and the holder's gain nothing: where the file is says which server, not which of
    # its tools, so it lifts no weak match of its.
    holding = servers_holding(_values_of(s.extraction.arguments), s.folders, bare_names=s.asked.reads_only)
    if holding is None or s.capability.server not in s.folders or s.capability.server in holding:
        return None
    return (
        2 * OUTSIDE_ITS_FOLDERS,
        f"the path stated is in the folder of {', '.join(sorted(holding))}, not its own",
    )


def _file_for_a_folder_tool(s: _Scoring) -> Points | None:
    """A folder tool given a file's path ("sample.txt" for list_directory) is the wrong tool."""
    if _folder_tool_given_a_file(s.capability, s.extraction.arguments):
        return FILE_FOR_A_FOLDER_TOOL, "the path stated names a file; it works on folders"
    return None


def _arithmetic_stated(s: _Scoring) -> Points | None:
    """ "What's 3 squared?": arithmetic is what an expression evaluator is for, as a name would
    say."""
    if states_arithmetic(s.extraction.sources):
        return ARITHMETIC_STATED, "the request states arithmetic; it evaluates expressions"
    return None


def _required_stated(s: _Scoring) -> list[str]:
    return [n for n in s.capability.required_arguments if n in s.extraction.arguments]


def _required_arguments_stated(s: _Scoring) -> Points | None:
    """Each required argument the request states."""
    stated_required = _required_stated(s)
    if not stated_required:
        return None
    return STATED_ARGUMENT * len(stated_required), f"request states {', '.join(stated_required)}"


def _options_stated(s: _Scoring) -> Points | None:
    """An option the request fills ("the last 3 lines" for tail), except an enum value,
    already counted by _enum_values_stated."""
    extraction = s.extraction
    stated_options = [
        n
        for n in extraction.arguments
        if n not in s.capability.required_arguments
        and not str(extraction.sources.get(n, "")).endswith("stated in the request")
    ]
    if not stated_options:
        return None
    return STATED_OPTION * len(stated_options), f"request states {', '.join(stated_options)} too"


def _arguments_missing_or_complete(s: _Scoring) -> Points | None:
    """Each required argument the request lacks counts against it; every one stated says the
    request was written for it."""
    missing = s.extraction.missing
    if missing:
        return MISSING_ARGUMENT * len(missing), f"request lacks {', '.join(missing)}"
    if _required_stated(s):
        return COMPLETE_ARGUMENTS, "request states everything it needs"
    return None


def _paths_left_over(s: _Scoring) -> Points | None:
    """ "Show me a.md next to b.md": a tool that reads one file serves half the request."""
    taken = _paths_taken(s.extraction.arguments)
    if s.paths_named >= 2 and 0 < taken < s.paths_named:
        return PATHS_LEFT_OVER, f"the request names {s.paths_named} paths; it takes {taken}"
    return None


def _typed_value_left(s: _Scoring) -> Points | None:
    """ "What would 10:00 Tokyo time be?" states a time the current-time tool has no use for:
    a time of day, a date, an address or a URI no argument takes."""
    unplaced = _typed_values_left(s.text, s.extraction.arguments)
    if not unplaced:
        return None
    return TYPED_VALUE_LEFT, f"the request states {unplaced}; it takes no such value"


def _value_without_a_place(s: _Scoring) -> Points | None:
    """A path, a name or a number the request states that the capability has no parameter
    for ("delete /srv/todo.txt" for a tool without a path)."""
    homeless = _values_without_a_place(s.capability, s.text, s.extraction.arguments)
    if not homeless:
        return None
    return VALUE_WITHOUT_A_PLACE, f"the request names {homeless}; it takes nothing to put it in"


def _sql_statement(s: _Scoring) -> Points | None:
    """ "Run UPDATE ...": of a database's query tools, the one whose words name UPDATE."""
    return s.statement


def _deprecated(s: _Scoring) -> Points | None:
    """Its server marks it deprecated: another capability that serves is better."""
    if _DEPRECATED.search(s.capability.description):
        return DEPRECATED, "its server marks it deprecated"
    return None


def _unknown_words_rule(s: _Scoring) -> Points | None:
    """The request is about things no configured capability mentions (a pizza, the lights). A
    long request carries context too ("I need to call a colleague, ..."): there the share of
    such words says how far off it is, not their number alone. A word problem's story (pizzas,
    slices) is what its arithmetic is about, not a topic."""
    unknown = [] if s.word_problem else _unknown_words(s.text, s.vocabulary)
    if not unknown:
        return None
    content = _content_words(s.text)
    share = 1.0 if len(content) < LONG_REQUEST else max(0.5, len(unknown) / len(content))
    return UNKNOWN_WORD * min(len(unknown), 3) * share, f"no capability mentions {', '.join(unknown)}"


# The rules that score a capability, in the order they are applied. Order matters in three
# places: reasons are listed in this order; _similar_in_meaning reads the score the rules
# before it gave (meaning stands in for words, it does not count them twice); and
# _note_topic decides, from the reasons before it, whether the rules after it (kind,
# preference, stated arguments) may lift the score above 0 (_Scoring.finish caps it).
SCORING_RULES: tuple[ScoringRule, ...] = (
    # What the request says of the capability: its name, server, parameters, options,
    # description, URI, the admin's words, and what a database tool does with records.
    _name_matches,
    _name_says_more,
    _name_says_the_request_word,
    _server_named,
    _another_server_named,
    _file_of_another_servers_format,
    _parameters_named,
    _enum_values_stated,
    _description_mentions,
    _description_phrases,
    _uri_named,
    _description_opens_with_the_verb,
    _admin_alias,
    _admin_example,
    _word_problem,
    _data_question,
    _data_change,
    _note_words_said,
    # What it means, where no word said it.
    _similar_in_meaning,
    _note_topic,
    # Whether it is the kind and does the act asked for.
    _kind_fit,
    _search_without_a_query,
    _action_fit,
    _object_named_rule,
    _undoes_the_order,
    _renames_without_a_new_name,
    _reads_for_a_change,
    # Where it works, and what the request gives it to work with.
    _preferred_server,
    _unbounded_listing,
    _path_in_its_folders,
    _file_for_a_folder_tool,
    _arithmetic_stated,
    _required_arguments_stated,
    _options_stated,
    _arguments_missing_or_complete,
    _paths_left_over,
    _typed_value_left,
    _value_without_a_place,
    _sql_statement,
    _deprecated,
    _unknown_words_rule,
)


def score_capability(
    capability: Capability,
    text: str,
    operation_type: str,
    preferences: list[str],
    vocabulary: Vocabulary | None = None,
    folders: Mapping[str, Sequence[str]] | None = None,
    similarity: float | None = None,
    next_similarity: float = 0.0,
) -> ScoredCapability:
    """``capability`` scored against ``text``: the points of every rule of SCORING_RULES that
    speaks, in order, each with its reason."""
    scoring = _Scoring(
        capability,
        text,
        operation_type,
        preferences,
        vocabulary or Vocabulary.of([capability]),
        folders or {},
        similarity,
        next_similarity,
        ScoredCapability(capability, 0.0, similarity=similarity),
    )
    for rule in SCORING_RULES:
        found = rule(scoring)
        if found is not None:
            scoring.add(*found)
    return scoring.finish()


# Both are asked for once per capability per request; the answers never change for a text.
@lru_cache(maxsize=256)
def _concepts_of_request(text: str) -> frozenset[str]:
    return frozenset(concepts(text))


def _one_per_word(found: set[str] | frozenset[str], text: str, vocabulary: Vocabulary) -> set[str]:
    """``found`` with one concept per word of the request: "add" stands for add and sum, but
    a name that has both is matched once, by the rarer. Concepts no single word gave (a path's
    kind, "what's in") are kept as they are."""
    kept: set[str] = set()
    covered: set[str] = set()
    for word in words(text):
        mine = concepts_of_words([word]) & found
        if mine - covered:
            kept.add(max(sorted(mine - covered), key=vocabulary.weight))
        covered |= mine
    return kept | (set(found) - covered)


def _without_server_prefix(name_words: Sequence[str], server: str) -> list[str]:
    """A name without its server's name in front (git_log is log on git); a server word later
    in the name is its object (get_current_time on the server called time)."""
    server_words = set(split_identifier(server))
    rest = list(name_words)
    while len(rest) > 1 and rest[0] in server_words:
        rest = rest[1:]
    return rest


def _other_verb(capability: Capability, acts: bool, text: str) -> tuple[str, str] | None:
    """The request's acting verb and the tool's, when the tool acts otherwise: neither the
    verb nor any of its synonyms is in the tool's name or description."""
    # A verb of several acts ("add") says nothing against any one of them; another verb does.
    asked = tuple(v for v in request_action(text).verbs if v not in _MANY_ACTS)
    if not acts or not asked:
        return None
    own = [w for w in _without_server_prefix(_name_words(capability), capability.server) if acting_verb(w)]
    if not own:
        return None
    said = concepts_of_words(_name_words(capability)) | _concepts_of_description(capability.description)
    said |= {_ACT_FAMILY.get(stem(w), "") for w in own}
    if all(w in _MANY_ACTS for w in own):
        # A tool named by a verb of several acts (set, put) writes or updates whatever it holds:
        # "store", "save" or "change" a value is its job, as "set" is.
        said |= _SETTING_FAMILIES
    for verb in asked:
        if (concepts_of_words([verb]) | {_ACT_FAMILY.get(stem(verb), "")}) & said - {""}:
            return None
    return asked[0], own[0]


# Verbs that mean several acts: "add a line to the file" writes, "add Dana" creates.
_MANY_ACTS = frozenset({"add", "put", "make", "set", "apply", "do", "process", "handle"})


def _sets_what_is_asked(capability: Capability, asked: frozenset[str]) -> bool:
    """A tool named by a verb of several acts (set_x, put) for a request to write or to
    update: "save", "store" or "change" a value is what setting it does."""
    own = [w for w in _without_server_prefix(_name_words(capability), capability.server) if acting_verb(w)]
    return bool(own) and all(w in _MANY_ACTS for w in own) and asked <= _WRITING_OR_UPDATING


_WRITING_OR_UPDATING = frozenset({"writes files", "updates records"})
# What a tool named by a verb of several acts (set_x, put) does: writing or changing a value.
_SETTING_FAMILIES = frozenset({"+write", "+update"})
# Verbs for one act: adding a thing creates it, removing it deletes it. (Kept apart from the
# synonyms, which also feed word matching: "remember" must not match git_add through "add".)
_ACT_FAMILY = {
    stem(word): family
    for family, members in {
        "+create": "add create insert new make register record remember note link connect relate associate",
        "+delete": "delete remove erase drop forget purge destroy",
        "+update": "update set change modify edit mark close reopen escalate rename",
        "+send": "send email mail notify tell message post",
        "+write": "write save store put overwrite",
        "+start": "start trigger kick launch run begin initiate",
        "+toggle": "toggle switch turn enable disable",
    }.items()
    for word in members.split()
}


_ID_NUMBER = re.compile(r"(?<![\w.#-])#?\d+(?![\w]|\.\d)")


def _paths_taken(arguments: dict[str, object]) -> int:
    """How many of the request's paths the arguments hold (a list counts each)."""
    values: list[object] = []
    for value in arguments.values():
        values.extend(value if isinstance(value, list) else [value])
    return sum(
        1 for v in values if isinstance(v, str) and ("/" in v or path_kinds(v) & {"file", "directory"})
    )


_TYPED_VALUES = re.compile(
    r"\b\d{4}-\d{2}-\d{2}\b|[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}|\b[a-z][a-z0-9+.-]*://\S+",
    re.IGNORECASE,
)


def _time_taken(said: TimeSaid, taken: str) -> bool:
    """Whether arguments hold a time the request says: as HH:MM, or as its words ("2:30 PM"
    where a model passed them on as written)."""
    digits = re.match(r"\d{1,2}[:.]\d{2}", said.words)
    written = [said.value, said.words.lower()] + (
        [digits.group(0), digits.group(0).lstrip("0")] if digits else []
    )
    return any(w in taken.lower() for w in written)


def _typed_values_left(text: str, arguments: dict[str, object]) -> str | None:
    """The first time of day (in digits or words: graph/planner/clock_words.py), date, e-mail
    address or URI the request states that none of the arguments holds."""
    taken = " ".join(str(v) for v in arguments.values())
    left = [(said.start, said.words) for said in times_of_day(text) if not _time_taken(said, taken)]
    for match in _TYPED_VALUES.finditer(text):
        value = match.group(0).rstrip(".,;:!?)")
        if value not in taken and value.lstrip("0") not in taken:
            left.append((match.start(), value))
    return min(left)[1] if left else None


def _values_without_a_place(capability: Capability, text: str, arguments: dict[str, object]) -> str | None:
    """What the request names (a path, a name, a number) that ``capability`` has no parameter
    to take, when it takes none of the request's values: "delete /srv/todo.txt" is no job for a
    tool without a path, "the Acme Corp entity" none for a listing of everything."""
    if capability.type == "prompt" or arguments or _uri_matches(capability, text):
        return None
    about = f"{capability.name} {capability.description}".lower()
    if path_kinds(text) & {"file", "directory"} and not any(
        takes_a_location(name, schema if isinstance(schema, dict) else {})
        for name, schema in capability.properties.items()
    ):
        return "a path"
    if capability.properties:
        return None
    # (The server's own name, "Which Excel files", names where to look, not a value.)
    server_name = " ".join(split_identifier(capability.server))
    names = [
        str(n)
        for n in PROPER_NAME.findall(affirmed(text))
        if str(n).lower() not in about and str(n).lower() != server_name
    ]
    if names:
        return names[0]
    numbers = [n for n in _ID_NUMBER.findall(text) if n.lstrip("#") not in about]
    return f"number {numbers[0]}" if numbers else None


@lru_cache(maxsize=256)  # the same for every capability scored against a request
def _opens_with(text: str, verb: str) -> bool:
    """Whether ``verb`` is the first word of the request (after politeness), as an order."""
    return bool(
        re.match(
            rf"^\W*(?:(?:please|can|could|would|you|kindly|just)\s+)*{re.escape(verb)}\b", text, re.IGNORECASE
        )
    )


def _asks_to_search(text: str) -> bool:
    """Whether the request's verb is a search ("search", "find", "look up", "query")."""
    verb = leading_verb(text)
    return verb is not None and "search" in concepts_of_words([verb])


@per_definition
def _name_verb(capability: Capability) -> str | None:
    """The verb a tool's name opens with, after its server's name (git_add: add), when it is a
    word the action tables know; None for a name that opens with a noun (directory_tree)."""
    if capability.type != "tool":
        return None
    name_words = _without_server_prefix(_name_words(capability), capability.server)
    # A name that is only a verb (greet, echo) has no object: the verb is all it says.
    if len(name_words) > 1 and is_known_verb(name_words[0]):
        return name_words[0]
    return None


def _opens_with_name_verb(capability: Capability, text: str) -> str | None:
    """The capability's first name word, when the request opens with it as its verb."""
    name_words = [
        w for w in split_identifier(capability.name) if w not in split_identifier(capability.server)
    ]
    verb = leading_verb(text)
    # Only a verb no table knows: a known one ("add" in "add up two numbers") was already read.
    if name_words and verb is not None and not is_known_verb(verb) and stem(verb) == stem(name_words[0]):
        return verb
    return None


_EXTENSION = re.compile(r"\.[A-Za-z][A-Za-z0-9]{0,4}$")


@per_definition
def _name_words(capability: Capability) -> tuple[str, ...]:
    """The words of a capability's name; a file name's extension (architecture.md) is not one."""
    name = _EXTENSION.sub("", capability.name) if capability.type != "tool" else capability.name
    return tuple(w for w in split_identifier(name) if w not in STOPWORDS)


def _values_of(arguments: dict[str, object]) -> list[object]:
    """Every value of ``arguments``, a list's items one by one."""
    values: list[object] = []
    for value in arguments.values():
        values.extend(value if isinstance(value, list) else [value])
    return values


def _paths_placed(arguments: dict[str, object], folders: Sequence[str]) -> bool | None:
    """Whether the absolute paths among ``arguments`` lie in ``folders`` (None: nothing to say,
    no folders known or no absolute path stated)."""
    if not folders:
        return None
    paths = [v for v in _values_of(arguments) if isinstance(v, str) and v.startswith("/")]
    if not paths:
        return None
    return all(any(holds(folder, path) for folder in folders) for path in paths)


def _folder_tool_given_a_file(capability: Capability, arguments: dict[str, object]) -> bool:
    """A capability whose name says folder, tree or directory, given a file name as its path."""
    if capability.type != "tool" or not concepts_of_words(_name_words(capability)) & {"directory", "tree"}:
        return False
    paths = [v for k, v in arguments.items() if isinstance(v, str) and "path" in k.lower()]
    return bool(paths) and all(path_kinds(p) & {"file", "directory"} == {"file"} for p in paths)


def _verb_its_description_opens_with(capability: Capability, text: str) -> str | None:
    """The request's leading verb, when the capability's description opens with it too."""
    verb = leading_verb(text)
    opening = words(capability.description)[:1]
    # A reading verb (list, show, get) is already weighed by the name; an acting or unknown one
    # ("unstage", "switch", "echo") is what this evidence is for.
    if verb is None or not opening or is_read_word(verb) or not _is_verb_like(verb):
        return None
    return verb if stem(opening[0]) == stem(verb) else None


def _is_verb_like(word: str) -> bool:
    """A word no table knows may still be the request's verb ("unstage", "echo")."""
    return len(word) > 2 and word not in _FILLER


@lru_cache(maxsize=256)  # the same for every capability scored against a request
def _content_words(text: str) -> tuple[str, ...]:
    return tuple(
        w
        for w in words(_PATHS.sub(" ", affirmed(text)))
        if len(w) >= 3 and not w.isdigit() and w not in _FILLER
    )


def _unknown_words(text: str, vocabulary: Vocabulary) -> list[str]:
    """Content words of the request that no capability of the manifest uses, in any form."""
    known = vocabulary.document_frequency.keys()
    return sorted({word for word, found in _topic_words(text) if not found & known})


@lru_cache(maxsize=256)  # the same for every capability scored against a request
def _topic_words(text: str) -> tuple[tuple[str, frozenset[str]], ...]:
    """The request's words that could name a topic, each with its concepts."""
    # A capitalised word inside a sentence is a name (Bob, Acme): a value, not a topic.
    names = {m.lower() for m in re.findall(r"(?<=\w[\s,:;])([A-Z][a-z]+)", text)}
    # A key's parts point at no capability (they are a value), but they say what the request is
    # about: "until session:bob expires" is about sessions, which no capability may mention.
    # Unless the request asks what the key holds: then the key names the thing asked for, as a
    # path does, and the question's own words ("what does ... hold") are no topic either.
    rest = without_the_question_of_what_a_key_holds(text)
    parts = key_parts(text) if rest is None else []
    said = words(_PATHS.sub(" ", without_values(affirmed(text if rest is None else rest)))) + parts
    return tuple(
        (word, frozenset(concepts_of_words([word])))
        for word in dict.fromkeys(said)
        if word not in names and len(word) >= 3 and not word.isdigit() and word not in _FILLER | STOPWORDS
    )


@lru_cache(maxsize=256)
def _stems_of_request(text: str) -> frozenset[str]:
    return frozenset(stem(w) for w in words(affirmed(text)))


@lru_cache(maxsize=4096)
def _concepts_of_description(description: str) -> frozenset[str]:
    return frozenset(concepts_of_words(words(description)))


@lru_cache(maxsize=4096)
def _phrases(text: str) -> frozenset[tuple[str, str]]:
    """Pairs of neighbouring content words, stemmed (stop words between them are skipped)."""
    stems = [stem(w) for w in words(text) if w not in _FILLER or w in {"last", "first", "new"}]
    return frozenset(pairwise(stems))


def _shared_phrases(description: str, text: str) -> list[str]:
    shared = _phrases(description) & _phrases(affirmed(text))
    return sorted(" ".join(pair) for pair in shared)


def _stated_enum_values(capability: Capability, text: str) -> list[str]:
    """Enum values the request says in so many words: "closed", not a synonym of one ("open"
    is also a way to say read)."""
    said = _stems_of_request(text)
    hits: list[str] = []
    for schema in capability.properties.values():
        enum = property_shape(schema).get("enum")
        if isinstance(enum, list):
            # (An option of punctuation alone, ".", has no words, and says nothing.)
            hits.extend(
                str(v)
                for v in enum
                if re.search(r"\w", str(v)) and {stem(w) for w in split_identifier(str(v))} <= said
            )
    return hits


# Manifests change rarely: the vocabulary of the last few is kept, by their definitions.
_VOCABULARIES_KEPT = 16
_vocabularies: dict[tuple[DefinitionKey, ...], Vocabulary] = {}


def _vocabulary_of(capabilities: list[Capability]) -> Vocabulary:
    """Vocabulary.of(capabilities), the same object for the same definitions: a request scores
    against the manifest its servers offer, which is usually the one the last request saw."""
    key = tuple(definition_key(capability) for capability in capabilities)
    vocabulary = _vocabularies.get(key)
    if vocabulary is None:
        vocabulary = Vocabulary.of(capabilities)
        if len(_vocabularies) >= _VOCABULARIES_KEPT:
            _vocabularies.clear()
        _vocabularies[key] = vocabulary
    return vocabulary


def known_concepts(capabilities: Sequence[Capability]) -> frozenset[str]:
    """Every concept the capabilities use in their names, descriptions and parameters."""
    return frozenset(_vocabulary_of(list(capabilities)).document_frequency)


def rank(
    capabilities: list[Capability],
    text: str,
    operation_type: str,
    preferences: list[str],
    exclude: set[str] | None = None,
    folders: Mapping[str, Sequence[str]] | None = None,
    extra: Mapping[str, Sequence[str]] | None = None,
) -> list[ScoredCapability]:
    """Every capability not excluded, best first; ties broken by key so the order is stable.
    ``extra`` is more text per capability key (other names, example requests) for its meaning."""
    excluded = exclude or set()
    vocabulary = _vocabulary_of(capabilities)
    offered = [capability for capability in capabilities if capability.key not in excluded]
    closeness = similarities(text, offered, extra)
    # Each capability's rival in meaning: the closest of the others.
    ordered = sorted(closeness, reverse=True)
    scored = [
        score_capability(
            capability,
            text,
            operation_type,
            preferences,
            vocabulary,
            folders,
            closeness[i],
            ordered[1] if closeness[i] == ordered[0] and len(ordered) > 1 else ordered[0],
        )
        for i, capability in enumerate(offered)
    ]
    return sorted(scored, key=lambda s: (-s.score, s.capability.key))
