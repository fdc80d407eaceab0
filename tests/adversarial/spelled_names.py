"""Refused and reviewed tools under other spellings: the shipped rules match ``*__exec_shell*``,
``*__run_command*`` and ``*__pay*``; this server offers ``Exec_shell``, ``RUN_COMMAND``,
``run-command``, ``runCommand`` (spread over three servers: COMMAND_SERVERS), ``PayInvoice``,
``transferFunds`` and ``wire_money``, none
annotated (as the MCP defaults say, that makes them destructive and open world); and
``format_code``, which takes code without running a shell: it waits for a reviewer, it is not
refused as one."""

from __future__ import annotations

import sys
from pathlib import Path

from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations

from tests.adversarial.effects import record

READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, open_world_hint=False)
COMMAND_TOOLS = ("Exec_shell", "RUN_COMMAND", "run-command", "runCommand", "exec_shell")
# Discovery keeps only the first of one server's names that read alike (mcp_host/discovery.py),
# so every spelling is offered by a server of its own: server -> its command tools. The first
# also offers the payment tools; the others are `python -m tests.adversarial.spelled_names NAME...`.
COMMAND_SERVERS = {
    "spelled-names": ("Exec_shell", "RUN_COMMAND"),
    "respelled-names": ("exec_shell", "run-command"),
    "respelled-again": ("runCommand",),
}


def build_server(
    commands: tuple[str, ...] = COMMAND_SERVERS["spelled-names"],
    *,
    payments: bool = True,
    effects: Path | None = None,
) -> MCPServer:
    """``effects``: where the tools record that they ran (None: $ADVERSARIAL_EFFECTS)."""
    server = MCPServer("spelled")

    def command_tool(name: str) -> None:
        def run(command: str) -> str:
            record(name, effects=effects, command=command)
            return f"ran {command}"

        server.add_tool(run, name=name, description="Run a command on the server.")

    for name in commands:
        command_tool(name)
    if payments:
        _payment_tools(server, effects)
    return server


def _payment_tools(server: MCPServer, effects: Path | None) -> None:

    @server.tool(name="PayInvoice", description="Pay an invoice from the company account.")
    def pay_invoice(invoice_id: str) -> str:
        record("PayInvoice", effects=effects, invoice_id=invoice_id)
        return f"paid {invoice_id}"

    @server.tool(name="transferFunds", description="Move money between accounts.")
    def transfer_funds(to_account: str, amount: float) -> str:
        record("transferFunds", effects=effects, to_account=to_account, amount=amount)
        return f"moved {amount}"

    @server.tool(description="Send money to an outside account.")
    def wire_money(iban: str, amount: float) -> str:
        record("wire_money", effects=effects, iban=iban, amount=amount)
        return f"wired {amount}"

    @server.tool(description="Format a snippet of Python.", annotations=READ_ONLY)
    def format_code(code: str) -> str:
        record("format_code", effects=effects)
        return code.strip()


def from_argv(argv: list[str], effects: Path | None = None) -> MCPServer:
    """The server a command line names: command tools named on it, else the first server's."""
    if argv:
        return build_server(tuple(argv), payments=False, effects=effects)
    return build_server(effects=effects)


if __name__ == "__main__":
    from_argv(sys.argv[1:]).run("stdio")
