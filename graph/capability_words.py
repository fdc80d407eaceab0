"""A capability in plain words: what it does, on one line, and a request that would ask for it.

The catalogue (gatehouse/display/catalogue.py) and the answer to a request nothing fits
(graph/output.py) describe capabilities to operators, who know what they want done, not what
a server named its tools. The words are the server's (its description or title) or the
admin's (an example request from the servers file); only when there are none are they made
from the capability's name and schema. Server text is untrusted: whoever shows these lines
shows them literally (gatehouse/web/literal.py, gatehouse/display/visible_text.py).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from graph.planner.actions import capability_action, imperative_verb, is_known_verb
from graph.planner.arguments import property_shape
from graph.planner.text import split_identifier
from policies.risk import verb_form

if TYPE_CHECKING:
    from mcp_host.manifest import Capability

# One line a person reads at a glance; longer descriptions are cut at a word.
LINE_CHARS = 100
# A placeholder for a value the operator fills in.
BLANK = "…"
# Where a description's first sentence ends: a stop and a space, or a line break.
_SENTENCE_END = re.compile(r"(?<=[.!?])\s|\n")


def _one_line(text: str, limit: int = LINE_CHARS) -> str:
    """``text``'s first sentence (or line) with its spaces collapsed, cut at a word to ``limit``."""
    first = _SENTENCE_END.split(text.strip(), maxsplit=1)[0]
    line = " ".join(first.split())
    if len(line) <= limit:
        return line
    cut = line[: limit - 1].rsplit(" ", 1)[0].rstrip(",;:-")
    return f"{cut}{BLANK}"


def _name_words(capability: Capability) -> list[str]:
    """The name's words, without the server's name in front (git_status is "status")."""
    found = split_identifier(capability.name)
    server = set(split_identifier(capability.server))
    while len(found) > 1 and found[0] in server:
        found = found[1:]
    return found


def in_plain_words(capability: Capability) -> str:
    """What the capability does, on one line: its description's first sentence, else its
    title, else its name as words ("list directory")."""
    for text in (capability.description, capability.title or ""):
        line = _one_line(text)
        if line:
            return line
    return " ".join(split_identifier(capability.name)).capitalize() or capability.name


def _value_for(schema: Any) -> str:
    """A value that shows what goes in: the first allowed one, else a blank to fill in."""
    enum = property_shape(schema).get("enum") if isinstance(schema, dict) else None
    return str(enum[0]) if isinstance(enum, list) and enum else BLANK


# Parameters named by a preposition read as one ("to …"), not as "with to …".
_PREPOSITIONS = frozenset({"to", "from", "in", "into", "on", "at", "for", "by", "of"})


def _arguments(capability: Capability) -> str:
    """The required arguments as words: " to … with title … and repo …"."""
    placed: list[str] = []
    others: list[str] = []
    for name in capability.required_arguments:
        words = " ".join(split_identifier(name))
        (placed if words in _PREPOSITIONS else others).append(
            f"{words} {_value_for(capability.properties.get(name))}"
        )
    text = "".join(f" {part}" for part in placed)
    if len(others) == 1:
        text += f" with {others[0]}"
    elif others:
        text += f" with {', '.join(others[:-1])} and {others[-1]}"
    return text


def example_request(capability: Capability) -> str:
    """A request that asks for this capability: the admin's first example when there is one,
    else one made from its name and schema ("Create issue with title … and repo …")."""
    if capability.examples:
        return capability.examples[0]
    named = _name_words(capability)
    arguments = _arguments(capability)
    if capability.type == "prompt":
        return f"Use the {' '.join(split_identifier(capability.name))} prompt{arguments}"
    if capability.type == "resource":
        # A resource is asked for by its name (a file name such as features.md reads as one).
        return f"Read {capability.name}"
    if capability.type == "resource_template":
        return f"Read the {' '.join(named)}{arguments}"
    if named and is_known_verb(named[0]):
        return f"{' '.join(named).capitalize()}{arguments}"
    # A name that does not open with its verb: a tool that acts is asked for with the verb its
    # name or description says (issue_create is "Create issue"), never as a read, which the
    # planner would serve with a read of the same thing.
    verb = imperative_verb(capability)
    if verb is not None:
        rest = [word for word in named if verb_form(word) != verb]
        return " ".join([verb.capitalize(), *rest]) + arguments
    if capability_action(capability).acts:
        return f"Use the {' '.join(named)} tool{arguments}"
    return f"Show the {' '.join(named)}{arguments}"
