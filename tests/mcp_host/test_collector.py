"""CapabilityCollector and template_schema on their own: SDK listing entries in, Capabilities out."""

from __future__ import annotations

import mcp.types as types

from mcp_host.discovery import CapabilityCollector, template_schema


def _tool(name: str, schema: dict[str, object] | None = None) -> types.Tool:
    return types.Tool(name=name, input_schema=schema or {"type": "object", "properties": {}})


def test_the_collector_rejects_a_tool_whose_input_schema_is_not_an_object_naming_it() -> None:
    collector = CapabilityCollector("srv")

    collector.add_tool(_tool("stringy", {"type": "string"}))

    assert collector.capabilities == []
    assert len(collector.rejected) == 1
    assert "'stringy'" in collector.rejected[0]
    assert "not an object schema" in collector.rejected[0]


def test_the_collector_rejects_a_tool_whose_properties_are_not_a_mapping() -> None:
    collector = CapabilityCollector("srv")

    collector.add_tool(_tool("listy", {"type": "object", "properties": ["a", "b"]}))

    assert collector.capabilities == []
    assert any("'listy'" in reason for reason in collector.rejected)


def test_the_collector_keeps_the_valid_siblings_of_a_rejected_tool() -> None:
    collector = CapabilityCollector("srv")

    collector.add_tool(_tool("before"))
    collector.add_tool(_tool("stringy", {"type": "string"}))
    collector.add_tool(_tool("after", {"type": "object", "properties": {"x": {"type": "integer"}}}))

    assert [capability.key for capability in collector.capabilities] == ["srv__before", "srv__after"]
    assert collector.capabilities[1].properties == {"x": {"type": "integer"}}


def test_the_collector_rejects_an_entry_with_a_blank_name() -> None:
    collector = CapabilityCollector("srv")

    collector.add_tool(_tool("   "))

    assert collector.capabilities == []
    assert collector.rejected == ["tool with an empty name ignored"]


def test_the_collector_rejects_the_second_tool_of_the_same_name() -> None:
    collector = CapabilityCollector("srv")

    collector.add_tool(_tool("twice"))
    collector.add_tool(_tool("twice"))

    assert [capability.key for capability in collector.capabilities] == ["srv__twice"]
    assert collector.rejected == ["duplicate tool 'twice' ignored"]


def test_a_tool_and_a_prompt_sharing_a_name_both_get_distinct_keys() -> None:
    collector = CapabilityCollector("srv")

    collector.add_tool(_tool("report"))
    collector.add_prompt(types.Prompt(name="report"))

    assert [(capability.key, capability.type) for capability in collector.capabilities] == [
        ("srv__report", "tool"),
        ("srv__report__prompt", "prompt"),
    ]
    assert collector.rejected == []


def test_a_prompt_schema_marks_only_required_arguments_as_required() -> None:
    collector = CapabilityCollector("srv")

    collector.add_prompt(
        types.Prompt(
            name="brief",
            arguments=[
                types.PromptArgument(name="topic", description="What about", required=True),
                types.PromptArgument(name="tone"),
            ],
        )
    )

    (prompt,) = collector.capabilities
    assert prompt.properties == {
        "topic": {"type": "string", "description": "What about"},
        "tone": {"type": "string", "description": ""},
    }
    assert prompt.required_arguments == ["topic"]


def test_template_schema_requires_every_variable_of_the_template_once() -> None:
    schema = template_schema("repo://{owner}/{name}/{+path}/by/{owner}")

    assert schema["type"] == "object"
    assert schema["required"] == ["owner", "name", "path"]
    assert schema["properties"] == {name: {"type": "string"} for name in ("owner", "name", "path")}


def test_template_schema_keeps_a_variable_with_a_prefix_modifier() -> None:
    schema = template_schema("ticket://{id:3}")

    assert schema["required"] == ["id"]
