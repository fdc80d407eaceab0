"""error_from_exception: every exception the SDK path raises maps onto one error kind."""

from __future__ import annotations

import pytest
from mcp import MCPError
from pydantic import TypeAdapter, ValidationError

from mcp_host.errors import ErrorInfo, MessageTooLargeError, error_from_exception


def _validation_error() -> ValidationError:
    try:
        TypeAdapter(int).validate_python("not a number")
    except ValidationError as exc:
        return exc
    raise AssertionError("validation unexpectedly passed")


def test_a_timeout_error_maps_to_timeout() -> None:
    info = error_from_exception(TimeoutError())

    assert info == ErrorInfo(kind="timeout", message="the call timed out", may_have_run=True)
    assert info.recoverable


def test_an_invalid_params_mcp_error_maps_to_invalid_params() -> None:
    info = error_from_exception(MCPError(-32602, "no such ticket: 999"))

    assert info.kind == "invalid_params"
    assert "no such ticket: 999" in info.message
    assert not info.recoverable


def test_a_connection_closed_mcp_error_maps_to_unavailable() -> None:
    info = error_from_exception(MCPError(-32000, "Connection closed"))

    assert info.kind == "unavailable"
    assert "Connection closed" in info.message


def test_a_request_timeout_mcp_error_maps_to_timeout() -> None:
    assert error_from_exception(MCPError(-32001, "Request timed out")).kind == "timeout"


def test_any_other_mcp_error_maps_to_protocol_naming_its_code() -> None:
    info = error_from_exception(MCPError(-32603, "Handler returned an invalid result"))

    assert info.kind == "protocol"
    assert "-32603" in info.message


def test_an_exception_group_wrapping_a_timeout_maps_to_timeout() -> None:
    group = ExceptionGroup("task group failed", [ExceptionGroup("inner", [TimeoutError("too slow")])])

    info = error_from_exception(group)

    assert info.kind == "timeout"
    assert info.message == "too slow"


def test_a_pydantic_validation_error_maps_to_protocol() -> None:
    info = error_from_exception(_validation_error())

    assert info.kind == "protocol"
    assert info.message.startswith("malformed response:")


@pytest.mark.parametrize("exc", [OSError("broken pipe"), ConnectionResetError("reset")])
def test_a_transport_failure_maps_to_unavailable_naming_the_exception(exc: Exception) -> None:
    info = error_from_exception(exc)

    assert info.kind == "unavailable"
    assert info.message.startswith(type(exc).__name__)


def test_a_message_over_the_cap_maps_to_protocol_naming_server_and_limit() -> None:
    info = error_from_exception(MessageTooLargeError("big", 4096))

    assert info.kind == "protocol"
    assert "'big'" in info.message and "4096 bytes" in info.message
    assert info.may_have_run


def test_an_error_is_classified_by_its_type_not_by_words_in_its_message() -> None:
    # The SDK's output-schema check raised a RuntimeError saying "structured content"; the
    # host no longer reads messages, so such words in any error change nothing.
    info = error_from_exception(RuntimeError("Invalid structured content returned by tool t"))

    assert info.kind == "unavailable"
