"""The offline demo model: request grammar, answers from results, determinism, and a loop.

The loop tests drive the provider the way the session does (user text -> tool_use ->
tool_result -> answer) with no server at all: once with a fake tool runner written here,
once with the real toolbox on a temp workspace.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from tools_support import FakeArtifactStore

from agent_cli.events import ModelRequest, ModelResponse, TextDelta
from agent_cli.protocol import validate_tool_protocol
from agent_cli.provider.offline import (
    OFFLINE_MODEL,
    OfflineProvider,
    build_tool_use_id,
    split_into_stream_pieces,
)
from agent_cli.provider.wire import build_wire_request
from agent_cli.tools import Toolbox

TOOL_NAMES = ("read_file", "write_file", "edit_file", "list_dir", "grep", "bash", "read_artifact")
ToolRunner = Callable[[str, dict[str, Any]], tuple[str, bool]]


def schemas(*names: str) -> tuple[dict[str, Any], ...]:
    return tuple({"name": n, "description": n, "input_schema": {"type": "object"}} for n in names)


ALL_TOOLS = schemas(*TOOL_NAMES)


def ask(messages: list[dict[str, Any]], tools=ALL_TOOLS) -> tuple[list[Any], ModelResponse]:
    request = ModelRequest(system="sys", durable_context="", messages=tuple(messages), tools=tools)
    events = list(OfflineProvider().stream(request))
    assert isinstance(events[-1], ModelResponse)
    assert all(isinstance(event, TextDelta) for event in events[:-1])
    return events[:-1], events[-1]


def ask_text(text: str, tools=ALL_TOOLS) -> ModelResponse:
    return ask([{"role": "user", "content": text}], tools)[1]


def tool_uses(response: ModelResponse) -> list[dict[str, Any]]:
    return [b for b in response.message["content"] if b["type"] == "tool_use"]


def calls_of(text: str, tools=ALL_TOOLS) -> list[tuple[str, dict[str, Any]]]:
    return [(b["name"], b["input"]) for b in tool_uses(ask_text(text, tools))]


def reply_text(response: ModelResponse) -> str:
    return "".join(b["text"] for b in response.message["content"] if b["type"] == "text")


def answer_results(
    call_name: str,
    call_input: dict[str, Any],
    content: str,
    is_error: bool = False,
    request: str = "do it",
) -> str:
    """The offline answer to one tool result in the toolbox's format."""
    call = {"type": "tool_use", "id": "toolu_1", "name": call_name, "input": call_input}
    result = {
        "type": "tool_result",
        "tool_use_id": "toolu_1",
        "content": content,
        "is_error": is_error,
    }
    messages: list[dict[str, Any]] = [
        {"role": "user", "content": request},
        {"role": "assistant", "content": [{"type": "text", "text": "ok"}, call]},
        {"role": "user", "content": [result]},
    ]
    _, response = ask(messages)
    assert response.stop_reason == "end_turn"
    assert tool_uses(response) == []
    return reply_text(response)


# --- identity -----------------------------------------------------------------------------


def test_offline_provider_names_itself_and_its_model():
    provider = OfflineProvider()
    assert (provider.name, provider.model, provider.context_window) == (
        "offline",
        "offline-demo-1",
        200_000,
    )
    assert OFFLINE_MODEL == "offline-demo-1"


# --- requests -> tool calls ---------------------------------------------------------------


@pytest.mark.parametrize("verb", ["read", "open", "show", "cat", "Read"])
def test_read_open_show_and_cat_become_a_read_file_call(verb):
    response = ask_text(f"{verb} pyproject.toml")
    assert response.stop_reason == "tool_use"
    assert [(b["name"], b["input"]) for b in tool_uses(response)] == [
        ("read_file", {"path": "pyproject.toml"})
    ]


@pytest.mark.parametrize(
    ("text", "path"),
    [
        ("list agent_cli", "agent_cli"),
        ("ls src", "src"),
        ("list", "."),
        ("ls", "."),
    ],
)
def test_list_and_ls_become_a_list_dir_call(text, path):
    assert calls_of(text) == [("list_dir", {"path": path})]


@pytest.mark.parametrize(
    ("text", "pattern"),
    [
        ("grep TODO", "TODO"),
        ("search for open items", "open items"),
        ("find FIXME", "FIXME"),
        ('grep "def main"', "def main"),
    ],
)
def test_grep_search_for_and_find_become_a_grep_call(text, pattern):
    assert calls_of(text) == [("grep", {"pattern": pattern})]


@pytest.mark.parametrize(
    ("text", "arguments"),
    [
        ("grep TODO src", {"pattern": "TODO", "path": "src"}),
        ("grep TODO in src.", {"pattern": "TODO", "path": "src"}),
        ('grep "def main" agent_cli/repl', {"pattern": "def main", "path": "agent_cli/repl"}),
        ("grep 'a b' \"my dir\"", {"pattern": "a b", "path": "my dir"}),
        ("search for open items in docs", {"pattern": "open items", "path": "docs"}),
        ("find FIXME in src", {"pattern": "FIXME", "path": "src"}),
        ("search for items in the list", {"pattern": "items in the list"}),
        ("grep open items here", {"pattern": "open items here"}),
    ],
)
def test_grep_takes_a_pattern_then_a_folder_to_search(text, arguments):
    assert calls_of(text) == [("grep", arguments)]


@pytest.mark.parametrize(
    ("text", "command"),
    [
        ("run ls -la", "ls -la"),
        ("$ git status", "git status"),
        ("run echo salt and pepper", "echo salt and pepper"),
    ],
)
def test_run_and_dollar_become_a_bash_call_with_the_whole_command(text, command):
    assert calls_of(text) == [("bash", {"command": command})]


@pytest.mark.parametrize("text", ["run it", "read app.py and run it", "run this.", "execute them"])
def test_run_with_a_pronoun_runs_no_command_named_after_it(text):
    # a new user's "read app.py and run it" asked approval for a command named `it`
    assert ("bash", {"command": "it"}) not in calls_of(text)
    assert all(tool != "bash" for tool, _ in calls_of(text))


def test_write_becomes_a_write_file_call_keeping_an_and_inside_its_text():
    assert calls_of("write notes.txt: salt and pepper") == [
        ("write_file", {"path": "notes.txt", "content": "salt and pepper\n"})
    ]


def test_requests_joined_with_and_become_parallel_calls_in_one_message():
    response = ask_text("read a.txt and read b.txt and list src and run pytest -q")
    assert response.stop_reason == "tool_use"
    assert [(b["name"], b["input"]) for b in tool_uses(response)] == [
        ("read_file", {"path": "a.txt"}),
        ("read_file", {"path": "b.txt"}),
        ("list_dir", {"path": "src"}),
        ("bash", {"command": "pytest -q"}),
    ]


def test_a_question_after_and_is_not_taken_for_part_of_the_path():
    assert calls_of("read README.md and tell me its first heading") == [
        ("read_file", {"path": "README.md"})
    ]


def test_tool_use_ids_are_unique_in_a_message_and_shaped_toolu_off():
    ids = [b["id"] for b in tool_uses(ask_text("read a and read b and read c"))]
    assert len(set(ids)) == 3
    assert all(i.startswith("toolu_off_") and len(i) > len("toolu_off_") for i in ids)


def test_a_tool_use_id_already_in_the_view_is_never_reused():
    first = build_tool_use_id("seed", 0, set())
    second = build_tool_use_id("seed", 0, {first})
    assert second != first and second.startswith("toolu_off_")


def test_the_same_request_twice_gives_equal_streams():
    messages = [{"role": "user", "content": "read a.txt and grep TODO"}]
    assert ask(messages) == ask(messages)


def test_a_longer_conversation_gets_different_tool_ids_for_the_same_words():
    first = tool_uses(ask_text("read a.txt"))[0]
    earlier = [{"role": "user", "content": "hello"}, {"role": "assistant", "content": "hi"}]
    later = tool_uses(ask([*earlier, {"role": "user", "content": "read a.txt"}])[1])[0]
    assert first["id"] != later["id"]


def test_only_advertised_tools_are_called():
    response = ask_text("read a.txt and run rm -rf build", tools=schemas("read_file"))
    assert [b["name"] for b in tool_uses(response)] == ["read_file"]


def test_a_request_for_an_unadvertised_tool_gets_help_naming_it_and_no_call():
    response = ask_text("run ls", tools=schemas("read_file", "grep"))
    assert response.stop_reason == "end_turn" and tool_uses(response) == []
    assert "Not available in this session: bash." in reply_text(response)


# --- the help reply -----------------------------------------------------------------------


def test_unknown_words_get_a_help_reply_that_labels_the_offline_model():
    response = ask_text("please refactor the parser for me")
    text = reply_text(response)
    assert response.stop_reason == "end_turn" and tool_uses(response) == []
    assert "offline demo model" in text and "I am not Claude" in text
    assert "ANTHROPIC_API_KEY" in text
    assert "read FILE" in text and "run COMMAND" in text


def test_the_help_lists_only_the_forms_of_advertised_tools():
    text = reply_text(ask_text("hello", tools=schemas("grep")))
    assert "grep PATTERN" in text
    assert "read FILE" not in text and "run COMMAND" not in text


def test_with_no_tools_the_help_says_only_help_is_possible():
    text = reply_text(ask_text("read a.txt", tools=()))
    assert "No tools are available" in text


# --- answers from results -----------------------------------------------------------------


def test_a_read_file_result_is_answered_with_its_line_count_and_first_heading():
    content = (
        "File: pyproject.toml (lines 1-3 of 42)\n     1\tintro\n     2\t# agent-cli\n     3\tx"
    )
    text = answer_results("read_file", {"path": "pyproject.toml"}, content)
    # in a TOML file "#" starts a comment: no Markdown heading there
    assert text == "pyproject.toml has 42 lines. Its first line is `intro`."


def test_a_file_without_a_heading_is_answered_with_its_first_line():
    content = "File: notes.txt (lines 1-2 of 2)\n     1\t\n     2\tbuy milk"
    text = answer_results(
        "read_file",
        {"path": "notes.txt"},
        content,
        request="read notes.txt and tell me its first heading",
    )
    assert "notes.txt has 2 lines" in text
    assert "no Markdown heading; its first line is `buy milk`" in text


def test_a_heading_inside_a_code_fence_is_not_taken_for_the_first_heading():
    content = "File: a.md (lines 1-4 of 4)\n     1\t```sh\n     2\t# comment\n     3\t```\n     4\t## Real"
    assert "Its first heading is `## Real`" in answer_results(
        "read_file", {"path": "a.md"}, content
    )


def test_an_empty_file_is_answered_as_empty():
    text = answer_results("read_file", {"path": "e.txt"}, "File: e.txt (empty file, 0 lines)")
    assert text == "e.txt is empty."


def test_a_listing_is_answered_with_its_count_and_first_names():
    content = "Directory: src (1 directories, 6 files)\npkg/\na.py  (1 B)\nb.py  (2 B)\nc.py  (3 B)\nd.py  (4 B)\ne.py  (5 B)\nf.py  (6 B)"
    text = answer_results("list_dir", {"path": "src"}, content)
    assert text == "src has 7 entries: `pkg/`, `a.py`, `b.py`, `c.py`, `d.py` and 2 more."


def test_a_search_is_answered_with_its_match_count_and_first_match():
    content = (
        "2 matches in 1 files for /TODO/ under .\nmain.py:3: # TODO: fix\nmain.py:9: TODO later"
    )
    text = answer_results("grep", {"pattern": "TODO"}, content)
    assert text == "`TODO` matched 2 lines; the first is in main.py:3: `# TODO: fix`."


def test_a_search_without_matches_says_so():
    content = "No matches under . (4 files searched)."
    assert answer_results("grep", {"pattern": "zzz"}, content) == "No matches for `zzz`."


def test_a_command_is_answered_with_its_exit_code_and_first_output_line():
    text = answer_results("bash", {"command": "ls"}, "Exit code: 0\nREADME.md\nsrc")
    assert text == "`ls` exited with code 0; its first output line is `README.md`."


def test_a_silent_command_is_answered_as_printing_nothing():
    text = answer_results("bash", {"command": "true"}, "Exit code: 1")
    assert text == "`true` exited with code 1 and printed nothing."


def test_an_error_result_names_the_failed_tool_and_quotes_the_first_error_line():
    error = "missing.txt: no such file. List its parent to see what exists.\nmore detail"
    text = answer_results("read_file", {"path": "missing.txt"}, error, is_error=True)
    assert text == (
        "read_file on `missing.txt` failed: "
        "`missing.txt: no such file. List its parent to see what exists.`"
    )


def test_a_result_saved_as_an_artifact_names_its_pointer():
    pointer = "artifact:s1:abc.txt:" + "a" * 64
    content = (
        f"Exit code: 0\n[Output was 90,000 bytes; preview]\nline one\n[Full output: {pointer}]"
    )
    text = answer_results("bash", {"command": "make"}, content)
    assert "its first output line is `line one`" in text
    assert f"The full output is saved as `{pointer}`; ask me to read it." in text


def test_parallel_results_are_answered_one_line_each_in_call_order():
    calls = [
        {"type": "tool_use", "id": f"t{i}", "name": "bash", "input": {"command": c}}
        for i, c in enumerate(["pwd", "whoami"])
    ]
    results = [
        {"type": "tool_result", "tool_use_id": f"t{i}", "content": f"Exit code: 0\n{o}"}
        for i, o in enumerate(["/work", "alice"])
    ]
    messages = [
        {"role": "user", "content": "run pwd and run whoami"},
        {"role": "assistant", "content": calls},
        {"role": "user", "content": results},
    ]
    assert reply_text(ask(messages)[1]).splitlines() == [
        "`pwd` exited with code 0; its first output line is `/work`.",
        "`whoami` exited with code 0; its first output line is `alice`.",
    ]


# --- streaming and usage ------------------------------------------------------------------


def test_the_streamed_pieces_are_several_and_join_to_the_final_text():
    deltas, response = ask([{"role": "user", "content": "what can you do"}])
    assert len(deltas) > 3
    assert "".join(d.text for d in deltas) == reply_text(response)


def test_stream_pieces_keep_every_character():
    text = "  two  spaces\nand a newline at the end\n"
    assert "".join(split_into_stream_pieces(text)) == text


def test_usage_estimates_grow_with_the_request():
    small = ask_text("read a.txt").usage
    big = ask(
        [
            {"role": "user", "content": "x " * 4000},
            {"role": "assistant", "content": "ok"},
            {"role": "user", "content": "read a.txt"},
        ]
    )[1].usage
    assert 0 < small.input_tokens < big.input_tokens
    assert small.output_tokens > 0


def test_the_offline_summarizer_is_the_extractive_one():
    summarize = OfflineProvider().build_summarizer(focus="parser")
    summary = summarize(
        [{"role": "user", "content": "fix the parser"}, {"role": "assistant", "content": "done"}]
    )
    assert "First user request: fix the parser" in summary
    assert "Focus requested: parser" in summary


# --- the loop, without any server ---------------------------------------------------------


def run_loop(text: str, run_tool: ToolRunner, tools=ALL_TOOLS) -> list[dict[str, Any]]:
    """The session's tool loop in miniature; every request must be one the API accepts."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": text}]
    for _ in range(4):
        request = ModelRequest("sys", "", tuple(messages), tools)
        build_wire_request(request, OFFLINE_MODEL)
        response = [e for e in OfflineProvider().stream(request) if isinstance(e, ModelResponse)][0]
        messages.append(response.message)
        if response.stop_reason != "tool_use":
            validate_tool_protocol(messages)
            return messages
        results = []
        for block in tool_uses(response):
            content, is_error = run_tool(block["name"], block["input"])
            results.append(
                {
                    "type": "tool_result",
                    "tool_use_id": block["id"],
                    "content": content,
                    "is_error": is_error,
                }
            )
        messages.append({"role": "user", "content": results})
    raise AssertionError("the offline model never ended its turn")


def fake_tool_runner(root: Path) -> ToolRunner:
    """read_file only, in the toolbox's result format (header line, numbered lines)."""

    def run_tool(name: str, tool_input: dict[str, Any]) -> tuple[str, bool]:
        path = root / tool_input["path"]
        if name != "read_file" or not path.is_file():
            return f"{tool_input.get('path')}: no such file.", True
        lines = path.read_text().splitlines()
        numbered = "\n".join(f"{n:>6}\t{line}" for n, line in enumerate(lines, 1))
        return (
            f"File: {tool_input['path']} (lines 1-{len(lines)} of {len(lines)})\n{numbered}",
            False,
        )

    return run_tool


def test_read_readme_and_tell_its_first_heading_runs_the_whole_loop(tmp_path):
    (tmp_path / "README.md").write_text("Intro text\n\n# Wombat Tools\n\nMore.\n")
    messages = run_loop("read README.md and tell me its first heading", fake_tool_runner(tmp_path))
    assert [m["role"] for m in messages] == ["user", "assistant", "user", "assistant"]
    assert messages[-1]["content"] == [
        {"type": "text", "text": "README.md has 5 lines. Its first heading is `# Wombat Tools`."}
    ]


def test_a_missing_file_in_the_loop_ends_with_the_error_quoted(tmp_path):
    messages = run_loop("read nope.md", fake_tool_runner(tmp_path))
    assert "read_file on `nope.md` failed: `nope.md: no such file.`" in str(messages[-1])


def test_the_real_toolbox_drives_parallel_calls_and_answers_from_them(tmp_path):
    (tmp_path / "README.md").write_text("# Demo\n\nTODO: write docs\n")
    (tmp_path / "src").mkdir()
    toolbox = Toolbox(tmp_path, FakeArtifactStore(), "s1")

    def run_tool(name: str, tool_input: dict[str, Any]) -> tuple[str, bool]:
        outcome = toolbox.run(name, tool_input)
        return outcome.content, outcome.is_error

    tools = tuple(toolbox.schemas())
    messages = run_loop("read README.md and list . and grep TODO", run_tool, tools)
    answer = messages[-1]["content"][0]["text"].splitlines()
    assert answer[0] == "README.md has 3 lines. Its first heading is `# Demo`."
    assert answer[1].startswith("The current directory has 2 entries: ")
    assert answer[2] == "`TODO` matched 1 line; the first is in README.md:3: `TODO: write docs`."


def test_grep_pattern_dir_searches_the_pattern_in_that_folder_only(tmp_path):
    (tmp_path / "src").mkdir()
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "plan.md").write_text("TODO: first, in docs\n")
    (tmp_path / "src" / "app.py").write_text("x = 1\n# TODO: later, in src\n")
    toolbox = Toolbox(tmp_path, FakeArtifactStore(), "s1")
    ran: list[tuple[str, dict[str, Any]]] = []

    def run_tool(name: str, tool_input: dict[str, Any]) -> tuple[str, bool]:
        ran.append((name, tool_input))
        outcome = toolbox.run(name, tool_input)
        return outcome.content, outcome.is_error

    messages = run_loop("grep TODO src", run_tool, tuple(toolbox.schemas()))
    assert ran == [("grep", {"pattern": "TODO", "path": "src"})]
    assert messages[-1]["content"][0]["text"] == (
        "`TODO` matched 1 line; the first is in src/app.py:2: `# TODO: later, in src`."
    )


def test_a_rule_is_not_a_heading_and_a_markdown_file_still_has_one():
    content = "File: notes.md (3 lines)\n# ---\n# Real Title\nbody"
    text = answer_results("read_file", {"path": "notes.md"}, content)
    assert text == "notes.md has 3 lines. Its first heading is `# Real Title`."


def test_no_sentence_ends_with_two_full_stops():
    text = answer_results("bash", {"command": "echo hi."}, "Exit code: 0\nDone.")
    assert text == "`echo hi.` exited with code 0; its first output line is `Done.`"
    assert ".`." not in answer_results("grep", {"pattern": "x"}, "a.py:1: x = 1.")


def test_edit_and_read_artifact_requests_become_their_tool_calls():
    from agent_cli.provider.offline_requests import parse_request

    edit = parse_request("edit notes.txt: old words -> new words")
    assert edit is not None and edit.tool == "edit_file"
    assert edit.arguments == {
        "path": "notes.txt",
        "old_string": "old words",
        "new_string": "new words",
    }
    pointer = "artifact:s1:abc.txt:" + "a" * 64
    read = parse_request(f"read {pointer}")
    assert read is not None and read.tool == "read_artifact"
    assert read.arguments == {"pointer": pointer}


def test_a_recall_request_becomes_a_recall_call():
    from agent_cli.provider.offline_requests import parse_request

    call = parse_request("recall transcript:20261202-150000-abcd12:7")
    assert call is not None and call.tool == "recall"
    assert call.arguments == {"pointer": "transcript:20261202-150000-abcd12:7"}


def test_a_recall_search_request_becomes_a_recall_search_call():
    from agent_cli.provider.offline_requests import parse_request

    call = parse_request("recall search for the deploy token?")
    assert call is not None and call.tool == "recall"
    assert call.arguments == {"search": "the deploy token"}
    assert parse_request("recall search heron").arguments == {"search": "heron"}


def test_listing_the_workspace_or_the_folder_above_is_said_in_words_not_dots():
    assert reply_text(ask_text("list ..")).startswith(
        "Listing the folder above the workspace (..)."
    )
    assert reply_text(ask_text("list .")).startswith("Listing the workspace folder (.).")
    assert reply_text(ask_text("list src")).startswith("Listing `src`.")


def test_the_help_renders_as_markdown_with_its_closing_lines_outside_the_list():
    """The REPL renders answers as Markdown: a line right under the last bullet would be
    read as part of that bullet (a lazy continuation) and shown glued to it."""
    from markdown_it import MarkdownIt

    tokens = MarkdownIt().parse(reply_text(ask_text("please refactor the parser")))
    in_list, after_list = 0, []
    for token in tokens:
        in_list += {"bullet_list_open": 1, "bullet_list_close": -1}.get(token.type, 0)
        if token.type == "inline" and not in_list:
            after_list.append(token.content)
    assert any(text.startswith("Join several") for text in after_list)
    assert any(text.startswith("Set ANTHROPIC_API_KEY") for text in after_list)
