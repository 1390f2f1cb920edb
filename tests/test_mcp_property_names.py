"""Top-level property names the Messages API refuses are renamed to safe ones, and a
call's arguments are mapped back to the server's names (`mcp_servers.property_names`,
`offered_tools`). The end-to-end case, with a real server and the strict fake API, is in
`test_mcp_tool_schemas.py`."""

from __future__ import annotations

import pytest

from agent_cli.mcp_servers.offered_tools import ListedTool, offer_tools
from agent_cli.mcp_servers.property_names import (
    is_safe_key,
    rename_properties,
    server_arguments,
)


def schema(*keys: str, required: list[str] | None = None) -> dict:
    built: dict = {"type": "object", "properties": {key: {"type": "string"} for key in keys}}
    if required is not None:
        built["required"] = required
    return built


@pytest.mark.parametrize(
    ("key", "safe"),
    [
        ("filter[id]", "filter_id_"),
        ("issue_types[]", "issue_types__"),
        ("$top", "_top"),
        ("Account Number", "Account_Number"),
        ("naïve", "na_ve"),
        ("line\nbreak", "line_break"),
        ("", "unnamed"),
    ],
)
def test_a_refused_key_becomes_the_same_key_with_underscores(key, safe) -> None:
    renaming = rename_properties(schema(key))
    assert renaming.renamed == ((key, safe),) and renaming.problem == ""
    assert list(renaming.schema["properties"]) == [safe]
    assert is_safe_key(safe) and not is_safe_key(key)


def test_a_key_past_64_characters_is_cut_to_64() -> None:
    long_key = "a" * 70
    renaming = rename_properties(schema(long_key))
    assert renaming.renamed == ((long_key, "a" * 64),)


def test_a_renamed_key_never_takes_a_name_the_schema_already_has() -> None:
    renaming = rename_properties(schema("filter_id_", "filter[id]", "filter(id)", "unnamed", ""))
    assert renaming.renamed == (
        ("filter[id]", "filter_id__2"),
        ("filter(id)", "filter_id__3"),
        ("", "unnamed_2"),
    )
    assert list(renaming.schema["properties"]) == [
        "filter_id_",
        "filter_id__2",
        "filter_id__3",
        "unnamed",
        "unnamed_2",
    ]


def test_a_numbered_name_of_a_64_character_key_is_cut_before_its_number() -> None:
    renaming = rename_properties(schema("b" * 64, "b" * 64 + "$"))
    assert renaming.renamed == (("b" * 64 + "$", "b" * 62 + "_2"),)


def test_required_follows_the_renaming_and_keeps_its_other_names() -> None:
    renaming = rename_properties(schema("$top", "name", required=["$top", "name", "$absent"]))
    assert renaming.schema["required"] == ["_top", "name", "$absent"]


def test_the_server_schema_is_not_changed_and_a_safe_one_is_handed_back_as_it_is() -> None:
    listed = schema("$top", required=["$top"])
    rename_properties(listed)
    assert listed == schema("$top", required=["$top"])
    safe = schema("top", "a.b-c_d")
    assert rename_properties(safe).schema is safe and rename_properties(safe).renamed == ()


def test_keys_nested_deeper_are_left_as_they_are() -> None:
    nested = {"type": "object", "properties": {"q": {"type": "object", "properties": {"$x": {}}}}}
    assert rename_properties(nested).renamed == ()


def test_a_key_named_again_by_dependent_required_cannot_be_renamed() -> None:
    tangled = schema("$top", "$skip")
    tangled["dependentRequired"] = {"$skip": ["$top"]}
    renaming = rename_properties(tangled)
    assert renaming.renamed == () and "dependentRequired names them too" in renaming.problem


def test_arguments_go_back_under_the_servers_names_and_unknown_ones_as_sent() -> None:
    renamed = (("filter[id]", "filter_id_"), ("$top", "_top"))
    sent = {"filter_id_": "7", "_top": 5, "other": True}
    assert server_arguments(sent, renamed) == {"filter[id]": "7", "$top": 5, "other": True}


def test_the_offered_name_wins_when_the_model_sends_both_names() -> None:
    renamed = (("$top", "_top"),)
    assert server_arguments({"_top": 1, "$top": 2}, renamed) == {"$top": 1}


def test_an_offered_tool_carries_its_renaming_and_a_tangled_one_is_skipped() -> None:
    tangled = schema("$top", "$skip")
    tangled["dependentRequired"] = {"$skip": ["$top"]}
    listed = [
        ListedTool("search", "finds", schema("filter[id]", "q", required=["filter[id]"])),
        ListedTool("tangled", "", tangled),
    ]
    offered, skipped = offer_tools("s", listed)
    (search,) = offered
    assert search.definition["input_schema"]["properties"].keys() == {"filter_id_", "q"}
    assert search.definition["input_schema"]["required"] == ["filter_id_"]
    assert search.renamed == (("filter[id]", "filter_id_"),)
    assert search.server_arguments({"filter_id_": "1", "q": "x"}) == {"filter[id]": "1", "q": "x"}
    assert [(tool.tool, "dependentRequired" in tool.problem) for tool in skipped] == [
        ("tangled", True)
    ]
