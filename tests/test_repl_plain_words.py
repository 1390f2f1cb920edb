"""What the user reads says what is wrong in plain words, without reason codes or errno
names, and counts agree in number (issue 23 item 14)."""

from __future__ import annotations

import io

import pytest
from repl_fakes import make_console, make_stats
from rich.console import Console
from tools_support import make_toolbox

from agent_cli.errors import StateDirUnavailable
from agent_cli.events import Notice, ToolFinished, ToolStarted, TurnEnded
from agent_cli.repl.error_text import (
    describe_error,
    describe_folder_problem,
    exit_code_for,
    startup_exit_code,
)
from agent_cli.repl.render import TURN_CANCELLED, EventRenderer
from agent_cli.repl.stats_panel import build_stats_panel
from agent_cli.repl.views import build_expansion_view, build_sources_view
from agent_cli.sources import SourceResolution
from agent_cli.store.artifacts import ArtifactStore
from agent_cli.tools.output import count_noun


def test_an_unusable_state_folder_is_worded_without_codes_and_is_a_configuration_error():
    said = describe_error(StateDirUnavailable("/srv/home", "not_writable"))
    assert said == (
        "cannot use the state folder /srv/home: you have no permission to write there. "
        "Set AGENT_CLI_HOME to a folder you can write to"
    )
    assert startup_exit_code(StateDirUnavailable("/srv/home", "ENOTDIR")) == 2
    assert exit_code_for(StateDirUnavailable("/srv/home", "ENOSPC")) == 1  # while in use


def test_an_errno_without_words_of_its_own_is_said_as_the_system_says_it():
    assert describe_folder_problem("EIO") == "the system refused it (input/output error)"
    assert describe_folder_problem("whatever") == "the system refused it"


def test_expand_of_text_that_is_no_pointer_says_what_to_type_without_a_status():
    console = Console(file=io.StringIO(), width=200, record=True, color_system=None)
    resolution = SourceResolution(pointer="foo", status="corrupt", reason="missing_scheme")
    console.print(build_expansion_view(resolution))
    shown = " ".join(console.export_text().split())
    assert "corrupt" not in shown and not shown.startswith("foo")
    assert shown.startswith("that is not a pointer: a pointer looks like transcript:")
    assert "Type /expand and a pointer copied from one of them" in shown


def test_counts_agree_in_number(workspace):
    (workspace / "only").mkdir()
    (workspace / "only" / "one.txt").write_text("x\n", encoding="utf-8")
    (workspace / "only" / "sub").mkdir()
    outcome = make_toolbox(workspace).run("list_dir", {"path": "only"})
    assert outcome.content.splitlines()[0] == "Directory: only (1 directory, 1 file)"
    assert outcome.summary == "2 entries"
    assert count_noun(1, "request") == "1 request" and count_noun(1_200, "entry", "entries") == (
        "1,200 entries"
    )


def test_stats_counts_one_request_as_one_request():
    console = make_console(width=100)
    console.print(build_stats_panel(make_stats(requests=1)))
    total = next(line for line in console.export_text().splitlines() if "session total" in line)
    assert "· 1 request " in total


def test_a_tool_line_shows_an_artifact_pointer_without_saying_its_hash_twice(tmp_path):
    ref = ArtifactStore(tmp_path).put("s1", b"line\n" * 5_000)
    console = make_console(width=200)
    renderer = EventRenderer(console, live=False)
    renderer.render(ToolStarted("t1", "bash", {"command": "seq"}))
    renderer.render(ToolFinished("t1", "bash", False, "exit 0", 25_000, str(ref.pointer)))
    closing = console.export_text().splitlines()[-1]
    shown = closing.split("full output: ")[1]
    assert shown == f"artifact:s1:{ref.sha256[:32]}.txt:{ref.sha256[:12]}"
    assert ref.sha256[12:32] not in shown.rsplit(":", 1)[1]
    assert ArtifactStore(tmp_path).read_range(shown) == b"line\n" * 5_000  # still usable


def test_sources_lists_pointers_in_reading_order():
    pointers = [
        "artifact:s1:b.txt:abcdef012345",
        "transcript:s1:10",
        "transcript:s0:7",
        "transcript:s1:2",
        "artifact:s1:a.txt:abcdef012345",
    ]
    resolutions = [SourceResolution(p, "missing", "not_found") for p in pointers]
    console = make_console(width=200)
    console.print(build_sources_view(resolutions))
    shown = [line.split()[0] for line in console.export_text().splitlines()[1:]]
    assert shown == [
        "transcript:s0:7",
        "transcript:s1:2",
        "transcript:s1:10",
        "artifact:s1:a.txt:abcdef012345",
        "artifact:s1:b.txt:abcdef012345",
    ]


@pytest.mark.parametrize(
    "code, when",
    [
        ("permission_cancelled", "at the permission question"),
        ("tool_not_started", "before it started"),  # while its call was prepared
    ],
)
def test_one_ctrl_c_before_a_tool_started_prints_one_line(code: str, when: str):
    console = make_console(width=200)
    renderer = EventRenderer(console, live=False)
    for event in [
        ToolStarted("t1", "bash", {"command": "rm -rf build"}),
        Notice("warning", code, {"tool": "bash"}),
        TurnEnded("cancelled"),
    ]:
        renderer.render(event)
    lines = console.export_text().splitlines()
    assert lines == [
        "╭─ bash  command: rm -rf build",
        f"╰─ ✗ not run: cancelled {when}; the turn ended, the conversation so far is kept",
    ]
    renderer.render(TurnEnded("cancelled"))  # a later cancelled turn says so again
    assert console.export_text().splitlines()[-1] == TURN_CANCELLED


def test_a_read_past_the_end_of_a_one_line_file_says_one_line(workspace):
    (workspace / "one.txt").write_text("only\n", encoding="utf-8")
    outcome = make_toolbox(workspace).run("read_file", {"path": "one.txt", "start_line": 5})
    assert "which has 1 line." in outcome.content
