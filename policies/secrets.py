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
  ``--key value`` and ``the key is value``.
- **A recognisable shape**, whatever name it stands under: PEM private keys, AWS access key
  ids, GitHub, GitLab, Slack, npm, PyPI and Google keys, ``sk-…`` API keys, JWTs, Bearer and
  Basic credentials, and passwords in URLs (``scheme://user:***@host``).

Why not Yelp's detect-secrets (1.5.0, evaluated for this): used as a library on one line
(``scan_line``) it found one of the issue's seven leaking forms (its keyword plugin wants
quotes when it cannot tell the file type; its entropy plugins flag every plain word), reported
a GitHub token as ``ghp`` and a JWT without its signature (values to search for again, not
spans), missed ``github_pat_`` and ``sk-proj-`` keys, keeps its settings in a process-wide
singleton (the app serves sessions on threads), and cost about 0.2 ms per line with only the
relevant plugins (28 ms on the first call), more than this module's cost for a whole request.
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
import logging
import re
from collections.abc import Iterable, Mapping
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
    """A credential, not a word: it has a digit or a symbol, or mixes upper and lower case
    past the first letter ("bearer instruments" is prose; "Bearer abc123XYZ" is not)."""
    if any(not c.isalpha() for c in value):
        return True
    rest = value[1:]
    return rest != rest.lower() and rest != rest.upper()


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
_SAID_VALUE = re.compile(r""""[^"]*"|'[^']*'|[^\s,;]+""")
_TRAILING = ".,!?:;)*_`"
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


def _hide_shape(shape: _Shape, match: re.Match[str]) -> str:
    start, end = match.span("secret")
    before = match.string[match.start() - 1 : match.start()]
    if shape.word_start and (before.isalnum() or before == "_"):
        return match.group(0)  # "task-..." is no sk- key: the literal continued a word
    if shape.random_only and not _looks_random(match.group("secret")):
        return match.group(0)
    offset = match.start()
    return match.group(0)[: start - offset] + REDACTED + match.group(0)[end - offset :]


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


class SecretRedactor:
    """Finds secrets and replaces their values with ``***``; one per configured policy."""

    def __init__(self, secret_arguments: Iterable[str] = ()) -> None:
        globs = {_normalised_glob(g) for g in (*SECRET_ARGUMENTS, *secret_arguments) if g.strip()}
        self._globs = tuple(sorted(g for g in globs if g))
        self._names: dict[str, bool] = {}
        self._cues = _cues((*SECRET_ARGUMENTS, *secret_arguments))
        # Short strings repeat (statuses, capability keys, rule names): each is scanned once.
        self._short_text = lru_cache(maxsize=4096)(self._scan)

    def is_secret_name(self, name: str) -> bool:
        known = self._names.get(name)
        if known is None:
            plain = normalised_name(name)
            known = bool(plain) and any(fnmatch.fnmatchcase(plain, g) for g in self._globs)
            if len(self._names) < 10_000:  # names come from servers too: bound the cache
                self._names[name] = known
        return known

    def text(self, text: str) -> str:
        """The text with every secret value replaced by ``***``."""
        return self._short_text(text) if len(text) <= _SHORT else self._scan(text)

    def _scan(self, text: str) -> str:
        for shape in _SHAPES:
            if any(trigger in text for trigger in shape.triggers):
                text = shape.pattern.sub(partial(_hide_shape, shape), text)
        return self._hide_named(text)

    def value(self, value: Any) -> Any:
        """A copy of a JSON-like value with secrets hidden: the values under secret-like keys
        at any depth, and secrets inside every string."""
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, Mapping):
            return {
                key: self._under_secret_name(item)
                if isinstance(key, str) and self.is_secret_name(key)
                else self.value(item)
                for key, item in value.items()
            }
        if isinstance(value, list | tuple):
            return [self.value(item) for item in value]
        return value

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

    def restore(self, edited: Any, original: Any) -> Any:
        """``edited`` (a copy of ``self.value(original)`` a person may have changed) with each
        part left as shown put back to its real value. A form shows arguments with their
        secrets hidden; what the reviewer did not touch must not be sent as ``***``."""
        if edited == self.value(original):
            return original
        if isinstance(edited, dict) and isinstance(original, dict):
            return {key: self._restore_under(key, item, original[key]) if key in original else item
                    for key, item in edited.items()}  # fmt: skip
        if isinstance(edited, list) and isinstance(original, list) and len(edited) == len(original):
            return [self.restore(item, before) for item, before in zip(edited, original, strict=True)]
        return edited

    # -- internals ---------------------------------------------------------------------------

    def _restore_under(self, key: Any, edited: Any, original: Any) -> Any:
        if isinstance(key, str) and self.is_secret_name(key):
            return original if edited == self._under_secret_name(original) else edited
        return self.restore(edited, original)

    def _under_secret_name(self, item: Any) -> Any:
        # A flag such as {"auth": false} or an absent value tells nothing; anything else goes.
        return item if item is None or isinstance(item, bool) else REDACTED

    def _hide_named(self, text: str) -> str:
        pieces: list[str] = []
        done = 0  # text[:done] is in pieces already
        for start, end in self._windows(text):
            for match in _NAMED.finditer(text, start, end):
                if match.start() < done:
                    continue  # inside a value hidden already
                hidden = self._hidden_value(text, match)
                if hidden is not None:
                    pieces += [text[done : hidden[0]], REDACTED]
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
            if not self.is_secret_name(match.group("name")):
                return None
            value = _VALUE.match(text, match.end())
            # "GIT_TOKEN: environment variable GIT_TOKEN is not set" is a sentence, not a pair.
            if value is not None and ":" in match.group("sep") and _is_prose_word(value.group(0)):
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
            if value is not None:
                if _is_prose_word(value.group(0)):
                    return None
                if value.group(0)[:1] not in "\"'":
                    return value.start(), value.start() + len(value.group(0).rstrip(_TRAILING))
        if value is None:
            return None
        start, end = value.span()
        quote = 2 if text.startswith('\\"', start) else 1 if text[start] in "\"'" else 0
        return start + quote, end - quote


DEFAULT_REDACTOR = SecretRedactor()


def redact_text(text: str) -> str:
    """``text`` with the built-in secret names and every recognisable token hidden."""
    return DEFAULT_REDACTOR.text(text)


def redact_value(value: Any) -> Any:
    return DEFAULT_REDACTOR.value(value)


_log_redaction_installed = False


def install_log_redaction(redactor: SecretRedactor = DEFAULT_REDACTOR) -> None:
    """Hide secrets in every log record this process makes, whichever handler writes it (the
    SDK's, Streamlit's, ours): the record's message is redacted when the record is made.
    Installing twice changes nothing."""
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
        if hidden != message:
            record.msg, record.args = hidden, None
        return record

    logging.setLogRecordFactory(redacting_record)
