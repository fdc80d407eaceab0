"""How the deterministic planner weighs fit, on made-up servers whose words appear in no
benchmark: a name's object against its verb, values with nowhere to go, a search without
anything to search by, a verb the tool does not do, words the operator forbids."""

from __future__ import annotations

from graph.planner.actions import request_action
from graph.planner.intent import classify
from graph.planner.scoring import rank
from graph.planner.text import affirmed, concepts, stem, words
from mcp_host.manifest import Capability
from tests.graph.test_planner_evidence import tool as cap


def ranked(capabilities: list[Capability], text: str, operation: str | None = None) -> list[str]:
    kind = operation or classify(text).operation_type
    return [s.capability.key for s in rank(capabilities, text, kind, []) if s.score >= 4.0]


def score_of(capabilities: list[Capability], text: str, key: str) -> float:
    kind = classify(text).operation_type
    return next(s.score for s in rank(capabilities, text, kind, []) if s.capability.key == key)


NAME = {"name": {"type": "string"}}
QUERY = {"query": {"type": "string", "description": "Words to look for."}}
NAMES = {"names": {"type": "array", "items": {"type": "string"}}}

GARDEN = [
    cap(
        "garden",
        "update_plant",
        "Change a plant's watering schedule.",
        {"plant_id": {"type": "integer"}},
        ["plant_id"],
    ),
    cap("garden", "list_plants", "Every plant in the greenhouse.", {}),
]


def test_a_verb_alone_matching_a_tools_verb_does_not_choose_it_without_its_object() -> None:
    # "set" is a synonym of update, but the request is about a thermostat, not a plant.
    assert ranked(GARDEN, "Set the thermostat to 21 degrees") == []
    assert ranked(GARDEN, "Update plant 4")[:1] == ["garden__update_plant"]


def test_a_name_that_is_only_a_verb_is_matched_by_that_verb() -> None:
    chime = [cap("bells", "chime", "Ring the bell.", {"times": {"type": "integer"}})]
    assert ranked(chime, "Please chime 3 times") == ["bells__chime"]


def test_a_search_needs_a_capability_that_takes_something_to_search_by() -> None:
    catalogue = [
        cap(
            "library", "book-catalogue", "The whole book catalogue: every title and author.", kind="resource"
        ),
        cap(
            "library",
            "search_items",
            "Search for items in the book catalogue based on a query",
            QUERY,
            ["query"],
        ),
        cap(
            "library",
            "add_items",
            "Add new items to the book catalogue",
            {"items": {"type": "array", "items": {"type": "object"}}},
            ["items"],
        ),
    ]
    assert ranked(catalogue, "Search the book catalogue", "tool")[:1] == ["library__search_items"]
    assert ranked(catalogue, "Show the book catalogue", "tool")[:1] == ["library__book-catalogue"]


def test_a_named_thing_goes_to_a_capability_that_takes_a_name_not_to_the_whole_listing() -> None:
    registry = [
        cap(
            "registry",
            "vessel-registry",
            "The whole vessel registry: every vessel and owner.",
            kind="resource",
        ),
        cap(
            "registry",
            "open_entries",
            "Open specific entries in the vessel registry by their names",
            NAMES,
            ["names"],
        ),
        cap("registry", "search_entries", "Search entries in the vessel registry", QUERY, ["query"]),
    ]
    best = ranked(registry, "Retrieve the Sea Breeze vessel from the vessel registry")
    assert best[0] in {"registry__open_entries", "registry__search_entries"}
    assert ranked(registry, "Show me the whole vessel registry")[:1] == ["registry__vessel-registry"]


def test_a_path_is_no_job_for_a_tool_that_takes_no_path() -> None:
    pantry = [cap("pantry", "remove_items", "Remove items from the pantry.", NAME, ["name"])]
    assert ranked(pantry, "Remove /srv/share/old-notes.txt") == []
    assert ranked(pantry, "Remove the flour from the pantry") == ["pantry__remove_items"]


def test_an_acting_verb_the_tool_does_not_do_counts_against_it() -> None:
    vcs = [
        cap(
            "vcs",
            "vcs_commit",
            "Records changes to the repository",
            {"repo_path": {"type": "string"}, "message": {"type": "string"}},
            ["repo_path", "message"],
        ),
        cap("vcs", "vcs_log", "Shows the commit logs", {"repo_path": {"type": "string"}}, ["repo_path"]),
    ]
    assert ranked(vcs, "Push the latest commits in /srv/repo to the server") == []
    assert ranked(vcs, "Commit the staged files in /srv/repo with the message 'fix'")[:1] == [
        "vcs__vcs_commit"
    ]


def test_a_verb_of_the_same_act_is_no_mismatch() -> None:
    register = [
        cap(
            "crm",
            "create_contacts",
            "Create new contacts.",
            {"contacts": {"type": "array", "items": {"type": "object"}}},
            ["contacts"],
        )
    ]
    assert ranked(register, "Add a new contact called Dana Ruiz") == ["crm__create_contacts"]


def test_opening_a_new_thing_creates_it_and_is_not_served_by_a_read() -> None:
    desk = [
        cap(
            "desk",
            "search_requests",
            "Search support requests.",
            {"status": {"type": "string", "enum": ["open", "done"]}},
        )
    ]
    assert not request_action("Open a new support request for the printer").reads_only
    assert ranked(desk, "Open a new support request for the printer") == []


def test_what_the_operator_forbids_is_no_evidence() -> None:
    assert "create" not in concepts("Look the folder up, don't create anything")
    assert affirmed("Show changes not yet staged") == "Show changes not yet staged"
    shelf = [
        cap("shelf", "stage_box", "Stage a box for shipping.", NAME, ["name"]),
        cap("shelf", "box_status", "Shows where each box is.", {}),
    ]
    text = "Where are the boxes? Don't stage anything."
    assert score_of(shelf, text, "shelf__box_status") > 0 > score_of(shelf, text, "shelf__stage_box")


def test_a_clause_that_sets_the_scene_orders_nothing() -> None:
    assert request_action("Before I archive it, what does record 8 say?").reads_only
    assert not request_action("In /srv/a.txt, change 'x' to 'y'").reads_only


def test_british_spellings_and_contractions_read_like_american_ones() -> None:
    assert stem("summarising") == stem("summarizing") == stem("summarize")
    assert stem("organisation") == stem("organization")
    assert words("isn't it, don't we") == []
    assert stem("creation") == stem("created") and stem("modification") == stem("modified")


def test_a_prompt_asked_for_is_not_served_by_a_tool() -> None:
    reports = [
        cap("reports", "search_invoices", "Search invoices by status.", {"status": {"type": "string"}}),
        cap(
            "reports",
            "summarize_invoices",
            "Prompt template: summarize invoices.",
            {"status": {"type": "string"}},
            kind="prompt",
        ),
    ]
    assert ranked(reports, "Give me the prompt template for summarising overdue invoices")[:1] == [
        "reports__summarize_invoices"
    ]


def test_an_identifier_beside_its_noun_is_a_value_not_a_word_to_match() -> None:
    catalogue = [
        cap("docs", "features.md", "The feature list of the product.", kind="resource"),
        cap("vcs", "vcs_branch", "List branches", {"repo_path": {"type": "string"}}, ["repo_path"]),
    ]
    assert "feature" not in concepts("Check out the feature-login branch")
    assert "docs__features.md" not in ranked(catalogue, "Check out the feature-login branch")
    assert ranked(catalogue, "Show me the features.md document")[:1] == ["docs__features.md"]


def test_a_questions_named_server_asked_about_a_name_is_a_look_up_there() -> None:
    atlas = [
        cap("atlas", "search_places", "Search places in the atlas.", QUERY, ["query"]),
        cap(
            "atlas",
            "open_places",
            "Open places in the atlas by their names.",
            NAMES,
            ["names"],
        ),
    ]
    assert ranked(atlas, "According to the atlas, where is Lake Bled?")[:1] == ["atlas__search_places"]


def test_a_general_question_with_a_name_still_needs_no_server() -> None:
    atlas = [cap("atlas", "search_places", "Search places in the atlas.", QUERY, ["query"])]
    assert classify("What is the capital of Slovenia?").intent == "answer_without_mcp"
    assert ranked(atlas, "What is the capital of Slovenia?") == []


def test_two_paths_choose_the_tool_that_takes_several() -> None:
    viewer = [
        cap("viewer", "show_file", "Show a file.", {"path": {"type": "string"}}, ["path"]),
        cap(
            "viewer",
            "show_multiple_files",
            "Show several files side by side.",
            {"paths": {"type": "array", "items": {"type": "string"}}},
            ["paths"],
        ),
    ]
    assert ranked(viewer, "show /srv/a.md next to /srv/b.md")[:1] == ["viewer__show_multiple_files"]
    assert ranked(viewer, "show /srv/a.md")[:1] == ["viewer__show_file"]


def test_a_phrase_of_the_description_said_in_the_request_tells_near_twins_apart() -> None:
    files = [
        cap(
            "disk",
            "read_file",
            "Read the complete contents of a file.",
            {"path": {"type": "string"}},
            ["path"],
        ),
        cap(
            "disk",
            "file_details",
            "Size, owner and last modified time of a file.",
            {"path": {"type": "string"}},
            ["path"],
        ),
    ]
    text = "When was /srv/a.md last modified?"
    assert score_of(files, text, "disk__file_details") - score_of(files, text, "disk__read_file") >= 0.5


CLOCK = [
    cap(
        "clock",
        "get_current_time",
        "Current time in a time zone.",
        {"timezone": {"type": "string"}},
        ["timezone"],
    ),
    cap(
        "clock",
        "convert_time",
        "Convert a time between time zones.",
        {
            "source_timezone": {"type": "string"},
            "time": {"type": "string"},
            "target_timezone": {"type": "string"},
        },
        ["source_timezone", "time", "target_timezone"],
    ),
    cap(
        "vcs",
        "vcs_checkout",
        "Switches branches",
        {"repo_path": {"type": "string"}, "branch_name": {"type": "string"}},
        ["repo_path", "branch_name"],
    ),
    cap("shop", "search_orders", "Search orders by their status.", QUERY, ["query"]),
]


def test_a_time_of_day_names_time_and_a_time_the_tool_cannot_take_counts_against_it() -> None:
    assert ranked(CLOCK, "9am Denver -> Honolulu?")[:1] == ["clock__convert_time"]
    assert ranked(CLOCK, "What would 10:00 Tokyo time be?")[:1] == ["clock__convert_time"]
    assert ranked(CLOCK, "Convert 16:45 for me")[:1] == ["clock__convert_time"]


def test_times_between_numbers_multiplies() -> None:
    assert ranked(CLOCK, "What's 12 times 12?") == []


def test_a_zone_name_is_not_a_path_and_a_named_server_leaves_the_others_out() -> None:
    assert ranked(CLOCK, "Switch the clock server's local zone from UTC to Europe/Madrid") == []


def test_a_plural_noun_beside_a_verb_is_no_order() -> None:
    assert request_action("Alice moved to the payments team last week").reads_only
    assert not request_action("Pay the invoice").reads_only


def test_what_the_operator_forbids_orders_nothing_however_many_verbs_it_lists() -> None:
    assert request_action("Which file is biggest? Just check, don't move or delete anything.").reads_only


def test_a_link_to_a_result_is_a_noun_and_booking_acts() -> None:
    assert "link" not in request_action("Compress it and give me a link to the result").verbs
    assert not request_action("Book a flight to Paris for next Tuesday").reads_only
    assert ranked(CLOCK, "Book a flight to Paris for next Tuesday") == []


def test_a_synonyms_label_is_met_by_its_own_word() -> None:
    assert concepts("what's on the clock") & concepts("what time is it")


def test_two_reads_that_use_the_same_values_run_the_better_one_instead_of_asking() -> None:
    from graph.context import Limits
    from graph.planner.deterministic import DeterministicPlanner
    from graph.planner.protocol import PlanningRequest

    atlas = [
        cap("atlas", "search_places", "Search places in the atlas.", QUERY, ["query"]),
        cap(
            "atlas",
            "open_places",
            "Open places in the atlas by their names.",
            NAMES,
            ["names"],
        ),
        cap(
            "atlas",
            "delete_places",
            "Delete places from the atlas.",
            NAMES,
            ["names"],
        ),
    ]
    wide = Limits(ambiguity_margin=100.0)
    planner = DeterministicPlanner()

    read = planner.select(PlanningRequest(text="Look up Lake Bled in the atlas"), atlas, wide)
    assert read.chosen is not None and read.ambiguous_with is None

    # Whatever acts is still a question when it is close.
    acting = [
        atlas[2],
        cap(
            "atlas",
            "remove_places",
            "Remove places from the atlas.",
            NAMES,
            ["names"],
        ),
    ]
    removal = planner.select(PlanningRequest(text="Remove Lake Bled from the atlas"), acting, wide)
    assert removal.chosen is not None and removal.ambiguous_with is not None


def test_replacing_words_edits_and_a_launch_after_its_article_is_a_noun() -> None:
    assert not request_action("In /srv/a.md replace the word 'draft' with 'final'").reads_only
    assert request_action("Have we stored anything about the Q4 launch in memory?").reads_only
    assert "update" in concepts("when was it last touched?")
