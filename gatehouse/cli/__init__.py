"""The `gatehouse` command line: the parser and dispatch (commands.py), each group of commands
beside it, the checks of what a person typed (cli_input.py) and a server's questions put to the
person at the terminal (terminal_questions.py).

May import display/, credentials/, notifications/, the composition root (gatehouse/*.py) and the
layers below; never web/ or Streamlit. Each command imports what it uses when it runs, so
`gatehouse --help` loads no LangGraph or MCP SDK (tests/gatehouse/cli/test_cli_imports.py).
``gatehouse.cli:main`` is the console entry point and ``python -m gatehouse.cli`` runs it.
"""

from gatehouse.cli.commands import main

__all__ = ["main"]
