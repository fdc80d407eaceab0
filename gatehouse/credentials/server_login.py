"""``gatehouse servers login NAME`` and ``logout NAME``: a person signs in to a remote server
from a terminal, once for every replica (the tokens go to the database, encrypted)."""

from __future__ import annotations

from collections.abc import Callable

from gatehouse.credentials.server_credentials import EncryptedCredentialStore, required_key
from gatehouse.display.server_words import offer_words
from gatehouse.errors import ConfigurationError
from gatehouse.settings import Settings
from gatehouse.wiring import server_pool, servers_config
from mcp_host.config import HttpServer, ServersConfig
from mcp_host.oauth import DEFAULT_CALLBACK_PORT
from mcp_host.oauth_loopback import LoopbackAuthorizer


def remote_entry(config: ServersConfig, name: str) -> HttpServer:
    """The named server, if it is one a person can sign in to; else why not."""
    entry = next((server for server in config.servers if server.name == name), None)
    broken = next((problem for problem in config.problems if problem.entry == name), None)
    if broken is not None:
        raise broken.error()
    if entry is None:
        listed = ", ".join(config.names()) or "none"
        raise ConfigurationError(f"{config.source}: no server named {name!r}; configured servers: {listed}")
    if not isinstance(entry, HttpServer):
        raise ConfigurationError(
            f"{config.source}: {name} is a local (stdio) server; only remote servers sign in"
        )
    if not entry.oauth.enabled:
        raise ConfigurationError(
            f'{config.source}: {name} has "oauth": false; its headers carry its credentials'
        )
    return entry


def login(
    settings: Settings, name: str, show: Callable[[str, str], None], *, timeout: float
) -> dict[str, object]:
    """Sign in to one server and report what it offers: ``{"server", "connected", "tools",
    "offers" (in words), "error"}``. ``show(server, url)`` tells the person where to go."""
    config = servers_config(settings)
    entry = remote_entry(config, name)
    required_key(settings.secret_key)
    authorizer = LoopbackAuthorizer(entry.oauth.callback_port or DEFAULT_CALLBACK_PORT, show, timeout=timeout)
    only = ServersConfig(source=config.source, servers=[entry])
    with server_pool(settings, config=only, authorizer=authorizer, connect_timeout=timeout + 30) as pool:
        pool.discover(fresh=True)
        [health] = pool.health()
    return {
        "server": name,
        "connected": health.verdict != "failed",
        "tools": health.offers.get("tool", 0),
        "offers": offer_words(health.offers),
        "error": health.last_error,
    }


def logout(settings: Settings, name: str) -> None:
    """Forget the server's tokens and registration in the database (every replica)."""
    remote_entry(servers_config(settings), name)
    store = EncryptedCredentialStore(settings.open_database(), None)
    try:
        store.forget(name)
    finally:
        store.close()
