"""Hand-written malicious MCP servers and the tests that run them against Gatehouse.

Each server module is a real SDK server that can be run over stdio (``python -m
tests.adversarial.<module> ...``); each tries one family of tricks, and records every call that
reached a tool so a test can tell whether something ran that should not have.
"""
