"""Text folded to the Latin letters it looks like, for comparing names a server chose.

A server that wants a password without the policy noticing can spell ``password`` with letters
that only look like Latin ones: a Cyrillic ``а``, full-width ``Ｐａｓｓ``, mathematical bold,
accents, a zero-width space inside. ``fold`` maps all of those onto one lower-case Latin
spelling, so a check compares what a person reads rather than the code points:

1. NFKD: compatibility forms (full-width, mathematical, circled, ligatures, superscripts)
   become their plain letters, and accented letters split into letter + accent;
2. the accents (combining marks) and the invisible characters (format characters such as
   zero-width spaces and joiners, the soft hyphen, bidi marks; variation selectors) go;
3. Cyrillic, Greek and other letters that look like Latin ones become those (``_LOOKALIKES``,
   a small table from Unicode's confusables data for the letters that matter in words);
4. case folding (``ß`` is ``ss``).

``unleet`` also reads digits and symbols written for letters (``pa$$w0rd``). It is a second
reading, not part of ``fold``: ``2FA`` and ``CVV2`` must keep their digits.

What this is not: a full UTS #39 skeleton (no third-party table is installed here). It covers
the scripts whose letters pass for Latin in a name; a check that must catch a word in another
script lists that word itself (policies/questions.py does, for a few languages).
"""

from __future__ import annotations

import unicodedata

# Letters of other scripts that look like Latin ones (Unicode confusables, the common part).
_LOOKALIKES: dict[str, str] = {
    # Cyrillic
    "а": "a", "в": "b", "е": "e", "ё": "e", "к": "k", "м": "m", "н": "h", "о": "o", "р": "p",
    "с": "c", "т": "t", "у": "y", "х": "x", "ѕ": "s", "і": "i", "ї": "i", "ј": "j", "ԁ": "d",
    "һ": "h", "ԛ": "q", "ԝ": "w", "ӏ": "l", "ɡ": "g", "ү": "y", "ս": "u", "ո": "n", "օ": "o",
    "ց": "g", "զ": "q", "ℓ": "l",
    "А": "a", "В": "b", "Е": "e", "К": "k", "М": "m", "Н": "h", "О": "o", "Р": "p", "С": "c",
    "Т": "t", "У": "y", "Х": "x", "Ѕ": "s", "І": "i", "Ј": "j", "Ԛ": "q", "Ԝ": "w", "Ӏ": "l",
    "Ү": "y",
    # Greek
    "α": "a", "β": "b", "ε": "e", "ι": "i", "κ": "k", "ν": "v", "ο": "o", "ρ": "p", "τ": "t",
    "υ": "u", "χ": "x", "ϲ": "c", "ϳ": "j", "γ": "y", "ω": "w", "η": "n", "μ": "u",
    "Α": "a", "Β": "b", "Ε": "e", "Ζ": "z", "Η": "h", "Ι": "i", "Κ": "k", "Μ": "m", "Ν": "n",
    "Ο": "o", "Ρ": "p", "Τ": "t", "Υ": "y", "Χ": "x", "Ϲ": "c",
    # Latin letters that pass for others
    "ı": "i", "ȷ": "j", "ɑ": "a", "ɩ": "i", "ʏ": "y", "ᴀ": "a", "ᴄ": "c", "ᴅ": "d", "ᴇ": "e",
    "ᴋ": "k", "ᴍ": "m", "ᴏ": "o", "ᴘ": "p", "ᴛ": "t", "ᴜ": "u", "ᴠ": "v", "ᴡ": "w", "ᴢ": "z",
    "ʀ": "r", "ɴ": "n", "ʜ": "h", "ʟ": "l", "ɢ": "g", "ꜱ": "s", "ł": "l", "ø": "o", "đ": "d",
    "ħ": "h", "ŧ": "t", "ƅ": "b",
}  # fmt: skip
_TABLE = str.maketrans(_LOOKALIKES)

# Digits and symbols written for letters: a second reading of a name (``unleet``).
_LEET = str.maketrans(
    {"0": "o", "1": "i", "3": "e", "4": "a", "5": "s", "7": "t", "@": "a", "$": "s", "|": "l"}
)


def _invisible(char: str) -> bool:
    """A character that shows nothing between letters: an accent on the one before, a format
    character (zero-width space, joiners, soft hyphen, bidi marks), a variation selector."""
    category = unicodedata.category(char)
    return category in ("Mn", "Me", "Cf") or "\ufe00" <= char <= "\ufe0f"


def fold(text: str) -> str:
    """``text`` as the plain lower-case Latin it looks like (``Pаsswоrd`` is ``password``)."""
    decomposed = unicodedata.normalize("NFKD", text)
    visible = "".join(char for char in decomposed if not _invisible(char))
    return unicodedata.normalize("NFKC", visible.translate(_TABLE)).casefold()


def unleet(folded: str) -> str:
    """A folded text with digits and symbols read as the letters they stand for (``pa$$w0rd``)."""
    return folded.translate(_LEET)
