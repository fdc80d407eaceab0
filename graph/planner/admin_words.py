"""The admin's words for a capability as evidence: its other names and its example requests.

An admin who writes ``"aliases": ["raise a ticket"]`` for create_ticket in the servers file
(mcp_host/capability_notes.py) means that a request saying "raise a ticket" is about
create_ticket, whatever words the server used; an example request says the same of requests
worded like it. Scoring (graph/planner/scoring.py) adds both as evidence and counts their
words as words the capability uses. ``admin_text`` is the same words as one text, for any
reading of a capability's text as a whole (similarity retrieval).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING

from graph.planner.actions import leading_verb
from graph.planner.text import stem, words

if TYPE_CHECKING:
    from mcp_host.manifest import Capability

# An alias in the request names the capability about as surely as its URI does.
ALIAS_WEIGHT = 5.0
# A request worded exactly like an example gets this much; a close one its share of it.
EXAMPLE_WEIGHT = 5.0
# Below this share of shared words (Dice's coefficient over word stems) an example says
# nothing: most requests share a word or two with any example.
EXAMPLE_FLOOR = 0.5
# From this share on, a request says what the example says, its verb included.
EXAMPLE_AS_SAID = 0.8


def admin_text(capability: Capability) -> str:
    """The admin's aliases and examples of ``capability`` as one text ("" when none)."""
    return " ".join([*capability.aliases, *capability.examples])


@lru_cache(maxsize=1024)
def _alias_pattern(alias: str) -> re.Pattern[str]:
    # Word for word, any run of spaces between, never inside a longer word.
    spelled = r"\s+".join(re.escape(part) for part in alias.split())
    return re.compile(rf"(?<!\w){spelled}(?!\w)", re.IGNORECASE)


def alias_in(capability: Capability, text: str) -> str | None:
    """The longest of the capability's aliases the request says, if it says one."""
    said = [alias for alias in capability.aliases if _alias_pattern(alias).search(text)]
    return max(said, key=len) if said else None


@lru_cache(maxsize=4096)
def _stems(text: str) -> frozenset[str]:
    # words() leaves out stop words and values (paths, numbers, addresses): an example's
    # "acme/web" and the request's "acme/docs" differ in value, not in wording.
    return frozenset(stem(word) for word in words(text))


def closest_example(capability: Capability, text: str) -> tuple[str, float] | None:
    """The example request most like ``text`` and how alike (0 to 1), when alike enough."""
    asked = _stems(text)
    if not asked:
        return None
    best: tuple[str, float] | None = None
    for example in capability.examples:
        wording = _stems(example)
        if not wording:
            continue
        share = 2 * len(asked & wording) / (len(asked) + len(wording))
        if share >= EXAMPLE_FLOOR and (best is None or share > best[1]):
            best = (example, share)
    return best


def _opening(text: str) -> str | None:
    verb = leading_verb(text)
    return stem(verb) if verb else None


def states_its_action(capability: Capability, text: str) -> bool:
    """Whether the admin's words in the request say what to do, in verbs no word list may know
    ("Ship to production", "Report a problem: ..."): the request opens with a word of an alias
    it says, or with the first word of an example it is worded like (nearly word for word).
    A request that opens with a verb of its own ("Show me what would ship to production")
    asks for that, whatever admin's words it also says."""
    opening = _opening(text)
    if opening is None:
        return False
    alias = alias_in(capability, text)
    if alias is not None and opening in {stem(word) for word in words(alias)}:
        return True
    example = closest_example(capability, text)
    return example is not None and example[1] >= EXAMPLE_AS_SAID and _opening(example[0]) == opening
