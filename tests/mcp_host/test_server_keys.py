"""One capability key, one capability: keys (``server__name``) are unique by construction, or
the servers file is refused naming both entries. Two servers the policy would read as one name
(``a`` and ``a_``, ``my-server`` and ``my_server``) never both load, and one server's names that
read alike keep only the first."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import mcp.types as types
import pytest
from mcp.server.mcpserver import MCPServer

from mcp_host.config import ConfigError, load_servers_config, parse_servers_config
from mcp_host.discovery import CapabilityCollector
from mcp_host.sdk_client import SdkMcpClient
from policies.names import normalise_key


def _stdio(*names: str) -> dict[str, Any]:
    return {"mcpServers": {name: {"command": "srv", "args": [name]} for name in names}}


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("a", "a_"),
        ("my-server", "my_server"),
        ("MyServer", "my_server"),
        ("files", "Files"),
        ("a.b", "a-b"),
        ("crm2", "CRM-2"),
    ],
)
def test_two_servers_the_policy_reads_as_one_name_are_refused_naming_both(first: str, second: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_servers_config(_stdio(first, second), source=".mcp.json", environ={})

    assert caught.value.where == f".mcp.json: mcpServers.{second}"
    assert f"mcpServers.{first}" in caught.value.reason
    assert "rename one" in caught.value.reason


def test_a_disabled_entry_takes_no_name_from_an_enabled_one() -> None:
    data = _stdio("my-server")
    data["mcpServers"]["my_server"] = {"command": "srv", "disabled": True}

    config = parse_servers_config(data, source="s.json", environ={})

    assert config.names() == ["my-server"]


def test_a_servers_file_naming_one_server_twice_refuses_the_second_not_the_first(tmp_path: Path) -> None:
    # JSON keeps the last of two equal names without a word: the first entry would vanish, and
    # the one that ran would be the impostor. Read strictly, the repeat is the error.
    path = tmp_path / "servers.json"
    path.write_text(
        '{"mcpServers": {"crm": {"command": "trusted-crm"}, "crm": {"command": "other"}}}', encoding="utf-8"
    )

    with pytest.raises(ConfigError) as caught:
        load_servers_config(path)

    assert caught.value.where == f"{path}: mcpServers.crm (2nd)"
    loaded = load_servers_config(path, skip_broken=True).describe()["servers"]
    assert loaded["crm"]["command"] == "trusted-crm"


def _priced(name: str, tool: str) -> MCPServer:
    server = MCPServer(name)

    def lookup(item: str) -> str:
        return f"{name}: {item}"

    server.add_tool(lookup, name=tool, description=f"Look up a price ({name}).")
    return server


def test_distinct_servers_give_distinct_keys_before_and_after_normalisation() -> None:
    targets = {"a": _priced("a", "_lookup_price"), "ab": _priced("ab", "lookup_price")}
    with SdkMcpClient(targets) as pool:
        keys = [capability.key for capability in pool.discover().capabilities()]

    assert keys == ["a___lookup_price", "ab__lookup_price"]
    assert len({normalise_key(key) for key in keys}) == 2


def _tool(name: str) -> types.Tool:
    return types.Tool(name=name, input_schema={"type": "object", "properties": {}})


def test_one_servers_names_that_read_alike_keep_only_the_first_naming_it() -> None:
    collector = CapabilityCollector("srv")

    for name in ("send_email", "sendEmail", "SEND-EMAIL", "read_file"):
        collector.add_tool(_tool(name))

    assert [capability.key for capability in collector.capabilities] == ["srv__send_email", "srv__read_file"]
    assert collector.rejected == [
        "tool 'sendEmail' ignored: its name reads as 'send_email', which the server offers already",
        "tool 'SEND-EMAIL' ignored: its name reads as 'send_email', which the server offers already",
    ]


def test_a_prompt_whose_key_reads_as_a_tools_is_ignored() -> None:
    collector = CapabilityCollector("srv")

    collector.add_tool(_tool("report"))
    collector.add_tool(_tool("report_prompt"))
    collector.add_prompt(types.Prompt(name="report"))  # srv__report__prompt reads as srv__report_prompt

    assert [capability.key for capability in collector.capabilities] == ["srv__report", "srv__report_prompt"]
    assert collector.rejected == [
        "prompt 'report' ignored: its name reads as 'report_prompt', which the server offers already"
    ]
