"""The bundled demo servers by name, so the host can start any of them in-process or as a subprocess."""

from collections.abc import Callable
from pathlib import Path

from mcp.server.mcpserver import MCPServer

from servers import documents, email, filesystem, greeter, prompts, tickets

BUNDLED_SERVERS: dict[str, Callable[[Path], MCPServer]] = {
    "filesystem": filesystem.build_server,
    "tickets": tickets.build_server,
    "email": email.build_server,
    "greeter": greeter.build_server,
    "prompts": prompts.build_server,
    "documents": documents.build_server,
}


BUNDLED_CONFIG = Path(__file__).with_name("bundled.mcp.json")
"""The shipped servers file: every bundled server over stdio. It names two variables the host
fills in: GATEHOUSE_PYTHON (the interpreter of Gatehouse's own venv) and GATEHOUSE_DEMO_DATA."""


def build_all(data_dir: Path) -> dict[str, MCPServer]:
    """Build every bundled server against one shared data folder (their files do not overlap)."""
    return {name: build(data_dir) for name, build in BUNDLED_SERVERS.items()}
