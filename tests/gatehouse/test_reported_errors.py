"""Every error meant for a person shares one base that carries its exit code, and the command
line reports any of them as one line with that code, whatever its class."""

from __future__ import annotations

from pathlib import Path

import pytest

import gatehouse.cli.commands
from gatehouse.cli import main
from gatehouse.credentials.server_credentials import CredentialKeyError
from gatehouse.errors import ConfigurationError, NotAllowedError, ThreadBusyError
from mcp_host.config import ConfigError
from mcp_host.reported import EXIT_ALREADY_DECIDED, EXIT_USAGE, ReportedError
from mcp_host.variables import UnsetVariableError
from policies.loader import PolicyError
from reviews.audit_anchor import AnchorError
from reviews.errors import AlreadyDecidedError, ReviewError
from reviews.questions import QuestionError


@pytest.mark.parametrize(
    "error",
    [
        ConfigurationError("x"),
        ThreadBusyError("x"),
        NotAllowedError("x"),
        CredentialKeyError("x"),
        ConfigError("servers.json", "x"),
        PolicyError("policy.toml: rules", "x"),
        UnsetVariableError("servers.json: mcpServers.fs.args", "MISSING"),
        AnchorError("x"),
        ReviewError("x"),
        QuestionError("x"),
    ],
    ids=lambda error: type(error).__name__,
)
def test_usage_and_configuration_errors_share_the_base_and_exit_2(error: ReportedError) -> None:
    assert isinstance(error, ReportedError)
    assert error.exit_code == EXIT_USAGE == 2


def test_a_review_already_decided_exits_3() -> None:
    error = AlreadyDecidedError("r1", "approved", "alice", None)

    assert isinstance(error, ReviewError)
    assert error.exit_code == EXIT_ALREADY_DECIDED == 3
    assert error.message == "review r1 was already decided by alice (approved)"


def test_the_command_line_exits_with_the_code_the_error_carries(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """No list of classes in the command line: a new error with a code of its own needs no
    change there."""

    class Unheard(ReportedError):
        exit_code = 9

    def refuse(_args: object) -> int:
        raise Unheard("the widget in widgets.toml: line 3 is bent")

    monkeypatch.setenv("GATEHOUSE_DATA", str(tmp_path))
    monkeypatch.setattr(gatehouse.cli.commands, "_run", refuse)

    code = main(["reviews", "list"])

    assert code == 9
    assert capsys.readouterr().err == "gatehouse: the widget in widgets.toml: line 3 is bent\n"


def test_a_key_that_cannot_open_a_sign_in_is_a_configuration_error_not_a_bug(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # It used to end as "internal error ... (a bug in Gatehouse)", exit 70.
    def refuse(_args: object) -> int:
        raise CredentialKeyError("GATEHOUSE_SECRET_KEY does not open the stored sign-in of docs")

    monkeypatch.setenv("GATEHOUSE_DATA", str(tmp_path))
    monkeypatch.setattr(gatehouse.cli.commands, "_run", refuse)

    code = main(["servers", "check"])

    assert code == 2
    err = capsys.readouterr().err
    assert err == "gatehouse: GATEHOUSE_SECRET_KEY does not open the stored sign-in of docs\n"
