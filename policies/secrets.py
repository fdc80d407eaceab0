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

Why not Yelp's detect-secrets (1.5.0): used on a line it found one of the issue's seven
forms (its keyword plugin needs quotes in a file it cannot classify), reported a GitHub token
as ``ghp`` and a JWT without its signature (values, not spans, to find again), missed
``github_pat_`` and ``sk-proj-`` keys, keeps its settings in a process-wide singleton (the app
is multi-threaded), and cost about 0.2 ms per line with only the relevant plugins (28 ms on
the first call), several times this module's cost for a whole request.

Cost: text without any trigger (no ``=``/``:``, no " is ", no token prefix) costs one regex
search; names are tested once each and cached. ``tests/policies/test_secrets.py`` keeps a
typical request's redaction well under a millisecond.
"""

from __future__ import annotations

import fnmatch
import logging
import re
from collections.abc import Iterable, Mapping
from typing import Any

from policies.model import SECRET_ARGUMENTS

REDACTED = "***"

_SEPARATORS = re.compile(r"[\W_]+")


def normalised_name(name: str) -> str:
    """``x-api-key``, ``X_API_KEY`` and ``xApiKey`` are one name: ``xapikey``."""
    return _SEPARATORS.sub("", name).lower()


def _normalised_glob(glob: str) -> str:
    # Keep the glob's own syntax, drop the separators a spelling may or may not have.
    return re.sub(r"[^\w*?\[\]!]|_", "", glob).lower()


# --- shapes: secrets recognisable by their form, under any name --------------------------------
# Each pattern's group "secret" is what is hidden; the text around it (a non-secret prefix that
# says what kind of token it was) stays readable.
_SHAPES = (
    # PEM private keys (RSA, EC, DSA, OPENSSH, ENCRYPTED, PGP ...): the body, up to the END line
    # or the end of the text (a key cut off by truncation is hidden all the same).
    r"-----BEGIN [A-Z0-9 ]{0,30}PRIVATE KEY(?: BLOCK)?-----(?P<pem>.+?)(?=-----END [A-Z0-9 ]{0,30}PRIVATE KEY|\Z)",
    # AWS access key ids.
    r"\b(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])(?P<aws>[A-Z0-9]{16})\b",
    # GitHub: classic (ghp_, gho_, ghu_, ghs_, ghr_) and fine-grained personal access tokens.
    r"\bgh[pousr]_(?P<github>[A-Za-z0-9]{30,})",
    r"\bgithub_pat_(?P<github_pat>\w{30,})",
    r"\bglpat-(?P<gitlab>[\w-]{20,})",
    # Slack tokens (xoxb-, xoxp-, xoxa-, ...) and incoming-webhook paths.
    r"\bxox[abposrce]-(?P<slack>[A-Za-z0-9-]{10,})",
    r"hooks\.slack\.com/services/(?P<slack_hook>[A-Za-z0-9/]{20,})",
    # sk-... API keys (OpenAI sk-/sk-proj-, Anthropic sk-ant-, Stripe sk_live_/rk_live_).
    r"\b(?:sk|rk)[-_](?:(?:live|test)_|proj-|ant-|svcacct-|admin-)?(?P<sk>[\w-]{20,})",
    r"\bAIza(?P<google>[\w-]{35})",
    r"\bnpm_(?P<npm>[A-Za-z0-9]{36})\b",
    r"\bpypi-(?P<pypi>AgE[\w-]{50,})",
    # JSON Web Tokens: header.payload.signature, both first parts base64url JSON ("eyJ").
    r"\b(?P<jwt>eyJ[\w-]{8,}\.eyJ[\w-]{8,}\.[\w-]*)",
    # Credentials after an HTTP auth scheme, wherever they appear (a header, a curl line).
    r"\b(?i:bearer|basic|token)\s+(?P<bearer>[\w\-.~+/]{8,}=*)",
    # A password in a URL: scheme://user:password@host.
    r"\b[a-zA-Z][a-zA-Z0-9+.-]*://[^\s:/@]*:(?P<url_password>[^\s@/]+)@",
)
_SHAPE = re.compile("|".join(f"(?:{p})" for p in _SHAPES), re.DOTALL)
# Cheap literal triggers: text without any of them cannot hold a shape above.
_SHAPE_TRIGGER = re.compile(
    r"PRIVATE KEY|AKIA|ASIA|ABIA|ACCA|A3T|gh[pousr]_|github_pat_|glpat-|xox|hooks\.slack|sk[-_]|rk[-_]"
    r"|AIza|npm_|pypi-|eyJ|(?i:bearer|basic|token)\s|://"
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


def _is_prose_word(value: str) -> bool:
    """An unquoted lower-case word that describes rather than is a secret."""
    bare = value.strip(_TRAILING + "*_`")
    if not bare:
        return True
    if not (bare.isalpha() and bare.islower()):
        return False
    return bare in _NOT_A_VALUE or bare.endswith(_PROSE_ENDINGS)


class SecretRedactor:
    """Finds secrets and replaces their values with ``***``; one per configured policy."""

    def __init__(self, secret_arguments: Iterable[str] = ()) -> None:
        globs = {_normalised_glob(g) for g in (*SECRET_ARGUMENTS, *secret_arguments) if g.strip()}
        self._globs = tuple(sorted(g for g in globs if g))
        self._names: dict[str, bool] = {}
        # The prefilter for named secrets: a literal fragment of every glob (its longest run
        # without wildcards) must be in the text. A glob with none, or with a character class
        # (whose letters need not appear as written), leaves the prefilter off.
        stems = [max(re.split(r"[*?]+", g), key=len) for g in self._globs]
        usable = all(stems) and not any("[" in g for g in self._globs)
        self._stems = tuple(sorted(set(stems))) if usable else None

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
        if _SHAPE_TRIGGER.search(text):
            text = _SHAPE.sub(self._hide_shape, text)
        if self._may_name_a_secret(text):
            text = self._hide_named(text)
        return text

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

    def _may_name_a_secret(self, text: str) -> bool:
        if self._stems is None:
            return True
        plain = normalised_name(text)
        return any(stem in plain for stem in self._stems)

    @staticmethod
    def _hide_shape(match: re.Match[str]) -> str:
        name = match.lastgroup
        if name is None:
            return match.group(0)
        if name == "bearer" and not _looks_random(match.group(name)):
            return match.group(0)
        start, end = match.span(name)
        whole_start = match.start()
        whole = match.group(0)
        return whole[: start - whole_start] + REDACTED + whole[end - whole_start :]

    def _hide_named(self, text: str) -> str:
        pieces: list[str] = []
        done = 0  # text[:done] is in pieces already
        for match in _NAMED.finditer(text):
            if match.start() < done:
                continue  # inside a value hidden already
            hidden = self._hidden_value(text, match)
            if hidden is not None:
                start, end = hidden
                pieces += [text[done:start], REDACTED]
                done = end
        return "".join(pieces) + text[done:] if pieces else text

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
