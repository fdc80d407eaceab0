"""Files of a kind asked for in subfolders too ("Python scripts anywhere under /srv, subfolders
included", "recursively") take a glob that matches at any depth ("**/*.py"), as where the tool's
own words say so; asked for without them, the glob is the folder's own ("*.py"). Made-up schema
shaped like server-filesystem's search_files, whose pattern has no description of its own."""

from __future__ import annotations

import pytest

from graph.planner.arguments import extract_arguments
from graph.planner.provenance import stated

SEARCH = {
    "type": "object",
    "properties": {"path": {"type": "string"}, "pattern": {"type": "string"}},
    "required": ["path", "pattern"],
}


@pytest.mark.parametrize(
    "text",
    [
        "Do we have any Python files under /srv/app, subfolders included?",
        "Find markdown files in /srv/docs recursively",
        "List the json files in /srv and all its subdirectories",
    ],
)
def test_files_of_a_kind_in_subfolders_too_take_a_glob_at_any_depth(text: str) -> None:
    pattern = extract_arguments(SEARCH, text).arguments["pattern"]

    assert pattern.startswith("**/*.")
    assert stated(pattern, text, (0, len(text)), name="pattern", schema={"type": "string"}) is not None


def test_files_of_a_kind_in_one_folder_take_its_own_glob() -> None:
    assert extract_arguments(SEARCH, "Find the Python files in /srv/app").arguments["pattern"] == "*.py"
