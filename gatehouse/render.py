"""final_output as text a person reads in a terminal."""

from __future__ import annotations

from typing import Any


def render_text(output: dict[str, Any]) -> str:
    lines = [f"status:     {output['status']}", f"response:   {output['response']}"]
    capability = output.get("selected_capability")
    if capability:
        lines.append(f"capability: {capability['server']} / {capability['type']} / {capability['name']}")
    summary = output.get("mcp_result_summary")
    if summary:
        state = "success" if summary.get("success") else f"failed ({summary.get('error_kind', 'error')})"
        extra = ", truncated at the size cap" if summary.get("truncated") else ""
        lines.append(f"result:     {state}, {summary.get('item_count', 0)} item(s){extra}")
    if output.get("fallback_reason") and output["status"] != "ok":
        lines.append(f"reason:     {output['fallback_reason']}")
    review = output.get("review")
    if review:
        who = f", decided by {review['decided_by']}" if review.get("decided_by") else ""
        lines.append(f"review:     {review['id']} ({review['stage']}{who})")
        lines.extend(f"  [{f['severity']}] {f['code']}: {f['message']}" for f in review.get("flags", []))
    if output.get("missing_arguments"):
        lines.append(f"missing:    {', '.join(output['missing_arguments'])}")
        example = f"{output['missing_arguments'][0]}=..."
        lines.append(f'answer with: gatehouse ask --thread {output["thread_id"]} "{example}"')
    lines.extend(f"error:      {error}" for error in output.get("errors", []))
    lines.append(f"thread:     {output['thread_id']}")
    return "\n".join(lines)
