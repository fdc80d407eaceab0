"""The 2026-11-held-out-4 batch (eval/batches/2026-11-held-out-4.json): its shape and spread. Its
two servers are started in tests/eval/test_desk_servers.py; nothing here runs the planner."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from eval.case_sets import read_case_file
from eval.cases import load_cases
from eval.workspace import BATCH_SERVERS, DESK_SERVERS, DOCUMENT_SERVERS

BATCH_FILE = Path(__file__).resolve().parents[2] / "eval" / "batches" / "2026-11-held-out-4.json"
MIN_PER_NEW_SERVER = 20
MIN_NOT_ENGLISH = 10
MIN_NOTHING_SERVES = 8


def _batch() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(BATCH_FILE.read_text(encoding="utf-8"))
    return data


def test_the_batch_is_well_formed_and_any_before_tuning_figure_counts_its_cases() -> None:
    # Read as the benchmark reads it: the groups its header names are known (a CasesFileError
    # names every problem otherwise).
    read = read_case_file(BATCH_FILE)
    assert [b.id for b in read.batches] == [BATCH_FILE.stem]
    assert {c.batch for c in read.cases} == {BATCH_FILE.stem}
    header = _batch()["batch"]
    assert header["id"] == BATCH_FILE.stem
    assert set(DESK_SERVERS) <= set(header["servers"])
    assert all("@" in spec.lstrip("@") for spec in header["servers"].values()), header["servers"]
    # Scored once after the planner work, never by the writer of the cases: until then empty,
    # then a figure for every group the cases name and for the whole batch.
    before = header["before_tuning"]
    if before:
        groups = Counter(case.group for case in read.cases)
        assert {name: figure["of"] for name, figure in before.items() if name != "overall"} == dict(groups)
        assert before["overall"]["of"] == len(read.cases)


def test_each_new_server_has_its_requests_and_they_expect_only_its_own_tools() -> None:
    cases = load_cases(BATCH_FILE)
    groups = Counter(case.group for case in cases)
    for server in DESK_SERVERS:
        assert groups[server] >= MIN_PER_NEW_SERVER, groups
        mine = [c for c in cases if c.group == server]
        assert all(key.split("__")[0] == server for c in mine for key in c.capabilities), server
        # Reads, writes and questions for a missing argument, for each.
        assert any(c.read_only and c.capabilities for c in mine)
        assert any(not c.read_only and c.capabilities and not c.missing for c in mine)
        assert any(c.missing for c in mine)
    # Writes nothing can do are in the group none here (near the decks and the todos among them).
    assert len([c for c in cases if c.group == "none" and not c.read_only]) >= MIN_NOTHING_SERVES - 2


def test_the_batch_covers_other_languages_and_requests_nothing_serves() -> None:
    cases = load_cases(BATCH_FILE)
    # Their ids end in the language: German, Spanish, French, Italian, Portuguese, Dutch.
    languages = ("de", "es", "fr", "it", "pt", "nl")
    foreign = [c for c in cases if c.id.rsplit("-", 1)[1] in languages]
    assert len(foreign) >= MIN_NOT_ENGLISH
    assert {c.id.rsplit("-", 1)[1] for c in foreign} == set(languages)
    assert {c.group for c in foreign} >= {*DESK_SERVERS, *DOCUMENT_SERVERS, *BATCH_SERVERS} - {
        "calculator",
        "redis",
        "word",
    }
    assert len([c for c in cases if c.group == "none"]) >= MIN_NOTHING_SERVES
    # A write is never expected to just run.
    assert all("ok" not in c.statuses for c in cases if not c.read_only and c.capabilities)
