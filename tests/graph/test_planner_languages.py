"""Requests in German, Spanish and French through the real graph on the real bundled servers:
a read runs on the capability it names; a change whose words the glossary leaves partly unread
is asked about first (with the capability among the choices); a change read in full goes to the
policy, as the same words in English would; and nothing runs that the operator did not ask for."""

from __future__ import annotations

import pytest

from graph.builder import CompiledGraph
from tests.fakes import FaultInjectingClient
from tests.graphs import sqlite_graph
from tests.support import ask

graph = sqlite_graph


@pytest.mark.parametrize(
    ("text", "capability"),
    [
        ("Lies die Datei notes.md", "read_file"),
        ("Muestra el ticket 3", "ticket"),
        ("Lis le fichier notes.md", "read_file"),
    ],
)
def test_a_read_asked_for_in_another_language_runs_on_the_capability_it_names(
    graph: CompiledGraph, client: FaultInjectingClient, text: str, capability: str
) -> None:
    output = ask(graph, client, text).final_output

    assert output.status == "ok", output.response
    assert output.selected_capability is not None
    assert output.selected_capability.name == capability


@pytest.mark.parametrize(
    ("text", "capability"),
    [
        ("Envoie un courriel à bob@example.com pour dire bonjour", "email__send_email"),
        ("Schreibe 'hallo' schnell irgendwo in die Datei gruss.txt", "filesystem__write_file"),
    ],
)
def test_a_change_asked_for_in_another_language_with_words_left_unread_is_asked_about_and_nothing_runs(
    graph: CompiledGraph, client: FaultInjectingClient, text: str, capability: str
) -> None:
    output = ask(graph, client, text).final_output

    assert output.status == "needs_clarification", output.response
    assert output.review is not None
    assert capability in [choice["key"] for choice in output.review.model_dump()["choices"]]
    assert client.calls == []


def test_a_change_asked_for_in_another_language_read_in_full_goes_to_the_reviewer_and_nothing_runs(
    graph: CompiledGraph, client: FaultInjectingClient
) -> None:
    output = ask(graph, client, "Schreibe 'hallo' in die Datei gruss.txt").final_output

    assert output.status == "needs_review", output.response
    assert output.selected_capability is not None
    assert output.selected_capability.name == "write_file"
    assert client.calls == []
