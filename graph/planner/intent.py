"""Does a request need an MCP capability at all, and of which kind?

Classification runs before discovery, so it cannot know every server's vocabulary. It only
says "no" for requests that are plainly conversation (a general question or small talk with
no operational cue); anything else goes on to discovery, where the scoring threshold decides.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from graph.planner.actions import request_action
from graph.planner.calculation import conversion_in, expression_in
from graph.planner.text import concepts, path_kinds, stem, words

Intent = Literal["read_resource", "execute_tool", "use_prompt", "answer_without_mcp"]
OperationType = Literal["resource", "tool", "prompt", "none"]

_GENERAL_QUESTION = re.compile(
    r"^\s*(what\s+(is|are|was|were|does|do)\b|who\s+(is|are|was|were)\b|why\b|explain\b|define\b|"
    r"tell\s+me\s+about\b|how\s+(does|do|is|are|can|should)\b|when\s+(is|was|did)\b|describe\b)",
    re.IGNORECASE,
)
_SMALL_TALK = re.compile(
    r"^\s*(hi|hello|hey|thanks|thank\s+you|good\s+(morning|afternoon|evening)|ok(ay)?|bye|cheers)\b"
    r"[\s!.,?]*(?:(?:that'?s|that\s+is)\s+all(?:\s+for\s+now)?|see\s+you|have\s+a\s+nice\s+day)?[\s!.?]*$",
    re.IGNORECASE,
)
# Questions about ideas, not about anything a server holds: how two things differ, which way
# of doing something is best. Even with an action in them ("a Redis list", "a formula to find
# duplicates") they ask for knowledge, unless they state a value to act on.
_CONCEPT_QUESTION = re.compile(
    r"^\s*(?:what(?:'s|’s|\s+is|\s+are)\s+the\s+differences?\s+between\b"
    r"|what(?:'s|’s|\s+is|\s+are)\s+the\s+(?:best|right|usual|recommended)\s+"
    r"(?:\w+\s+)?(?:way|formula|function|command|practice|approach|method|syntax)s?\s+(?:to|for|of)\b)",
    re.IGNORECASE,
)
# Things that only make sense as arguments to an operation.
_OPERATIONAL_VALUE = re.compile(
    r"\S+@\S+\.\w+|\b\w+://\S+|\b[\w-]+\.[a-z0-9]{1,8}\b|#\d+|\b\w+\s*=\s*\S+|\"[^\"]+\"",
    re.IGNORECASE,
)
# Two numbers with an operation between them ("3 plus 5", "add 12 and 30") are a calculation
# a server may offer, not general knowledge.
_CALCULATION = re.compile(
    r"-?\d+(?:\.\d+)?\s*(?:[-+*/x×÷]|plus|minus|times|divided by|and|to)\s*-?\d+(?:\.\d+)?",
    re.IGNORECASE,
)
# Writing for the person ("write a haiku", "compose a poem") is an answer, not a file to write.
_CREATIVE = re.compile(
    r"^\s*(?:please\s+)?(?:write|compose|draft|tell)\s+(?:me\s+)?(?:a|an|some)\s+"
    r"(?:short\s+|funny\s+|little\s+)?(?:haiku|poem|story|joke|limerick|song|sonnet|riddle|essay|slogan)s?\b",
    re.IGNORECASE,
)
# "Summarize this in a line: Q3 revenue grew 4% ...": the text to work on is in the request
# itself, after its colon; no server holds it.
_ON_GIVEN_TEXT = re.compile(
    r"^\s*(?:please\s+)?(?:summari[sz]e|translate|rephrase|rewrite|paraphrase|shorten|proofread|simplify|tl;?dr)\b"
    r"(?P<lead>[^:\n]{0,40}\b(?:this|the\s+following|the\s+text\s+below|these\s+lines)\b[^:\n]{0,30}):\s*\S",
    re.IGNORECASE,
)
_ACTION_CONCEPTS = frozenset(
    {"list", "read", "search", "summarize", "send", "email", "write", "update", "delete", "greet", "prompt"}
)
# Nouns that name things operational systems hold. A question about one ("what are the open
# tickets?") is a request for data, not for general knowledge.
_RECORD_NOUNS = frozenset(
    stem(noun)
    for noun in (
        "file folder directory ticket issue case email mail message inbox outbox record document report "
        "order invoice payment customer user account task item entry row table database log calendar "
        "event meeting repository repo branch commit resource prompt note status priority doc docs server "
        "readme changelog graph entity memory knowledge"
    ).split()
)
_RESOURCE_CUES = frozenset({"resourc", "document"})
_URI = re.compile(r"\b\w+://\S+")
# "What do you know about Acme?", "what have we stored on Bob?": about what the servers hold.
_HOLDINGS = re.compile(
    r"\b(?:you|we)\s+(?:know|have|remember|recall|store|stored|keep|kept|hold|held)\b", re.IGNORECASE
)


@dataclass(frozen=True)
class IntentDecision:
    intent: Intent
    operation_type: OperationType
    reason: str


def classify(text: str) -> IntentDecision:
    found = concepts(text)
    # An expression or a conversion ("15% of 80", "5 miles in km") is for a calculator, if any.
    calculation = expression_in(text) is not None or conversion_in(text) is not None
    has_value = bool(_OPERATIONAL_VALUE.search(text) or _CALCULATION.search(text) or calculation)
    has_action = bool(found & _ACTION_CONCEPTS)
    has_record = any(stem(word) in _RECORD_NOUNS for word in words(text))
    if _SMALL_TALK.match(text):
        return IntentDecision("answer_without_mcp", "none", "small talk needs no external capability")
    if _CREATIVE.match(text) and not has_value:
        return IntentDecision("answer_without_mcp", "none", "a request to write something for the person")
    given = _ON_GIVEN_TEXT.match(text)
    if given and not any(stem(word) in _RECORD_NOUNS for word in words(given.group("lead"))):
        return IntentDecision("answer_without_mcp", "none", "the request brings the text it is about")
    about_holdings = bool(_HOLDINGS.search(text))
    if _CONCEPT_QUESTION.match(text) and not (has_value or about_holdings or path_kinds(text)):
        return IntentDecision(
            "answer_without_mcp", "none", "a question about ideas, not about what a server holds"
        )
    if _GENERAL_QUESTION.match(text) and not (has_value or has_action or has_record or about_holdings):
        return IntentDecision(
            "answer_without_mcp", "none", "a general question with no file, record, address or action named"
        )
    if "prompt" in found:
        return IntentDecision("use_prompt", "prompt", "the request asks for a prompt or template")
    # A resource can only be read: "switch the resource updates off" asks a tool to act.
    if (_URI.search(text) or found & _RESOURCE_CUES) and request_action(text).reads_only:
        return IntentDecision("read_resource", "resource", "the request names a resource or document")
    return IntentDecision("execute_tool", "tool", "the request asks for an operation")
