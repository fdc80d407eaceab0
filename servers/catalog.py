"""The bundled demo servers by name, so the host can start any of them in-process or as a subprocess."""

from collections.abc import Callable
from importlib import import_module
from pathlib import Path
from typing import cast

from mcp.server.mcpserver import MCPServer

from servers.names import BUNDLED

ServerBuilder = Callable[[Path], MCPServer]


def _builder(name: str) -> ServerBuilder:
    """``servers.<name>.build_server``: every bundled server module has one."""
    return cast(ServerBuilder, import_module(f"servers.{name}").build_server)


BUNDLED_SERVERS: dict[str, ServerBuilder] = {name: _builder(name) for name in BUNDLED}


BUNDLED_CONFIG = Path(__file__).with_name("bundled.mcp.json")
"""The shipped servers file: every bundled server over stdio. It names two variables the host
fills in: GATEHOUSE_PYTHON (the interpreter of Gatehouse's own venv) and GATEHOUSE_DEMO_DATA,
in this file and in any copy of it (gatehouse/settings.py helper_variables)."""


def build_all(data_dir: Path) -> dict[str, MCPServer]:
    """Build every bundled server against one shared data folder (their files do not overlap)."""
    return {name: build(data_dir) for name, build in BUNDLED_SERVERS.items()}
