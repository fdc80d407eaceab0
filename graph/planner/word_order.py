"""Word order another language uses that a word-for-word reading would get wrong, put in the
order the glossary reads (graph/planner/languages.py calls this before reading the words).

- **Separable verbs.** Dutch splits a verb around what it acts on: "Voeg een rij toe aan het
  blad" is *toevoegen* (add) a row, "Maak een map aan" *aanmaken* (create) a folder, "Geef de
  bestanden weer" *weergeven* (show). The particle ("toe", "aan", "weer") is the first one after
  the verb, in the same clause, that begins nothing: a word such as "aan" that is followed by
  what it is about ("aan het blad", "op 'x'", "op 450") is a preposition, not the verb's
  particle. The verb is read joined, as the glossary knows it, and the particle is dropped.
- **What a setting becomes.** "Zet X op Y" is set X *to* Y: after a verb that sets, the
  preposition before a value is read as "naar" (to); before an article it stays a place ("op
  het blad Begroting" is on the sheet). After a verb that searches, "naar" is what is searched
  for ("Zoek in de map X naar Y").
- **Ranges.** "van 3 tot 8" is from 3 to 8 ("van" is otherwise "of").

Values (quoted text, paths, file names, keys) are never touched: they are blanked before the
words are read (``masked``), so a particle inside a quotation is no particle.
"""

from __future__ import annotations

import re

# Each language's separable verbs: the particle, the verb as an order says it, and the verb
# joined, as the glossary reads it.
_SEPARABLE: dict[str, dict[str, dict[str, str]]] = {
    "nl": {
        "toe": {"voeg": "toevoegen", "wijs": "toewijzen", "pas": "toepassen"},
        "aan": {"maak": "aanmaken", "pas": "aanpassen", "zet": "aanzetten", "roep": "aanroepen"},
        "weer": {"geef": "weergeven"},
        "zien": {"laat": "tonen"},
        "op": {
            "sla": "opslaan", "zoek": "opzoeken", "haal": "ophalen", "tel": "optellen", "som": "opsommen",
            "lijst": "oplijsten", "schrijf": "opschrijven",
        },
        "in": {"stel": "instellen", "schakel": "inschakelen", "voeg": "invoegen", "vul": "invullen"},
        "uit": {
            "voer": "uitvoeren", "zet": "uitzetten", "schakel": "uitschakelen", "nodig": "uitnodigen",
            "zoek": "uitzoeken", "pak": "uitpakken",
        },
        "af": {"sluit": "afsluiten", "wijs": "afwijzen", "trek": "aftrekken"},
        "bij": {"werk": "bijwerken"},
        "door": {"stuur": "doorsturen", "zoek": "doorzoeken"},
        "om": {"zet": "omzetten", "reken": "omrekenen"},
        "terug": {"draai": "terugdraaien", "zet": "terugzetten"},
        "weg": {"haal": "weghalen", "gooi": "weggooien"},
        "samen": {"voeg": "samenvoegen", "vat": "samenvatten"},
        "na": {"kijk": "nakijken"},
        "over": {"sla": "overslaan", "schrijf": "overschrijven"},
        "goed": {"keur": "goedkeuren"},
        "leeg": {"maak": "leegmaken"},
        "ongedaan": {"maak": "ongedaan"},
        "open": {"maak": "openen", "doe": "openen"},
        "dicht": {"doe": "sluiten"},
    },
    # German sends the particle to the end of the clause as Dutch does ("Füge ... hinzu", "Lege
    # ... an", "Sage ... ab"); each verb as an order says it, to a friend or formally ("füg",
    # "füge", "fügen Sie").
    "de": {
        "hinzu": dict.fromkeys(["füge", "füg", "fügen"], "hinzufügen"),
        "an": {
            **dict.fromkeys(["lege", "leg", "legen"], "anlegen"),
            **dict.fromkeys(["zeige", "zeig", "zeigen"], "anzeigen"),
            **dict.fromkeys(["hänge", "häng", "hängen"], "anhängen"),
            **dict.fromkeys(["sieh", "schau", "schaue", "sehen", "schauen"], "ansehen"),
            **dict.fromkeys(["rufe", "ruf", "rufen"], "anrufen"),
            **dict.fromkeys(["halte", "halt", "halten"], "anhalten"),
            **dict.fromkeys(["hefte", "heft", "heften"], "anheften"),
            **dict.fromkeys(["passe", "pass", "passen"], "anpassen"),
        },
        "ein": {
            **dict.fromkeys(["füge", "füg", "fügen"], "einfügen"),
            **dict.fromkeys(["trage", "trag", "tragen"], "eintragen"),
            **dict.fromkeys(["stelle", "stell", "stellen"], "einstellen"),
            **dict.fromkeys(["schalte", "schalt", "schalten"], "einschalten"),
            **dict.fromkeys(["lade", "lad", "laden"], "einladen"),
            **dict.fromkeys(["plane", "plan", "planen"], "einplanen"),
        },
        "aus": {
            **dict.fromkeys(["führe", "führ", "führen"], "ausführen"),
            **dict.fromkeys(["schalte", "schalt", "schalten"], "ausschalten"),
            **dict.fromkeys(["gib", "geben"], "anzeigen"),
            **dict.fromkeys(["lies", "lesen"], "auslesen"),
        },
        "ab": {
            **dict.fromkeys(["sage", "sag", "sagen"], "absagen"),
            **dict.fromkeys(["schließe", "schließ", "schließen"], "abschließen"),
            **dict.fromkeys(["hake", "hak", "haken"], "abhaken"),
            **dict.fromkeys(["rufe", "ruf", "rufen"], "abrufen"),
            **dict.fromkeys(["brich", "brechen"], "abbrechen"),
            **dict.fromkeys(["frage", "frag", "fragen"], "abfragen"),
        },
        "auf": {
            **dict.fromkeys(["liste", "listen"], "auflisten"),
            **dict.fromkeys(["rufe", "ruf", "rufen"], "aufrufen"),
            **dict.fromkeys(["mache", "mach", "machen"], "öffnen"),
            **dict.fromkeys(["räume", "räum", "räumen"], "bereinigen"),
        },
        "um": {
            **dict.fromkeys(["benenne", "benenn", "benennen"], "umbenennen"),
            **dict.fromkeys(["rechne", "rechnen"], "umrechnen"),
            **dict.fromkeys(["wandle", "wandeln"], "umwandeln"),
        },
        "zu": {
            **dict.fromkeys(["weise", "weis", "weisen"], "zuweisen"),
            **dict.fromkeys(["ordne", "ordnen"], "zuordnen"),
            **dict.fromkeys(["mache", "mach", "machen"], "schließen"),
        },
        "zurück": {
            **dict.fromkeys(["setze", "setz", "setzen"], "zurücksetzen"),
            **dict.fromkeys(["nimm", "nehmen"], "rückgängig"),
            **dict.fromkeys(["rufe", "ruf", "rufen"], "anrufen"),
            **dict.fromkeys(["hole", "hol", "holen"], "wiederherstellen"),
        },
        "her": dict.fromkeys(["stelle", "stell", "stellen"], "wiederherstellen"),
        "weiter": dict.fromkeys(["leite", "leit", "leiten"], "weiterleiten"),
        "hoch": dict.fromkeys(["lade", "lad", "laden"], "hochladen"),
        "herunter": dict.fromkeys(["lade", "lad", "laden"], "herunterladen"),
        "runter": dict.fromkeys(["lade", "lad", "laden"], "herunterladen"),
        "nach": {
            **dict.fromkeys(["sieh", "sehen"], "nachsehen"),
            **dict.fromkeys(["schau", "schaue", "schauen"], "nachschauen"),
            **dict.fromkeys(["schlage", "schlag", "schlagen"], "nachschlagen"),
        },
        "fest": dict.fromkeys(["lege", "leg", "legen"], "festlegen"),
        "frei": dict.fromkeys(["gib", "geben"], "freigeben"),
        "fort": dict.fromkeys(["setze", "setz", "setzen"], "fortsetzen"),
        "zusammen": {
            **dict.fromkeys(["fasse", "fass", "fassen"], "zusammenfassen"),
            **dict.fromkeys(["führe", "führ", "führen"], "zusammenführen"),
        },
        "vor": dict.fromkeys(["lies", "lesen"], "vorlesen"),
        "durch": dict.fromkeys(["suche", "such", "suchen"], "durchsuchen"),
    },
}  # fmt: skip
# Words that begin what a preposition is about ("aan het blad", "op de server"): after one, a
# particle-like word is a preposition.
_DETERMINERS: dict[str, frozenset[str]] = {
    "nl": frozenset(
        "de het een mijn je jouw uw zijn haar hun ons onze deze die dit dat elke elk iedere alle "
        "alles welke geen".split()
    ),
    # And the pronouns a German preposition takes ("an mich", "für uns").
    "de": frozenset(
        "der die das den dem des ein eine einen einem einer eines mein meine meinen meinem meiner meines "
        "dein deine deinen deinem deiner unser unsere unseren unserem unserer ihr ihre ihren ihrem ihrer "
        "sein seine seinen seinem seiner diese dieser dieses diesen diesem alle allen allem jede jeden "
        "jedem jeder kein keine keinen keinem welche welchen welchem mich dich ihn sie uns euch mir dir "
        "ihm es".split()
    ),
}
# A preposition that, after one of these verbs and before a value, says what something becomes:
# read as the word given ("naar", to). "in" only before a quotation or a number ("Verander de
# status in 'klaar'"), and never where the clause already says "naar" ("Wijzig de waarde in cel
# B2 naar 5").
_BECOMES: dict[str, dict[str, tuple[frozenset[str], str]]] = {
    "nl": {
        "op": (frozenset("zet zetten stel instellen".split()), "naar"),
        "in": (frozenset("verander veranderen wijzig wijzigen aanpassen".split()), "naar"),
        "over": (frozenset("verdeel verdelen".split()), "tussen"),
        # "Zoek in de map X naar Y": what is searched for.
        "naar": (frozenset("zoek zoeken doorzoek doorzoeken".split()), "voor"),
    },
    # "Suche in den Notizen nach Hermes": what is searched for.
    "de": {"nach": (frozenset("suche such suchen durchsuche durchsuchen".split()), "für")},
}
_ONLY_BEFORE_VALUES = {"in"}
# Languages that capitalise every noun: a capitalised word after a particle begins what the
# particle is about, and a capitalised word inside a clause is no verb.
_NOUNS_CAPITALISED = frozenset({"de"})
_WHATEVER_FOLLOWS = {"naar", "nach"}
_JOINERS = frozenset("en of dan daarna und oder dann danach".split())
# "van 3 tot 8", "van A1 tot C5": a range, from one to the other.
_RANGES: dict[str, tuple[re.Pattern[str], str]] = {
    "nl": (re.compile(r"\bvan(\s+\S+\s+)(?=tot\b)", re.IGNORECASE), r"vanaf\1"),
}

_WORD = re.compile(r"(?<![\w\x00])[^\W\d_]+(?:['’-][^\W\d_]+)*(?![\w\x00])", re.UNICODE)
_CLAUSE_END = re.compile(r"[.?!;\n]")
BLANK = "\x00"


def _edited(text: str, edits: list[tuple[int, int, str]]) -> str:
    for start, end, replacement in sorted(edits, reverse=True):
        text = text[:start] + replacement + text[end:]
    return text


def _clauses(masked: str) -> list[list[re.Match[str]]]:
    """The words of each clause, outside values."""
    clauses: list[list[re.Match[str]]] = [[]]
    last = 0
    for match in _WORD.finditer(masked):
        if _CLAUSE_END.search(masked, last, match.start()):
            clauses.append([])
        clauses[-1].append(match)
        last = match.end()
    return clauses


def _begins_something(masked: str, end: int, language: str) -> bool:
    """Whether what follows position ``end`` is what a preposition there would be about: a
    value, a number, or a word that begins a noun phrase."""
    rest = masked[end:].lstrip(" \t")
    if not rest:
        return False
    if rest[0] == BLANK or rest[0].isdigit() or rest[0] in "\"'“«":
        return True
    following = _WORD.match(rest)
    if following is not None and language in _NOUNS_CAPITALISED and following.group(0)[:1].isupper():
        return True  # "ein Bild", "an Lena": a noun or a name
    return following is not None and following.group(0).lower() in _DETERMINERS[language]


def _is_verb(clause: list[re.Match[str]], index: int, stems: set[str], language: str) -> bool:
    """Whether the clause's word at ``index`` is one of the verbs ``stems``: in German a
    capitalised word inside a clause is a noun ("der Liste"), never the verb."""
    word = clause[index].group(0)
    if language in _NOUNS_CAPITALISED and index > 0 and word[:1].isupper():
        return False
    return word.lower() in stems


def _separable(text: str, masked: str, language: str) -> list[tuple[int, int, str]]:
    table = _SEPARABLE[language]
    stems = {stem for verbs in table.values() for stem in verbs}
    edits: list[tuple[int, int, str]] = []
    for clause in _clauses(masked):
        taken: set[int] = set()
        for index, verb in enumerate(clause):
            stem = verb.group(0).lower()
            if not _is_verb(clause, index, stems, language):
                continue
            for offset, later in enumerate(clause[index + 1 :], start=index + 1):
                word = later.group(0).lower()
                if _is_verb(clause, offset, stems, language):
                    break  # the next verb's particles are its own
                joined = table.get(word, {}).get(stem)
                if (
                    joined is None
                    or later.start() in taken
                    or _begins_something(masked, later.end(), language)
                ):
                    continue
                taken.add(later.start())
                edits.append((verb.start(), verb.end(), joined))
                # The particle goes, with the space before it.
                start = later.start()
                while start > 0 and text[start - 1] in " \t":
                    start -= 1
                edits.append((start, later.end(), ""))
                break
    return edits


def _becomes(masked: str, language: str) -> list[tuple[int, int, str]]:
    edits: list[tuple[int, int, str]] = []
    for clause in _clauses(masked):
        words = [m.group(0).lower() for m in clause]
        for index, preposition in enumerate(clause):
            rule = _BECOMES[language].get(words[index])
            governed = words[:index]
            if words[index] in _WHATEVER_FOLLOWS:
                # Only by a verb of its own part of the clause ("Zoek X en kopieer het naar Y").
                joins = [i for i, word in enumerate(governed) if word in _JOINERS]
                governed = governed[joins[-1] + 1 :] if joins else governed
            if rule is None or not set(governed) & rule[0]:
                continue
            rest = masked[preposition.end() :].lstrip(" \t")
            if words[index] in _ONLY_BEFORE_VALUES and (
                "naar" in words or not rest or not (rest[0] == BLANK or rest[0].isdigit())
            ):
                continue
            following = _WORD.match(rest)
            if words[index] not in _WHATEVER_FOLLOWS and (
                not rest or (following is not None and following.group(0).lower() in _DETERMINERS[language])
            ):
                continue
            edits.append((preposition.start(), preposition.end(), rule[1]))
    return edits


def in_reading_order(text: str, masked: str, language: str) -> str:
    """``text`` with its separable verbs joined and its prepositions read as what they say here
    (``masked`` is ``text`` with its values blanked, letter for letter); ``text`` as it is for a
    language with no such rules."""
    if language not in _SEPARABLE:
        return text
    # What a setting becomes is read on the words as written ("zet" sets), before any verb is joined.
    becomes = _becomes(masked, language)
    text, masked = _edited(text, becomes), _edited(masked, becomes)
    joined = _separable(text, masked, language)
    text = _edited(text, joined)
    if language not in _RANGES:
        return text
    pattern, replacement = _RANGES[language]
    return pattern.sub(replacement, text)
