"""The secret-like argument names have one home, policies/secrets.py SECRET_ARGUMENTS: every
redactor applies them whatever the policy says, the policy only adds names of its own, and no
other module or the shipped policy keeps a copy that could drift."""

from __future__ import annotations

import ast
from pathlib import Path

from policies.loader import DEFAULT_POLICY, load_policy, parse_policy
from policies.secrets import REDACTED, SECRET_ARGUMENTS, SecretRedactor
from reviews.audit import AuditLog

ROOT = Path(__file__).resolve().parents[2]
HOME = ROOT / "policies" / "secrets.py"


def _named_like(glob: str) -> str:
    """An argument name the glob matches ("*api_key*" -> "x_api_key_x")."""
    return glob.replace("*", "x")


def test_the_shipped_policy_adds_no_names_and_still_hides_every_built_in_one() -> None:
    shipped = load_policy(DEFAULT_POLICY, variables={"GATEHOUSE_DATA": "/nonexistent"})
    redactor = SecretRedactor(shipped.audit.redact_arguments)

    assert shipped.audit.redact_arguments == []
    assert [glob for glob in SECRET_ARGUMENTS if not redactor.is_secret_name(_named_like(glob))] == []


def test_a_policy_without_an_audit_table_defaults_to_no_extra_names_not_a_copy_of_the_list() -> None:
    assert parse_policy({}, source="p.toml", variables={}).audit.redact_arguments == []


def test_a_policys_own_names_add_to_the_built_in_ones() -> None:
    redactor = SecretRedactor(["*pin_code*"])

    assert redactor.is_secret_name("pinCode")
    assert redactor.is_secret_name("apiKey")
    assert not redactor.is_secret_name("topic")


def test_the_audit_log_hides_every_built_in_name_by_default(tmp_path: Path) -> None:
    log = AuditLog(tmp_path / "audit.db")
    try:
        log.append("request", {_named_like(glob): "hunter2-value" for glob in SECRET_ARGUMENTS})
        [event] = log.events()
    finally:
        log.close()

    assert set(event.data.values()) == {REDACTED}


def _string_constants(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
    }


def test_no_other_module_keeps_a_copy_of_the_secret_names() -> None:
    # The globs only a list of secret names would hold (not "sig" or "*token*" alone).
    telling = {glob for glob in SECRET_ARGUMENTS if glob.startswith("*") and glob.endswith("*")}
    copies = {
        str(path.relative_to(ROOT)): sorted(found)
        for folder in ("policies", "reviews", "gatehouse", "graph", "mcp_host", "storage", "views", "servers")
        for path in (ROOT / folder).rglob("*.py")
        if path != HOME and len(found := _string_constants(path) & telling) >= 2
    }

    assert copies == {}
