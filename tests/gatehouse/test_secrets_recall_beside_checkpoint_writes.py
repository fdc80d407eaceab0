"""Recalling a thread's secrets from its checkpoint never waits on the checkpointer the graph
writes with. An audit event for a thread this process meets for the first time recalls the
secrets its checkpoint holds, and it does so inside the stores' write transaction (the review
opened and its event are one commit). LangGraph writes each step's checkpoint from a background
thread: on SQLite that write holds SqliteSaver's lock while it waits for the file's write lock,
which the transaction holds, so a recall through the same SqliteSaver waited for a write that
waited for it ("database is locked" after the busy timeout, a failed request)."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from langgraph.checkpoint.sqlite import SqliteSaver

from gatehouse.settings import Settings
from gatehouse.wiring import open_services
from graph.runner import thread_config

SECRET = "sk-live-4f9a8b7c6d5e4f3a2b1c0d9e"


def test_an_audit_event_for_a_thread_met_first_recalls_its_secrets_while_the_graphs_saver_is_busy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GATEHOUSE_DATA", str(tmp_path))
    settings = Settings.resolve(db=str(tmp_path / "gatehouse.db"))
    with open_services(settings, connect_servers=False) as services:
        saver = services.checkpointer
        assert isinstance(saver, SqliteSaver)
        # The thread's checkpoint, written earlier (by another process, or before a restart).
        config = saver.put(
            {"configurable": {"thread_id": "t-secret", "checkpoint_ns": ""}},
            {
                "v": 1,
                "id": "1ef0",
                "ts": "2026-11-28T00:00:00+00:00",
                "channel_values": {"request_text": f"use the key {SECRET} to deploy"},
                "channel_versions": {},
                "versions_seen": {},
                "updated_channels": None,
            },
            {"source": "input", "step": -1, "parents": {}},
            {},
        )
        assert saver.get_tuple(thread_config("t-secret")) is not None, config
        written: list[str] = []

        def append_for_the_thread() -> None:
            with services.ledger.database.write():
                event = services.audit.append("note", {"said": f"again {SECRET}"}, thread_id="t-secret")
                written.append(str(event.data))

        # The graph's background checkpoint write, holding the saver while it waits for the file.
        with saver.lock:
            worker = threading.Thread(target=append_for_the_thread, daemon=True)
            worker.start()
            worker.join(timeout=10)
            finished = not worker.is_alive()
        worker.join(timeout=40)
    assert finished, "the audit append waited for the graph's checkpointer"
    assert written and SECRET not in written[0]
