"""Approvals an MCP server can verify: the grant Gatehouse signs into a side-effecting call's
request ``_meta``, and the verifier a server built on the MCP Python SDK runs before such a call.

The pieces, each a module of its own so that a server imports only what it runs:

- ``canonical``: the one canonical JSON Gatehouse hashes calls with (graph/calls.py), and the
  digest of a call's arguments a grant carries.
- ``grant``: the grant's fields, how they are signed (Ed25519) and checked.
- ``keys``: Gatehouse's public keys as a server is configured with them (never a secret).
- ``nonces``: the bounded store that refuses a grant used before.
- ``verifier``: the SDK extension (``ApprovalVerifier``) that refuses a side-effecting tool
  call without a valid grant, and announces itself in the server's capabilities.

docs/server-verification.md is the guide for server authors.
"""

# The request ``_meta`` key the grant travels under, and the extension a verifying server
# announces in its capabilities (``capabilities.extensions``). A reverse-DNS prefix of
# Gatehouse's own: MCP reserves prefixes whose second label is ``modelcontextprotocol`` or
# ``mcp`` (the MetaObject rules in the specification's schema).
META_KEY = "io.gatehouse/approval"
EXTENSION_ID = "io.gatehouse/approval"
