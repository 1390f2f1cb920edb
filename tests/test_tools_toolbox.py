"""The toolbox's own contract: stable schemas, and run() answering every call, even bad ones."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from tools_support import make_toolbox

from agent_cli.errors import ConfigError, ReadOnlyValueError
from agent_cli.tools import TOOL_SCHEMAS, ToolOutcome, build_interrupted_outcome

EXPECTED_ORDER = [
    "read_file",
    "write_file",
    "edit_file",
    "list_dir",
    "grep",
    "bash",
    "read_artifact",
]


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "a.txt").write_text("alpha\n")
    return root


def test_schemas_list_every_tool_in_a_stable_order(workspace: Path):
    schemas = make_toolbox(workspace).schemas()
    assert [schema["name"] for schema in schemas] == EXPECTED_ORDER
    assert schemas == make_toolbox(workspace).schemas()


def test_schemas_have_exactly_the_anthropic_tool_fields(workspace: Path):
    for schema in make_toolbox(workspace).schemas():
        assert set(schema) == {"name", "description", "input_schema"}
        assert schema["description"].strip()
        assert schema["input_schema"]["type"] == "object"
        assert set(schema["input_schema"]["required"]) <= set(schema["input_schema"]["properties"])
        json.dumps(schema)


def test_returned_schemas_refuse_changes_and_the_toolbox_keeps_them_whole(workspace: Path):
    toolbox = make_toolbox(workspace)
    with pytest.raises(ReadOnlyValueError):
        toolbox.schemas()[0]["input_schema"]["properties"].clear()
    with pytest.raises(ReadOnlyValueError):
        toolbox.schemas().append({"name": "extra"})
    assert "path" in toolbox.schemas()[0]["input_schema"]["properties"]
    assert toolbox.schemas() == list(TOOL_SCHEMAS)


def test_a_copy_of_the_schemas_is_plain_and_leaves_the_toolbox_alone(workspace: Path):
    toolbox = make_toolbox(workspace)
    copied = copy.deepcopy(toolbox.schemas())
    copied[0]["input_schema"]["properties"].clear()
    assert "path" in toolbox.schemas()[0]["input_schema"]["properties"]
    assert "path" in TOOL_SCHEMAS[0]["input_schema"]["properties"]


def test_a_tool_of_an_mcp_server_no_longer_running_says_so(workspace: Path):
    """Found by an outside attack: calling a tool of a failed server answered only
    "Unknown tool", which told neither the model nor the user what happened."""
    outcome = make_toolbox(workspace).run("mcp__h__esc", {})
    assert outcome.is_error and outcome.content.startswith("There is no tool by that name.")
    assert "mcp__h__esc" not in outcome.content  # never repeated: `tools.echo`
    assert "No MCP server that is running offers it now" in outcome.content
    assert "/mcp restart" in outcome.content


def test_an_unknown_tool_gets_an_error_naming_the_available_tools(workspace: Path):
    outcome = make_toolbox(workspace).run("delete_everything", {})
    assert outcome == ToolOutcome(
        content=(
            "There is no tool by that name. Available tools: "
            "read_file, write_file, edit_file, list_dir, grep, bash, read_artifact."
        ),
        is_error=True,
        size_bytes=len(outcome.content.encode()),
        artifact_pointer=None,
        summary="unknown tool",
    )


@pytest.mark.parametrize(
    ("name", "tool_input", "expected"),
    [
        ("read_file", "a.txt", "expected a JSON object"),
        ("read_file", {}, "missing required key 'path'"),
        ("read_file", {"path": 7}, "path must be a string, got an integer"),
        ("read_file", {"path": "a.txt", "start_line": "1"}, "start_line must be an integer"),
        ("read_file", {"path": "a.txt", "start_line": True}, "got a boolean"),
        ("read_file", {"path": "a.txt", "start_line": 1.5}, "got a number"),
        ("read_file", {"path": "a.txt", "start_line": 0}, "start_line must be at least 1"),
        ("read_file", {"path": "a.txt", "lines": 3}, "a key it does not take. Allowed keys"),
        ("write_file", {"path": "b.txt", "content": ["x"]}, "content must be a string"),
        ("bash", {"command": "true", "timeout_seconds": 0}, "at least 1"),
        ("grep", {"pattern": None}, "missing required key 'pattern'"),
        ("read_artifact", {"pointer": "artifact:x", "offset": -1}, "at least 0"),
    ],
)
def test_bad_input_is_an_error_that_says_what_was_expected(
    workspace: Path, name: str, tool_input, expected: str
):
    outcome = make_toolbox(workspace).run(name, tool_input)
    assert outcome.is_error
    assert outcome.content.startswith(f"Invalid input for {name}:")
    assert expected in outcome.content
    assert not (workspace / "b.txt").exists()


def test_null_for_an_optional_key_means_not_given(workspace: Path):
    outcome = make_toolbox(workspace).run(
        "read_file", {"path": "a.txt", "start_line": None, "end_line": None}
    )
    assert not outcome.is_error
    assert outcome.content.startswith("File: a.txt (lines 1-1 of 1)")


def test_every_outcome_is_text_with_its_byte_size(workspace: Path):
    toolbox = make_toolbox(workspace)
    calls = [
        ("read_file", {"path": "a.txt"}),
        ("list_dir", {}),
        ("grep", {"pattern": "alpha"}),
        ("bash", {"command": "printf '\\xff\\xfe'"}),
        ("read_file", {"path": "missing"}),
    ]
    for name, tool_input in calls:
        outcome = toolbox.run(name, tool_input)
        assert isinstance(outcome.content, str)
        assert outcome.size_bytes == len(outcome.content.encode("utf-8"))
        assert outcome.summary and "\n" not in outcome.summary


def test_a_missing_workspace_is_refused_when_the_toolbox_is_built(tmp_path: Path):
    with pytest.raises(ConfigError) as missing:
        make_toolbox(tmp_path / "does-not-exist")
    assert (missing.value.key, missing.value.reason) == ("workspace", "missing")
    (tmp_path / "file").write_text("x")
    with pytest.raises(ConfigError) as not_a_directory:
        make_toolbox(tmp_path / "file")
    assert not_a_directory.value.reason == "not_a_directory"


def test_the_interrupted_outcome_is_an_error_result_naming_the_tool():
    outcome = build_interrupted_outcome("bash")
    assert outcome.is_error
    assert outcome.content.startswith("Interrupted by the user (Ctrl-C): bash was stopped")
    assert outcome.summary == "interrupted"
    assert outcome.artifact_pointer is None


def test_a_tool_name_that_is_not_even_a_string_gets_an_error_result(workspace: Path):
    outcome = make_toolbox(workspace).run(["read_file"], {"path": "a.txt"})
    assert outcome.is_error
    assert outcome.summary == "unknown tool"


def test_a_running_mcp_call_is_announced_to_the_output_watcher(workspace: Path):
    """Found by an outside attack: during a long MCP call the screen showed only the
    tool's header, with no spinner, elapsed time or Ctrl-C hint; the REPL starts those on
    the empty chunk a running tool sends, which MCP calls never sent."""
    from agent_cli.mcp_servers.offered_tools import OfferedTool
    from agent_cli.mcp_servers.states import CallOutcome

    seen: list[bytes] = []

    class OneTool:
        version = 1

        def offered_tools(self) -> list[OfferedTool]:
            definition = {"name": "mcp__s__slow", "input_schema": {"type": "object"}}
            return [OfferedTool(definition, "s", "slow")]

        def call(self, server: str, tool: str, arguments: dict) -> CallOutcome:
            assert seen == [b""], "the watcher heard of the call before it ran"
            return CallOutcome(({"type": "text", "text": "done"},))

    toolbox = make_toolbox(workspace)
    toolbox.attach_mcp(OneTool())
    toolbox.output_watcher = seen.append
    outcome = toolbox.run("mcp__s__slow", {})
    assert not outcome.is_error and "done" in outcome.content and seen == [b""]


@pytest.mark.parametrize(
    "shown", [13, 20, 40], ids=["format-prefix", "twenty-chars", "most-of-the-key"]
)
def test_the_live_view_of_a_stopped_command_holds_back_a_secret_it_was_cut_inside(
    workspace: Path, shown: int
):
    """A command stopped (here by its timeout) right after printing the start of a secret:
    the result held that start back, but the live view's last flush showed it ('hello',
    then 'sk-ant-api03-AbCdEfG': twenty characters of the key on the terminal). Both hold
    it back now; a command that exited shows all its output, the secret redacted."""
    key = "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"
    seen: list[bytes] = []
    toolbox = make_toolbox(workspace, secret_environment={"ANTHROPIC_API_KEY": key})
    toolbox.output_watcher = seen.append

    command = f"printf 'hello\\n{key[:shown]}'; sleep 30"
    outcome = toolbox.run("bash", {"command": command, "timeout_seconds": 1})

    live = b"".join(seen).decode()
    assert "hello" in live and "hello" in outcome.content
    assert key[:shown] not in live and key[:shown] not in outcome.content
    assert key[13:17] not in live

    seen.clear()
    toolbox.run("bash", {"command": f"printf 'hello\\n{key}'"})
    assert b"".join(seen).decode() == "hello\n[REDACTED]"
