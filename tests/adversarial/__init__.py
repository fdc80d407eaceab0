"""Hand-written malicious MCP servers (one module per server) and the tests that run them
through the real host and the real CLI.

Each server module is a real SDK server that can be run over stdio (``python -m
tests.adversarial.<module> ...``); each tries one family of tricks, and those that act record
every call that reached a tool (tests/adversarial/effects.py) so a test can tell whether
something ran that should not have.
"""
