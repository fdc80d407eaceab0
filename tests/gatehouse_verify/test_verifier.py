"""The verifier in-process: what it asks a grant for, what it announces, and how it keeps
its used nonces bounded."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from mcp import Client, MCPError

from gatehouse_verify import EXTENSION_ID, META_KEY
from gatehouse_verify.canonical import arguments_digest
from gatehouse_verify.grant import GrantError, Why, key_id, sign_grant
from gatehouse_verify.keys import StaticKeys
from gatehouse_verify.nonces import MemoryNonceStore
from gatehouse_verify.verifier import ApprovalVerifier
from graph.calls import call_hash
from servers.filesystem import build_server

KEY = Ed25519PrivateKey.generate()
KEYS = StaticKeys({key_id(KEY.public_key()): KEY.public_key()})


def grant(tool: str, arguments: dict[str, Any], **changes: Any) -> dict[str, Any]:
    fields: dict[str, Any] = {
        "why": Why.policy("file writes"),
        "server": "filesystem",
        "tool": tool,
        "arguments": arguments,
        "policy_version": 2,
        "issued_at": int(time.time()),
        "lifetime_seconds": 120,
    } | changes
    return sign_grant(KEY, **fields)


@pytest.mark.anyio
async def test_a_read_only_tool_runs_without_a_grant_and_a_write_needs_one(data_dir: Path) -> None:
    write = {"path": "new.txt", "content": "hello"}
    async with Client(build_server(data_dir, KEYS)) as client:
        extensions = client.server_capabilities.extensions or {}
        read = await client.call_tool("read_file", {"path": "sample.txt"})
        with pytest.raises(MCPError, match="carries no grant"):
            await client.call_tool("write_file", write)
        written = await client.call_tool("write_file", write, meta={META_KEY: grant("write_file", write)})  # type: ignore[arg-type]

    assert extensions[EXTENSION_ID] == {"metaKey": META_KEY, "server": "filesystem", "keyIds": KEYS.key_ids()}
    assert not read.is_error and not written.is_error
    assert (data_dir / "project" / "new.txt").read_text(encoding="utf-8") == "hello"


@pytest.mark.anyio
async def test_a_server_started_without_keys_verifies_nothing_and_announces_nothing(data_dir: Path) -> None:
    async with Client(build_server(data_dir)) as client:
        extensions = client.server_capabilities.extensions or {}
        written = await client.call_tool("write_file", {"path": "new.txt", "content": "hi"})

    assert EXTENSION_ID not in extensions
    assert not written.is_error


def test_a_grant_that_claims_a_long_life_or_a_future_issue_is_refused() -> None:
    verifier = ApprovalVerifier("filesystem", KEYS)
    arguments = {"path": "a.txt", "content": "x"}
    with pytest.raises(GrantError, match="longer than 600 s"):
        verifier.check(grant("write_file", arguments, lifetime_seconds=3600), "write_file", arguments)
    with pytest.raises(GrantError, match="in the future"):
        verifier.check(
            grant("write_file", arguments, issued_at=int(time.time()) + 300), "write_file", arguments
        )
    why = verifier.check(grant("write_file", arguments), "write_file", arguments)
    assert why == Why.policy("file writes")


def test_the_nonce_store_refuses_when_full_of_live_grants_and_frees_expired_ones() -> None:
    now = [1000.0]
    store = MemoryNonceStore(capacity=2, clock=lambda: now[0])

    assert store.use("a", 1010) and store.use("b", 1020)
    assert not store.use("a", 1010)  # used before
    assert not store.use("c", 1030)  # full of grants still alive: refused, none forgotten
    now[0] = 1015
    assert store.use("c", 1030)  # "a" expired and made room
    assert len(store) == 2


def test_the_argument_digest_uses_the_call_hashs_canonical_json() -> None:
    arguments = {"b": [1, 2], "a": "é"}
    # Key order and spacing never change either: both hash the one canonical form.
    assert arguments_digest(arguments) == arguments_digest({"a": "é", "b": [1, 2]})
    assert call_hash("s", "f", arguments) == call_hash("s", "f", {"a": "é", "b": [1, 2]})
    assert arguments_digest(arguments) != arguments_digest({"a": "e", "b": [1, 2]})
