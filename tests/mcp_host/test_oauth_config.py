"""The servers file's ``oauth`` object: the shapes people write, and every mistake named."""

from __future__ import annotations

from typing import Any

import pytest

from mcp_host.config import ConfigError, HttpServer, parse_servers_config


def _entry(oauth: Any, environ: dict[str, str] | None = None) -> HttpServer:
    data = {"mcpServers": {"crm": {"type": "http", "url": "https://crm.example.com/mcp", "oauth": oauth}}}
    config = parse_servers_config(data, source="servers.json", environ=environ or {})
    entry = config.servers[0]
    assert isinstance(entry, HttpServer)
    return entry


def test_no_oauth_key_means_discover_and_register_when_the_server_asks() -> None:
    data = {"mcpServers": {"crm": {"type": "http", "url": "https://crm.example.com/mcp"}}}
    entry = parse_servers_config(data, source="servers.json", environ={}).servers[0]
    assert isinstance(entry, HttpServer)
    assert entry.oauth.enabled and entry.oauth.needs_person and entry.oauth.client_id is None


def test_claude_codes_client_id_and_callback_port_with_a_secret_from_the_environment() -> None:
    entry = _entry(
        {"clientId": "gatehouse", "clientSecret": "${CRM_SECRET}", "callbackPort": 8765},
        environ={"CRM_SECRET": "s3cret-value"},
    )
    assert entry.oauth.client_id == "gatehouse"
    assert entry.oauth.callback_port == 8765
    assert entry.oauth.client_secret is not None
    assert entry.oauth.client_secret.get_secret_value() == "s3cret-value"
    described = str(entry.describe())
    assert "s3cret-value" not in described and "'client_secret': 'set'" in described
    assert "s3cret-value" not in repr(entry)


def test_false_turns_oauth_off() -> None:
    assert _entry(False).oauth.enabled is False


def test_client_credentials_with_a_private_key() -> None:
    entry = _entry(
        {
            "grant": "client_credentials",
            "clientId": "robot",
            "privateKey": "${KEY}",
            "signingAlgorithm": "ES256",
            "tokenEndpointAuthMethod": "private_key_jwt",
        },
        environ={"KEY": "-----BEGIN PRIVATE KEY-----"},
    )
    assert entry.oauth.grant == "client_credentials" and not entry.oauth.needs_person
    assert entry.oauth.signing_algorithm == "ES256"


def test_cross_app_access() -> None:
    entry = _entry(
        {
            "grant": "jwt_bearer",
            "clientId": "app",
            "clientSecret": "x",
            "issuer": "https://auth.example.com",
            "idp": {
                "tokenEndpoint": "https://idp.example.com/token",
                "clientId": "idp-app",
                "idToken": "${ID}",
            },
        },
        environ={"ID": "eyJ..."},
    )
    assert entry.oauth.idp is not None and entry.oauth.idp.id_token.get_secret_value() == "eyJ..."


@pytest.mark.parametrize(
    ("oauth", "where", "reason"),
    [
        ("yes", "mcpServers.crm.oauth", "must be an object"),
        ({"clientID": "x"}, "mcpServers.crm.oauth.clientID", "unknown key"),
        ({"grant": "password"}, "mcpServers.crm.oauth.grant", "must be one of"),
        ({"callbackPort": 70000}, "mcpServers.crm.oauth.callbackPort", "port number"),
        ({"callbackPort": "8080"}, "mcpServers.crm.oauth.callbackPort", "port number"),
        (
            {"clientMetadataUrl": "http://a.example/c.json"},
            "mcpServers.crm.oauth.clientMetadataUrl",
            "https://",
        ),
        ({"clientSecret": "x"}, "mcpServers.crm.oauth.clientId", "belongs to a clientId"),
        ({"clientId": ""}, "mcpServers.crm.oauth.clientId", "non-empty string"),
        (
            {"tokenEndpointAuthMethod": "private_key_jwt", "clientId": "a"},
            "mcpServers.crm.oauth.privateKey",
            "needs a privateKey",
        ),
        (
            {"grant": "client_credentials", "clientId": "a"},
            "mcpServers.crm.oauth.clientSecret",
            "clientSecret or",
        ),
        (
            {"grant": "jwt_bearer", "clientId": "a", "clientSecret": "b"},
            "mcpServers.crm.oauth.issuer",
            "required",
        ),
        (
            {"idp": {"tokenEndpoint": "https://i/t", "clientId": "c", "idToken": "t"}},
            "mcpServers.crm.oauth.idp",
            "only",
        ),
        (
            {"grant": "jwt_bearer", "idp": {"clientId": "c"}},
            "mcpServers.crm.oauth.idp.tokenEndpoint",
            "required",
        ),
        ({"signingAlgorithm": "none"}, "mcpServers.crm.oauth.signingAlgorithm", "must be one of"),
    ],
)
def test_each_mistake_names_the_key_and_the_reason(oauth: Any, where: str, reason: str) -> None:
    with pytest.raises(ConfigError) as caught:
        _entry(oauth)
    assert caught.value.where == f"servers.json: {where}"
    assert reason in caught.value.reason


def test_a_missing_variable_names_the_key_that_uses_it() -> None:
    with pytest.raises(ConfigError) as caught:
        _entry({"clientId": "a", "clientSecret": "${NOT_SET}"})
    assert caught.value.where == "servers.json: mcpServers.crm.oauth.clientSecret"
    assert "NOT_SET is not set" in caught.value.reason
