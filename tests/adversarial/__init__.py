"""Hand-written malicious MCP servers (one module per server) and the tests that run them
through the real host and the real CLI."""
