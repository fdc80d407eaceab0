"""The MCP client side of Gatehouse: manifests, results, errors and the client boundary.

Nothing in this package imports LangGraph: the graph depends on it, never the reverse.
"""
