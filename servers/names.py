"""The names of the bundled demo servers: the one list, each ``servers/<name>.py``.

The catalog (servers/catalog.py) builds them by these names, the prefork process
(servers/prefork.py) forks only these, the evaluation (eval/workspace.py) and the benchmark
start them by these. Two data files keep a copy because a person reads and edits them as
they are: servers/bundled.mcp.json (an entry each) and policies/default.toml (the trusted
list); tests/servers/test_names.py proves both agree with this list.

No imports: the launcher (servers/launch.py) reads this before every server starts.
"""

BUNDLED = ("filesystem", "tickets", "email", "greeter", "prompts", "documents")
