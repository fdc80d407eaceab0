"""gatehouse/display/visible_text.py: control characters shown as \\uXXXX, JSON kept valid and exact."""

from __future__ import annotations

import json
import sys
import unicodedata

from gatehouse.display.visible_text import continued, visible, visible_in

EVERY_CONTROL = "".join(map(chr, [*range(0x00, 0x09), *range(0x0B, 0x20), *range(0x7F, 0xA0)]))
REORDERING = "\u061c\u200e\u200f\u2028\u2029\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
# Drawn as nothing (or as a blank): zero-width space, non-joiner, joiner, word joiner, BOM,
# soft hyphen, combining grapheme joiner, Mongolian vowel separator, a variation selector,
# the Hangul fillers, Khmer inherent vowels and the blank Braille pattern.
INVISIBLE = "\u200b\u200c\u200d\u2060\ufeff\u00ad\u034f\u180e\ufe0f\u115f\u1160\u3164\uffa0\u17b4\u2800"
# Tag characters spell out ASCII no one sees ("ignore"); a supplementary variation selector.
TAGS = "".join(chr(0xE0000 + ord(ch)) for ch in "ignore") + "\U000e0100"


def test_every_c0_c1_and_del_character_is_shown_as_its_json_escape() -> None:
    shown = visible(EVERY_CONTROL)

    assert shown == "".join(f"\\u{ord(ch):04x}" for ch in EVERY_CONTROL)
    assert shown.isascii() and shown.isprintable()


def test_line_separators_and_bidi_controls_are_shown_too() -> None:
    assert visible(REORDERING) == "".join(f"\\u{ord(ch):04x}" for ch in REORDERING)


def test_a_zero_width_space_in_a_name_is_shown() -> None:
    assert visible("send\u200b_email") == "send\\u200b_email"


def test_every_invisible_and_format_character_is_shown_as_its_escape() -> None:
    shown = visible(INVISIBLE)

    assert shown == "".join(f"\\u{ord(ch):04x}" for ch in INVISIBLE)
    assert shown.isascii() and shown.isprintable()


def test_every_format_character_the_unicode_database_knows_is_shown() -> None:
    format_characters = [chr(c) for c in range(sys.maxunicode + 1) if unicodedata.category(chr(c)) == "Cf"]

    assert [ch for ch in format_characters if visible(ch) == ch] == []


def test_a_character_above_the_bmp_shows_as_the_utf16_pair_json_writes_for_it() -> None:
    shown = visible(TAGS)

    assert shown == json.dumps(TAGS)[1:-1]
    assert shown.startswith("\\udb40\\udc69")  # TAG LATIN SMALL LETTER I
    assert json.loads(f'"{shown}"') == TAGS


def test_tabs_newlines_and_ordinary_text_pass_unchanged_and_crlf_becomes_lf() -> None:
    text = "Grüße\tcafé 東京 👋 ⟨ok⟩ \u0645\u0631\u062d\u0628\u0627\nline two\r\nline three"

    assert visible(text) == "Grüße\tcafé 東京 👋 ⟨ok⟩ \u0645\u0631\u062d\u0628\u0627\nline two\nline three"


def test_a_json_document_made_visible_is_still_valid_and_decodes_to_the_same_data() -> None:
    data = {"text": f"a{EVERY_CONTROL}{REORDERING}{INVISIBLE}{TAGS}b", "nested": [f"\x9b2J{chr(0x7F)}"]}

    document = visible(json.dumps(data, ensure_ascii=False, indent=2))

    assert json.loads(document) == data
    assert visible(document) == document


def test_visible_in_makes_every_string_of_nested_data_visible_and_keeps_the_rest() -> None:
    data = {"a\x1b": ["\x9b", 3, None, {"b": "\r"}], "n": 1.5}

    assert visible_in(data) == {"a\\u001b": ["\\u009b", 3, None, {"b": "\\u000d"}], "n": 1.5}


def test_continued_lines_are_indented_under_the_first() -> None:
    assert continued("one\nstatus: ok", 4) == "one\n    status: ok"
