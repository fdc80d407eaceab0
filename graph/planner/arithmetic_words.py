"""Arithmetic and units in German, Spanish, French and Dutch, read into the English words
graph/planner/calculation.py and graph/planner/word_problems.py know ("dividido entre" is
"divided by", "kilomètres" is "kilometres"). Kept apart from the general glossary
(graph/planner/languages.py), which merges these in.

A decimal comma ("3,5 kilomètres") is a decimal point in these languages: a reading in English
writes it so, and only where it cannot be a thousands separator (not three digits after it).
"""

from __future__ import annotations

import re

PHRASES: dict[str, dict[str, str]] = {
    "de": {
        "geteilt durch": "divided by",
        "multipliziert mit": "multiplied by",
        "quadratwurzel aus": "square root of",
        "quadratwurzel von": "square root of",
        "durchschnitt von": "average of",
        "wie viele": "how many",
    },
    "es": {
        "dividido entre": "divided by",
        "multiplicado por": "multiplied by",
        "elevado a": "to the power of",
        "raíz cuadrada de": "square root of",
        "promedio de": "average of",
        "media de": "average of",
        "cuántos": "how many",
        "cuántas": "how many",
    },
    "fr": {
        "multiplié par": "multiplied by",
        "racine carrée de": "square root of",
        "moyenne de": "average of",
    },
    "nl": {
        "gedeeld door": "divided by",
        "vermenigvuldigd met": "multiplied by",
        "tot de macht": "to the power of",
        "vierkantswortel van": "square root of",
        "vierkantswortel uit": "square root of",
        "wortel van": "square root of",
        "wortel uit": "square root of",
        "derdemachtswortel van": "cube root of",
        "derdemachtswortel uit": "cube root of",
        "gemiddelde van": "average of",
        "in het kwadraat": "squared",
        "de helft van": "half of",
        "het dubbele van": "double",
    },
}

_UNITS = {
    "de": {
        "kilometer": "kilometres",
        "meter": "metres",
        "zentimeter": "centimetres",
        "meilen": "miles",
        "meile": "mile",
        "stunden": "hours",
        "minuten": "minutes",
        "sekunden": "seconds",
        "tage": "days",
        "gramm": "grams",
        "kilogramm": "kilograms",
        "liter": "litres",
    },
    "es": {
        "kilómetros": "kilometres",
        "metros": "metres",
        "centímetros": "centimetres",
        "millas": "miles",
        "horas": "hours",
        "minutos": "minutes",
        "segundos": "seconds",
        "días": "days",
        "gramos": "grams",
        "kilogramos": "kilograms",
        "litros": "litres",
    },
    "fr": {
        "kilomètres": "kilometres",
        "mètres": "metres",
        "centimètres": "centimetres",
        "heures": "hours",
        "secondes": "seconds",
        "jours": "days",
        "grammes": "grams",
        "kilogrammes": "kilograms",
        "litres": "litres",
        # "3,5 kilomètres en mètres", "renomme la feuille Q3 en T3": what something becomes.
        "en": "to",
    },
    "nl": {
        **dict.fromkeys("kilometer kilometers".split(), "kilometres"),
        **dict.fromkeys("meter meters".split(), "metres"),
        **dict.fromkeys("centimeter centimeters".split(), "centimetres"),
        "mijl": "mile",
        "mijlen": "miles",
        "voet": "feet",
        **dict.fromkeys("gram grammen".split(), "grams"),
        **dict.fromkeys("kilogram kilo kilo's".split(), "kilograms"),
        **dict.fromkeys("liter liters".split(), "litres"),
        "milliliter": "millilitres",
        "graden": "degrees",
        "procent": "percent",
        "fooi": "tip",
    },
}
WORDS: dict[str, dict[str, str]] = {language: dict(units) for language, units in _UNITS.items()}
# Words only these languages write: evidence of the language as any marker is.
MARKERS: dict[str, frozenset[str]] = {
    "de": frozenset({"geteilt", "multipliziert", "quadratwurzel", "durchschnitt", "viele"}),
    "es": frozenset({"dividido", "multiplicado", "elevado", "raíz", "promedio", "cuántos", "cuántas"}),
    "fr": frozenset({"font", "multiplié", "racine", "moyenne", "kilomètres", "mètres", "centimètres"}),
    "nl": frozenset(
        {"gedeeld", "vermenigvuldigd", "vierkantswortel", "wortel", "gemiddelde", "keer", "maal"}
    ),
}

_DECIMAL_COMMA = re.compile(r"(?<![\d,.])(\d+),(\d{1,2}|\d{4,})(?![\d,])")


def with_decimal_points(text: str) -> str:
    """``text`` with each decimal comma written as a point ("3,5" is 3.5; "1,250" is left)."""
    return _DECIMAL_COMMA.sub(r"\1.\2", text)
