"""Short ids on screen: the first 8 characters of a thread, a review's round kept."""

from __future__ import annotations

from gatehouse.web.short_ids import short_review, short_thread

THREAD = "a25b381cafaf420598a8a601b2888464"


def test_a_thread_id_is_shown_by_its_first_eight_characters() -> None:
    assert short_thread(THREAD) == "a25b381c"


def test_a_short_thread_id_is_shown_as_it_is() -> None:
    assert short_thread("t1") == "t1"


def test_a_review_id_keeps_its_round_after_the_short_thread() -> None:
    assert short_review(f"{THREAD}-r1") == "a25b381c-r1"
    assert short_review(f"{THREAD}-r12") == "a25b381c-r12"


def test_a_review_id_of_another_shape_is_cut_with_an_ellipsis_or_kept_when_short() -> None:
    assert short_review("0123456789abcdef") == "01234567…"
    assert short_review("rev-7") == "rev-7"
