"""Read a policy file: TOML, validated whole, every problem named by file, key and reason."""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from mcp_host.bounded_json import MAX_DEPTH, nesting_depth
from mcp_host.reported import FileMistakesError
from mcp_host.variables import VariableError, expand_variables
from policies.error_words import in_the_data, key_path, reason
from policies.model import PolicyFile

DEFAULT_POLICY = Path(__file__).with_name("default.toml")


class PolicyError(FileMistakesError):
    """An invalid policy: ``where`` is file and key, ``reason`` says what is wrong; ``more``
    holds the other mistakes found in the same pass, each (where, reason), so that fixing one
    does not only uncover the next (mcp_host/reported.py, as the servers file's errors)."""


def _expand(value: Any, variables: Mapping[str, str], source: str, key: str = "") -> Any:
    if isinstance(value, str):
        try:
            return expand_variables(value, variables, f"{source}: {key}")
        except VariableError as exc:
            raise PolicyError(exc.where, exc.reason) from exc
    if isinstance(value, list):
        return [_expand(item, variables, source, f"{key}[{index}]") for index, item in enumerate(value)]
    if isinstance(value, dict):
        return {
            name: _expand(item, variables, source, f"{key}.{name}" if key else name)
            for name, item in value.items()
        }
    return value


def _validation_error(exc: ValidationError, data: dict[str, Any], source: str) -> PolicyError:
    """Every mistake pydantic found, each once (a value a union refused is one mistake however
    many members refused it), in policies/error_words.py's words, the first as the error's."""
    found: dict[str, str] = {}
    for error in exc.errors():
        location = in_the_data(tuple(error["loc"]), data)
        found.setdefault(f"{source}: {key_path(location, data)}", reason(error, PolicyFile, location))
    return PolicyError.of_all(found.items())


def parse_policy(data: Any, *, source: str, variables: Mapping[str, str] | None = None) -> PolicyFile:
    env = os.environ if variables is None else variables
    if not isinstance(data, dict):
        raise PolicyError(source, "the policy must be a TOML table")
    expanded = _expand(data, env, source)
    try:
        policy = PolicyFile.model_validate(expanded)
    except ValidationError as exc:
        raise _validation_error(exc, expanded, source) from exc
    _check_references(policy, source)
    return policy


def _check_references(policy: PolicyFile, source: str) -> None:
    roles = set(policy.roles)
    for user, role in policy.users.items():
        if role not in roles:
            raise PolicyError(
                f"{source}: users.{user}", f"unknown role {role!r}; roles: {', '.join(sorted(roles))}"
            )
    names: set[str] = set()
    for index, rule in enumerate(policy.rules):
        where = f"{source}: rules[{index}] ({rule.name})"
        if rule.name in names:
            raise PolicyError(where, f"a second rule named {rule.name!r}")
        names.add(rule.name)
        for role in rule.review.reviewer_roles or []:
            if role not in roles:
                raise PolicyError(f"{where}.review.reviewer_roles", f"unknown role {role!r}")
        if rule.constraints.paths_within_roots and not policy.paths.roots:
            raise PolicyError(f"{where}.constraints.paths_within_roots", "needs [paths] roots")
    for index, rule in enumerate(policy.rules):
        for argument, bound in rule.constraints.numeric.items():
            if bound.min is not None and bound.max is not None and bound.min > bound.max:
                raise PolicyError(
                    f"{source}: rules[{index}] ({rule.name}).constraints.numeric.{argument}",
                    f"min {bound.min:g} is above max {bound.max:g}: no value could pass",
                )
    _check_section_roles(policy, source, roles)


def _check_section_roles(policy: PolicyFile, source: str, roles: set[str]) -> None:
    """The roles the sections outside [roles] and [[rules]] name exist."""
    for role in policy.defaults.reviewer_roles:
        if roles and role not in roles:
            raise PolicyError(f"{source}: defaults.reviewer_roles", f"unknown role {role!r}")
    for role in policy.sampling.reviewer_roles or []:
        if roles and role not in roles:
            raise PolicyError(f"{source}: sampling.reviewer_roles", f"unknown role {role!r}")
    for role in policy.gateway.roles:
        if role not in roles:
            raise PolicyError(f"{source}: gateway.roles.{role}", f"unknown role {role!r}")


def read_policy_text(path: Path) -> str:
    """The policy file's text, as it is (what a version of the policy records)."""
    try:
        return path.read_bytes().decode("utf-8")
    except OSError as exc:
        raise PolicyError(str(path), f"cannot read the file: {exc.strerror or exc}") from exc
    except UnicodeDecodeError as exc:
        raise PolicyError(str(path), f"not valid UTF-8 (byte {exc.start} of the file)") from exc


def parse_policy_text(text: str, *, source: str, variables: Mapping[str, str] | None = None) -> PolicyFile:
    """A policy's TOML text, checked whole (what `gatehouse policy check` does to a file);
    ``source`` names it in errors (the file, or the change proposed in the app)."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise PolicyError(source, f"not valid TOML: {exc}") from exc
    except RecursionError as exc:
        # tomllib recurses once per nested array or inline table, and gives up far above
        # anything a policy needs; nothing was half-read.
        raise PolicyError(source, f"nested deeper than {MAX_DEPTH} levels") from exc
    if nesting_depth(data) > MAX_DEPTH:
        raise PolicyError(source, f"nested deeper than {MAX_DEPTH} levels")
    return parse_policy(data, source=source, variables=variables)


def load_policy(path: Path, *, variables: Mapping[str, str] | None = None) -> PolicyFile:
    return parse_policy_text(read_policy_text(path), source=str(path), variables=variables)
