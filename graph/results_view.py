"""How an MCP result becomes agent-readable context, a summary and an operator's sentence."""

from __future__ import annotations

import json
from typing import Any

from graph.state import ContextUpdate, ResultSummary
from mcp_host.results import McpResult

_LABEL_FIELDS = ("title", "name", "subject", "uri", "path")
_DETAIL_FIELDS = ("type", "priority", "status", "size")
_TEXT_FIELDS = ("content", "text", "result", "message", "body")
_MAX_LISTED = 20


def readable_text(result: McpResult) -> str:
    parts = [item.text for item in result.content if item.text and item.type in {"text", "resource"}]
    return "\n".join(parts)


def records(structured: dict[str, Any] | None) -> list[Any] | None:
    """The list a structured result is about (entries, tickets, rows), if it has one."""
    if not structured:
        return None
    for value in structured.values():
        if isinstance(value, list):
            return value
    return None


def summarize(result: McpResult) -> ResultSummary:
    items = records(result.structured)
    summary: ResultSummary = {
        "success": result.success,
        "item_count": len(items) if items is not None else len(result.content),
        "content_types": sorted({item.type for item in result.content}),
        "bytes": result.original_bytes,
        "truncated": result.truncated,
    }
    if result.untrusted:
        summary["untrusted"] = True
    if result.error is not None:
        summary["error_kind"] = result.error.kind
    if result.structured and isinstance(result.structured.get("total"), int):
        summary["total"] = result.structured["total"]
    return summary


def context_from(result: McpResult) -> ContextUpdate:
    """The agent-readable context integrate_result adds to the state."""
    return {
        "source": f"{result.server}/{result.name}",
        "capability_type": result.capability_type,
        "text": readable_text(result),
        "records": records(result.structured),
        "structured": result.structured,
        "truncated": result.truncated,
        "untrusted": result.untrusted,
    }


def _label(item: Any) -> str:
    if not isinstance(item, dict):
        return str(item)
    label = next((str(item[f]) for f in _LABEL_FIELDS if item.get(f) not in (None, "")), "")
    if "id" in item:
        label = f"#{item['id']} {label}".strip()
    details = [str(item[f]) for f in _DETAIL_FIELDS if f in item and f != "size" and item[f] is not None]
    if not label:
        label = json.dumps(item, ensure_ascii=False, default=str)[:120]
    return f"{label} ({', '.join(details)})" if details else label


def as_text(value: Any) -> str:
    """A value as a person reads it: a string as it is, anything else as compact JSON."""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)


def clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


# Fields a listing carries beside its list that say nothing of their own.
_LISTING_FIELDS = frozenset({"total", "count", "cursor", "nextcursor", "page", "offset", "limit", "hasmore"})


def _says_more(structured: dict[str, Any]) -> bool:
    """Whether an object holds a number or yes/no of its own besides its lists, a listing's
    counts and paging, and text naming what was listed (``{"path": "sub", "entries": []}`` is
    an empty folder)."""
    return any(
        isinstance(value, int | float) and key.replace("_", "").lower() not in _LISTING_FIELDS
        for key, value in structured.items()
    )


def describe(context: ContextUpdate, limit: int) -> str:
    """One readable answer from the context: the records listed, or the text quoted."""
    source = context["source"]
    items = context.get("records")
    structured = context.get("structured") or {}
    if items is not None and not items and _says_more(structured):
        items = None  # an object whose one list is empty, not an empty listing: show the object
    if items is not None:
        if not items:
            return f"{source} found nothing matching the request."
        listed = "; ".join(_label(item) for item in items[:_MAX_LISTED])
        more = f" (showing {_MAX_LISTED})" if len(items) > _MAX_LISTED else ""
        total = structured.get("total")
        of_total = f" of {total}" if isinstance(total, int) and total > len(items) else ""
        noun = "item" if len(items) == 1 else "items"
        return clip(f"{source} returned {len(items)}{of_total} {noun}{more}: {listed}.", limit)
    text = next((structured[f] for f in _TEXT_FIELDS if isinstance(structured.get(f), str)), None)
    if text is None and structured:
        # An object (``{"queued": true, "id": ...}``) as one line per field, not as JSON: its
        # text item is usually the same object serialised.
        text = "\n".join(f"{key}: {as_text(value)}" for key, value in structured.items())
    if text is None:
        text = context.get("text") or ""
    note = " (output truncated at the size cap)" if context.get("truncated") else ""
    return clip(f"{source} returned{note}:\n{text}", limit)
