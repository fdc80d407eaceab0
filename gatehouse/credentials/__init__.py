"""Who is who. People at the browser: a sign-in's identity from the provider's claims
(oidc_identity.py) or, without sign-in, the name picked in local mode (local_identity.py).
Gatehouse at remote servers: their OAuth tokens encrypted in the database
(server_credentials.py), signed in from a terminal (server_login.py) or from the app
(app_sign_in.py). MCP clients at `gatehouse serve`: the bearer tokens Gatehouse issues them,
kept hashed (access_tokens.py).

May import the composition root (gatehouse/*.py), mcp_host/ and storage/; never cli/, web/ or
Streamlit.
"""
