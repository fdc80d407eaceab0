"""Gatehouse as an MCP server (`gatehouse serve`, docs/mcp-gateway.md): the door for MCP clients
(Claude Code, VS Code, an agent of one's own), a third front end beside the command line and
the pages. It offers the configured servers' tools, resources and prompts under their
namespaced keys (catalogue.py, resource_uris.py), each caller what the policy does not refuse
them whatever the arguments (visibility.py), through handlers of their own (offer.py); sends
every call, read and prompt through the request service's graph and policy, as the chat does
(reviews/requests.py RequestService.call), turns the outcome into an MCP result (outcomes.py)
or error (reads.py), passes on that lists changed to clients listening (changes.py), and knows
who calls by the bearer token each request carries (server.py,
gatehouse/credentials/access_tokens.py). A call that waits for a
reviewer is kept (client_calls.py) so a retry joins it; it waits in the request with progress
(waits.py) or as a task (tasks.py), both told by one watch of the ledger (review_watch.py,
call_status.py). `gatehouse bridge` is the same door over stdio, for clients that only start
local servers: an MCP server that forwards each request to an endpoint over HTTP (bridge.py,
upstream.py).

May import the composition root (gatehouse/*.py), credentials/, display/ and the layers below;
never cli/, web/, Streamlit or argparse (tests/gatehouse/test_rooms.py). cli/ starts it
(`gatehouse serve`); web/ never imports it.
"""
