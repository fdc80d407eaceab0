"""gatehouse/visible_text.py: control characters shown as \\uXXXX, JSON kept valid and exact."""

from __future__ import annotations

import json

from gatehouse.visible_text import continued, visible, visible_in

EVERY_CONTROL = "".join(map(chr, [*range(0x00, 0x09), *range(0x0B, 0x20), *range(0x7F, 0xA0)]))
REORDERING = "\u061c\u200e\u200f\u2028\u2029\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"


def test_every_c0_c1_and_del_character_is_shown_as_its_json_escape() -> None:
    shown = visible(EVERY_CONTROL)

    assert shown == "".join(f"\\u{ord(ch):04x}" for ch in EVERY_CONTROL)
    assert shown.isascii() and shown.isprintable()


def test_line_separators_and_bidi_controls_are_shown_too() -> None:
    assert visible(REORDERING) == "".join(f"\\u{ord(ch):04x}" for ch in REORDERING)


def test_tabs_newlines_and_ordinary_text_pass_unchanged_and_crlf_becomes_lf() -> None:
    text = "Grüße\tcafé 東京 👋\nline two\r\nline three"

    assert visible(text) == "Grüße\tcafé 東京 👋\nline two\nline three"


def test_a_json_document_made_visible_is_still_valid_and_decodes_to_the_same_data() -> None:
    data = {"text": f"a{EVERY_CONTROL}{REORDERING}b", "nested": [f"\x9b2J{chr(0x7F)}"]}

    document = visible(json.dumps(data, ensure_ascii=False, indent=2))

    assert json.loads(document) == data
    assert visible(document) == document


def test_visible_in_makes_every_string_of_nested_data_visible_and_keeps_the_rest() -> None:
    data = {"a\x1b": ["\x9b", 3, None, {"b": "\r"}], "n": 1.5}

    assert visible_in(data) == {"a\\u001b": ["\\u009b", 3, None, {"b": "\\u000d"}], "n": 1.5}


def test_continued_lines_are_indented_under_the_first() -> None:
    assert continued("one\nstatus: ok", 4) == "one\n    status: ok"
