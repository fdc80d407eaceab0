"""Secrets in text and data: found here, hidden wherever Gatehouse keeps or shows text.

Every caller (the audit log, the conversations, traces, the CLI, the app, logs, the servers
check) goes through one ``SecretRedactor``. Only the secret value is replaced, by ``***``: the
name it stood under stays (``api-key=***``, ``Authorization: Bearer ***``), so a person can
still read what happened.

Two kinds of evidence:

- **A secret-like name** (the policy's ``[audit] redact_arguments`` globs on top of the
  built-in ``SECRET_ARGUMENTS``), matched in any spelling: ``apiKey``, ``api-key``,
  ``API_KEY`` and ``x-api-key`` all normalise to ``apikey``/``xapikey``. Its value is hidden
  as a dict key, and in text as ``key=value``, ``key: value``, ``"key": "value"``,
  ``--key value`` and ``the key is value``. In a sentence a word after the name is prose,
  not a value: after ``the key is`` an unquoted value must look like a credential (a digit,
  a symbol, mixed case: "the password is rejected" stays), after ``key:`` a plain word that
  the sentence goes on after stays ("Invalid password: please try again"), and a value never
  runs into the quote that closes the string or the sentence it stands in.
- **A recognisable shape**, whatever name it stands under: PEM private keys, AWS access key
  ids, GitHub, GitLab, Slack, npm, PyPI and Google keys, ``sk-…`` API keys, JWTs, Bearer and
  Basic credentials, and passwords in URLs (``scheme://user:***@host``).

**Once recognised, hidden wherever it appears later.** A value found by either kind of evidence
is remembered, and every later occurrence of it is hidden too, whatever surrounds it: inside a
longer text, in a fragment a planner cut out of the request with its quotes broken
(``apiKey": "SK7-…``, which no shape matches on its own), in a tool's result that echoes it.
Within one value (an audit event, a trace, a run's output) a secret recognised anywhere in it
is hidden everywhere in it. Across values, what is remembered is scoped to a thread
(``thread_id=``): a value one requester's text calls a secret blanks nothing in another's
thread. A process that meets a thread for the first time (a reviewer's command line, the app
after a restart) recalls what the thread's checkpoint holds (``recall_threads_with``): the
checkpoint keeps the real request, arguments and result anyway (the call needs them), so
nothing new is stored anywhere; the remembered values live in this process's memory only,
bounded. Log records, which name no thread, hide every value this process remembered.

Why not Yelp's detect-secrets (1.5.0, evaluated for this): used as a library on one line
(``scan_line``) it found one of the issue's seven leaking forms (its keyword plugin wants
quotes when it cannot tell the file type; its entropy plugins flag every plain word), reported
a GitHub token as ``ghp`` and a JWT without its signature (values to search for again, not
spans), missed ``github_pat_`` and ``sk-proj-`` keys, keeps its settings in a process-wide
singleton (the app serves sessions on threads), and cost more per line, with only the relevant
plugins, than this module costs for a whole request.
It would also have added requests and PyYAML to the runtime. Microsoft's secret masker
(1.0.0b4) is a beta whose patterns are mostly Azure's; it found two of the forms.

Cost: a typical request's audit events and conversation take about 40 microseconds, one
request text of 80 characters about 10, a 4,000-character request about 120. Each token shape
starts with a literal the regex engine skips to (and is tried only when its literal occurs),
the names are scanned only around their cues (a few letters every secret-like name holds),
and short strings, which repeat, are scanned once.
"""

from __future__ import annotations

import fnmatch
import json
import logging
import re
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache, partial
from typing import Any

REDACTED = "***"

# Argument names (globs) whose values are never stored or shown: the one list, which every
# SecretRedactor applies whatever the policy says (its [audit] redact_arguments only add to
# it). Matched in any spelling (apiKey, api-key, API_KEY and x-api-key are all "*api_key*"),
# as dict keys and as names in text (key=value, "key": "value", the key is value).
SECRET_ARGUMENTS = (
    "*password*",
    "*passwd*",
    "*pwd*",
    "*passphrase*",
    "*secret*",
    "*token*",
    "*api_key*",
    "*private_key*",
    "*access_key*",
    "*credential*",
    "*auth",
    "*auth_key*",
    "*authorization*",
    "*cookie*",
    "sig",
)

_SEPARATORS = re.compile(r"[\W_]+")


def normalised_name(name: str) -> str:
    """``x-api-key``, ``X_API_KEY`` and ``xApiKey`` are one name: ``xapikey``."""
    return _SEPARATORS.sub("", name).lower()


def _normalised_glob(glob: str) -> str:
    # Keep the glob's own syntax, drop the separators a spelling may or may not have.
    return re.sub(r"[^\w*?\[\]!]|_", "", glob).lower()


# --- shapes: secrets recognisable by their form, under any name --------------------------------


@dataclass(frozen=True)
class _Shape:
    """A token shape. Its pattern starts with a literal (one of ``triggers``, checked first with
    a plain substring test) so the regex engine skips ahead to it instead of trying every
    position; the group "secret" is what is hidden, the rest (a prefix saying what kind of token
    it was) stays readable. ``word_start``: the literal must not continue a word;
    ``random_only``: a secret that reads like a word is left (prose, not a credential)."""

    triggers: tuple[str, ...]
    pattern: re.Pattern[str]
    word_start: bool = True
    random_only: bool = False


def _shape(triggers: str, pattern: str, *, word_start: bool = True, random_only: bool = False) -> _Shape:
    return _Shape(tuple(triggers.split()), re.compile(pattern, re.DOTALL), word_start, random_only)


_SCHEMES = "Bearer bearer BEARER Basic basic BASIC Token token TOKEN"
_SHAPES = (
    # PEM private keys (RSA, EC, DSA, OPENSSH, ENCRYPTED, PGP ...): the body, up to the END line
    # or the end of the text (a key cut off by truncation is hidden all the same).
    _shape(
        "-----BEGIN",
        r"-----BEGIN [A-Z0-9 ]{0,30}PRIVATE KEY(?: BLOCK)?-----(?P<secret>.+?)(?=-----END [A-Z0-9 ]{0,30}PRIVATE KEY|\Z)",
        word_start=False,
    ),
    # AWS access key ids.
    _shape(
        "AKIA ASIA ABIA ACCA A3T", r"(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])(?P<secret>[A-Z0-9]{16})(?![A-Z0-9])"
    ),
    # GitHub: classic (ghp_, gho_, ghu_, ghs_, ghr_) and fine-grained personal access tokens; GitLab.
    _shape("ghp_ gho_ ghu_ ghs_ ghr_", r"gh[pousr]_(?P<secret>[A-Za-z0-9]{30,})"),
    _shape("github_pat_", r"github_pat_(?P<secret>\w{30,})"),
    _shape("glpat-", r"glpat-(?P<secret>[\w-]{20,})"),
    # Slack tokens (xoxb-, xoxp-, xoxa-, ...) and incoming-webhook paths.
    _shape("xox", r"xox[abposrce]-(?P<secret>[A-Za-z0-9-]{10,})"),
    _shape("hooks.slack.com", r"hooks\.slack\.com/services/(?P<secret>[A-Za-z0-9/]{20,})", word_start=False),
    # sk-... API keys (OpenAI sk-/sk-proj-, Anthropic sk-ant-, Stripe sk_live_/rk_live_).
    _shape(
        "sk- sk_ rk- rk_", r"[sr]k[-_](?:(?:live|test)_|proj-|ant-|svcacct-|admin-)?(?P<secret>[\w-]{20,})"
    ),
    _shape("AIza", r"AIza(?P<secret>[\w-]{35})"),
    _shape("npm_", r"npm_(?P<secret>[A-Za-z0-9]{36})(?!\w)"),
    _shape("pypi-", r"pypi-(?P<secret>AgE[\w-]{50,})"),
    # JSON Web Tokens: header.payload.signature, both first parts base64url JSON ("eyJ").
    _shape("eyJ", r"(?P<secret>eyJ[\w-]{8,}\.eyJ[\w-]{8,}\.[\w-]*)"),
    # Credentials after an HTTP auth scheme, wherever they appear (a header, a curl line); a
    # word after "bearer" in prose is left alone (see _looks_random).
    _shape(_SCHEMES, rf"(?:{'|'.join(_SCHEMES.split())})\s+(?P<secret>[\w\-.~+/]{{8,}}=*)", random_only=True),
    # A password in a URL: scheme://user:password@host.
    _shape("://", r"://[^\s:/@]*:(?P<secret>[^\s@/]+)@", word_start=False),
)


def _looks_random(value: str) -> bool:
    """A credential, not words: within the markup and punctuation around it, it has a digit or a
    symbol, or mixes upper and lower case past a word's first letter ("bearer instruments." and
    "token verification/refresh" are prose; "Bearer abc123XYZ" is not). Words joined by a
    hyphen, a slash, a dot or an apostrophe are words."""
    bare = value.rstrip(_TRAILING).lstrip(_LEADING)
    words = _JOINED_WORDS.split(bare)
    if not all(word.isalpha() for word in words):
        return bool(bare)
    return any(word[1:] != word[1:].lower() and word[1:] != word[1:].upper() for word in words)


_JOINED_WORDS = re.compile(r"[-/.'\u2019]")


# --- names: secrets recognisable by what they stand under ----------------------------------------
# A name and its separator; the value after it is read only when the name is secret-like, so a
# harmless "https:" or "Note:" never swallows the text where a secret name follows.
_NAMED = re.compile(
    # key=value, key: value, "key": "value", key => value (the name may be quoted, even \"escaped\")
    r"(?<![\w.])(?P<name>[A-Za-z][\w.-]{0,63})(?P<sep>\\?[\"']?\s*(?:=>?|:)\s*)"
    + r"(?P<scheme>(?i:bearer|basic|token|digest|bot)\s+)?"
    # --key value (a command line)
    + r"|(?<![\w-])--(?P<flag>[A-Za-z][\w-]{0,63})(?P<flag_sep>\s+)(?=[^\s-])"
    # the key is value, my api key was value (a name of one or two words)
    + r"|(?<![\w-])(?P<said>(?:[A-Za-z][\w-]{0,31}[ _-])?[A-Za-z][\w-]{0,31})(?P<said_sep>\s+(?:is|was)\s*:?\s+)"
)
# A value: a quoted string (also JSON escaped inside a string), or a run up to a separator.
_VALUE = re.compile(r"""\\"(?:[^"\\]|\\[^"])*\\"|"(?:[^"\\]|\\.)*"|'[^']*'|[^\s,;&'"<>(){}\[\]]+""")
# After "the password is": a quoted string (not the quotes between two JSON strings, as in
# `"the password is ", "next": ...`), or a run that stops at a quote (the closing quote of the
# JSON string or of the sentence the words stand in is no part of a secret after them).
_SAID_VALUE = re.compile(
    r""""[^"\s,:;{}\[\]][^"]*"(?!\w)|'[^'\s,:;{}\[\]][^']*'(?!\w)|(?:[^\s,;"'\\]|\\(?!"))+"""
)
# A value followed on its line by another word: a sentence goes on ("Invalid password: please
# try again"), where a label's value ends ("password: swordfish").
_SENTENCE_GOES_ON = re.compile(r"[ \t]+[A-Za-z]")
# What ends the path a name may close, looking back from it: a space, a quote, a bracket or
# a separator between values. A path longer than _LONGEST_PATH is looked at that far back.
_PATH_BOUNDARY = re.compile(r"[\s\"'`<>(){}\[\]=,;]")
_LONGEST_PATH = 256
# The start of a path from a root: "/", "\", "~", "./" or "../", a drive ("C:\"), a URL's "scheme://".
_ROOTED = re.compile(r"[/\\~]|\.{1,2}[/\\]|[A-Za-z]:[/\\]|[A-Za-z][\w+.-]*://")
# Extensions that make a name a file's ("token.py", "secrets.yaml", "password.rs"): source,
# configuration, data, text and log files. Left out: the endings a dotted key has too ("api.key",
# "client.secret", "tls.crt": keys of a properties file or of a Kubernetes Secret).
_FILE_EXTENSIONS = frozenset(
    """py pyi ipynb js mjs cjs jsx ts tsx rs go rb java kt kts scala swift c h cc cpp hpp cs php pl
    lua sh bash zsh fish ps1 bat cmd json jsonl yaml yml toml ini cfg conf env properties xml html
    htm css scss sql txt md rst log csv tsv lock tf hcl gradle""".split()
)
# A line in a file, right after its name: "token.py:12", "password.rs:40:5: warning" (grep,
# compilers, linters and stack traces write path:line or path:line:column). Group "then": the
# colon grep and compilers write after it, before the line's text or their message.
_LINE_IN_A_FILE = re.compile(r":\d+(?::\d+)?(?![\w.])(?P<then>:)?")
_TRAILING = ".,!?:;)*_`"
# Markup a word may open with in prose: "*sensitive data*", "(see below)".
_LEADING = "*_`("
# Endings of words that describe (rejected, missing, sensitive, environment): after "the
# password is" or "token:" they are prose, where a password would be a plain word or a random one.
_PROSE_ENDINGS = (
    "ed", "ing", "ly", "ive", "able", "ible", "ful", "ous", "ment", "tion", "sion", "ness", "ent", "ant", "al",
)  # fmt: skip
# After "the password is ...": words that say something about the secret rather than being it.
_NOT_A_VALUE = frozenset(
    """a an the not no now still also too very being been required needed missing wrong
    incorrect invalid expired empty blank set unset correct valid ok okay fine changed
    reset weak strong secure insecure safe stored saved hidden redacted encrypted hashed
    known unknown new old same different mine yours his hers ours theirs its here there below
    above attached included enclosed in on at for of to from with without by as that this
    what which who where when how out up down off over available optional mandatory case
    sensitive generated rotated revoked due longer shorter done gone good bad ready true
    false null none nil""".split()
)


def _hide_shape(shape: _Shape, found: list[str], match: re.Match[str]) -> str:
    start, end = match.span("secret")
    before = match.string[match.start() - 1 : match.start()]
    if shape.word_start and (before.isalnum() or before == "_"):
        return match.group(0)  # "task-..." is no sk- key: the literal continued a word
    secret = match.group("secret")
    if shape.random_only:
        if not _looks_random(secret):
            return match.group(0)
        # "Bearer abc123XYZ." ends a sentence: the full stop is no part of the credential.
        end -= len(secret) - len(secret.rstrip("."))
        secret = secret.rstrip(".")
    found.append(secret)
    offset = match.start()
    return match.group(0)[: start - offset] + REDACTED + match.group(0)[end - offset :]


def _prose_after_colon(text: str, value: re.Match[str]) -> bool:
    """``name: value`` where the value is a word of a sentence, not a secret: a word that
    describes ("token: expired"), or plain words the sentence goes on after."""
    said = value.group(0)
    if _is_prose_word(said):
        return True
    return not _looks_random(said) and _SENTENCE_GOES_ON.match(text, value.end()) is not None


def _names_a_file(text: str, match: re.Match[str]) -> bool:
    """Whether an unquoted ``name:`` or ``name=`` is a file's name, not a key. Grep, compilers,
    linters, shells and servers write a file's path first and then what they say of it, and a
    file is often named like a secret: in "src/auth/token.py:12: def refresh(token):" and
    "/etc/passwd: Error - Access denied" what follows the name is a line of code or a message,
    not a value, and hiding it hides what the tool said. The evidence, any of:

    - it ends a path from a root: "/etc/passwd: ...", "GET /oauth/token: 401",
      "C:\\app\\token.txt: denied";
    - it has a file's extension and a directory before it: "config/secrets.yaml: ENOENT",
      "src/auth/token.py: 3 matches";
    - a line number follows it, and it has a file's extension ("token.py:12: ...",
      "lib/password.rs:40:5: warning", "at refresh (token.js:12:5)"), or a directory before it
      and a colon after the line number ("bin/token:7: exec", "etc/passwd:1:root:x:0:0"; a
      label "user/password:1234" has no colon after its value).

    Without it, a name stays a name: a relative "a/b" (a label such as "Username/Password:
    admin/hunter2", or a key such as "vault.example.com/api-token: ..." has that shape too), a
    dotted one ("db.password=...", "client.secret: ...": a dot is no path, and "secret" no
    file's extension), a file's name alone before a value ("credentials.json: eyJ...": a
    Kubernetes Secret lists its files so, with their secret contents; a message after it is
    prose, see _prose_after_colon), and a quoted one ("/srv/token": "...", a key as JSON writes
    it, hidden as the same key in a dict is)."""
    if match.group("sep").lstrip("\\")[:1] in "\"'":
        return False
    name, start = match.group("name"), match.start("name")
    if _ends_a_rooted_path(text, start):
        return True
    in_a_directory = _after_a_directory(text, start)
    _, dot, extension = name.rpartition(".")
    has_an_extension = bool(dot) and extension.lower() in _FILE_EXTENSIONS
    if in_a_directory and has_an_extension:
        return True
    line = _LINE_IN_A_FILE.match(text, match.end("name"))
    return line is not None and (has_an_extension or (in_a_directory and line.group("then") is not None))


def _ends_a_rooted_path(text: str, start: int) -> bool:
    """Whether the name at ``start`` is the last segment of a path from a root. Backslashes
    alone before it are no root when they read as an escape: '"\\ntoken: ...' is a JSON string
    that starts with a new line and then a name (escaped twice, '\\"\\\\ntoken: ...')."""
    if start == 0 or text[start - 1] not in "/\\":
        return False
    window = text[max(start - _LONGEST_PATH, 0) : start]
    path = _PATH_BOUNDARY.split(window)[-1]
    if not path.strip("\\") and not _after_a_directory(text, start):
        return False
    return _ROOTED.match(path) is not None


def _after_a_directory(text: str, start: int) -> bool:
    """Whether the name at ``start`` follows a directory's "/" or "\\". A backslash before n, r,
    t, b, f or u is taken for the escape it reads as too: in a JSON string,
    "ok\\npassword.txt: ..." is a new line and then a name."""
    before = text[start - 1 : start]
    return before == "/" or (before == "\\" and text[start] not in "nrtbfu")


def _is_prose_word(value: str) -> bool:
    """An unquoted lower-case word that describes rather than is a secret."""
    bare = value.strip(_TRAILING + "*_`")
    if not bare:
        return True
    if not (bare.isalpha() and bare.islower()):
        return False
    return bare in _NOT_A_VALUE or bare.endswith(_PROSE_ENDINGS)


# A name holds its cue at most this far from its start (64 characters, or two words of 32 for
# "my api key is"); the name, its separator and a scheme end within the second distance.
_BEFORE_CUE, _AFTER_CUE = 70, 140
_SHORT = 256


def _cues(globs: Iterable[str]) -> tuple[str, ...] | None:
    """Literal text every name matching the globs contains, lower-cased: the first four letters
    of each glob's longest word ("pass" for *password*, "api" for *api_key*), short enough to
    survive any spelling of the name (apiKey, api-key, API_KEY). None when a glob has no word
    or a character class (then every text is scanned whole)."""
    cues = set()
    for glob in globs:
        if "[" in glob:
            return None
        words = [w for w in re.split(r"[^a-z0-9]+", glob.lower()) if w]
        if not words:
            return None
        cues.add(max(words, key=len)[:4])
    return tuple(sorted(cues))


# --- remembered values: a secret found once is hidden wherever it appears later -----------------

# Shorter values are not looked for elsewhere: "pwd=ab" would blank every "ab" in a thread.
_SHORTEST_REMEMBERED = 4
# Below this length a remembered value is hidden only as a whole word ("hunter2", not the
# start of "hunter22"); from it on, anywhere (a key glued to a quote or a word a planner cut).
_WHOLE_WORD_BELOW = 8
_LONGEST_REMEMBERED = 16_384  # a PEM key is about 3,300 characters
_PER_THREAD = 256
_THREADS = 4096
_IN_LOGS = 1024
_WORD = "A-Za-z0-9"

# What a process that meets a thread for the first time recalls its secrets from: the texts
# and values the thread's checkpoint holds (graph/runner.py thread_secret_sources).
ThreadSources = Callable[[str], Iterable[Any]]


# Values a reviewer must read to decide: an e-mail address, a link, a number. A server's result
# that files one under "token" must not blank it out of the thread's later reviews (where it
# stands, under its secret-like name, it is still hidden).
_NEVER_REMEMBERED = re.compile(
    r"[^@\s]+@[^@\s]+\.[^@\s]+|[A-Za-z][A-Za-z0-9+.-]*://\S+|[+-]?\d[\d,._]*", re.ASCII
)


def _remembered_forms(values: Iterable[str]) -> set[str]:
    """The values worth looking for elsewhere, each also as JSON writes it inside a string (a
    secret with a quote or a backslash appears escaped in a JSON text). Not a word that only
    describes ({"auth": "none"} would blank every "none" of the thread), nor an address, link
    or number (_NEVER_REMEMBERED)."""
    forms = set()
    for value in values:
        value = value.strip()
        if not _SHORTEST_REMEMBERED <= len(value) <= _LONGEST_REMEMBERED or REDACTED in value:
            continue
        if _is_prose_word(value) or _NEVER_REMEMBERED.fullmatch(value):
            continue
        forms.add(value)
        escaped = json.dumps(value, ensure_ascii=False)[1:-1]
        if escaped != value:
            forms.add(escaped)
    return forms


@lru_cache(maxsize=256)
def _known_pattern(values: frozenset[str]) -> re.Pattern[str]:
    # Longest first: a value that contains another is hidden whole, not around the shorter one.
    ordered = sorted(values, key=lambda v: (-len(v), v))
    alternatives = [
        re.escape(v) if len(v) >= _WHOLE_WORD_BELOW else rf"(?<![{_WORD}]){re.escape(v)}(?![{_WORD}])"
        for v in ordered
    ]
    return re.compile("|".join(alternatives))


def _hide_known_text(text: str, pattern: re.Pattern[str]) -> str:
    if len(text) < _SHORTEST_REMEMBERED:
        return text
    return pattern.sub(REDACTED, text)


def _hide_known(value: Any, pattern: re.Pattern[str]) -> Any:
    """``value`` (already redacted: a fresh copy) with every remembered value hidden, in its
    strings and its keys."""
    if isinstance(value, str):
        return _hide_known_text(value, pattern)
    if isinstance(value, dict):
        return {
            _hide_known_text(key, pattern) if isinstance(key, str) else key: _hide_known(item, pattern)
            for key, item in value.items()
        }
    if isinstance(value, list):
        return [_hide_known(item, pattern) for item in value]
    return value


class _ProcessSecrets:
    """Every value this process remembered, for log records (which name no thread): the newest
    ``_IN_LOGS``, in memory only."""

    def __init__(self) -> None:
        self._values: OrderedDict[str, None] = OrderedDict()
        self._pattern: re.Pattern[str] | None = None
        self._lock = threading.Lock()

    def add(self, values: Iterable[str]) -> None:
        with self._lock:
            fresh = [v for v in values if v not in self._values]
            if not fresh:
                return
            for value in fresh:
                self._values[value] = None
            while len(self._values) > _IN_LOGS:
                self._values.popitem(last=False)
            self._pattern = None

    def pattern(self) -> re.Pattern[str] | None:
        with self._lock:
            if self._pattern is None and self._values:
                self._pattern = _known_pattern(frozenset(self._values))
            return self._pattern


_IN_THIS_PROCESS = _ProcessSecrets()


class _ThreadSecrets:
    """The values remembered for each thread, in this process's memory only: the newest
    ``_THREADS`` threads, ``_PER_THREAD`` values each (an unbounded set would let one server's
    results grow the app's memory without end)."""

    def __init__(self) -> None:
        self._threads: OrderedDict[str, frozenset[str]] = OrderedDict()
        self._lock = threading.Lock()
        self.recall: ThreadSources | None = None

    def merged(self, thread_id: str, fresh: set[str], found_in: Callable[[Any], set[str]]) -> frozenset[str]:
        """The thread's values with ``fresh`` added; on first sight, with those its checkpoint holds."""
        with self._lock:
            known = self._threads.get(thread_id)
        if known is None:
            # Outside the lock: recalling reads the database, and other threads keep going.
            recalled: set[str] = set()
            for source in self.recall(thread_id) if self.recall is not None else ():
                recalled |= found_in(source)
            known = frozenset(recalled)
        with self._lock:
            known = known | self._threads.get(thread_id, frozenset())
            if not fresh <= known and len(known) < _PER_THREAD:
                known = known | frozenset(sorted(fresh - known)[: _PER_THREAD - len(known)])
            self._threads[thread_id] = known
            self._threads.move_to_end(thread_id)
            while len(self._threads) > _THREADS:
                self._threads.popitem(last=False)
        return known


class SecretRedactor:
    """Finds secrets and replaces their values with ``***``; one per configured policy. It
    remembers what it found for each thread it is told of, and hides that wherever it appears
    later in the thread (see the module's docstring)."""

    def __init__(self, secret_arguments: Iterable[str] = ()) -> None:
        self.use_names(secret_arguments)
        self._threads = _ThreadSecrets()

    def use_names(self, secret_arguments: Iterable[str]) -> None:
        """Hide the values under these argument names (globs) on top of the built-in ones, from
        now on: what a new version of the policy's [audit] redact_arguments says."""
        names = tuple(secret_arguments)
        globs = {_normalised_glob(g) for g in (*SECRET_ARGUMENTS, *names) if g.strip()}
        self._globs = tuple(sorted(g for g in globs if g))
        self._names: dict[str, bool] = {}
        self._cues = _cues((*SECRET_ARGUMENTS, *names))
        # Short strings repeat (statuses, capability keys, rule names): each is scanned once.
        self._short_text = lru_cache(maxsize=4096)(self._scan)

    def recall_threads_with(self, sources: ThreadSources) -> None:
        """Where a thread met for the first time in this process has its secrets recalled from:
        ``sources(thread_id)`` gives the texts and values its checkpoint holds."""
        self._threads.recall = sources

    def found(self, value: Any) -> set[str]:
        """The secret values recognised in ``value`` (a text or JSON-like data) that are looked
        for wherever else they appear: by shape, after a secret-like name, under a secret-like
        key; each also as JSON escapes it."""
        found: list[str] = []
        self._redacted(value, found)
        return _remembered_forms(found)

    def remember(self, thread_id: str, value: Any) -> None:
        """Hide the secrets recognised in ``value`` wherever they appear later in the thread."""
        self._known(self.found(value), thread_id)

    def remember_secret(self, thread_id: str, value: Any) -> None:
        """Hide ``value`` (its texts, all of them secret: an answer to a form field asking for
        a password) wherever it appears later in the thread."""
        self._known(_remembered_forms(_leaves(value)), thread_id)

    def is_secret_name(self, name: str) -> bool:
        known = self._names.get(name)
        if known is None:
            plain = normalised_name(name)
            known = bool(plain) and any(fnmatch.fnmatchcase(plain, g) for g in self._globs)
            if len(self._names) < 10_000:  # names come from servers too: bound the cache
                self._names[name] = known
        return known

    def text(self, text: str, *, thread_id: str | None = None) -> str:
        """The text with every secret value replaced by ``***``: those recognised in it, and
        with ``thread_id`` those remembered for the thread (which then remembers these too)."""
        shown: str = self.value(text, thread_id=thread_id)
        return shown

    def value(self, value: Any, *, thread_id: str | None = None) -> Any:
        """A copy of a JSON-like value with secrets hidden: the values under secret-like keys
        at any depth, and secrets inside every string. A secret recognised anywhere in it is
        hidden everywhere in it; with ``thread_id``, so is every one remembered for the thread,
        which then remembers these too."""
        found: list[str] = []
        shown = self._redacted(value, found)
        known = self._known(_remembered_forms(found), thread_id)
        return _hide_known(shown, _known_pattern(known)) if known else shown

    def _redacted(self, value: Any, found: list[str]) -> Any:
        """``value`` with what is recognised in it hidden; the values hidden go to ``found``."""
        if isinstance(value, str):
            shown, hidden = self._short_text(value) if len(value) <= _SHORT else self._scan(value)
            found.extend(hidden)
            return shown
        if isinstance(value, Mapping):
            return {
                key: self._under_secret_name(item, found)
                if isinstance(key, str) and self.is_secret_name(key)
                else self._redacted(item, found)
                for key, item in value.items()
            }
        if isinstance(value, list | tuple):
            return [self._redacted(item, found) for item in value]
        return value

    def _scan(self, text: str) -> tuple[str, tuple[str, ...]]:
        found: list[str] = []
        for shape in _SHAPES:
            if any(trigger in text for trigger in shape.triggers):
                text = shape.pattern.sub(partial(_hide_shape, shape, found), text)
        return self._hide_named(text, found), tuple(found)

    def _known(self, fresh: set[str], thread_id: str | None) -> frozenset[str]:
        """What to hide besides what the scan hid: ``fresh`` (found just now, so hidden wherever
        else it appears in the same value), and the thread's remembered values."""
        if fresh:
            _IN_THIS_PROCESS.add(fresh)
        if thread_id is None:
            return frozenset(fresh)
        return self._threads.merged(thread_id, fresh, self.found)

    def argv(self, args: Iterable[str]) -> list[str]:
        """A command line with secrets hidden, also ``--token VALUE`` split over two arguments."""
        shown: list[str] = []
        hide_next = False
        for arg in args:
            if hide_next and not arg.startswith("-"):
                shown.append(REDACTED)
            else:
                shown.append(self.text(arg))
            hide_next = arg.startswith("-") and "=" not in arg and self.is_secret_name(arg)
        return shown

    def url(self, url: str) -> str:
        """A URL for display: anything before ``@`` (user and password) and the values of
        secret-like query parameters hidden."""
        return self.text(re.sub(r"(://)[^/@\s]*@", r"\1" + REDACTED + "@", url, count=1))

    def restore(self, edited: Any, original: Any, *, thread_id: str | None = None) -> Any:
        """``edited`` (a copy of ``self.value(original, thread_id=...)`` a person may have
        changed) with each part left as shown put back to its real value. A form shows
        arguments with their secrets hidden; what the reviewer did not touch must not be sent
        as ``***``."""
        known = self._known(self.found(original), thread_id)
        return self._restore(edited, original, _known_pattern(known) if known else None)

    # -- internals ---------------------------------------------------------------------------

    def _shown(self, value: Any, known: re.Pattern[str] | None) -> Any:
        shown = self._redacted(value, [])
        return _hide_known(shown, known) if known is not None else shown

    def _restore(self, edited: Any, original: Any, known: re.Pattern[str] | None) -> Any:
        if edited == self._shown(original, known):
            return original
        if isinstance(edited, dict) and isinstance(original, dict):
            return {key: self._restore_under(key, item, original[key], known) if key in original else item
                    for key, item in edited.items()}  # fmt: skip
        if isinstance(edited, list) and isinstance(original, list) and len(edited) == len(original):
            return [self._restore(item, before, known) for item, before in zip(edited, original, strict=True)]
        return edited

    def _restore_under(self, key: Any, edited: Any, original: Any, known: re.Pattern[str] | None) -> Any:
        if isinstance(key, str) and self.is_secret_name(key):
            return original if edited == self._under_secret_name(original, []) else edited
        return self._restore(edited, original, known)

    def _under_secret_name(self, item: Any, found: list[str]) -> Any:
        # A flag such as {"auth": false} or an absent value tells nothing; anything else goes,
        # and its texts are remembered (not a number: "max_tokens": 1000 is no secret to look
        # for in every other text of the thread).
        if item is None or isinstance(item, bool):
            return item
        # The whole value and what a scan recognises in it (a token's body without its prefix),
        # at any depth: the leaves of a hidden structure are remembered too.
        self._redacted(item, found)
        found.extend(_leaves(item))
        return REDACTED

    def _hide_named(self, text: str, found: list[str]) -> str:
        pieces: list[str] = []
        done = 0  # text[:done] is in pieces already
        for start, end in self._windows(text):
            for match in _NAMED.finditer(text, start, end):
                if match.start() < done:
                    continue  # inside a value hidden already
                hidden = self._hidden_value(text, match)
                if hidden is not None:
                    pieces += [text[done : hidden[0]], REDACTED]
                    found.append(text[hidden[0] : hidden[1]])
                    done = hidden[1]
        return "".join(pieces) + text[done:] if pieces else text

    def _windows(self, text: str) -> list[tuple[int, int]]:
        """Where a secret-like name can be: around each cue, merged; the whole text when the
        names have no cue. Scanning only there keeps a long text without one cheap."""
        lowered = text.lower()
        if self._cues is None or len(lowered) != len(text):
            return [(0, len(text))]
        spans = []
        for cue in self._cues:
            found = lowered.find(cue)
            while found != -1:
                spans.append((max(found - _BEFORE_CUE, 0), found + _AFTER_CUE))
                found = lowered.find(cue, found + 1)
        merged: list[tuple[int, int]] = []
        for start, end in sorted(spans):
            if merged and start <= merged[-1][1]:
                merged[-1] = (merged[-1][0], max(merged[-1][1], end))
            else:
                merged.append((start, end))
        return merged

    def _hidden_value(self, text: str, match: re.Match[str]) -> tuple[int, int] | None:
        """Where the value after a secret-like name is (without its quotes), or None."""
        if match.group("name") is not None:
            if not self.is_secret_name(match.group("name")) or _names_a_file(text, match):
                return None
            value = _VALUE.match(text, match.end())
            # "GIT_TOKEN: environment variable GIT_TOKEN is not set" is a sentence, not a pair.
            if value is not None and ":" in match.group("sep") and _prose_after_colon(text, value):
                return None
            # "max_tokens=500", "Tokens: 1200": a count under a plural name, not a secret.
            if value is not None and value.group(0).isdigit() and match.group("name").lower().endswith("s"):
                return None
        elif match.group("flag") is not None:
            if not self.is_secret_name(match.group("flag")):
                return None
            value = _VALUE.match(text, match.end())
        else:
            said = match.group("said")
            if not (self.is_secret_name(said) or self.is_secret_name(re.split(r"[ _-]", said)[-1])):
                return None
            value = _SAID_VALUE.match(text, match.end())
            if value is not None and value.group(0)[:1] not in "\"'":
                # "Password is: changeme" is a label and its value; after a bare "is" or "was"
                # the value must look like a credential: "the token is stale" is a sentence.
                labelled = ":" in match.group("said_sep")
                if _prose_after_colon(text, value) if labelled else not _looks_random(value.group(0)):
                    return None
                return value.start(), value.start() + len(value.group(0).rstrip(_TRAILING))
        if value is None:
            return None
        start, end = value.span()
        quote = 2 if text.startswith('\\"', start) else 1 if text[start] in "\"'" else 0
        return start + quote, end - quote


def _leaves(value: Any) -> list[str]:
    """The texts inside a JSON-like value."""
    if isinstance(value, Mapping):
        return [leaf for item in value.values() for leaf in _leaves(item)]
    if isinstance(value, list | tuple):
        return [leaf for item in value for leaf in _leaves(item)]
    return [value] if isinstance(value, str) else []


DEFAULT_REDACTOR = SecretRedactor()


def redact_text(text: str) -> str:
    """``text`` with the built-in secret names and every recognisable token hidden."""
    return DEFAULT_REDACTOR.text(text)


def redact_value(value: Any) -> Any:
    return DEFAULT_REDACTOR.value(value)


_log_redaction_installed = False


def install_log_redaction(redactor: SecretRedactor = DEFAULT_REDACTOR) -> None:
    """Hide secrets in every log record this process makes, whichever handler writes it (the
    SDK's, Streamlit's, ours): the record's message is redacted when the record is made, and
    so is every value any redactor of this process remembered. Installing twice changes
    nothing."""
    global _log_redaction_installed
    if _log_redaction_installed:
        return
    _log_redaction_installed = True
    make_record = logging.getLogRecordFactory()

    def redacting_record(*args: Any, **kwargs: Any) -> logging.LogRecord:
        record = make_record(*args, **kwargs)
        try:
            message = record.getMessage()
        except (TypeError, ValueError):
            return record  # a malformed record: logging reports it when a handler formats it
        hidden = redactor.text(message)
        # A record names no thread: every value this process remembered is hidden in it.
        remembered = _IN_THIS_PROCESS.pattern()
        if remembered is not None:
            hidden = _hide_known_text(hidden, remembered)
        if hidden != message:
            record.msg, record.args = hidden, None
        return record

    logging.setLogRecordFactory(redacting_record)
