"""Arguments read off a made-up schema: each value the request states, in the shape people
write it, and nothing it does not state."""

from __future__ import annotations

import zoneinfo
from typing import Any

import pytest

from graph.planner.arguments import extract_arguments
from graph.planner.zones import zone_mentions


def schema(properties: dict[str, Any], required: list[str] | None = None) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": required or []}


def args(properties: dict[str, Any], text: str, required: list[str] | None = None) -> dict[str, Any]:
    return extract_arguments(schema(properties, required), text).arguments


STRING = {"type": "string"}


def test_a_camel_case_name_is_written_as_words_and_an_id_by_its_noun() -> None:
    props = {"shelfType": STRING, "shelfId": STRING}
    assert args(props, "Open the shelf prompt for shelf type Oak, id 7") == {
        "shelfType": "Oak",
        "shelfId": "7",
    }
    assert args({"shelfId": STRING}, "Fetch shelf 42", ["shelfId"]) == {"shelfId": "42"}
    assert args({"shelfId": {"type": "number"}}, "Fetch shelf number 3") == {"shelfId": 3.0}


def test_a_quoted_value_right_after_a_property_name_is_that_propertys() -> None:
    props = {"recipient": {"type": "string", "format": "email"}, "headline": STRING, "text": STRING}
    found = args(props, "Notify ops@example.com, headline 'Outage', text 'The API is down'")
    assert found == {"recipient": "ops@example.com", "headline": "Outage", "text": "The API is down"}


def test_copies_are_taken_only_where_the_request_labels_them() -> None:
    props = {"to": STRING, "cc": {"type": "array", "items": {"type": "string"}}}
    assert args(props, "Mail a@example.com, cc b@example.org and c@example.net") == {
        "to": "a@example.com",
        "cc": ["b@example.org", "c@example.net"],
    }
    assert args(props, "Mail a@example.com and b@example.org") == {"to": "a@example.com"}


def test_options_a_description_lists_are_an_enum() -> None:
    props = {"severity": {"type": "string", "description": "Severity to include: minor, major or critical."}}
    assert args(props, "the report for major-severity incidents") == {"severity": "major"}
    assert args(props, "the report for incidents") == {}


def test_files_of_a_kind_are_a_glob_and_a_called_name_is_a_pattern() -> None:
    props = {
        "root": STRING,
        "pattern": {"type": "string", "description": "Glob; '**/*.x' matches subfolders."},
    }
    assert args(props, "Find every Python file under /srv/code")["pattern"] == "**/*.py"
    found = args(
        {"path": STRING, "pattern": STRING}, "Is there a file called app.toml anywhere under /srv/code?"
    )
    assert found == {"path": "/srv/code", "pattern": "app.toml"}


def test_a_count_is_read_before_the_things_it_counts_and_from_a_flag() -> None:
    props = {"amount": {"type": "number", "description": "Number of sample records to return"}}
    assert args(props, "Give me 4 sample records") == {"amount": 4.0}
    assert args({"max_count": {"type": "integer"}}, "log -5 /srv/repo") == {"max_count": 5}
    timing = {
        "duration": {"type": "number", "description": "Duration in seconds"},
        "rounds": {"type": "number", "description": "Number of rounds"},
    }
    assert args(timing, "Run it for 30 seconds in 3 rounds") == {"duration": 30.0, "rounds": 3.0}


def test_a_quantity_is_not_an_identifier() -> None:
    assert args({"plant_id": {"type": "integer"}}, "Set the thermostat to 21 degrees", ["plant_id"]) == {}
    assert args({"plant_id": {"type": "integer"}}, "Water plant 21.", ["plant_id"]) == {"plant_id": 21}
    assert args({"id": STRING}, "Set an alarm for 7 am", ["id"]) == {}


def test_a_json_literal_is_one_value_whatever_quotes_it_holds() -> None:
    props = {"path": STRING, "content": STRING}
    assert args(props, 'Overwrite /srv/conf.json with {"debug": true}', ["path", "content"]) == {
        "path": "/srv/conf.json",
        "content": '{"debug": true}',
    }


def test_a_uri_by_its_format_and_a_file_name_by_its_description() -> None:
    props = {
        "source": {"type": "string", "format": "uri"},
        "name": {"type": "string", "description": "Name of the output file"},
    }
    assert args(props, "Pack https://example.com/a.csv and call it a.csv.zst") == {
        "source": "https://example.com/a.csv",
        "name": "a.csv.zst",
    }


def test_numbers_are_not_file_names() -> None:
    assert args({"path": STRING}, "how many km is 26.2 miles") == {}


def test_a_reference_beside_its_noun_after_against_or_off() -> None:
    compare = {"repo_path": STRING, "target": STRING}
    assert args(compare, "How does /srv/r differ from the topic-x branch?") == {
        "repo_path": "/srv/r",
        "target": "topic-x",
    }
    assert args(compare, "diff /srv/r against main") == {"repo_path": "/srv/r", "target": "main"}
    assert args(compare, "diff /srv/r against HEAD~1")["target"] == "HEAD~1"
    branch = {"repo_path": STRING, "branch_name": STRING, "base_branch": STRING}
    assert args(branch, "Branch off topic-x into a new branch called release-2 in /srv/r") == {
        "repo_path": "/srv/r",
        "branch_name": "release-2",
        "base_branch": "topic-x",
    }


def test_a_relative_start_is_taken_as_written() -> None:
    props = {"since": {"type": "string", "description": "Start; relative dates like '2 weeks ago' work."}}
    assert args(props, "what changed since yesterday") == {"since": "yesterday"}
    assert args(props, "commits in the last 3 days") == {"since": "3 days"}
    assert args(props, "all commits") == {}


def test_a_query_is_the_one_name_the_request_looks_for() -> None:
    query = {"query": STRING}
    assert args(query, "Look up whether Alice Moreau is in the graph", ["query"]) == {"query": "Alice Moreau"}
    assert args(query, "Search notes for anything about billing", ["query"]) == {"query": "billing"}
    assert args(query, "Is Alice with Bob in the graph?", ["query"]) == {}


def test_a_capitalised_name_beside_a_property_noun_is_its_value() -> None:
    assert args({"team": STRING}, "Get the roster prompt for the Platform team") == {"team": "Platform"}


def test_places_are_found_without_accents_capitals_or_a_zone_named_after_them() -> None:
    assert [m.zone for m in zone_mentions("What time is it in São Paulo?")] == ["America/Sao_Paulo"]
    assert [m.words for m in zone_mentions("What time is it in São Paulo?")] == ["São Paulo"]
    assert [m.zone for m in zone_mentions("current time hawaii")] == ["Pacific/Honolulu"]
    assert [m.zone for m in zone_mentions("6 pm in Chicago is what in Mumbai?")] == [
        "America/Chicago",
        "Asia/Kolkata",
    ]
    assert zone_mentions("the reading in general") == []


def test_the_zone_names_are_listed_once_not_for_every_request(monkeypatch: pytest.MonkeyPatch) -> None:
    assert [m.zone for m in zone_mentions("What time is it in Europe/Paris?")] == ["Europe/Paris"]

    # Listing them walks the whole zoneinfo tree: a quarter of the planner's time when it was
    # done for every request.
    def listing() -> set[str]:
        raise AssertionError("the zone names were listed again")

    monkeypatch.setattr(zoneinfo, "available_timezones", listing)
    assert [m.zone for m in zone_mentions("And in Asia/Tokyo, in Lima?")] == ["Asia/Tokyo", "America/Lima"]


def test_a_zone_name_is_never_a_path() -> None:
    assert args({"repo_path": STRING}, "Switch the zone from UTC to Europe/Madrid") == {}


def test_a_note_quoted_after_its_article_and_a_topic_to_the_end_of_its_clause() -> None:
    note = {"id": {"type": "integer"}, "note": STRING}
    assert args(note, "Drop ticket 14 to low and add a note 'customer found a workaround'") == {
        "id": 14,
        "note": "customer found a workaround",
    }
    topic = {"topic": STRING}
    assert args(topic, "Simulate a study on tidal power, and make it short") == {"topic": "tidal power"}


def test_a_place_for_a_city_and_a_name_without_where_to_look() -> None:
    assert args({"city": STRING}, "Fill the prompt in for Austin, state Texas") == {"city": "Austin"}
    assert args({"query": STRING}, "Do we have anything stored about Globex in memory?", ["query"]) == {
        "query": "Globex"
    }


def test_a_start_date_after_since_and_a_count_by_the_propertys_own_words() -> None:
    since = {
        "start_timestamp": {"type": "string", "description": "Start; relative dates like '2 weeks ago'."}
    }
    assert args(since, "What was committed since 2024-01-01?") == {"start_timestamp": "2024-01-01"}
    assert args({"context_lines": {"type": "integer"}}, "unstaged diff, 10 lines of context") == {
        "context_lines": 10
    }


def test_a_revision_is_what_a_comparison_is_against() -> None:
    compare = {"repo_path": STRING, "target": STRING}
    assert args(compare, "Compare the working tree of /srv/r with HEAD~3") == {
        "repo_path": "/srv/r",
        "target": "HEAD~3",
    }


def test_one_zone_named_twice_the_us_zone_names_and_for_whom_a_time_is() -> None:
    assert args({"timezone": STRING}, "The customer is in Phoenix, Arizona. What time is it there?") == {
        "timezone": "America/Phoenix"
    }
    convert = {"source_timezone": STRING, "time": STRING, "target_timezone": STRING}
    assert args(convert, "Town hall is at 11am Pacific. When is that for the Bangalore team?") == {
        "source_timezone": "America/Los_Angeles",
        "time": "11:00",
        "target_timezone": "Asia/Kolkata",
    }


def test_a_period_between_two_dates_gives_its_start_and_its_end() -> None:
    period = {
        "start_timestamp": {"type": "string", "description": "Start date"},
        "end_timestamp": {"type": "string", "description": "End date"},
    }
    assert args(period, "commits between 2024-03-01 and 2024-03-31") == {
        "start_timestamp": "2024-03-01",
        "end_timestamp": "2024-03-31",
    }


def test_the_branch_to_go_to_is_the_word_after_check_out() -> None:
    checkout = {"repo_path": STRING, "branch_name": STRING}
    assert args(checkout, "Check out main again in /srv/r.") == {"repo_path": "/srv/r", "branch_name": "main"}
    assert args(checkout, "Check out the branch in /srv/r") == {"repo_path": "/srv/r"}
