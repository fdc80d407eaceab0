"""Requests written in German, Spanish or French, read in English words.

The planner's word tables and the embedding model (graph/planner/similarity.py) are English;
a request such as "zeige die Dateien im Ordner /srv" shares no word with list_directory. This
module recognises a request in one of these languages by its function words, and gives it
word for word in English from a small glossary of what operators ask for (verbs such as show,
write, delete; nouns such as file, folder, time). Values are left exactly as written: quoted
text, paths, file names, addresses, numbers and words the glossary does not know (names,
places). The English is rough, so a planner treats it with less confidence (it asks rather
than runs when two capabilities come close, and before anything acts).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from graph.planner import arithmetic_words, glossary

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
LANGUAGE_NAMES = {"de": "German", "es": "Spanish", "fr": "French", "it": "Italian", "pt": "Portuguese"}
# Glossary words that are English words too: no evidence of another language.
_ENGLISH = frozenset(
    "a an in on the me my for with is it to was date plus note person mal as no do nos e i o "
    "file files data database formula repository text name come con da ora mi su al ai chi dove due "
    "ore leg hat base favor change client clients structure observation pasta sobre bd uno una".split()
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

_WORD = re.compile(r"(?<!\w)[^\W\d_]+(?:['’-][^\W\d_]+)*(?!\w)", re.UNICODE)
# Values the operator wrote: kept exactly (quoted text, addresses, URIs, paths, file names).
_VALUE = re.compile(
    r""""[^"]*"|“[^”]*”|«[^»]*»|(?<!\w)'[^']*'(?!\w)|\S+@\S+|\b\w+://\S+|\S*/\S*|\b[\w-]+\.[A-Za-z][\w]{0,7}\b"""
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
    """Each language's marker words and the words of its glossary (less English ones)."""
    return {
        language: (markers | frozenset(_WORDS[language])) - _ENGLISH for language, markers in _MARKERS.items()
    }


def detect(text: str) -> str | None:
    """ "de", "es", "fr", "it" or "pt" when the request is written in that language; None otherwise."""
    plain = _VALUE.sub(" ", text).lower()
    tokens = _WORD.findall(plain)
    counts = {language: sum(1 for t in tokens if t in markers) for language, markers in _markers().items()}
    language, found = max(counts.items(), key=lambda item: item[1])
    # Two marker words (one in a request of three words or fewer), and more than any other language.
    needed = 1 if len(tokens) <= 3 else 2
    others = [n for other, n in counts.items() if other != language]
    if found >= needed and found > max(others):
        return language
    return None


def _translated(text: str, language: str) -> tuple[str, tuple[str, ...]]:
    glossary = _WORDS[language]
    left: list[str] = []
    phrases = _PHRASES[language]
    pattern = re.compile(
        r"\b(?:" + "|".join(re.escape(p) for p in sorted(phrases, key=len, reverse=True)) + r")\b",
        re.IGNORECASE,
    )

    def word(match: re.Match[str]) -> str:
        written = match.group(0)
        english = glossary.get(written.lower())
        if english is None:
            left.append(written)
        return english or written

    def words(segment: str) -> str:
        segment = pattern.sub(lambda m: phrases[m.group(0).lower()], segment)
        return _WORD.sub(word, segment)

    out: list[str] = []
    last = 0
    for match in _VALUE.finditer(text):
        out.append(words(text[last : match.start()]))
        out.append(match.group(0))
        last = match.end()
    out.append(words(text[last:]))
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
        match = re.search(rf"(?<!\w){re.escape(written)}(?!\w)", text, re.IGNORECASE)
        if match is not None:
            found.append((match.group(0), english))
    return found
