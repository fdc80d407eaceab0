"""The official MCP conformance suite run against Gatehouse's host (`make conformance`)."""
