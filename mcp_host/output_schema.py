"""The host's own check of a tool's structured output against the output schema it declared.

A server that declares an ``outputSchema`` promises structured content matching it. When the
promise is broken the host keeps the result (a reviewer may still want to see it) but never as
trusted context: the reason returned here becomes ``McpResult.untrusted_reason``. The check is
the host's, not the SDK's (which raises and drops the result), so what counts as broken and
how it is worded do not change with the SDK's version.
"""

from __future__ import annotations

import json
from typing import Any

from jsonschema import SchemaError
from jsonschema.exceptions import best_match
from jsonschema.protocols import Validator
from jsonschema.validators import validator_for
from referencing import Registry
from referencing.exceptions import Unresolvable

# Compiling a validator costs far more than running it: one per distinct schema, reused.
_CACHED_VALIDATORS = 256
_validators: dict[str, Validator] = {}


def output_problem(tool: str, schema: dict[str, Any] | None, structured: dict[str, Any] | None) -> str | None:
    """Why ``structured`` (a successful result's structured content) breaks ``tool``'s declared
    output schema, or None when it keeps the promise or the tool declared no schema.

    A schema that is not valid JSON Schema, or whose ``$ref`` points outside itself, is the
    server's fault too: the output cannot be checked, so it is not trusted either."""
    if schema is None:
        return None
    if structured is None:
        return f"tool {tool!r} declares an output schema but returned no structured content"
    try:
        validator = _validator(schema)
        error = best_match(validator.iter_errors(structured))
    except SchemaError as exc:
        return f"tool {tool!r} declares an output schema that is not valid JSON Schema: {exc.message}"
    except Unresolvable as exc:
        return f"tool {tool!r} declares an output schema with a reference that does not resolve: {exc}"
    if error is None:
        return None
    where = "/".join(str(part) for part in error.absolute_path) or "the top level"
    return f"structured content of tool {tool!r} breaks its output schema at {where}: {error.message}"


def _validator(schema: dict[str, Any]) -> Validator:
    key = json.dumps(schema, sort_keys=True, default=str)
    validator = _validators.get(key)
    if validator is None:
        cls = validator_for(schema)
        cls.check_schema(schema)
        # An empty registry: references resolve within the schema (and the metaschemas), never
        # by fetching a URL a server named.
        validator = cls(schema, registry=Registry())
        if len(_validators) >= _CACHED_VALIDATORS:
            _validators.clear()
        _validators[key] = validator
    return validator
