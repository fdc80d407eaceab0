"""Requests written in German, Spanish, French, Italian, Portuguese or Dutch, read in English words.

The planner's word tables and the embedding model (graph/planner/similarity.py) are English;
a request such as "zeige die Dateien im Ordner /srv" shares no word with list_directory. This
module recognises a request in one of these languages by its function words, and gives it
word for word in English from a small glossary of what operators ask for (verbs such as show,
write, delete; nouns such as file, folder, time). Values are left exactly as written: quoted
text, paths, file names, addresses, numbers and words the glossary does not know (names,
places). Where a language orders its words unlike English (Dutch splits a verb around what it
acts on: "Voeg een rij toe"), graph/planner/word_order.py puts them in the order the glossary
reads first. The English is rough, so a planner treats it with less confidence (it asks rather
than runs when two capabilities come close, and before anything acts).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from graph.planner import arithmetic_words, glossary, number_words, tool_words, word_order
from graph.planner.quantities import SMALL
from graph.planner.text import compiled

# Words that mark a language and are not English words (nor common values): the language
# with most of them, at least two, is the request's.
_MARKERS: dict[str, frozenset[str]] = {
    "de": frozenset(
        "der die das und ist ich mir mich bitte nicht ein eine einen im auf mit von für dem den des "
        "wie spät welche zeige zeig datei dateien ordner alle neue neuen es uhr jetzt gibt "
        "lösche schreibe erstelle suche finde sende schicke heute morgen gestern wieviel viel".split()
    ),
    "es": frozenset(
        "el los las del qué que por favor una es está muestra muéstrame en hora archivo archivos "
        "carpeta con para mis y crea borra elimina escribe busca envía ahora hoy cuál cuánto cuánta "
        "lee dame".split()
    ),
    "fr": frozenset(
        "le les des du est une quel quelle quels quelles dans pour avec moi fichier fichiers dossier "
        "heure et je mes il montre affiche crée supprime écris cherche envoie maintenant aujourd'hui "
        "combien lis donne-moi montre-moi".split()
    ),
}
_MARKERS |= glossary.MARKERS
LANGUAGE_NAMES = {
    "de": "German",
    "es": "Spanish",
    "fr": "French",
    "it": "Italian",
    "pt": "Portuguese",
    "nl": "Dutch",
}
# Glossary words that are English words too: no evidence of another language.
_ENGLISH = (
    frozenset(
        "a an in on the me my for with is it to was date plus note person mal as no do nos e i o "
        "file files data database formula repository text name come con da ora mi su al ai chi dove due "
        "ore leg hat base favor change client clients structure observation pasta sobre bd uno una".split()
    )
    | tool_words.ENGLISH_TOO
)

# Phrases first (they would be read wrongly word by word), then words. Each maps to English
# words the planner's tables know.
_PHRASES: dict[str, dict[str, str]] = {
    "de": {
        "wie spät": "what time",
        "wie viel uhr": "what time",
        "wie viel": "how much",
        "was ist": "what is",
        "merk dir": "remember",
        "merke dir": "remember",
        "lege an": "create",
        "leg an": "create",
        "benenne um": "rename",
    },
    "es": {
        "qué hora": "what time",
        "que hora": "what time",
        "zona horaria": "timezone",
        "cambia el nombre": "rename",
        "cuánto es": "what is",
        "cuanto es": "what is",
        "por favor": "please",
        "dividido por": "divided by",
    },
    "fr": {
        "quelle heure": "what time",
        "fuseau horaire": "timezone",
        "mets à jour": "update",
        "met à jour": "update",
        "s'il te plaît": "please",
        "s'il vous plaît": "please",
        "souviens-toi": "remember",
        "combien font": "what is",
        "divisé par": "divided by",
    },
}

_WORDS: dict[str, dict[str, str]] = {
    "de": {
        **dict.fromkeys("zeige zeig zeigen anzeigen".split(), "show"),
        **dict.fromkeys("liste auflisten".split(), "list"),
        **dict.fromkeys("lies lese lesen".split(), "read"),
        **dict.fromkeys("schreibe schreib schreiben speichere".split(), "write"),
        **dict.fromkeys("erstelle erstellen anlegen erzeuge".split(), "create"),
        **dict.fromkeys("lösche löschen entferne entfernen".split(), "delete"),
        **dict.fromkeys("verschiebe verschieben".split(), "move"),
        **dict.fromkeys("umbenennen benenne".split(), "rename"),
        **dict.fromkeys("kopiere kopieren".split(), "copy"),
        **dict.fromkeys("suche suchen such finde finden".split(), "search"),
        **dict.fromkeys("sende senden schicke schicken".split(), "send"),
        **dict.fromkeys("datei".split(), "file"),
        **dict.fromkeys("dateien".split(), "files"),
        **dict.fromkeys("ordner verzeichnis".split(), "folder"),
        **dict.fromkeys("uhrzeit zeit spät".split(), "time"),
        "datum": "date",
        "jetzt": "now",
        "stunde": "hour",
        **dict.fromkeys("aktuelle aktuellen aktuell".split(), "current"),
        **dict.fromkeys("umrechnen rechne konvertiere".split(), "convert"),
        "zeitzone": "timezone",
        **dict.fromkeys("änderungen".split(), "changes"),
        **dict.fromkeys("zweig".split(), "branch"),
        **dict.fromkeys("zweige".split(), "branches"),
        **dict.fromkeys("verlauf historie".split(), "history"),
        "notiz": "note",
        **dict.fromkeys("merke merk".split(), "remember"),
        **dict.fromkeys("addiere".split(), "add"),
        **dict.fromkeys("berechne".split(), "calculate"),
        **dict.fromkeys("nachricht".split(), "message"),
        **dict.fromkeys("öffne".split(), "open"),
        **dict.fromkeys("schließe".split(), "close"),
        **dict.fromkeys("aktualisiere ändere".split(), "update"),
        **dict.fromkeys("neue neuen neu neues".split(), "new"),
        "alle": "all",
        "heute": "today",
        "morgen": "tomorrow",
        "gestern": "yesterday",
        "inhalt": "contents",
        **dict.fromkeys("was welche welcher".split(), "what"),
        **dict.fromkeys("im".split(), "in the"),
        **dict.fromkeys("der die das den dem des".split(), "the"),
        **dict.fromkeys("ein eine einen".split(), "a"),
        **dict.fromkeys("mir mich".split(), "me"),
        **dict.fromkeys("meine meinen mein".split(), "my"),
        "bitte": "please",
        "und": "and",
        "von": "of",
        "für": "for",
        "mit": "with",
        "ist": "is",
        "es": "it",
        "nach": "to",
        "an": "to",
        "auf": "on",
        "mal": "times",
        "durch": "divided by",
        "wo": "where",
        "wer": "who",
        "wie": "how",
        "gibt": "is there",
        "letzte": "last",
        "letzten": "last",
        "eintrag": "entry",
        "person": "person",
        "kalender": "calendar",
        "wetter": "weather",
        **dict.fromkeys("regnet regnen regen".split(), "rain"),
    },
    "es": {
        **dict.fromkeys("muestra muéstrame mostrar enséñame enseña".split(), "show"),
        **dict.fromkeys("lista listar enumera".split(), "list"),
        **dict.fromkeys("lee leer".split(), "read"),
        **dict.fromkeys("escribe escribir guarda".split(), "write"),
        **dict.fromkeys("crea crear".split(), "create"),
        **dict.fromkeys("borra borrar elimina eliminar".split(), "delete"),
        **dict.fromkeys("mueve mover".split(), "move"),
        **dict.fromkeys("renombra renombrar".split(), "rename"),
        **dict.fromkeys("copia copiar".split(), "copy"),
        **dict.fromkeys("busca buscar encuentra".split(), "search"),
        **dict.fromkeys("envía envia enviar manda".split(), "send"),
        **dict.fromkeys("archivo fichero".split(), "file"),
        **dict.fromkeys("archivos ficheros".split(), "files"),
        **dict.fromkeys("carpeta directorio".split(), "folder"),
        "hora": "time",
        "fecha": "date",
        "ahora": "now",
        **dict.fromkeys("actual".split(), "current"),
        **dict.fromkeys("convierte convertir".split(), "convert"),
        "cambios": "changes",
        "rama": "branch",
        "ramas": "branches",
        "historial": "history",
        "nota": "note",
        **dict.fromkeys("recuerda".split(), "remember"),
        **dict.fromkeys("suma sumar".split(), "add"),
        **dict.fromkeys("calcula".split(), "calculate"),
        **dict.fromkeys("mensaje".split(), "message"),
        **dict.fromkeys("correo".split(), "email"),
        "abre": "open",
        "cierra": "close",
        "actualiza": "update",
        **dict.fromkeys("nuevo nueva".split(), "new"),
        **dict.fromkeys("todos todas".split(), "all"),
        "hoy": "today",
        "mañana": "tomorrow",
        "ayer": "yesterday",
        "contenido": "contents",
        **dict.fromkeys("qué que cuál".split(), "what"),
        **dict.fromkeys("el la los las".split(), "the"),
        **dict.fromkeys("de del".split(), "of"),
        **dict.fromkeys("un una".split(), "a"),
        **dict.fromkeys("mi mis".split(), "my"),
        "dame": "give me",
        "en": "in",
        "y": "and",
        "para": "for",
        "con": "with",
        "es": "is",
        "más": "plus",
        "menos": "minus",
        "dónde": "where",
        "quién": "who",
        **dict.fromkeys("llover lloverá llueve lluvia".split(), "rain"),
        "clima": "weather",
        "último": "last",
        "últimos": "last",
    },
    "fr": {
        **dict.fromkeys("montre montre-moi affiche afficher".split(), "show"),
        **dict.fromkeys("liste lister".split(), "list"),
        **dict.fromkeys("lis lire".split(), "read"),
        **dict.fromkeys("écris écrire enregistre".split(), "write"),
        **dict.fromkeys("crée créer".split(), "create"),
        **dict.fromkeys("supprime supprimer efface".split(), "delete"),
        **dict.fromkeys("déplace déplacer".split(), "move"),
        **dict.fromkeys("renomme renommer".split(), "rename"),
        **dict.fromkeys("copie copier".split(), "copy"),
        **dict.fromkeys("cherche chercher recherche trouve".split(), "search"),
        **dict.fromkeys("envoie envoyer".split(), "send"),
        "fichier": "file",
        "fichiers": "files",
        **dict.fromkeys("dossier répertoire".split(), "folder"),
        "heure": "time",
        "date": "date",
        "maintenant": "now",
        **dict.fromkeys("actuelle actuel".split(), "current"),
        **dict.fromkeys("convertis convertir".split(), "convert"),
        **dict.fromkeys("modifications changements".split(), "changes"),
        "branche": "branch",
        "historique": "history",
        **dict.fromkeys("retiens".split(), "remember"),
        **dict.fromkeys("additionne".split(), "add"),
        **dict.fromkeys("calcule".split(), "calculate"),
        **dict.fromkeys("courriel".split(), "email"),
        "ouvre": "open",
        "ferme": "close",
        **dict.fromkeys("nouveau nouvelle".split(), "new"),
        **dict.fromkeys("tous toutes".split(), "all"),
        "aujourd'hui": "today",
        "demain": "tomorrow",
        "hier": "yesterday",
        "contenu": "contents",
        **dict.fromkeys("quel quelle quels quelles quoi".split(), "what"),
        **dict.fromkeys("le la les".split(), "the"),
        **dict.fromkeys("de du des".split(), "of"),
        **dict.fromkeys("un une".split(), "a"),
        **dict.fromkeys("mon ma mes".split(), "my"),
        "donne-moi": "give me",
        "moi": "me",
        "dans": "in",
        "et": "and",
        "pour": "for",
        "avec": "with",
        "est": "is",
        "à": "to",
        "sur": "on",
        "où": "where",
        "qui": "who",
        "dernier": "last",
        "derniers": "last",
        "plus": "plus",
        "moins": "minus",
        "fois": "times",
        **dict.fromkeys("météo temps".split(), "weather"),
        **dict.fromkeys("pleuvoir pleut pluie".split(), "rain"),
    },
}

# A word is letters between non-word characters: the letters of a token that mixes them with
# digits ("y80F8Y240", a key, an id) are no word of any language and never translated.
# A database's and a key-value store's nouns, so "la clé site:mode" and "die Tabelle orders"
# reach the tools that take a key or a table. (No word spelled as in English, "table": every
# glossary word also marks its language.)
_STORE_WORDS: dict[str, dict[str, str]] = {
    "de": {
        "schlüssel": "key",
        "wert": "value",
        "tabelle": "table",
        "tabellen": "tables",
        "spalte": "column",
        "spalten": "columns",
        "datenbank": "database",
    },
    "es": {
        "clave": "key",
        "claves": "keys",
        "valor": "value",
        "tabla": "table",
        "tablas": "tables",
        "columna": "column",
        "columnas": "columns",
    },
    "fr": {
        "clé": "key",
        "clef": "key",
        "clés": "keys",
        "valeur": "value",
        "colonne": "column",
        "colonnes": "columns",
    },
}
for _language, _nouns in _STORE_WORDS.items():
    for _word, _english in _nouns.items():
        _WORDS[_language].setdefault(_word, _english)
# The general vocabulary (graph/planner/glossary.py): the tables above keep their choices.
for _language, _glossed in glossary.WORDS.items():
    _WORDS.setdefault(_language, {})
    for _word, _english in _glossed.items():
        _WORDS[_language].setdefault(_word, _english)
for _language, _phrased in glossary.PHRASES.items():
    _PHRASES.setdefault(_language, {})
    for _phrase, _english in {**_phrased, **glossary.PLACES}.items():
        _PHRASES[_language].setdefault(_phrase, _english)

# "halb drei" (German) and "half drie" (Dutch) are half an hour before three, 2:30, where the
# English "half three" is half past it (graph/planner/clock_words.py): read as "half past two".
_HALF_BEFORE_THE_HOUR = {"de": ("halb", "eins"), "nl": ("half", "een")}
for _language, (_half, _one) in _HALF_BEFORE_THE_HOUR.items():
    _hours = {w: SMALL[e] for w, e in _WORDS[_language].items() if 0 < SMALL.get(e, 0) <= 12} | {_one: 1}
    for _word, _hour in _hours.items():
        _PHRASES[_language][f"{_half} {_word}"] = (
            f"half past {number_words.english_words((_hour - 2) % 12 + 1)}"
        )
# "drei Uhr nachmittags": the part of the day an hour is in, which makes it 15:00, not 03:00.
_PHRASES["de"] |= {
    "morgens": "in the morning",
    "vormittags": "in the morning",
    "nachmittags": "in the afternoon",
    "abends": "in the evening",
    "nachts": "at night",
}

_WORD = re.compile(r"(?<!\w)[^\W\d_]+(?:['’-][^\W\d_]+)*(?!\w)", re.UNICODE)
# Values the operator wrote: kept exactly (quoted text, addresses, URIs, paths, file names).
# Quoted text may hold an apostrophe between letters ("'Réunion d'équipe'", "'l'ordine'").
_VALUE = re.compile(
    r""""[^"]*"|“[^”]*”|«[^»]*»|(?<!\w)'(?:[^']|(?<=\w)'(?=\w))*'(?!\w)|\S+@\S+|\b\w+://\S+|\S*/\S*|\b[\w-]+\.[A-Za-z][\w]{0,7}\b"""
    # A key or a label with a colon inside ("tema:color", "config:*"): a value, as written.
    r"""|(?<![\w:])[A-Za-z_][\w.-]*:[\w.*:-]+"""
    # A name that mixes letters and digits across a joiner ("release-2026", "Q3-final"): a value.
    r"""|(?<![\w-])(?=[\w-]*\d)(?=[\w-]*[^\W\d_])[\w]+(?:-[\w]+)+"""
)


@dataclass(frozen=True)
class Reading:
    """A request as the planner reads it: its language (None for English) and its text in
    English words (the request itself when it is English)."""

    language: str | None
    text: str
    # The request's words no glossary reads, as written (not values, numbers or names): what
    # the English reading leaves in the other language, for a planner to judge against the
    # words its capabilities use.
    untranslated: tuple[str, ...] = ()

    @property
    def foreign(self) -> bool:
        return self.language is not None


# Arithmetic and units (graph/planner/arithmetic_words.py) are read as the rest is.
for _language in _PHRASES:
    _PHRASES[_language] = {**arithmetic_words.PHRASES.get(_language, {}), **_PHRASES[_language]}
    _WORDS[_language] = {**arithmetic_words.WORDS.get(_language, {}), **_WORDS[_language]}
    _MARKERS[_language] = _MARKERS[_language] | arithmetic_words.MARKERS.get(_language, frozenset())


@lru_cache(maxsize=1)
def _markers() -> dict[str, frozenset[str]]:
    """Each language's marker words and the words of its glossary (less English ones, and less
    the words it shares with a neighbour: glossary.SHARED)."""
    return {
        language: (markers | frozenset(_WORDS[language]))
        - _ENGLISH
        - glossary.SHARED.get(language, frozenset())
        for language, markers in _MARKERS.items()
    }


def _particles_of_names(written: list[str], particles: frozenset[str]) -> set[int]:
    """The positions of ``written`` (a request's words as written) that join a family name: a
    run of "van", "de", "der" ... before a capitalised word, that starts with "van" or follows
    a first name ("customer van Dijk", "Jan van der Berg", "Pieter de Vries"; not "Toon de
    Excel-bestanden", where "de" is the article)."""
    found: set[int] = set()
    index = 0
    while index < len(written):
        end = index
        while end < len(written) and written[end] in particles:
            end += 1
        named = end < len(written) and end > index and written[end][:1].isupper()
        if named and (written[index] == "van" or (index > 1 and written[index - 1][:1].isupper())):
            found.update(range(index, end))
        index = max(end, index + 1)
    return found


def detect(text: str) -> str | None:
    """ "de", "es", "fr", "it", "pt" or "nl" when the request is written in that language; None
    otherwise."""
    written = _WORD.findall(_VALUE.sub(" ", text))
    tokens = [t.lower() for t in written]
    counts = {}
    for language, markers in _markers().items():
        names = _particles_of_names(written, glossary.NAME_PARTICLES.get(language, frozenset()))
        counts[language] = sum(
            1
            for i, t in enumerate(tokens)
            if (t in markers or number_words.in_english(t, language))
            and i not in names
            # A word in capitals is an abbreviation ("CET", "[DIR]"), no word of a language.
            and not (len(t) > 1 and written[i].isupper())
        )
    language, found = max(counts.items(), key=lambda item: item[1])
    # Two marker words (one in a request of three words or fewer), and more than any other language.
    needed = 1 if len(tokens) <= 3 else 2
    others = [n for other, n in counts.items() if other != language]
    if found >= needed and found > max(others):
        return language
    return None


@lru_cache(maxsize=8)
def _phrase_or_word(language: str) -> re.Pattern[str]:
    """A language's phrases (longest first) or else a word: one pass reads both, so a phrase's
    English is never read again as the language's words ("of" is Dutch for "or")."""
    phrases = sorted(_PHRASES[language], key=len, reverse=True)
    return re.compile(
        r"(?P<phrase>\b(?:" + "|".join(re.escape(p) for p in phrases) + r")\b)|" + _WORD.pattern,
        re.IGNORECASE,
    )


_SENTENCE_START = re.compile(r"(?:^|[.?!:\n])[\s\"'“«(¿¡]*$")


def _compound(word: str, language: str) -> str | None:
    """A compound of two nouns the glossary knows, in English ("bestandsnaam" is bestand + s +
    naam, "file name"; "klantnummer" "customer number"); None when it is none."""
    nouns = glossary.COMPOUND_NOUNS.get(language, frozenset())
    lowered = word.lower()
    for cut in range(len(lowered) - 3, 2, -1):
        head, tail = lowered[:cut], lowered[cut:]
        if tail not in nouns:
            continue
        for joiner in ("", "s", "en", "e"):
            if joiner and not head.endswith(joiner):
                continue
            first = head[: len(head) - len(joiner)]
            if first in nouns:
                return f"{_WORDS[language][first]} {_WORDS[language][tail]}"
    return None


def _with_clitics(written: str, language: str) -> str | None:
    """A verb written with the pronouns it takes after a hyphen, in English ("ai-je" is "have
    I", "mostre-me" "show me", "a-t-il" "has it"); None unless every part reads."""
    clitics = glossary.CLITICS.get(language)
    parts = written.lower().split("-")
    if clitics is None or len(parts) < 2 or parts[0] not in _WORDS[language]:
        return None
    read_parts = [_WORDS[language][parts[0]]] + [clitics.get(part) for part in parts[1:]]
    if any(part is None for part in read_parts):
        return None
    return " ".join(part for part in read_parts if part)


def _elided(written: str, language: str) -> tuple[str, str] | None:
    """A word that begins with an article, a preposition or a pronoun elided before it, as that
    word in English and the rest as written ("l'attività": "the", "attività"; "d'équipe": "of",
    "équipe"); None for a word the glossary reads whole ("aujourd'hui") or any other."""
    if written.lower() in _WORDS[language]:
        return None
    match = re.match(r"([^\W\d_]+['’])(\w.*)$", written)
    if match is None:
        return None
    english = glossary.ELISIONS.get(language, {}).get(match.group(1).lower().replace("’", "'"))
    return None if english is None else (english, match.group(2))


def _word_in_english(written: str, language: str) -> str | None:
    """One word of ``language`` in English words; None when nothing reads it."""
    lowered = written.lower()
    english = _WORDS[language].get(lowered) or number_words.in_english(lowered, language)
    if english is None and "-" in written:
        english = _with_clitics(written, language)
    if english is not None or language not in glossary.COMPOUND_NOUNS:
        return english
    if "-" in written:
        # "Word-bestanden", "csv-bestand": each part, names and unknown parts as written.
        parts = written.split("-")
        read_parts = [_word_in_english(part, language) for part in parts]
        if read_parts[-1] is None:
            return None
        return " ".join(english or part for part, english in zip(parts, read_parts, strict=True))
    return _compound(written, language) if len(written) > 6 else None


def _is_a_name(word: str, before: str, after: str, language: str) -> bool:
    """Whether ``word``, between the words ``before`` and ``after`` it, is a name being given,
    the name of a thing ("een map genaamd archief", "de tabel klanten", "#algemeen") or part
    of a family name ("Jan van Dijk"): kept as written."""
    naming = glossary.NAMING.get(language)
    if (naming is not None and naming.search(before)) or before.endswith(("#", "@")):
        return True
    particles = glossary.NAME_PARTICLES.get(language, frozenset())
    if word in particles:
        run = "|".join(particles)
        first_name = re.search(rf"(?<!\w)([A-Z]\w*)\s+(?:(?:{run})\s+)*$", before)
        return (
            first_name is not None
            and re.match(rf"\s+(?:(?:{run})\s+)*[A-Z]", after) is not None
            and not _SENTENCE_START.search(before, 0, first_name.start())
        )
    previous = re.search(r"(\w+)\s+$", before)
    return (
        previous is not None
        and previous.group(1).lower() in glossary.NAMED_THINGS.get(language, frozenset())
        and (word not in _WORDS[language] or word in glossary.COMPOUND_NOUNS.get(language, frozenset()))
        and number_words.in_english(word, language) is None
    )


def _translated(text: str, language: str) -> tuple[str, tuple[str, ...]]:
    left: list[str] = []
    phrases = _PHRASES[language]
    pattern = _phrase_or_word(language)
    # Dutch capitalises only names: a capital inside a sentence is a name, kept as written.
    names_capitalised = language in glossary.CAPITALISED_NAMES
    masked = _VALUE.sub(lambda m: word_order.BLANK * len(m.group(0)), text)
    text = word_order.in_reading_order(text, masked, language)

    def words(segment: str, offset: int) -> str:
        def word(match: re.Match[str]) -> str:
            written = match.group(0)
            if match.group("phrase") is not None:
                return phrases[written.lower()]
            before = text[: offset + match.start()]
            if before.endswith(("#", "@")):
                return written  # a channel's or a person's handle ("#allgemein", "@lena"): a name
            if names_capitalised and (
                (written[:1].isupper() and "-" not in written and not _SENTENCE_START.search(before))
                or _is_a_name(written.lower(), before, text[offset + match.end() :], language)
            ):
                return written
            elided = _elided(written, language)
            if elided is not None:
                # "l'attività", "dell'evento": the elided word, then the word it is elided before.
                article, rest = elided
                english = _word_in_english(rest, language)
                if english is None:
                    left.append(rest)
                return f"{article} {english or rest}"
            english = _word_in_english(written, language)
            if english is None and not (len(written) > 1 and written.isupper()):
                # (A word in capitals is an abbreviation, kept as written: "CSV", "PDF".)
                left.append(written)
            return english or written

        return pattern.sub(word, segment)

    out: list[str] = []
    last = 0
    for match in _VALUE.finditer(text):
        out.append(words(text[last : match.start()], last))
        out.append(match.group(0))
        last = match.end()
    out.append(words(text[last:], last))
    # Inverted marks and stray apostrophes are no English: "¿qué hora es?" reads "what time is?".
    english = re.sub(r"[¿¡]", "", "".join(out))
    # A phrase's English ("Mexico City", "what time") is read, not left over.
    read_words = {w.lower() for english_words in phrases.values() for w in english_words.split()}
    return english, tuple(w for w in left if w.lower() not in read_words)


@lru_cache(maxsize=256)
def read(text: str) -> Reading:
    """The request in English words, with the language it was written in."""
    language = detect(text)
    if language is None:
        return Reading(None, text)
    english, untranslated = _translated(text, language)
    return Reading(language, arithmetic_words.with_decimal_points(english), untranslated)


def written_for(text: str, english: str) -> tuple[str, str] | None:
    """The word of ``text`` (a request in another language) that the glossary reads as
    ``english``, with the language's name: "pendientes" for "pending" in a Spanish request."""
    language = detect(text)
    if language is None:
        return None
    glossary = _WORDS[language]
    for match in _WORD.finditer(_VALUE.sub(" ", text)):
        if glossary.get(match.group(0).lower(), "").lower() == english.lower():
            return match.group(0), LANGUAGE_NAMES[language]
    return None


def places_written(text: str) -> list[tuple[str, str]]:
    """The places ``text`` names as another language writes them, each with its English name
    ("Ciudad de México", "Mexico City")."""
    found = []
    for written, english in glossary.PLACES.items():
        match = compiled(rf"(?<!\w){re.escape(written)}(?!\w)", re.IGNORECASE).search(text)
        if match is not None:
            found.append((match.group(0), english))
    return found
