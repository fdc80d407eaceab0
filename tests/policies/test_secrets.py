"""policies/secrets.py: which secrets are found, that only their values are hidden, that
ordinary words are left alone, and what it costs on a typical request."""

from __future__ import annotations

import ast
import json
import logging
import secrets
import statistics
import string
import time
from pathlib import Path

import pytest

from policies.loader import load_policy
from policies.secrets import REDACTED, SecretRedactor, install_log_redaction, redact_text, redact_value

TESTS = Path(__file__).resolve().parents[1]
ROOT = TESTS.parent


def made_up(length: int = 24, alphabet: str = string.ascii_letters + string.digits) -> str:
    return "".join(secrets.choice(alphabet) for _ in range(length))


# (how it is written, what must be left of it): the name stays, the value goes.
NAMED_FORMS = [
    ('{{"apiKey": "{s}"}}', '{"apiKey": "***"}'),
    ('{{\\"apiKey\\": \\"{s}\\"}}', '{\\"apiKey\\": \\"***\\"}'),
    ("api-key={s}", "api-key=***"),
    ("API_KEY={s}", "API_KEY=***"),
    ("x-api-key: {s}", "x-api-key: ***"),
    ("private_key={s}", "private_key=***"),
    ("pwd={s}", "pwd=***"),
    ("Authorization: Bearer {s}", "Authorization: Bearer ***"),
    ("the password is {s}.", "the password is ***."),
    ("my api key was '{s}'", "my api key was '***'"),
    ("passphrase = {s}", "passphrase = ***"),
    ("client_secret: {s}", "client_secret: ***"),
    ("access_token={s}&page=2", "access_token=***&page=2"),
    ("auth={s}", "auth=***"),
    ("deploy --password {s} --verbose", "deploy --password *** --verbose"),
    ("deploy --api-key={s}", "deploy --api-key=***"),
    ("https://mcp.example.com/mcp?token={s}", "https://mcp.example.com/mcp?token=***"),
    ("postgresql://app:{s}@db.example.com/app", "postgresql://app:***@db.example.com/app"),
    # Inside a JSON string or a quoted sentence: the secret goes, the closing quote stays.
    ('{{"message": "the password is {s}"}}', '{"message": "the password is ***"}'),
    ('{{\\"note\\": \\"the password is {s}\\"}}', '{\\"note\\": \\"the password is ***\\"}'),
    ('"the api key was {s}", the log says', '"the api key was ***", the log says'),
    ("Password is: {s}", "Password is: ***"),
    ("password: {s} (keep it safe)", "password: *** (keep it safe)"),
    ("curl -H 'Authorization: Bearer {s}'.", "curl -H 'Authorization: Bearer ***'."),
    ("use token {s}.", "use token ***."),
    # Names a path's last segment also has (see PATHS_ENDING_IN_SECRET_LIKE_NAMES) are still
    # names where they stand as one: alone, dotted (a properties file), quoted, or relative.
    ("passwd: {s}", "passwd: ***"),
    ("password={s}", "password=***"),
    ('"passwd": "{s}"', '"passwd": "***"'),
    ("db.password={s}", "db.password=***"),
    ("config.password: {s}", "config.password: ***"),
    ('{{"/srv/app/token": "{s}"}}', '{"/srv/app/token": "***"}'),
    ("Username/Password: {s}", "Username/Password: ***"),
    ("vault.example.com/api-token: {s}", "vault.example.com/api-token: ***"),
    ("login with /usr/bin/app --password {s}", "login with /usr/bin/app --password ***"),
    # ... and where no path and no file's line stands around them (see FILES_NAMED_LIKE_SECRETS):
    # a dotted key, a key in capitals or in an environment, a YAML key, a Kubernetes Secret's
    # file (its value is the file's content), a name after an escape in a JSON string (first in it
    # too, and escaped twice).
    ("token: {s}", "token: ***"),
    ("TOKEN={s}", "TOKEN=***"),
    ("auth_token: {s}", "auth_token: ***"),
    ("db.password = {s}", "db.password = ***"),
    ("client.secret: {s}", "client.secret: ***"),
    ("export API_KEY={s}", "export API_KEY=***"),
    ("GITHUB_TOKEN=ghp_{s}{s}", "GITHUB_TOKEN=***"),
    ("config:\n  secret: {s}\n", "config:\n  secret: ***\n"),
    ("credentials.json: {s}", "credentials.json: ***"),
    ('{{"out": "ok\\npassword.txt: {s}"}}', '{"out": "ok\\npassword.txt: ***"}'),
    ('{{"out": "\\ntoken: {s}"}}', '{"out": "\\ntoken: ***"}'),
    ('{{\\"out\\": \\"\\\\tsecret: {s}, ok\\"}}', '{\\"out\\": \\"\\\\tsecret: ***, ok\\"}'),
    ("password:4711", "password:***"),
    ("user/password:4711", "user/password:***"),
]


@pytest.mark.parametrize(("form", "expected"), NAMED_FORMS)
def test_a_secret_under_a_secret_like_name_is_hidden_and_the_name_stays(form: str, expected: str) -> None:
    secret = made_up()

    assert redact_text(form.format(s=secret)) == expected


SHAPES = {
    "aws access key id": lambda: "AKIA" + made_up(16, string.ascii_uppercase + string.digits),
    "github classic token": lambda: "ghp_" + made_up(36),
    "github fine-grained token": lambda: "github_pat_" + made_up(22) + "_" + made_up(59),
    "gitlab token": lambda: "glpat-" + made_up(20),
    "slack token": lambda: "xoxb-" + made_up(12, string.digits) + "-" + made_up(24),
    "openai project key": lambda: "sk-proj-" + made_up(48),
    "anthropic key": lambda: "sk-ant-api03-" + made_up(60),
    "stripe secret key": lambda: "sk_live_" + made_up(24),
    "google api key": lambda: "AIza" + made_up(35),
    "jwt": lambda: f"eyJ{made_up(20)}.eyJ{made_up(30)}.{made_up(43)}",
    "bearer token": lambda: "Bearer " + made_up(32),
    "basic credentials": lambda: "Basic " + made_up(20) + "==",
}


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_a_well_known_token_shape_is_hidden_under_any_name_or_none(shape: str) -> None:
    token = SHAPES[shape]()
    text = f"here it is: {token} (do not share)"

    hidden = redact_text(text)

    assert token not in hidden
    assert hidden.startswith("here it is: ") and hidden.endswith(f"{REDACTED} (do not share)")


def test_a_pem_private_key_keeps_its_armour_and_loses_its_body() -> None:
    body = "\n".join(made_up(64) for _ in range(5))
    pem = f"-----BEGIN OPENSSH PRIVATE KEY-----\n{body}\n-----END OPENSSH PRIVATE KEY-----"

    assert redact_text(f"key:\n{pem}\nthanks") == (
        f"key:\n-----BEGIN OPENSSH PRIVATE KEY-----{REDACTED}-----END OPENSSH PRIVATE KEY-----\nthanks"
    )
    # Cut off before its end (truncated output), the rest of the key is hidden all the same.
    assert redact_text(pem[:200]) == f"-----BEGIN OPENSSH PRIVATE KEY-----{REDACTED}"


def test_values_under_secret_like_keys_are_hidden_at_any_depth_in_any_spelling() -> None:
    data = {
        "to": "bob@example.com",
        "apiKey": made_up(),
        "headers": {"X-Api-Key": made_up(), "Accept": "text/plain", "Cookie": made_up()},
        "list": [{"Client-Secret": made_up(), "PASSWORD": 1234}],
        "auth": False,
        "text": f"use token={made_up()}",
    }

    assert redact_value(data) == {
        "to": "bob@example.com",
        "apiKey": REDACTED,
        "headers": {"X-Api-Key": REDACTED, "Accept": "text/plain", "Cookie": REDACTED},
        "list": [{"Client-Secret": REDACTED, "PASSWORD": REDACTED}],
        "auth": False,  # a flag tells nothing
        "text": f"use token={REDACTED}",
    }


def test_a_policy_adds_secret_names_and_the_built_in_ones_still_apply(tmp_path: Path) -> None:
    policy = tmp_path / "policy.toml"
    policy.write_text('[audit]\nredact_arguments = ["*pin_code*"]\n', encoding="utf-8")
    redactor = SecretRedactor(load_policy(policy).audit.redact_arguments)

    assert redactor.value({"PinCode": "4711", "password": "x", "pin": "1"}) == {
        "PinCode": REDACTED,
        "password": REDACTED,
        "pin": "1",
    }
    assert redactor.text("pin-code=4711 and pin=1") == "pin-code=*** and pin=1"


def _demo_requests() -> set[str]:
    """Every request text the tests send through ``ask``: the demo's ordinary requests."""
    found: set[str] = set()
    for path in TESTS.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        constants = {
            target.id: node.value.value
            for node in tree.body
            if isinstance(node, ast.Assign)
            and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str)
            for target in node.targets
            if isinstance(target, ast.Name)
        }
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            name = getattr(node.func, "id", None) or getattr(node.func, "attr", None)
            if name not in {"ask", "ask_json"}:
                continue
            for arg in node.args:
                if isinstance(arg, ast.Constant):
                    value = arg.value
                else:
                    value = constants.get(arg.id) if isinstance(arg, ast.Name) else None
                if isinstance(value, str) and " " in value.strip():
                    found.add(value)
    return found


ORDINARY_TEXT = [
    "Send an email to bob@example.com saying the password policy changed",
    "Tell the team the password is required to be 12 characters from Monday.",
    "The reset link works but the new password is rejected.",
    "Our API key rotation is scheduled; the token is expired and the secret is out.",
    "Reply to the secret santa thread: gifts under 20 euros.",
    "servers.json: mcpServers.git.env.GIT_TOKEN: environment variable GIT_TOKEN is not set",
    "A capability that returns credentials or secrets is *sensitive data*.",
    "Bearer bonds and basic instructions: read the handbook first.",
    "Note: the author asked; auth is done. Tokens: 1200 used of 4000.",
    "Summarize the open high-priority support tickets, then task-list them.",
    "Visit https://mcp.example.com/mcp?region=eu&page=2 for the docs.",
]


def test_ordinary_requests_and_prose_about_passwords_are_left_as_they_are() -> None:
    requests = _demo_requests()
    assert len(requests) >= 20  # the scan found the demo's requests

    changed = sorted(r for r in [*requests, *ORDINARY_TEXT] if redact_text(r) != r)

    # The one demo request that carries a secret on purpose (tests/reviews/test_audit_trail.py).
    assert changed == ["Send a message to bob@example.com api_token=abc123 saying hi"]


# Sentences about a secret, where a word after the name is an English word, not a value.
PROSE_ABOUT_SECRETS = [
    '"password is rejected."',
    "the password was reset yesterday",
    "token expired",
    "Your session token expired.",
    "The token is stale, sign in again.",
    "Invalid password: please try again.",
    "Password: see below",
    "Token refreshed. Token verification/refresh failed later.",
    "bearer token-based sign-in is deprecated.",
    "A secret is *sensitive data* and the password was *rotated*.",
]


@pytest.mark.parametrize("prose", PROSE_ABOUT_SECRETS)
def test_a_word_after_a_secret_like_name_in_a_sentence_is_left_as_it_is(prose: str) -> None:
    assert redact_text(prose) == prose


def test_a_plain_password_after_its_name_is_hidden_however_the_pair_is_written() -> None:
    assert redact_text("passwd: hunter2") == "passwd: ***"
    assert redact_text("password=hunter2") == "password=***"
    assert redact_text('{"passwd": "x"}') == '{"passwd": "***"}'


# A path from a root that ends in a secret-like name, and what a server or a tool said of it:
# the path is no name, and what follows it no value.
PATHS_ENDING_IN_SECRET_LIKE_NAMES = [
    "/etc/passwd: Error - Access denied - path outside allowed directories: /etc/passwd not in /tmp/team/shared",
    "/tmp/team/shared/passwd: Error - ENOENT: no such file or directory, open '/tmp/team/shared/passwd'",
    "cat: /home/ada/.config/app/token: Permission denied",
    "GET /oauth/token: 401",
    "~/.config/gh/token: Error - EACCES",
    "C:\\Users\\ada\\credentials: Error - Access is denied",
    "https://example.com/reset/password: Error 404",
    "../deploy/secret=Error",
]


@pytest.mark.parametrize("text", PATHS_ENDING_IN_SECRET_LIKE_NAMES)
def test_a_path_ending_in_a_secret_like_name_is_not_a_name_and_a_value(text: str) -> None:
    assert redact_text(text) == text


# A file named like a secret, as grep, a compiler, a linter or a shell names it first on its
# line: a path to it (relative or from a root, with / or \), or its name with a line number.
FILES_NAMED_LIKE_SECRETS = [
    "src/auth/token.py:12: def refresh(token):",
    "token.py:12: def refresh(token):",
    "lib/password.rs:40:5: warning: unused variable",
    "config/secrets.yaml:3:1: error: mapping values are not allowed here",
    "config/secrets.yaml: No such file",
    "config/secrets.yaml: ENOENT",
    "src/auth/token.py: 3 matches",
    "bin/token:7: exec app",
    "etc/passwd:1:root:x:0:0:root:/root:/bin/bash",
    "at refresh (src/auth/token.js:12:5)",
    "at refresh (token.js:12:5)",
    "C:\\app\\token.txt: denied",
    "C:\\app\\token.txt: EACCES",
    "src\\auth\\token.py:12: def refresh(token):",
    "config\\secrets.yaml: ENOENT",
]


@pytest.mark.parametrize("text", FILES_NAMED_LIKE_SECRETS)
def test_a_file_named_like_a_secret_is_not_a_name_and_a_value(text: str) -> None:
    assert redact_text(text) == text


def test_a_secret_on_a_line_that_names_a_file_like_a_secret_is_still_hidden() -> None:
    secret = made_up()

    assert redact_text(f"src/auth/token.py:12:    password = '{secret}'") == (
        "src/auth/token.py:12:    password = '***'"
    )
    assert redact_text(f"config/secrets.yaml:3: token: {secret}") == "config/secrets.yaml:3: token: ***"


JSON_ABOUT_SECRETS = [
    {"message": "password is rejected.", "next": "sign in again"},
    {"error": "Invalid password: please try again", "code": 401},
    {"note": "the password is ", "hint": "ask an admin"},
    {"log": ["token expired.", "the token was revoked", "Bearer authentication."]},
]


@pytest.mark.parametrize("data", JSON_ABOUT_SECRETS, ids=lambda data: next(iter(data)))
def test_json_with_sentences_about_secrets_keeps_its_text_and_its_quotes(data: dict[str, object]) -> None:
    text = json.dumps(data)
    # Also as a string inside JSON (a tool's result kept in an audit event): escaped quotes.
    nested = json.dumps({"result": text})

    assert redact_text(text) == text
    assert redact_text(nested) == nested
    assert json.loads(json.loads(redact_text(nested))["result"]) == data


def test_redaction_is_idempotent_so_hiding_again_changes_nothing() -> None:
    text = " ".join(form.format(s=made_up()) for form, _ in NAMED_FORMS) + " ghp_" + made_up(36)

    once = redact_text(text)

    assert redact_text(once) == once


def test_restore_puts_back_what_a_person_left_as_shown_and_keeps_what_they_changed() -> None:
    redactor = SecretRedactor()
    original = {"to": "bob@example.com", "api_token": made_up(), "body": f"key is {made_up()}", "n": [1, 2]}
    shown = redactor.value(original)

    untouched = redactor.restore(dict(shown), original)
    edited = redactor.restore(shown | {"to": "carol@example.com", "body": "new text"}, original)

    assert untouched == original
    assert edited == original | {"to": "carol@example.com", "body": "new text"}


def test_log_records_have_their_secrets_hidden_whatever_handler_writes_them(
    caplog: pytest.LogCaptureFixture,
) -> None:
    token = "ghp_" + made_up(36)
    install_log_redaction()

    with caplog.at_level(logging.WARNING):
        logging.getLogger("some.library").warning("connecting with %s as password=%s", token, "hunter2x")

    assert caplog.messages == ["connecting with ghp_*** as password=***"]


def test_hiding_secrets_in_a_typical_request_costs_well_under_a_millisecond() -> None:
    redactor = SecretRedactor()
    # What one reviewed request appends (request, selection, validation, outcome) and stores.
    request = "Send an email to bob@example.com saying the quarterly numbers are attached, thanks!"
    events = [
        {"text": request},
        {
            "capability": "email__send_email",
            "score": 0.92,
            "arguments": {"to": "bob@example.com", "body": request},
        },
        {
            "decision": "review",
            "matched_rule": "outgoing messages",
            "category": "sends messages",
            "flags": [],
        },
        {"status": "needs_review", "fallback_reason": None},
    ]

    timings = []
    for _ in range(200):
        start = time.perf_counter()
        for event in events:
            redactor.value(event)
        timings.append(time.perf_counter() - start)

    assert statistics.median(timings) < 0.001


# --- a secret, once recognised, is hidden wherever it appears later ---------------------------


def test_a_secret_recognised_anywhere_in_a_value_is_hidden_wherever_else_it_appears_in_it() -> None:
    key, password = "SK7-" + made_up(20), made_up(16)
    event = {
        "text": f'send it saying "apiKey": "{key}" and the password is {password}',
        # What a planner cut out of the text: the quotes broken, the names gone.
        "arguments": {"body": f'apiKey": "{key}', "note": f"{password} (from the request)"},
        "subject": f"{password}",
    }

    shown = str(SecretRedactor().value(event))

    assert key not in shown and password not in shown
    assert 'apiKey": "***' in shown and "*** (from the request)" in shown


def test_a_secret_recognised_in_a_thread_is_hidden_in_what_that_thread_shows_later_and_only_there() -> None:
    redactor = SecretRedactor()
    key = "SK7-" + made_up(20)
    redactor.text(f'Send an email to bob@example.com saying "apiKey": "{key}"', thread_id="t1")

    later = {"arguments": {"body": f'apiKey": "{key}'}, "result": f"queued: {key}!"}
    in_the_thread = redactor.value(later, thread_id="t1")
    in_another_thread = redactor.value(later, thread_id="t2")

    assert in_the_thread == {"arguments": {"body": 'apiKey": "***'}, "result": "queued: ***!"}
    assert redactor.text(f"said {key}", thread_id="t1") == "said ***"
    # Another thread's text is its own: a value one requester called a secret blanks nothing of another's.
    assert in_another_thread == later


def test_a_secret_from_a_result_or_from_arguments_is_hidden_later_as_well() -> None:
    redactor = SecretRedactor()
    issued, password = "ghp_" + made_up(36), made_up(12)
    redactor.value({"structured": {"token": issued}}, thread_id="t1")
    redactor.value({"arguments": {"db_password": password}}, thread_id="t1")

    shown = redactor.text(f"use {issued[4:]} with {password} next time", thread_id="t1")

    assert shown == "use *** with *** next time"


def test_a_short_remembered_secret_is_hidden_as_a_whole_word_and_a_tiny_one_is_not_remembered() -> None:
    redactor = SecretRedactor()
    redactor.text("the password is hunter2, pin code: 42, pwd=ab", thread_id="t1")

    assert redactor.text("typed hunter2 twice; hunter22 is another word", thread_id="t1") == (
        "typed *** twice; hunter22 is another word"
    )
    # Two characters would blank every "ab" in the thread: too short to look for elsewhere.
    assert redactor.text("about abc", thread_id="t1") == "about abc"


def test_a_thread_seen_first_in_this_process_has_its_secrets_recalled_once_from_its_checkpoint() -> None:
    key = "SK7-" + made_up(20)
    asked: list[str] = []

    def checkpoint(thread_id: str) -> list[object]:
        asked.append(thread_id)
        return [f'Send an email saying "apiKey": "{key}"'] if thread_id == "t1" else []

    redactor = SecretRedactor()
    redactor.recall_threads_with(checkpoint)

    first = redactor.value({"body": f'apiKey": "{key}'}, thread_id="t1")
    again = redactor.text(f"sent {key}", thread_id="t1")
    other = redactor.text(f"sent {key}", thread_id="t2")

    assert (first, again, other) == ({"body": 'apiKey": "***'}, "sent ***", f"sent {key}")
    assert asked == ["t1", "t2"]


def test_restore_puts_back_a_remembered_secret_hidden_inside_text_left_as_shown() -> None:
    redactor = SecretRedactor()
    key = "SK7-" + made_up(20)
    redactor.text(f'"apiKey": "{key}"', thread_id="t1")
    original = {"to": "bob@example.com", "body": f'apiKey": "{key}'}
    shown = redactor.value(original, thread_id="t1")

    untouched = redactor.restore(dict(shown), original, thread_id="t1")
    edited = redactor.restore(shown | {"to": "carol@example.com"}, original, thread_id="t1")

    assert shown["body"] == 'apiKey": "***'
    assert untouched == original
    assert edited == original | {"to": "carol@example.com"}


def test_log_records_hide_a_secret_this_process_recognised_even_where_the_record_cuts_its_name(
    caplog: pytest.LogCaptureFixture,
) -> None:
    key = "SK7-" + made_up(20)
    install_log_redaction()
    SecretRedactor().text(f'"apiKey": "{key}"', thread_id="t-log")

    with caplog.at_level(logging.WARNING):
        logging.getLogger("some.library").warning("calling with body=%r", f'apiKey": "{key}')

    assert key not in caplog.text
    assert caplog.messages == ["calling with body='apiKey\": \"***'"]


def test_a_word_or_a_count_under_a_secret_like_key_is_not_looked_for_elsewhere_in_the_thread() -> None:
    redactor = SecretRedactor()
    redactor.value({"auth": "none", "max_tokens": 1000, "cookie": "disabled"}, thread_id="t1")

    shown = redactor.text("cc: none; 1000 rows; cookies disabled", thread_id="t1")

    assert shown == "cc: none; 1000 rows; cookies disabled"


def test_an_answer_a_form_field_asked_as_a_secret_is_hidden_where_a_result_repeats_it() -> None:
    redactor = SecretRedactor()
    typed = made_up(12)
    redactor.remember_secret("t1", [typed])

    assert redactor.value({"result": f"signed in with {typed}"}, thread_id="t1") == {
        "result": "signed in with ***"
    }


def test_a_server_naming_an_address_or_an_amount_as_its_token_does_not_hide_it_from_reviewers_later() -> None:
    # A server's result is untrusted: calling a recipient, a link or an amount a "token" must not
    # blank that value out of what a reviewer reads later in the thread.
    redactor = SecretRedactor()
    redactor.value(
        {"api_token": "eve@example.org", "password": "https://pay.example/approve", "secret": "25000"},
        thread_id="t1",
    )

    shown = redactor.value(
        {"to": "eve@example.org", "link": "https://pay.example/approve", "amount": "25000"}, thread_id="t1"
    )

    assert shown == {"to": "eve@example.org", "link": "https://pay.example/approve", "amount": "25000"}
