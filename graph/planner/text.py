"""Words, stems and concepts shared by intent classification and capability scoring."""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

from graph.planner.zones import is_zone_name


# Patterns built per call from a name, a label or a word (rf"\b{word}\b"): every request scores
# every capability's every property, so the same few thousand patterns come back each time. The
# re module keeps only 512 compiled patterns (its own and the libraries' too), which these crowd
# out and recompile; here they are kept apart, and looked up without re's own checks.
@lru_cache(maxsize=8192)
def compiled(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """``re.compile(pattern, flags)``, compiled once."""
    return re.compile(pattern, flags)


_WORD = re.compile(r"[a-z0-9]+")
_CAMEL = re.compile(r"([a-z0-9])([A-Z])")
# Argument values are not vocabulary: an address, a URI, a quotation, a path or a file name says
# nothing about which capability to use ("/tmp/reports/q3.md" is not a request about reports).
# A token no plain word could be: a hyphen, a dot or a digit inside it (feature-search, v1.2).
IDENTIFIER = r"(?<![\w./-])[A-Za-z0-9][\w]*(?:[-./][\w]+)+(?![\w/-])|(?<![\w./-])[A-Za-z]+\d[\w]*(?![\w/-])"
# Nouns that name things by an identifier written beside them.
NAMING_NOUNS = (
    "branch tag commit revision release version repo repository project folder directory ticket entity "
    "server bucket table database service channel team environment department page label milestone"
).split()
_VALUE_TOKENS = re.compile(
    r"""\S+@\S+|\b\w+://\S+|"[^"]*"|“[^”]*”|(?<!\w)'[^']*'(?!\w)"""
    r"""|(?<![\w@])(?:~|\.{1,2})?/[\w.~/*-]*|\b[\w.-]+/[\w./*-]*"""
    r"""|(?<![\w@/.-])[\w-]+\.[A-Za-z][A-Za-z0-9]{0,7}\b(?![@.\w])"""
    r"""|\b\d{1,2}(?::\d{2})?\s*(?:am|pm)\b"""
    # A store's key (STORE_KEY below).
    r"""|(?<![\w:/])[A-Za-z][\w.-]*(?::[\w.*-]+)+(?![\w:/])"""
)
# A store's key: parts joined by colons ("config:feature_flags", "session:*"); a colon before a
# space ("Note: ...") is punctuation.
STORE_KEY = re.compile(r"(?<![\w:/])[A-Za-z][\w.-]*(?::[\w.*-]+)+(?![\w:/])")


def key_parts(text: str) -> list[str]:
    """The words the store keys of ``text`` are made of ("session:bob": session, bob)."""
    return [part for key in STORE_KEY.findall(text.lower()) for part in re.split(r"[:_.*-]+", key) if part]


STOPWORDS = frozenset(
    "a an the in on of to for from and or with by at as is are was were be been this that these those "
    "it its me my i we our you your please can could would will should do does did all any some "
    "there here what which who whom whose how when where why hi not".split()
)

# Stems that mean the same thing to a person. A stem may stand for several concepts: asking to
# "summarize" tickets needs a search first, so it matches search and list capabilities too.
_SYNONYMS: dict[str, tuple[str, ...]] = {
    "list": ("list",),
    "show": ("list", "read"),
    "ls": ("list",),
    "enumerate": ("list",),
    "browse": ("list",),
    "display": ("list", "read"),
    "file": ("file",),
    # A folder is not a file: "list_directory" is what "what is in the reports folder" wants,
    # "read_file" what "show notes.md" wants.
    "folder": ("directory",),
    "directory": ("directory",),
    "dir": ("directory",),
    "read": ("read",),
    "view": ("read",),
    "content": ("read",),
    "get": ("read",),
    "fetch": ("read",),
    "search": ("search",),
    "find": ("search",),
    "query": ("search",),
    "lookup": ("search",),
    "look": ("search",),
    "filter": ("search",),
    "summarize": ("summarize", "search", "list"),
    "summary": ("summarize", "search", "list"),
    "send": ("send",),
    "email": ("email",),
    "e": (),
    "mail": ("email",),
    "notify": ("send",),
    "message": ("email",),
    "write": ("write",),
    "save": ("write",),
    "store": ("write",),
    "update": ("update",),
    "change": ("update",),
    "modify": ("update",),
    "edit": ("edit", "update"),
    "set": ("update",),
    "delete": ("delete",),
    "remove": ("delete",),
    "erase": ("delete",),
    "ticket": ("ticket",),
    "issue": ("ticket",),
    "case": ("ticket",),
    "greet": ("greet",),
    "greeter": ("greet",),
    "greeting": ("greet",),
    "hello": ("greet",),
    "welcome": ("greet",),
    "prompt": ("prompt",),
    "template": ("prompt",),
    # General English and computing synonyms and abbreviations (no server's own words).
    "print": ("list", "read"),
    "env": ("environment",),
    "environment": ("environment",),
    "repo": ("repository",),
    "repository": ("repository",),
    "info": ("info",),
    "information": ("info",),
    "metadata": ("info",),
    "detail": ("info",),
    # A label is a concept: a word that is one ("create") must map to itself, or its stem
    # ("creat") would not meet the synonyms that point at it.
    "create": ("create",),
    "make": ("create",),
    "remember": ("create", "memory"),
    "memorize": ("create", "memory"),
    "recall": ("read", "memory"),
    "know": ("knowledge", "search"),
    "anywhere": ("search",),
    "knowledge": ("knowledge",),
    "record": ("create",),
    "forget": ("delete",),
    "dump": ("read", "list"),
    "date": ("date", "time"),
    "today": ("current",),
    "history": ("log",),
    "differ": ("diff",),
    "difference": ("diff",),
    "diff": ("diff",),
    "repeat": ("echo",),
    "echo": ("echo",),
    "both": ("multiple",),
    "several": ("multiple",),
    "multiple": ("multiple",),
    "recent": ("log",),
    "latest": ("log",),
    "last": ("log",),
    "log": ("log",),
    "clock": ("time",),
    "now": ("current",),
    # "Is it Saturday yet?", "already past nine?": about the present moment.
    "yet": ("current",),
    "already": ("current",),
    "see": ("read",),
    "timezone": ("timezone", "time"),
    "tz": ("timezone", "time"),
    "zone": ("timezone",),
    "plus": ("sum", "add"),
    "sum": ("sum", "add"),
    "total": ("sum",),
    "add": ("add", "sum"),
    "addition": ("sum",),
    # Arithmetic asked for by its verb: "compute (3+4)*2" is what a calculate tool does.
    "compute": ("calculate",),
    "calculate": ("calculate",),
    "calculation": ("calculate",),
    "calc": ("calculate",),
    "tree": ("tree",),
    "recursive": ("tree",),
    "size": ("size",),
    "hour": ("time",),
    "weekend": ("date", "time"),
    **dict.fromkeys(
        ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"], ("date", "time")
    ),
    # Making another of something is copying it.
    "copy": ("copy",),
    "duplicate": ("copy",),
    "clone": ("copy",),
    "compare": ("diff",),
    "comparison": ("diff",),
    "nested": ("tree",),
    "hierarchy": ("tree",),
    "biggest": ("size",),
    "largest": ("size",),
    "smallest": ("size",),
    "space": ("size",),
    "relate": ("relation",),
    "relationship": ("relation",),
    "weekday": ("date", "time"),
    "note": ("note", "observation"),
    "observation": ("observation",),
    "fact": ("observation",),
    # Turning a setting on or off is toggling it.
    "switch": ("switch", "toggle"),
    "toggle": ("toggle", "switch"),
    "turn": ("toggle", "switch"),
    "enable": ("toggle",),
    "disable": ("toggle",),
    # "Reopen ticket 11" sets it open again.
    "reopen": ("update", "open"),
    "replace": ("edit", "update"),
    "touch": ("update",),
    "checkout": ("checkout", "switch"),
    # Starting something off, by any of its verbs.
    "start": ("start",),
    "trigger": ("trigger", "start"),
    "kick": ("start",),
    "launch": ("start",),
    "begin": ("start",),
    "initiate": ("start",),
    # What is not committed yet: the working tree's status, its unstaged changes.
    "uncommitted": ("status", "unstag"),
    "pending": ("pending", "status"),
    # What a server may reach is what it is allowed to access.
    "reach": ("access", "allow"),
    "access": ("access",),
    "accessible": ("access", "allow"),
    "permitted": ("allow",),
    "allowed": ("allow",),
    # "By its number": an identifier.
    "number": ("number", "id"),
    "identifier": ("id",),
    "open": ("read",),
    "document": ("document",),
    "doc": ("document",),
    "report": ("document",),
    "pdf": ("document",),
    "handbook": ("document",),
    "manual": ("document",),
    # The usual short forms: "the shop db" names a database.
    "db": ("databas",),
    "dbs": ("databas",),
}


# British spellings meet American ones: summarise, summarising, organisation, analyse.
_BRITISH = re.compile(r"(?<=\w\w)(is|ys)(e|es|ed|ing|ation|ations)$")


@lru_cache(maxsize=8192)  # vocabulary is small and repeats: every request scores every description
def stem(word: str) -> str:
    """A deliberately small stemmer: applied to both sides, it only has to be consistent."""
    if len(word) > 5:
        word = _BRITISH.sub(lambda m: m.group(1)[0] + "z" + m.group(2), word)
    if len(word) > 4 and word.endswith(("ies", "ied")):
        word = word[:-3] + "y"
    elif len(word) > 5 and word.endswith("ing"):
        word = word[:-3]
    elif len(word) > 4 and word.endswith("ed"):
        word = word[:-2]
    elif len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        word = word[:-1]
    if len(word) > 3 and word.endswith("e"):
        word = word[:-1]
    # A verb's noun meets the verb: creation/created, deletion/delete, modification/modified.
    if len(word) > 7 and word.endswith("ication"):
        word = word[:-7] + "y"
    elif len(word) > 6 and word.endswith(("tion", "sion")):
        word = word[:-3]
    return word


# Keyed by stem so "files", "listed" and "summarized" find their entry.
_CONCEPTS: dict[str, tuple[str, ...]] = {stem(word): labels for word, labels in _SYNONYMS.items()}
# A label is met by its own word too: "clock" stands for time, and so does "time" (whose stem,
# "tim", would otherwise be a concept of its own that "clock" never meets).
for _label in sorted({label for labels in _SYNONYMS.values() for label in labels}):
    _CONCEPTS.setdefault(stem(_label), (_label,))


# The abbreviations names use by convention, each with the words it stands for. Only these
# stand for a word they begin: "col" begins column and color alike, and a schema's "cols" is
# columns; a word's consonants ("tbl", "msgs") abbreviate it without a list.
_CONVENTIONAL_ABBREVIATIONS: dict[str, frozenset[str]] = {
    short: frozenset(words.split())
    for short, words in {
        "addr": "address", "app": "application", "arg": "argument", "attr": "attribute",
        "auth": "authentication authorization", "avg": "average", "calc": "calculation",
        "cat": "category", "cfg": "configuration", "char": "character", "coll": "collection",
        "col": "column", "config": "configuration", "cnt": "count", "def": "definition default",
        "desc": "description", "dest": "destination", "dict": "dictionary", "dir": "directory",
        "doc": "document", "dst": "destination", "env": "environment", "ext": "extension",
        "fmt": "format", "freq": "frequency", "hdr": "header", "horiz": "horizontal", "idx": "index",
        "img": "image", "info": "information", "lang": "language", "lat": "latitude", "len": "length",
        "lng": "longitude", "lon": "longitude", "max": "maximum", "min": "minimum", "msg": "message",
        "num": "number", "opt": "option", "org": "organization organisation", "param": "parameter",
        "pct": "percent percentage", "pos": "position", "pref": "preference", "prev": "previous",
        "prio": "priority", "proj": "project", "pwd": "password", "qty": "quantity", "ref": "reference",
        "repo": "repository", "sec": "second", "seq": "sequence", "spec": "specification",
        "src": "source", "stat": "statistic", "sync": "synchronization", "tbl": "table",
        "temp": "temperature temporary", "tmp": "temporary", "txt": "text", "val": "value",
        "ver": "version", "vert": "vertical",
    }.items()
}  # fmt: skip


def abbreviates(short: str, word: str) -> bool:
    """Whether a name's word ``short`` abbreviates ``word``: by a convention names follow
    ("cols" for columns, "desc" for description, never "cols" for colors) or by its consonants
    ("tbl" for table, "msgs" for messages), three letters at least, in the singular or the
    plural."""
    short, word = short.lower(), word.lower()
    short = short[:-1] if len(short) > 3 and short.endswith("s") else short
    word = word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word
    if len(short) < 3 or len(short) >= len(word) or short[0] != word[0]:
        return False
    consonants = re.sub(r"(.)\1+", r"\1", re.sub(r"(?<=.)[aeiou]", "", word))
    return short == consonants or word in _CONVENTIONAL_ABBREVIATIONS.get(short, frozenset())


def split_identifier(name: str) -> list[str]:
    """``list_directory``, ``listDirectory`` and ``list-directory`` all give list, directory."""
    return list(_identifier_words(name))


# Names (of capabilities, servers, parameters) are few and asked for on every request.
@lru_cache(maxsize=8192)
def _identifier_words(name: str) -> tuple[str, ...]:
    return tuple(_WORD.findall(_CAMEL.sub(r"\1 \2", name).lower()))


# "don't", "isn't", "it's", "we've": the negation is a word, the clitics are not.
_NEGATION = re.compile(r"\b(?:(wo)|(ca)|(\w+?))n['’]t\b", re.IGNORECASE)
_CLITIC = re.compile(r"(?<=\w)['’](?:s|re|ve|ll|d|m)\b", re.IGNORECASE)


def _negated(match: re.Match[str]) -> str:
    won, can, other = match.groups()
    return ("will" if won else "can" if can else other) + " not"


_NOUNS = "|".join(NAMING_NOUNS)
_LABELLED = re.compile(
    rf"({IDENTIFIER})(?=\s+(?:{_NOUNS})s?\b)|\b(?:called|named)\s+({IDENTIFIER})|\b(?:{_NOUNS})\s+({IDENTIFIER})",
    re.IGNORECASE,
)


def _without_identifiers(text: str) -> str:
    """``text`` with the identifiers its nouns name blanked out: values, not vocabulary."""

    def blank(match: re.Match[str]) -> str:
        start, end = next(match.span(g) for g in (1, 2, 3) if match.group(g) is not None)
        return match.group(0)[: start - match.start()] + " " + match.group(0)[end - match.start() :]

    return _LABELLED.sub(blank, text)


# Two-word verbs that are one word in tools' names.
_PHRASAL = re.compile(r"\bcheck\s+out\b", re.IGNORECASE)
# "Pull up the Q3 report", "bring up ticket 4": to fetch and show.
_FETCHING = re.compile(r"\b(?:pull|bring)\s+up\b", re.IGNORECASE)


# "12 times 12" multiplies; "times" would otherwise be the stem of time.
_MULTIPLIED = re.compile(r"(?<=\d)\s+times\s+(?=-?\d)", re.IGNORECASE)


def join_phrasal(text: str) -> str:
    """Two-word verbs written as the one word tools use ("check out" is checkout), and "times"
    between numbers as the sign it stands for."""
    return _MULTIPLIED.sub(" × ", _FETCHING.sub("fetch", _PHRASAL.sub("checkout", text)))


def words(text: str, *, keep_values: bool = False) -> list[str]:
    return list(_words(text, keep_values))


# A dozen substitutions per text: scoring asks for the words of the request and of every
# capability's description on each request, and both repeat (the request for each capability,
# a description on every request), so the answer for a text is kept.
@lru_cache(maxsize=4096)
def _words(text: str, keep_values: bool) -> tuple[str, ...]:
    text = join_phrasal(_CLITIC.sub("", _NEGATION.sub(_negated, text)))
    if not keep_values:
        text = _VALUE_TOKENS.sub(" ", _without_identifiers(text))
    return tuple(w for w in _WORD.findall(text.lower()) if w not in STOPWORDS)


def concepts_of_words(tokens: Iterable[str]) -> set[str]:
    found: set[str] = set()
    for token in tokens:
        if token.isdigit():
            continue  # a number is a value, never a word to match
        stemmed = stem(token)
        found.update(_CONCEPTS.get(stemmed, (stemmed,)))
    return found


# A file name in a request ("what is in notes.md?") is about files even when no word says so.
_FILE_NAME = re.compile(r"(?<![\w@/.-])(?:[\w-]+/)*[\w-]+(?:\.[A-Za-z][A-Za-z0-9]{0,7})+\b(?![@.\w])")


# "Let dave@example.com know that...", "tell her the meeting moved": a message to someone.
TELL_SOMEONE = re.compile(
    r"\blet\s+\S+\s+know\b|\btell\s+(?!me\b|us\b)(?:him|her|them|\S+@\S+|[A-Z]\w+)\b", re.IGNORECASE
)

# "What's in the reports folder?" asks for a listing though no word says list.
_WHATS_IN = re.compile(r"\bwhat(?:'s|\s+is)\s+(?:in|inside)\b", re.IGNORECASE)


# "What's in oncall.txt?", "what does letter.docx say?": what a file holds is its content, so
# the question is a read, where "what's in the reports folder" is a listing. The file is the
# first thing named after the question's words (a path, or a name with an extension).
_FILE_AFTER = r"(?:the\s+(?:file\s+)?)?(?:(?:[\w~.-]*/)*[\w-]+\.[A-Za-z][A-Za-z0-9]{0,7})\b(?![/\w])"
_WHAT_A_FILE_HOLDS = re.compile(
    rf"\bwhat(?:'s|\s+is)\s+(?:written\s+)?(?:in|inside)\s+{_FILE_AFTER}"
    rf"|\bwhat\s+(?:does|do)\s+{_FILE_AFTER}\s+(?:say|contain|hold)\b",
    re.IGNORECASE,
)


# "Which Word documents do we have?", "what tables are there?", "which branches exist?": a
# question of what there is, asked of many things, is a listing.
_WHICH_THERE_ARE = re.compile(
    r"\b(?:which|what)\s+(?:[\w-]+\s+){1,3}?(?:(?:do|does)\s+(?:we|i|you|they)\s+(?:have|keep|got)"
    r"|are\s+there|exist|are\s+available)\b",
    re.IGNORECASE,
)


# "1234 + 4321?": an addition written with its sign.
_SUM = re.compile(r"\d\s*\+\s*-?\d")
# "since yesterday", "over the past 3 days", "in the last week".
_PERIOD = re.compile(
    r"\b(?:since\s+(?:yesterday|last\s+\w+|\d+\s+\w+\s+ago|\d{4}-\d{2}-\d{2})|(?:in|over|during)\s+the\s+(?:last|past)\s+(?:\d+\s+)?\w+)\b",
    re.IGNORECASE,
)
_QUESTION = re.compile(
    r"^\W*(?:who|what|which|where|when|how|whose|is|are|does|do|did|has|have)\b|\?\s*$", re.IGNORECASE
)
# Capitalised words inside a sentence: names (Alice, Acme Corp), not a sentence's first word.
PROPER_NAME = re.compile(r"(?<=[\w,:;] )[A-Z][a-z][\w'-]*(?:\s+[A-Z][a-z][\w'-]*)*")


# A path with a slash; one whose last part has no extension is a folder (/srv/share, docs/).
_SLASH_PATH = re.compile(r"(?<![\w@:/.~-])(?:(?:~|\.{1,2})?/[\w.~/-]*|[\w.-]+/[\w./-]*)(?![\w@])")
_EXTENSION = re.compile(r"\.[A-Za-z][A-Za-z0-9]{0,7}$")
_URI_OR_ADDRESS = re.compile(r"\S+@\S+|\b\w+://\S+")


# What a file's extension says it holds: notes.md is text, logo.png an image.
_EXTENSION_KINDS: dict[str, tuple[str, ...]] = {
    **dict.fromkeys(
        "txt md markdown rst csv tsv json yaml yml toml ini cfg conf xml html htm log py js ts sh sql".split(),
        ("text",),
    ),
    # A document or a deck holds text too, read by its own program's tools.
    **dict.fromkeys("docx doc odt rtf pptx ppt odp pdf epub".split(), ("text",)),
    **dict.fromkeys("png jpg jpeg gif webp bmp svg".split(), ("image", "media")),
    **dict.fromkeys("mp3 wav ogg flac m4a".split(), ("audio", "media")),
    **dict.fromkeys("mp4 mov avi mkv webm".split(), ("video", "media")),
}


def stated_paths(text: str) -> tuple[list[str], list[str]]:
    """The files and the folders a request names, each once, in the order written."""
    files, folders = _stated_paths(text)
    return list(files), list(folders)


# Asked for several times per capability scored, always of the same request.
@lru_cache(maxsize=256)
def _stated_paths(text: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    plain = _URI_OR_ADDRESS.sub(" ", text)
    files: list[str] = []
    folders: list[str] = []
    for path in _SLASH_PATH.findall(plain):
        cleaned = path.rstrip(".,;:!?")
        if len(cleaned) > 1 and not is_zone_name(cleaned):
            (files if _EXTENSION.search(cleaned) else folders).append(cleaned)
    files += [m.group(0) for m in _FILE_NAME.finditer(_SLASH_PATH.sub(" ", plain))]
    return tuple(dict.fromkeys(files)), tuple(dict.fromkeys(folders))


def path_kinds(text: str) -> set[str]:
    """What the paths and file names a request states name: "file" or "directory", and what a
    file's extension says it holds ("text", "image", "media")."""
    return set(_path_kinds(text))


@lru_cache(maxsize=256)
def _path_kinds(text: str) -> frozenset[str]:
    files, folders = _stated_paths(text)
    kinds: set[str] = {"directory"} if folders else set()
    for name in files:
        kinds.add("file")
        kinds.update(_EXTENSION_KINDS.get(name.rsplit(".", 1)[-1].lower(), ()))
    return frozenset(kinds)


# "Don't stage or commit anything", "without deleting it": what the operator forbids is no
# evidence for a capability. (A plain "not" stays: "changes not yet staged" describes.)
_FORBIDDING = re.compile(
    r"\b(?:do|does|did|will)\s+not\b[^,;.!?]*|\b(?:never|without)\b[^,;.!?]*"
    # "... so nobody can edit it": what nobody may do is no more asked for than what is forbidden.
    r"|\b(?:nobody|no\s+one|noone)\s+(?:can|could|will|would|should|may|must)\b[^,;.!?]*",
    re.IGNORECASE,
)
# "changes that are not staged yet": a participle said with "not" is its "un" form, as names
# write it (diff_unstaged), and says nothing for the plain one.
_NOT_DONE = re.compile(r"\bnot\s+(?:yet\s+)?([a-z]+ed)\b", re.IGNORECASE)


@lru_cache(maxsize=256)
def affirmed(text: str) -> str:
    """``text`` without the clauses that forbid something."""
    return _FORBIDDING.sub(" ", _NEGATION.sub(_negated, text))


def concepts(text: str) -> set[str]:
    text = _NOT_DONE.sub(r"un\1", affirmed(text))
    found = concepts_of_words(words(text))
    if _WHICH_THERE_ARE.search(text):
        found.add("list")
    if _WHAT_A_FILE_HOLDS.search(text):
        found.add("read")
    elif _WHATS_IN.search(text):
        found.add("list")
    if TELL_SOMEONE.search(text):
        found.add("send")
    if _SUM.search(text):
        found.add("sum")
    if _PERIOD.search(text):
        found.add("log")  # what happened over a period is a history
    return found


@lru_cache(maxsize=256)
def asks_about_a_name(text: str, besides: frozenset[str] = frozenset()) -> bool:
    """A question about someone or something by name: "who does Alice work with?". A name whose
    concepts are all in ``besides`` (the server's own: "Which Word documents ...?") names where
    to ask, not what about."""
    if not _QUESTION.search(text):
        return False
    return any(
        not (concepts_of_words([w.lower() for w in name.split()]) <= besides)
        for name in PROPER_NAME.findall(text)
    )
