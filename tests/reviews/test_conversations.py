"""Conversations on a real SQLite file: what an operator asked on a thread and every answer it got."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from reviews.conversations import TITLE_CHARS, Conversation, Conversations
from tests.reviews.review_support import EMAIL_REQUEST, Clock, email_servers, outbox, services_for

# The bundled servers run in this process (tests/in_process_servers.py): in `make quick`.
pytestmark = pytest.mark.usefixtures("bundled_in_process")


def conversation_of(store: Conversations, thread_id: str) -> Conversation:
    conversation = store.get(thread_id)
    assert conversation is not None, f"no conversation {thread_id}"
    return conversation


def answer(status: str = "ok", response: str = "done") -> dict[str, Any]:
    return {"status": status, "response": response}


def test_a_request_and_its_answers_are_kept_in_order_with_their_numbers(backend: str | Path) -> None:
    store = Conversations(backend, clock=Clock())

    asked = store.record_request("t1", "operator", "Send an email to bob")
    store.record_answer("t1", answer("needs_review", "waiting"), checkpoint_id="c1", owner="operator")
    store.record_answer("t1", answer("ok", "sent"), checkpoint_id="c2", owner="operator", author="reviewer")

    messages = store.messages("t1")
    assert asked.seq == 1
    assert [(m.seq, m.role, m.author) for m in messages] == [
        (1, "operator", "operator"),
        (2, "gatehouse", None),
        (3, "gatehouse", "reviewer"),
    ]
    assert (messages[0].text, messages[0].output) == ("Send an email to bob", None)
    assert [m.output for m in messages[1:]] == [answer("needs_review", "waiting"), answer("ok", "sent")]
    assert [m.text for m in messages[1:]] == [None, None]
    times = [m.at for m in messages]
    assert times == sorted(times) and len(set(times)) == 3


def test_a_conversations_status_is_its_newest_answers(backend: str | Path) -> None:
    store = Conversations(backend, clock=Clock())

    store.record_request("t1", "operator", "hi")
    assert conversation_of(store, "t1").status is None
    store.record_answer("t1", answer("needs_review"), checkpoint_id="c1", owner="operator")
    store.record_answer("t1", answer("rejected"), checkpoint_id="c2", owner="operator")

    assert conversation_of(store, "t1").status == "rejected"


def test_the_same_checkpoints_answer_recorded_twice_keeps_one_message(backend: str | Path) -> None:
    store = Conversations(backend)
    store.record_request("t1", "operator", "hi")

    first = store.record_answer("t1", answer(), checkpoint_id="c1", owner="operator")
    again = store.record_answer("t1", answer(response="a second copy"), checkpoint_id="c1", owner="operator")

    assert (first, again) == (True, False)
    assert [m.output for m in store.messages("t1")] == [None, answer()]


def test_answers_without_a_checkpoint_are_all_kept(backend: str | Path) -> None:
    store = Conversations(backend)

    recorded = [store.record_answer("t1", answer(), checkpoint_id=None, owner="operator") for _ in range(2)]

    assert recorded == [True, True]
    assert [m.seq for m in store.messages("t1")] == [1, 2]


def test_the_same_checkpoint_on_another_thread_is_another_answer(backend: str | Path) -> None:
    store = Conversations(backend)

    assert store.record_answer("t1", answer(), checkpoint_id="c1", owner="operator") is True
    assert store.record_answer("t2", answer(), checkpoint_id="c1", owner="operator") is True

    assert [len(store.messages(t)) for t in ("t1", "t2")] == [1, 1]


def test_two_stores_on_one_file_record_a_checkpoints_answer_once(backend: str | Path) -> None:
    # Two objects, two connections: what two processes (a browser tab each) would hold.
    tab_one = Conversations(backend)
    tab_two = Conversations(backend)
    tab_one.record_request("t1", "operator", "hi")

    recorded = [
        tab_one.record_answer("t1", answer(), checkpoint_id="c1", owner="operator"),
        tab_two.record_answer("t1", answer(), checkpoint_id="c1", owner="operator"),
    ]

    assert recorded == [True, False]
    assert [m.role for m in tab_two.messages("t1")] == ["operator", "gatehouse"]
    assert tab_one.last_seq("t1") == tab_two.last_seq("t1") == 2


def test_racing_threads_on_two_connections_record_a_checkpoints_answer_once(backend: str | Path) -> None:
    stores = [Conversations(backend) for _ in range(2)]
    stores[0].record_request("t1", "operator", "hi")
    racers = 8
    start = threading.Barrier(racers)
    recorded: list[bool] = []
    errors: list[BaseException] = []

    def record(n: int) -> None:
        start.wait(timeout=10)
        try:
            for checkpoint in ("c1", "c2", "c3"):
                recorded.append(
                    stores[n % 2].record_answer(
                        "t1", answer(response=f"from {n}"), checkpoint_id=checkpoint, owner="operator"
                    )
                )
        except BaseException as exc:  # noqa: BLE001 - reported by the assertion below
            errors.append(exc)

    threads = [threading.Thread(target=record, args=(n,)) for n in range(racers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)

    assert errors == []
    assert recorded.count(True) == 3
    assert recorded.count(False) == racers * 3 - 3
    messages = stores[1].messages("t1")
    assert [m.seq for m in messages] == [1, 2, 3, 4]
    assert [m.role for m in messages] == ["operator", "gatehouse", "gatehouse", "gatehouse"]


def test_the_title_is_the_first_request_with_whitespace_collapsed_and_cut(backend: str | Path) -> None:
    store = Conversations(backend)
    words = "word " * 40

    store.record_request("t1", "operator", f"  Send\tan email\n\n to   bob  {words}")
    store.record_request("t1", "operator", "a later message does not retitle it")
    store.record_request("t2", "operator", "short")

    title = conversation_of(store, "t1").title
    assert len(title) == TITLE_CHARS
    assert title == ("Send an email to bob " + words)[:TITLE_CHARS]
    assert conversation_of(store, "t2").title == "short"


def test_a_request_of_only_whitespace_gets_a_placeholder_title(backend: str | Path) -> None:
    store = Conversations(backend)

    message = store.record_request("t1", "operator", " \n\t ")

    assert conversation_of(store, "t1").title == "(empty request)"
    # The message itself is kept as typed.
    assert message.text == " \n\t "
    assert store.messages("t1")[0].text == " \n\t "


def test_an_owner_sees_only_their_conversations_most_recent_first_and_limited(backend: str | Path) -> None:
    store = Conversations(backend, clock=Clock())
    for thread in ("t-a", "t-b", "t-c"):
        store.record_request(thread, "alice", f"request {thread}")
    store.record_request("t-bob", "bob", "bob's request")
    # New activity on the oldest brings it to the top.
    store.record_answer("t-a", answer(), checkpoint_id="c1", owner="alice")

    assert [c.thread_id for c in store.of_owner("alice")] == ["t-a", "t-c", "t-b"]
    assert [c.thread_id for c in store.of_owner("alice", limit=2)] == ["t-a", "t-c"]
    assert [c.thread_id for c in store.of_owner("bob")] == ["t-bob"]
    assert store.of_owner("carol") == []
    assert {c.owner for c in store.of_owner("alice")} == {"alice"}


def test_recent_lists_everyones_conversations_most_recent_first_and_limited(backend: str | Path) -> None:
    store = Conversations(backend, clock=Clock())
    store.record_request("t-1", "alice", "one")
    store.record_request("t-2", "bob", "two")
    store.record_request("t-3", "alice", "three")
    store.record_request("t-1", "alice", "one again")

    assert [(c.thread_id, c.owner) for c in store.recent()] == [
        ("t-1", "alice"),
        ("t-3", "alice"),
        ("t-2", "bob"),
    ]
    assert [c.thread_id for c in store.recent(limit=1)] == ["t-1"]


def test_an_answer_on_a_thread_without_a_request_opens_a_conversation_for_the_given_owner(
    backend: str | Path,
) -> None:
    store = Conversations(backend)

    store.record_answer("t-direct", answer("ok"), checkpoint_id="c1", owner="operator", author="reviewer")

    conversation = store.get("t-direct")
    assert conversation is not None
    assert (conversation.owner, conversation.status) == ("operator", "ok")
    assert conversation.title == "(started elsewhere)"
    assert [c.thread_id for c in store.of_owner("operator")] == ["t-direct"]
    assert [c.thread_id for c in store.of_owner("reviewer")] == []
    assert [(m.role, m.author) for m in store.messages("t-direct")] == [("gatehouse", "reviewer")]

    store.record_request("t-direct", "operator", "List the   files")
    renamed = store.get("t-direct")
    assert renamed is not None and renamed.title == "List the files"
    store.record_request("t-direct", "operator", "And the notes")
    kept = store.get("t-direct")
    assert kept is not None and kept.title == "List the files"


def test_last_seq_and_messages_after_give_only_what_is_new(backend: str | Path) -> None:
    store = Conversations(backend)
    assert store.last_seq("t1") == 0
    assert store.messages("t1") == []
    assert store.get("t1") is None

    store.record_request("t1", "operator", "hi")
    store.record_answer("t1", answer("needs_review"), checkpoint_id="c1", owner="operator")
    seen = store.last_seq("t1")
    store.record_answer("t1", answer("ok"), checkpoint_id="c2", owner="operator", author="reviewer")

    assert seen == 2
    assert store.last_seq("t1") == 3
    assert [(m.seq, m.output) for m in store.messages("t1", after=seen)] == [(3, answer("ok"))]
    assert store.messages("t1", after=3) == []
    assert [m.seq for m in store.messages("t1", after=0)] == [1, 2, 3]


def test_conversations_survive_reopening_the_file(backend: str | Path) -> None:
    first = Conversations(backend)
    first.record_request("t1", "operator", "hi")
    first.record_answer("t1", answer(), checkpoint_id="c1", owner="operator")
    first.close()

    reopened = Conversations(backend)

    assert [m.role for m in reopened.messages("t1")] == ["operator", "gatehouse"]
    assert reopened.record_answer("t1", answer(), checkpoint_id="c1", owner="operator") is False


# -- through the services --------------------------------------------------------------------------


def test_a_reviewers_decision_is_the_last_answer_in_the_operators_conversation(data_dir: Path) -> None:
    with services_for(data_dir, servers=email_servers(data_dir)) as services:
        paused = services.requests.ask(EMAIL_REQUEST, requester="operator")
        review = paused.final_output.review
        assert review is not None
        thread = paused.final_output.thread_id
        assert services.conversations.last_seq(thread) == 2
        decided = services.reviews.decide(review.id, reviewer="reviewer", approve=True)
        assert decided.run is not None
        # The same run recorded again (a second tab, a retried sweep) adds nothing.
        services.reviews.record_run(decided.run, actor="reviewer")

        messages = services.conversations.messages(thread)
        conversation = services.conversations.get(thread)

    assert [(m.role, m.author) for m in messages] == [
        ("operator", "operator"),
        ("gatehouse", "operator"),
        ("gatehouse", "reviewer"),
    ]
    assert messages[0].text == EMAIL_REQUEST
    assert [m.output["status"] for m in messages[1:] if m.output] == ["needs_review", "ok"]
    assert messages[1].output is not None and messages[1].output["review"]["id"] == review.id
    assert conversation is not None
    assert (conversation.owner, conversation.status, conversation.title) == ("operator", "ok", EMAIL_REQUEST)
    assert [m["to"] for m in outbox(data_dir)] == ["bob@example.com"]
