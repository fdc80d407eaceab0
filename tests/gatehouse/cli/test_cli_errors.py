"""Every mistake a person can make on the command line, and every input an attacker can hand
it, ends in one line on stderr with a documented exit code: never a traceback, never a wrong
code, never a database created by a command that only reads."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from gatehouse.cli import main
from gatehouse.cli.cli_input import json_arguments
from gatehouse.errors import ConfigurationError
from reviews.audit import AuditEntry, AuditLog
from storage.postgres import unreachable
from tests.backends import POSTGRES_SERVER, missing_postgres
from tests.gatehouse.cli.test_cli import REPO, only_servers

DEEP = "[" * 5000 + "]" * 5000


@pytest.fixture(autouse=True)
def _data_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GATEHOUSE_DATA", str(tmp_path))
    for name in ("GATEHOUSE_DB", "GATEHOUSE_SERVERS", "GATEHOUSE_POLICY", "GATEHOUSE_AUDIT_KEY"):
        monkeypatch.delenv(name, raising=False)


def gatehouse(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def assert_one_line(err: str, *named: str) -> None:
    assert err.count("\n") == 1, err
    assert err.startswith("gatehouse"), err
    assert "Traceback" not in err
    for part in named:
        assert part in err, (part, err)


@pytest.mark.parametrize(
    ("argv", "named"),
    [
        pytest.param(["ask", "send caf\udce9 to bob"], "TEXT: not valid UTF-8", id="ask-text"),
        pytest.param(
            ["policy", "explain", "filesystem__read_file", "--args", '{"path": "caf\udce9"}'],
            "--args: not valid UTF-8",
            id="explain-args",
        ),
        pytest.param(
            ["reviews", "decide", "r1", "--approve", "--reviewer", "ad\udcefmin"],
            "--reviewer: not valid UTF-8",
            id="decide-reviewer",
        ),
    ],
)
def test_an_argument_with_bytes_that_are_not_utf8_is_one_line_naming_it(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, argv: list[str], named: str
) -> None:
    # Python hands a non-UTF-8 byte in argv over as a surrogate escape ("\udce9" for 0xe9).
    code, out, err = gatehouse(capsys, *argv)

    assert code == 2
    assert out == ""
    assert_one_line(err, named)
    assert not (tmp_path / "gatehouse.db").exists()


def test_a_servers_file_that_is_not_utf8_is_one_line_naming_the_file(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    servers = tmp_path / "servers.json"
    servers.write_bytes(b'{"mcpServers": {"caf\xe9": {"command": "x"}}}')

    code, _, err = gatehouse(capsys, "servers", "check", "--servers", str(servers))

    assert code == 2
    assert_one_line(err, str(servers), "not valid UTF-8")


def test_a_policy_file_that_is_not_utf8_is_one_line_naming_the_file(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    policy = tmp_path / "policy.toml"
    policy.write_bytes(b"version = 1\n# caf\xe9\n")

    code, _, err = gatehouse(capsys, "policy", "check", str(policy))

    assert code == 2
    assert_one_line(err, str(policy), "not valid UTF-8")


@pytest.mark.parametrize(
    "argv",
    [
        pytest.param(["policy", "explain", "filesystem__write_file", "--args"], id="policy-explain"),
        pytest.param(
            ["reviews", "decide", "r1", "--approve", "--reviewer", "reviewer", "--args"], id="decide"
        ),
    ],
)
def test_arguments_nested_5000_deep_are_one_line_naming_the_limit(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, argv: list[str]
) -> None:
    servers = only_servers(tmp_path, "filesystem")

    code, out, err = gatehouse(capsys, *argv, '{"content": ' + DEEP + "}", "--servers", servers)

    assert code == 2
    assert out == ""
    assert_one_line(err, "--args: nested deeper than 32 levels")
    assert not (tmp_path / "gatehouse.db").exists()


def test_a_servers_file_nested_5000_deep_is_one_line_naming_the_file(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    servers = tmp_path / "servers.json"
    servers.write_text('{"mcpServers": {"a": {"command": "x", "args": ' + DEEP + "}}}", encoding="utf-8")

    code, _, err = gatehouse(capsys, "servers", "check", "--servers", str(servers))

    assert code == 2
    assert_one_line(err, str(servers), "nested deeper than 64 levels")


def test_a_policy_file_nested_5000_deep_is_one_line_naming_the_file(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    policy = tmp_path / "policy.toml"
    policy.write_text("[paths]\nroots = " + DEEP + "\n", encoding="utf-8")

    code, _, err = gatehouse(capsys, "policy", "check", str(policy))

    assert code == 2
    assert_one_line(err, str(policy), "nested")


@pytest.mark.parametrize(
    ("arguments", "named"),
    [
        pytest.param('{"path": "notes\\u0000.md"}', "argument path holds a NUL character", id="value"),
        pytest.param('{"options": {"tags": ["a", "b\\u0000"]}}', "argument options.tags[1]", id="nested"),
        pytest.param('{"pa\\u0000th": "x"}', "argument name", id="name"),
        pytest.param('{"path": "\\ud800"}', "not valid Unicode", id="lone-surrogate"),
        pytest.param('{"amount": NaN}', "argument amount is nan, not a finite number", id="nan"),
        pytest.param('{"amount": [-Infinity]}', "argument amount[0] is -inf", id="infinity"),
    ],
)
def test_a_nul_character_lone_surrogate_or_non_finite_number_in_explain_arguments_is_one_line_naming_it(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, arguments: str, named: str
) -> None:
    servers = only_servers(tmp_path, "filesystem")

    code, out, err = gatehouse(
        capsys, "policy", "explain", "filesystem__write_file", "--args", arguments, "--servers", servers
    )

    assert code == 2
    assert out == ""
    assert_one_line(err, "--args:", named)


@pytest.mark.processes
def test_output_into_a_pipe_whose_reader_is_gone_exits_141_without_a_traceback(tmp_path: Path) -> None:
    env = {**os.environ, "GATEHOUSE_DATA": str(tmp_path)}
    process = subprocess.Popen(
        [sys.executable, "-m", "gatehouse.cli", "policy", "check"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        cwd=REPO,
    )
    # The reader goes away before the command writes a byte (it is still importing).
    assert process.stdout is not None
    process.stdout.close()
    _, err = process.communicate(timeout=60)

    assert process.returncode == 141
    assert err == b""


@pytest.mark.processes
def test_a_long_export_cut_by_its_reader_after_one_line_exits_141_without_a_traceback(tmp_path: Path) -> None:
    path = tmp_path / "gatehouse.db"
    audit = AuditLog(path)
    # Far more than a pipe holds, so the reader leaves while the command is still writing.
    audit.append_all([AuditEntry("event", {"n": n, "text": "x" * 200}) for n in range(3000)])
    audit.close()
    process = subprocess.Popen(
        [sys.executable, "-m", "gatehouse.cli", "audit", "export", "--db", str(path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "GATEHOUSE_DATA": str(tmp_path)},
        cwd=REPO,
    )
    assert process.stdout is not None
    first = process.stdout.readline()  # what `| head -1` does
    process.stdout.close()
    _, err = process.communicate(timeout=60)

    assert first.startswith(b'{"seq": 1,')
    assert process.returncode == 141
    assert err == b""


def test_policy_check_refuses_an_expiry_that_overflows_a_date_naming_file_key_and_reason(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    policy = tmp_path / "policy.toml"
    policy.write_text("[defaults]\nexpiry_minutes = 99999999999\n", encoding="utf-8")

    code, out, err = gatehouse(capsys, "policy", "check", str(policy))

    assert code == 2
    assert out == ""
    assert_one_line(err, f"{policy}: defaults.expiry_minutes:", "less than or equal to")


def test_policy_check_refuses_four_eyes_given_as_a_string_naming_file_key_type_and_value(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    policy = tmp_path / "policy.toml"
    policy.write_text('[defaults]\nfour_eyes = "0"\n', encoding="utf-8")

    code, out, err = gatehouse(capsys, "policy", "check", str(policy))

    assert code == 2
    assert out == ""
    assert_one_line(err, f'{policy}: defaults.four_eyes: must be true or false, not the string "0"')


def test_policy_check_names_every_mistake_of_the_file_one_a_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    policy = tmp_path / "policy.toml"
    policy.write_text(
        '[defaults]\nrequired_approvals = "2"\n[[rules]]\nname = "shop reads"\nmatch = "shop__*"\n'
        'action = "allow"\nacepts = []\nexplanation = "ours"\n',
        encoding="utf-8",
    )

    code, out, err = gatehouse(capsys, "policy", "check", str(policy))

    assert code == 2
    assert out == ""
    assert err.splitlines() == [
        f'gatehouse: {policy}: defaults.required_approvals: must be a whole number, not the string "2"'
        " (write required_approvals = 2, without quotes)",
        f'gatehouse:   {policy}: rules[0] (shop reads).match: must be a list of globs, e.g. match = ["shop__*"],'
        ' not the string "shop__*"',
        f"gatehouse:   {policy}: rules[0] (shop reads).acepts: unknown key 'acepts' (did you mean 'accepts'?)",
    ]


# An entry with three mistakes: two misspelt keys and a value of the wrong kind.
THREE_MISTAKES = {"command": "python", "argz": ["x"], "evn": {}, "timeout": "30"}


def _three_mistakes(entry: str) -> list[str]:
    return [
        f"mcpServers.{entry}.argz: unknown key for a stdio server (did you mean 'args'?)",
        f"mcpServers.{entry}.evn: unknown key for a stdio server (did you mean 'env'?)",
        f'mcpServers.{entry}.timeout: must be a positive number of seconds, not the string "30"'
        ' (write "timeout": 30, without quotes)',
    ]


def test_servers_check_names_every_mistake_of_an_entry_one_a_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    servers = tmp_path / "servers.json"
    servers.write_text(json.dumps({"mcpServers": {"files": THREE_MISTAKES}}), encoding="utf-8")

    code, out, _ = gatehouse(capsys, "servers", "check", "--servers", str(servers))

    assert code == 2
    first, *more = _three_mistakes("files")
    lines = out.splitlines()
    failed = lines.index(f"  FAIL  files          config: {servers}: {first}")
    assert lines[failed + 1 : failed + 3] == [f"        {servers}: {mistake}" for mistake in more]


def test_a_command_that_loads_the_servers_file_names_every_mistake_of_its_entry_one_a_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    servers = tmp_path / "servers.json"
    servers.write_text(json.dumps({"mcpServers": {"files": THREE_MISTAKES}}), encoding="utf-8")

    code, out, err = gatehouse(capsys, "capabilities", "--servers", str(servers))

    assert code == 2
    assert out == ""
    first, *more = _three_mistakes("files")
    assert err.splitlines() == [
        f"gatehouse: {servers}: {first}",
        *(f"gatehouse:   {servers}: {mistake}" for mistake in more),
    ]


def _not_a_database(tmp_path: Path) -> Path:
    path = tmp_path / "notadb.db"
    path.write_text("this is not a database\n" * 100, encoding="utf-8")
    return path


READING_COMMANDS = [
    pytest.param(["audit", "verify"], id="audit-verify"),
    pytest.param(["audit", "export"], id="audit-export"),
    pytest.param(["reviews", "list"], id="reviews-list"),
    pytest.param(["trace", "t1"], id="trace"),
]


@pytest.mark.parametrize("command", READING_COMMANDS)
def test_a_file_that_is_not_a_database_is_exit_2_never_the_tampered_code(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, command: list[str]
) -> None:
    path = _not_a_database(tmp_path)

    code, out, err = gatehouse(capsys, *command, "--db", str(path))

    assert code == 2
    assert out == ""
    assert_one_line(err, str(path))


@pytest.mark.parametrize("command", [*READING_COMMANDS, pytest.param(["audit", "anchor"], id="audit-anchor")])
def test_commands_that_only_read_never_create_a_database(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    command: list[str],
) -> None:
    monkeypatch.setenv("GATEHOUSE_AUDIT_KEY", "k" * 32)
    path = tmp_path / "nowhere" / "gatehouse.db"

    code, out, err = gatehouse(capsys, *command, "--db", str(path))

    assert code == 2
    assert out == ""
    assert_one_line(err, str(path), "no such file")
    assert not path.parent.exists()


@pytest.mark.usefixtures("bundled_in_process")
def test_policy_explain_without_a_database_explains_and_creates_none(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    servers = only_servers(tmp_path, "filesystem")
    path = tmp_path / "nowhere" / "gatehouse.db"

    code, out, err = gatehouse(
        capsys, "policy", "explain", "filesystem__list_directory", "--servers", servers, "--db", str(path)
    )

    assert code == 0, err
    assert out.startswith("ALLOW")
    assert not path.parent.exists()


def test_a_postgres_database_that_is_unreachable_or_absent_is_exit_2_for_commands_that_read(
    capsys: pytest.CaptureFixture[str],
) -> None:
    if unreachable(POSTGRES_SERVER) is not None:
        missing_postgres(f"PostgreSQL at {POSTGRES_SERVER} is not reachable")
    absent = POSTGRES_SERVER.rsplit("/", 1)[0] + "/gatehouse_no_such_database"
    refused = "postgresql://gatehouse:secret@127.0.0.1:1/gatehouse"

    for url in (absent, refused):
        for command in (["audit", "verify"], ["reviews", "list"]):
            code, out, err = gatehouse(capsys, *command, "--db", url)
            assert code == 2, (url, command)
            assert out == ""
            assert_one_line(err, "not reachable")
            assert "secret" not in err


def test_an_unexpected_error_is_one_line_with_its_own_exit_code(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: object, **kwargs: object) -> None:
        raise KeyError("multi\nline\x1b[2J")

    monkeypatch.setattr("gatehouse.display.policy_report.policy_summary", broken)

    code, out, err = gatehouse(capsys, "policy", "check")

    assert code == 70
    assert out == ""
    assert_one_line(err, "internal error: KeyError", "GATEHOUSE_DEBUG=1")
    assert "\x1b" not in err


@pytest.mark.parametrize(
    "argv",
    [
        pytest.param([], id="no-command"),
        pytest.param(["ask"], id="missing-text"),
        pytest.param(["frobnicate"], id="unknown-command"),
        pytest.param(["reviews", "decide", "r1", "--approve"], id="missing-reviewer"),
    ],
)
def test_usage_errors_are_one_line_with_exit_2(capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    code, out, err = gatehouse(capsys, *argv)

    assert code == 2
    assert out == ""
    assert_one_line(err, "--help")


def test_a_path_with_bytes_that_are_not_utf8_is_a_file_name_like_any_other(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # Linux file names are bytes: a Latin-1 name is a valid path, unlike Latin-1 request text.
    path = tmp_path / "caf\udce9.db"
    audit = AuditLog(path)
    audit.append("event", {"n": 1})
    audit.close()

    code, out, err = gatehouse(capsys, "audit", "verify", "--db", str(path))

    assert (code, err) == (0, "")
    # Then the one warning a log without GATEHOUSE_AUDIT_KEY gets (tests/reviews/test_audit_keys.py).
    verdict, warning = out.splitlines()
    assert verdict == "audit log ok: 1 events, chain intact"
    assert warning.startswith("warning: GATEHOUSE_AUDIT_KEY is not set")


def test_arguments_at_the_depth_limit_are_taken_and_one_level_more_is_refused() -> None:
    at_limit = '{"a": ' + "[" * 31 + "]" * 31 + "}"

    assert json_arguments(at_limit, "--args")["a"] == json.loads("[" * 31 + "]" * 31)
    with pytest.raises(ConfigurationError, match=r"^--args: nested deeper than 32 levels at line 1"):
        json_arguments('{"a": ' + "[" * 32 + "]" * 32 + "}", "--args")


@pytest.mark.processes
def test_policy_explain_of_a_key_two_servers_would_share_is_refused_naming_both(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # a_'s lookup_price and a's _lookup_price would both be a___lookup_price.
    entries = {
        name: {
            "command": sys.executable,
            "args": ["-m", "tests.mcp_host.priced_server", name, tool],
            "cwd": str(REPO),
        }
        for name, tool in (("a", "_lookup_price"), ("a_", "lookup_price"))
    }
    servers = tmp_path / "servers.json"
    servers.write_text(json.dumps({"mcpServers": entries}), encoding="utf-8")

    code, out, err = gatehouse(capsys, "policy", "explain", "a___lookup_price", "--servers", str(servers))

    # The second entry, a_, is refused and left out naming both (one broken entry costs only
    # itself), so the key is a's tool alone.
    assert code == 0, err
    assert_one_line(err, "skipping server a_", str(servers), "mcpServers.a_", "mcpServers.a")
    assert "a___lookup_price" in out
