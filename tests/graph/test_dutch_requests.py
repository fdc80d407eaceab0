"""Requests in Dutch: recognised as Dutch by their function words and read word for word in
English, so the deterministic planner chooses for them what it chooses for the same words in
English, with the arguments they state (file names, quoted text, keys, numbers said in words).
Dutch word order is read too: a separable verb's particle at the end of its clause ("Voeg ...
toe", "Maak ... aan", "Geef ... weer"), "Zet X op Y" for setting X to Y, "X naar Y" for what X
becomes. German sentences stay German and English ones English, names such as "van Dijk"
included.

The requests were written for this module before Dutch was read (and before any Dutch
benchmark case was looked at), as an operator might type them, over made-up servers whose
tools are worded as common MCP servers word theirs; no benchmark server's words."""

from __future__ import annotations

from typing import Any

import pytest

from graph.context import Limits
from graph.planner.deterministic import DeterministicPlanner
from graph.planner.languages import detect, read
from graph.planner.protocol import PlanningRequest
from tests.capabilities import tool

_TEXT = {"type": "string"}
_INT = {"type": "integer"}
_READ = {"readOnlyHint": True}
FILES = [
    tool("files", "read_file", "Read the complete contents of a file.", {"path": _TEXT}, ["path"], _READ),
    tool("files", "write_file", "Create a new file or overwrite a file with new content.",
         {"path": _TEXT, "content": _TEXT}, ["path", "content"]),
    tool("files", "list_directory", "List the files and folders in a directory.", {"path": _TEXT}, ["path"], _READ),
    tool("files", "create_directory", "Create a new directory.", {"path": _TEXT}, ["path"]),
    tool("files", "move_file", "Move or rename a file or directory.",
         {"source": _TEXT, "destination": _TEXT}, ["source", "destination"]),
    tool("files", "copy_file", "Copy a file to a new path.",
         {"source": _TEXT, "destination": _TEXT}, ["source", "destination"]),
    tool("files", "delete_file", "Delete a file.", {"path": _TEXT}, ["path"], {"destructiveHint": True}),
    tool("files", "search_files", "Search for files whose names match a pattern.",
         {"pattern": _TEXT}, ["pattern"], _READ),
]  # fmt: skip
SHEETS = [
    tool("ledger", "read_sheet", "Read the rows of a sheet of the workbook.", {"sheet": _TEXT}, ["sheet"], _READ),
    tool("ledger", "list_sheets", "List the sheets of a workbook file.", {"workbook": _TEXT}, ["workbook"], _READ),
    tool("ledger", "add_row", "Add a row to the end of a sheet.", {"sheet": _TEXT, "values": _TEXT}, ["sheet"]),
    tool("ledger", "delete_row", "Delete a row of a sheet.", {"sheet": _TEXT, "row": _INT}, ["sheet", "row"]),
    tool("ledger", "set_cell", "Set the value of one cell of a sheet.",
         {"sheet": _TEXT, "cell": _TEXT, "value": _TEXT}, ["cell", "value"]),
    tool("ledger", "rename_sheet", "Rename a sheet of the workbook.",
         {"sheet": _TEXT, "new_name": _TEXT}, ["sheet", "new_name"]),
]  # fmt: skip
STORE = [
    tool("kv", "get_value", "Get the value stored under a key.", {"key": _TEXT}, ["key"], _READ),
    tool("kv", "set_value", "Set a key to a value.", {"key": _TEXT, "value": _TEXT}, ["key", "value"]),
    tool("kv", "list_keys", "List all keys in the store.", {}, [], _READ),
    tool("kv", "delete_key", "Delete a key and its value.", {"key": _TEXT}, ["key"]),
]  # fmt: skip
REPO = [
    tool("vcs", "list_branches", "List the branches of the repository.", {}, [], _READ),
    tool("vcs", "create_branch", "Create a new branch.", {"name": _TEXT}, ["name"]),
    tool("vcs", "log", "Show the most recent commits.", {"max_count": _INT}, [], _READ),
]  # fmt: skip
OTHERS = [
    tool("mail", "send_email", "Send an email message.", {"to": _TEXT, "subject": _TEXT, "body": _TEXT},
         ["to", "body"]),
    tool("clock", "current_time", "Get the current time in a time zone.", {"timezone": _TEXT}, ["timezone"], _READ),
    tool("calc", "calculate", "Calculates/evaluates the given expression.", {"expression": _TEXT}, ["expression"],
         _READ),
    tool("word", "list_documents", "List the Word documents (.docx) in the documents folder.", {}, [], _READ),
    tool("word", "read_document", "Read the text of a Word document.", {"filename": _TEXT}, ["filename"], _READ),
    tool("wiki", "add_comment", "Add a comment to a page.", {"page": _TEXT, "text": _TEXT}, ["page", "text"]),
    tool("wiki", "create_page", "Create a new page with a title.", {"title": _TEXT}, ["title"]),
]  # fmt: skip
EVERYTHING = [*FILES, *SHEETS, *STORE, *REPO, *OTHERS]

# Each request, the capability the same words in English get, and arguments it states.
REQUESTS: list[tuple[str, str, dict[str, Any]]] = [
    # Files: reads and listings.
    ("Lees het bestand notities.md", "files__read_file", {"path": "notities.md"}),
    ("Toon de inhoud van /srv/data/rapport.txt", "files__read_file", {"path": "/srv/data/rapport.txt"}),
    ("Wat staat er in het bestand todo.txt?", "files__read_file", {"path": "todo.txt"}),
    ("Welke bestanden staan er in de map /srv/projecten?", "files__list_directory", {"path": "/srv/projecten"}),
    ("Laat alle bestanden in de map /tmp zien", "files__list_directory", {"path": "/tmp"}),
    ("Geef de inhoud van de map /home/anna weer", "files__list_directory", {"path": "/home/anna"}),
    ("Zoek bestanden met de naam *.log", "files__search_files", {"pattern": "*.log"}),
    # Files: changes.
    ("Schrijf 'hallo wereld' naar het bestand groet.txt", "files__write_file",
     {"path": "groet.txt", "content": "hallo wereld"}),
    ("Maak de map /srv/archief aan", "files__create_directory", {"path": "/srv/archief"}),
    ("Verwijder het bestand oud.log", "files__delete_file", {"path": "oud.log"}),
    ("Hernoem Inbox.md naar Postvak.md", "files__move_file", {"source": "Inbox.md", "destination": "Postvak.md"}),
    ("Verplaats rapport.pdf naar /srv/archief", "files__move_file",
     {"source": "rapport.pdf", "destination": "/srv/archief"}),
    ("Kopieer notities.md naar backup.md", "files__copy_file", {"source": "notities.md", "destination": "backup.md"}),
    # A workbook's sheets, rows and cells.
    ("Toon de rijen van het blad Omzet", "ledger__read_sheet", {"sheet": "Omzet"}),
    ("Welke bladen heeft de werkmap omzet.xlsx?", "ledger__list_sheets", {"workbook": "omzet.xlsx"}),
    ("Verwijder rij 4 van het blad Uitgaven", "ledger__delete_row", {"sheet": "Uitgaven", "row": 4}),
    ("Voeg een nieuwe rij toe aan het blad Klanten", "ledger__add_row", {"sheet": "Klanten"}),
    ("Zet cel B2 op 'gereed'", "ledger__set_cell", {"cell": "B2", "value": "gereed"}),
    ("Hernoem het blad Q3 naar Q4", "ledger__rename_sheet", {"sheet": "Q3", "new_name": "Q4"}),
    # A key-value store.
    ("Wat is de waarde van config:feature_flags?", "kv__get_value", {"key": "config:feature_flags"}),
    ("Zet de sleutel thema:kleur op 'blauw'", "kv__set_value", {"key": "thema:kleur", "value": "blauw"}),
    ("Sla de waarde 'rood' op onder de sleutel thema:kleur", "kv__set_value",
     {"key": "thema:kleur", "value": "rood"}),
    ("Toon alle sleutels", "kv__list_keys", {}),
    ("Verwijder de sleutel sessie:42", "kv__delete_key", {"key": "sessie:42"}),
    # A repository.
    ("Maak een nieuwe branch aan genaamd release-2027", "vcs__create_branch", {"name": "release-2027"}),
    ("Toon de laatste 5 commits", "vcs__log", {"max_count": 5}),
    ("Welke branches zijn er?", "vcs__list_branches", {}),
    # Mail, time, documents, pages.
    ("Stuur een e-mail naar bob@example.com met de tekst 'tot morgen'", "mail__send_email",
     {"to": "bob@example.com"}),
    ("Hoe laat is het in Tokio?", "clock__current_time", {"timezone": "Asia/Tokyo"}),
    ("Hoe laat is het nu in Londen?", "clock__current_time", {"timezone": "Europe/London"}),
    ("Welke Word-documenten hebben we?", "word__list_documents", {}),
    ("Maak een pagina aan met de titel 'Welkom'", "wiki__create_page", {"title": "Welkom"}),
    # Arithmetic, in digits and in words.
    ("Hoeveel is 7 keer 8?", "calc__calculate", {"expression": "7*8"}),
    ("Hoeveel is 100 gedeeld door 4?", "calc__calculate", {"expression": "100/4"}),
    ("Wat is de vierkantswortel van 144?", "calc__calculate", {"expression": "144**0.5"}),
]  # fmt: skip


@pytest.mark.parametrize(("text", "key", "arguments"), REQUESTS, ids=[r[0] for r in REQUESTS])
def test_a_dutch_request_is_planned_as_the_same_words_in_english(
    text: str, key: str, arguments: dict[str, Any]
) -> None:
    planner = DeterministicPlanner()
    request = PlanningRequest(text=text)

    selection = planner.select(request, EVERYTHING, Limits())

    assert read(text).language == "nl", read(text)
    assert selection.chosen is not None, read(text).text
    assert selection.chosen.capability.key == key, read(text).text
    extracted = planner.extract(selection.chosen.capability, request).arguments
    assert {name: extracted.get(name) for name in arguments} == arguments, read(text).text


@pytest.mark.parametrize(
    ("text", "english"),
    [
        # Separable verbs: the particle at the end of the clause belongs to the verb.
        ("Voeg een rij toe aan het blad Klanten", "add a row to the sheet Klanten"),
        ("Maak een map aan genaamd archief", "create a folder named archief"),
        ("Geef de bestanden in /tmp weer", "show the files in /tmp"),
        ("Laat alle sleutels zien", "show all keys"),
        # "Zet X op Y": X is set to Y.
        ("Zet de sleutel modus op 'donker'", "set the key modus to 'donker'"),
        # Question words and numbers in words.
        ("Hoeveel is drie keer zeventien?", "how much is three times seventeen?"),
        ("Wat is vijfentwintig plus honderdtwee?", "what is twenty-five plus one hundred and two?"),
        ("Toon de laatste vijf commits", "show the last five commits"),
        ("Welke bestanden zijn er?", "which files are there?"),
        ("Welke Word-bestanden hebben we?", "which Word files have we?"),
        ("Wat staat er in config:feature_flags?", "what is in config:feature_flags?"),
    ],
)
def test_dutch_is_read_in_english_words_in_english_word_order(text: str, english: str) -> None:
    reading = read(text)

    assert reading.language == "nl"
    assert reading.text == english
    assert reading.untranslated == ()


def test_a_change_in_dutch_read_in_full_is_chosen_without_a_question() -> None:
    selection = DeterministicPlanner().select(
        PlanningRequest(text="Verwijder rij 4 van het blad Uitgaven"), EVERYTHING, Limits()
    )

    assert selection.chosen is not None
    assert selection.chosen.capability.key == "ledger__delete_row"
    assert selection.ambiguous_with is None


def test_a_change_in_dutch_with_words_left_unread_is_asked_about() -> None:
    selection = DeterministicPlanner().select(
        PlanningRequest(text="Verwijder meteen rij 4 van het blad Uitgaven, dankjewel hoor"),
        EVERYTHING,
        Limits(),
    )

    assert selection.chosen is not None
    assert selection.chosen.capability.key == "ledger__delete_row"
    assert selection.ambiguous_with is not None


# German shares many words with Dutch ("die", "was", "alle", "Bestand", "Tabellen"): these stay German.
GERMAN = [
    "Lies die Datei notes.md",
    "Schreibe 'hallo' in die Datei gruss.txt",
    "Erstelle einen Zweig namens release-2026",
    "Lösche die Seite 'Quokka' im Wiki",
    "Wie viel ist 100 geteilt durch 4?",
    "Zeige mir alle Dateien im Ordner /srv",
    "Was steht in der Zelle B2?",
    "Suche im Wissensgraphen nach Alice",
    "Wie spät ist es in Tokio?",
    "Benenne das Blatt Q3 in Q4 um",
    "Welche Tabellen gibt es in der Datenbank?",
    "Zeige den Bestand von Produkt 12",
]
# English with Dutch names and words that are Dutch too ("van", "de", "map", "over", "door").
ENGLISH = [
    "Show the orders of customer van Dijk",
    "Send an email to Jan van der Berg about the meeting",
    "Add Pieter de Vries as a new customer",
    "Look up Ruud van Nistelrooy in the knowledge graph",
    "What time is it in Amsterdam?",
    "Show the map of the office over the door",
    "Delete the old branch",
    "Write a note to Anna van den Heuvel",
    "Rename the file van.txt to bus.txt",
    "Is the value of key op:mode set?",
]


@pytest.mark.parametrize("text", GERMAN)
def test_a_german_request_stays_german(text: str) -> None:
    assert detect(text) == "de"


@pytest.mark.parametrize("text", ENGLISH)
def test_an_english_request_with_dutch_names_stays_english(text: str) -> None:
    assert detect(text) is None


# Written with the reading (after the requests above): the rules it reads Dutch by.
@pytest.mark.parametrize(
    ("text", "english"),
    [
        # A compound of two nouns, and a hyphenated one whose first part is a name.
        ("Wat is de bestandsnaam van het klantnummer?", "what is the file name of the customer number?"),
        ("Toon de Excel-bestanden in /srv", "show the Excel files in /srv"),
        # A noun right after a thing known by its name is that name; so is a family name.
        (
            "Verwijder de kolom prijs uit de tabel producten",
            "delete the column prijs from the table producten",
        ),
        ("Toon de bestellingen van klant Jan van Dijk", "show the orders of customer Jan van Dijk"),
        # Prepositions read by the verb: a setting's new value, what is searched for, a range.
        ("Stel de tijdzone in op Europe/Amsterdam", "set the timezone to Europe/Amsterdam"),
        ("Zoek in de map documenten naar Alice", "search in the folder documenten for Alice"),
        ("Toon de regels van 3 tot 8", "show the lines from 3 to 8"),
        ("Sla het bestand op de server op", "write the file on the server"),
        ("Voer de query SELECT 1 uit", "run the query SELECT 1"),
        ("Maak de laatste commit ongedaan", "undo the last commit"),
        (
            "Hoeveel is tweehonderdvijftig gedeeld door vijf?",
            "how much is two hundred and fifty divided by five?",
        ),
    ],
)
def test_dutch_grammar_is_read(text: str, english: str) -> None:
    assert read(text).text == english
