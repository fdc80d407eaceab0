"""Numbers another language writes as one word, read as the English number words the planner
knows (graph/planner/quantities.py reads those): Dutch joins a number's words into one,
"vijfentwintig" (five-and-twenty) is twenty-five and "tweehonderdvijftig" two hundred and fifty.
A small number that is a word of its own ("drie", "zeventien") is in the glossary
(graph/planner/glossary.py); this module reads the joined ones. Nothing here computes: a
number read is written in English words, for the rules that read English."""

from __future__ import annotations

from graph.planner.quantities import SMALL, TENS

_ENGLISH_SMALL = {n: word for word, n in SMALL.items()}
_ENGLISH_TENS = {n: word for word, n in TENS.items()}

# Dutch: the units, ten to nineteen, the tens; "een" is also "a", so only "één" is one alone.
_DUTCH_UNITS = {
    **{w: n for n, w in enumerate("nul één twee drie vier vijf zes zeven acht negen".split())},
    "een": 1,
}
_DUTCH_TEENS = {
    w: n
    for n, w in enumerate(
        "tien elf twaalf dertien veertien vijftien zestien zeventien achttien negentien".split(), 10
    )
}
_DUTCH_TENS = {
    w: 10 * n
    for n, w in enumerate("twintig dertig veertig vijftig zestig zeventig tachtig negentig".split(), 2)
}


def _dutch_below_hundred(word: str) -> int | None:
    if word in _DUTCH_TEENS:
        return _DUTCH_TEENS[word]
    if word in _DUTCH_TENS:
        return _DUTCH_TENS[word]
    if word in _DUTCH_UNITS and word != "nul":
        return _DUTCH_UNITS[word]
    # "eenentwintig", "tweeëntwintig": the unit, "en" (ën after an e), the tens.
    for tens_word, tens in _DUTCH_TENS.items():
        if word.endswith(tens_word):
            head = word[: -len(tens_word)]
            for joiner in ("en", "ën"):
                unit = head[: -len(joiner)] if head.endswith(joiner) else None
                if unit and unit in _DUTCH_UNITS and 0 < _DUTCH_UNITS[unit] < 10:
                    return tens + _DUTCH_UNITS[unit]
    return None


def _dutch_below_thousand(word: str) -> int | None:
    if "honderd" not in word:
        return _dutch_below_hundred(word)
    head, _, rest = word.partition("honderd")
    # "honderd", "tweehonderd", "elfhonderd" (eleven hundred); then what follows it, joined.
    hundreds = 1 if not head else _dutch_below_hundred(head)
    if hundreds is None or not 0 < hundreds < 20:
        return None
    below = 0 if not rest else _dutch_below_hundred(rest.removeprefix("en"))
    return None if below is None else hundreds * 100 + below


def dutch_number(word: str) -> int | None:
    """The number a Dutch word writes ("drieëntwintig" is 23, "duizendtweehonderd" 1200);
    None for a word that is no number, and for "een", which is also "a"."""
    word = word.lower()
    if word == "een":
        return None
    if word in _DUTCH_UNITS:
        return _DUTCH_UNITS[word]
    if "duizend" not in word:
        return _dutch_below_thousand(word)
    head, _, rest = word.partition("duizend")
    thousands = 1 if not head else _dutch_below_thousand(head)
    below = 0 if not rest else _dutch_below_thousand(rest.removeprefix("en"))
    if thousands is None or below is None or not 0 < thousands < 1000:
        return None
    return thousands * 1000 + below


def english_words(number: int) -> str:
    """``number`` (0 to 999,999) in English words: 25 is "twenty-five", 102 "one hundred and two"."""
    if number < 20:
        return _ENGLISH_SMALL[number]
    if number < 100:
        tens, unit = divmod(number, 10)
        return _ENGLISH_TENS[tens * 10] + (f"-{_ENGLISH_SMALL[unit]}" if unit else "")
    if number < 1000:
        hundreds, rest = divmod(number, 100)
        return f"{_ENGLISH_SMALL[hundreds]} hundred" + (f" and {english_words(rest)}" if rest else "")
    thousands, rest = divmod(number, 1000)
    joiner = " and " if 0 < rest < 100 else " "
    return f"{english_words(thousands)} thousand" + (f"{joiner}{english_words(rest)}" if rest else "")


# Each language whose numbers are joined words, and its reader.
READERS = {"nl": dutch_number}


def in_english(word: str, language: str) -> str | None:
    """``word`` read as a number of ``language``, in English words; None when it is none."""
    reader = READERS.get(language)
    number = reader(word) if reader is not None else None
    return None if number is None else english_words(number)
