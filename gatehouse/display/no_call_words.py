"""Why a run called no server, in a few words (final_output's ``no_call_reason``): the
chat's badge and the CLI's status line say the same. Plain constants, so the CLI's commands
that print answers import neither the graph nor the MCP SDK for them."""

from __future__ import annotations

NO_CALL_WORDS = {
    "general_question": "no server needed",
    "nothing_fits": "nothing configured can do that",
    "nothing_offered": "no server offers anything",
    "not_usable": "not run: the capability cannot be used",
}
