"""Refused and reviewed tools under other spellings: the shipped rules match ``*__exec_shell*``,
``*__run_command*`` and ``*__pay*``; this server offers ``Exec_shell``, ``RUN_COMMAND``,
``run-command``, ``runCommand``, ``PayInvoice``, ``transferFunds`` and ``wire_money``, none
annotated (as the MCP defaults say, that makes them destructive and open world); and
``format_code``, which takes code without running a shell: it waits for a reviewer, it is not
refused as one."""

from __future__ import annotations

from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations

from tests.adversarial.effects import record

READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, open_world_hint=False)
COMMAND_TOOLS = ("Exec_shell", "RUN_COMMAND", "run-command", "runCommand", "exec_shell")


def build_server() -> MCPServer:
    server = MCPServer("spelled")

    def command_tool(name: str) -> None:
        def run(command: str) -> str:
            record(name, command=command)
            return f"ran {command}"

        server.add_tool(run, name=name, description="Run a command on the server.")

    for name in COMMAND_TOOLS:
        command_tool(name)

    @server.tool(name="PayInvoice", description="Pay an invoice from the company account.")
    def pay_invoice(invoice_id: str) -> str:
        record("PayInvoice", invoice_id=invoice_id)
        return f"paid {invoice_id}"

    @server.tool(name="transferFunds", description="Move money between accounts.")
    def transfer_funds(to_account: str, amount: float) -> str:
        record("transferFunds", to_account=to_account, amount=amount)
        return f"moved {amount}"

    @server.tool(description="Send money to an outside account.")
    def wire_money(iban: str, amount: float) -> str:
        record("wire_money", iban=iban, amount=amount)
        return f"wired {amount}"

    @server.tool(description="Format a snippet of Python.", annotations=READ_ONLY)
    def format_code(code: str) -> str:
        record("format_code")
        return code.strip()

    return server


if __name__ == "__main__":
    build_server().run("stdio")
