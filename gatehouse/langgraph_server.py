"""The graph `langgraph dev` serves to LangGraph Studio, Agent Inbox and agent-chat-ui:
langgraph.json names ``graph`` here, and the caller check in gatehouse/langgraph_auth.py.

Built once, when the server imports this module, on the configuration of the environment
(docs/configuration.md): the server imports graphs on a worker thread, where opening the
database and starting the MCP servers may block; a factory would be called for each run on the
server's event loop, where blocking calls are refused. What the graph is: gatehouse/served_graph.py;
how to run it and what it refuses: docs/langgraph-studio.md.
"""

from __future__ import annotations

import atexit

from gatehouse.served_graph import serve
from gatehouse.settings import Settings

services, graph = serve(Settings.resolve())
# The server ends by returning from uvicorn: the MCP sessions and the database close then.
atexit.register(services.close)
