"""Folding text to the Latin letters it looks like: what the policy compares a server's names in."""

from __future__ import annotations

import pytest

from policies.lookalikes import fold, unleet


@pytest.mark.parametrize(
    ("text", "folded"),
    [
        ("Pаssword", "password"),  # Cyrillic а
        ("РАSSWОRD", "password"),  # Cyrillic Р, А, О
        ("ΡΑSSWΟRD", "password"),  # Greek Rho, Alpha, Omicron
        ("tοkеn", "token"),  # Greek ο, Cyrillic е
        ("Ｐａｓｓｗｏｒｄ", "password"),  # full-width
        ("𝐏𝐚𝐬𝐬𝐰𝐨𝐫𝐝", "password"),  # mathematical bold
        ("ⓟⓘⓝ", "pin"),  # circled
        ("Pásswörd", "password"),  # accents
        ("Pa\u0301ssword", "password"),  # a combining accent
        ("pass\u200bword", "password"),  # zero-width space
        ("pass\u200d\u200cword", "password"),  # zero-width joiner and non-joiner
        ("pass\u00adword", "password"),  # soft hyphen
        ("pass\u2060word\ufeff", "password"),  # word joiner, byte-order mark
        ("pass\u202eword", "password"),  # a bidi override
        ("ＰＩＮ", "pin"),
        ("Straße", "strasse"),
        ("Which city, and when?", "which city, and when?"),
    ],
)
def test_text_folds_to_the_plain_latin_it_looks_like(text: str, folded: str) -> None:
    assert fold(text) == folded


def test_digits_and_symbols_read_as_letters_only_on_the_second_reading() -> None:
    assert fold("pa$$w0rd") == "pa$$w0rd"
    assert unleet(fold("pa$$w0rd")) == "password"
    assert unleet(fold("P1N")) == "pin"
    assert fold("CVV2") == "cvv2"
