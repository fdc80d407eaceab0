"""Answers sealed to the waiting call's key: only that key opens them, and an altered one is refused."""

from __future__ import annotations

import pytest

from reviews.sealing import AnswerKey, SealError, seal


def test_only_the_waiting_calls_key_opens_what_was_sealed_to_it() -> None:
    key, other = AnswerKey(), AnswerKey()
    sealed = seal(key.public, {"pin": 4921, "otp": "381204"})

    assert "4921" not in sealed and "381204" not in sealed
    assert key.open(sealed) == {"pin": 4921, "otp": "381204"}
    with pytest.raises(SealError, match="not sealed to this call, or was altered"):
        other.open(sealed)


def test_an_altered_or_truncated_sealed_answer_is_refused() -> None:
    key = AnswerKey()
    sealed = seal(key.public, {"pin": "4921"})
    flipped = sealed[:-6] + ("A" if sealed[-6] != "A" else "B") + sealed[-5:]

    with pytest.raises(SealError):
        key.open(flipped)
    with pytest.raises(SealError, match="too short"):
        key.open(sealed[:20])


def test_sealing_to_something_that_is_not_a_public_key_is_refused() -> None:
    with pytest.raises(SealError, match="not an X25519 public key"):
        seal("c2hvcnQ=", {"pin": "4921"})
