"""Tools under hostile arguments: confined to the workspace and the session, denials hold.

Adds what `test_tools_confinement`, `test_tools_permissions` and `test_tools_bash` do not
cover yet: `grep` and `list_dir` aimed outside (by `..`, an absolute path or a symlinked
folder), `read_artifact` with another session's pointer, a fuzz of hostile paths
through every reading tool under the process-wide open audit, and a denial seen end to
end: a model asking to run a command through the REPL without `--yes` gets it refused
and nothing runs. Output and time caps of `bash` are covered in `test_tools_bash`
(`test_bash_output_cap_stops_an_endless_command`, `test_bash_timeout_*`).
"""

from __future__ import annotations

import io
import os
from pathlib import Path

import pytest
from fake_anthropic import Reply, start_fake_server, text_block, tool_use_block
from hostile_support import HOSTILE_PARTS, check_opens_stay_under, fuzz_settings, recording_opens
from hypothesis import event, given
from hypothesis import strategies as st

from agent_cli.repl.main import main
from agent_cli.store.artifacts import ArtifactStore
from agent_cli.tools import Toolbox

SECRET = "top secret outside the workspace"


@pytest.fixture
def places(tmp_path: Path) -> dict[str, Path]:
    workspace, outside = tmp_path / "ws", tmp_path / "outside"
    (workspace / "sub").mkdir(parents=True)
    (workspace / "inside.txt").write_text("inside words\n")
    (workspace / "sub" / "deep.txt").write_text("deep words\n")
    outside.mkdir()
    (outside / "secret.txt").write_text(SECRET + "\n")
    (workspace / "linkdir").symlink_to(outside, target_is_directory=True)
    (workspace / "link.txt").symlink_to(outside / "secret.txt")
    return {"workspace": workspace, "outside": outside, "home": tmp_path / "home"}


def toolbox(places: dict[str, Path], session_id: str = "mine") -> Toolbox:
    return Toolbox(places["workspace"], ArtifactStore(places["home"]), session_id)


def assert_refused(outcome) -> None:
    assert outcome.is_error, outcome.content
    assert SECRET not in outcome.content and "secret.txt" not in outcome.content


@pytest.mark.parametrize(
    "path", ["..", "../outside", "linkdir", "linkdir/", "sub/../../outside", "/", "/etc"]
)
@pytest.mark.parametrize("tool", ["grep", "list_dir"])
def test_grep_and_list_dir_aimed_outside_are_refused(places, tool, path):
    arguments = {"path": path, "pattern": "secret"} if tool == "grep" else {"path": path}
    outcome = toolbox(places).run(tool, arguments)
    assert_refused(outcome)
    assert "outside the workspace" in outcome.content


def test_listing_the_workspace_marks_links_out_without_following_them(places):
    outcome = toolbox(places).run("list_dir", {"path": "."})
    assert not outcome.is_error
    assert "linkdir" in outcome.content and "(outside the workspace)" in outcome.content
    assert SECRET not in outcome.content


def test_read_artifact_refuses_a_pointer_of_another_session(places):
    store = ArtifactStore(places["home"])
    theirs = store.put("theirs", b"output of another session\n")
    mine = store.put("mine", b"my own output\n")
    tools = toolbox(places, "mine")
    outcome = tools.run("read_artifact", {"pointer": theirs.pointer})
    assert outcome.is_error and "another session" in outcome.content
    assert "output of another session" not in outcome.content
    assert "my own output" in tools.run("read_artifact", {"pointer": mine.pointer}).content


def test_read_artifact_answers_alike_whether_another_sessions_artifact_exists(places):
    """It said "another session" for an artifact that exists and "ArtifactUnavailable:
    missing" for one that does not: an oracle on other sessions' store (an outside
    attack)."""
    store = ArtifactStore(places["home"])
    theirs = store.put("theirs", b"output of another session\n")
    made_up = f"artifact:theirs:{'0' * 32}.txt:{'0' * 64}"  # well formed, never stored
    tools = toolbox(places, "mine")
    answers = [
        tools.run("read_artifact", {"pointer": pointer}).content
        for pointer in (theirs.pointer, made_up)
    ]
    assert answers[0] == answers[1] and "another session" in answers[0]


READING_TOOLS = ("read_file", "list_dir", "grep")
plain_paths = st.sampled_from([".", "sub", "inside.txt", "sub/deep.txt", "./sub/../inside.txt"])
hostile_paths = (
    plain_paths
    | st.lists(
        st.sampled_from(
            HOSTILE_PARTS[:22]
            + (
                "linkdir",
                "link.txt",
                "sub",
                "inside.txt",
                "outside",
                "secret.txt",
                "/proc/self/environ",
                "/etc/passwd",
            )
        ),
        min_size=1,
        max_size=4,
    ).map("/".join)
    | st.text(max_size=20)
)


@pytest.mark.fuzz
@fuzz_settings(0.3)
@given(tool=st.sampled_from(READING_TOOLS), path=hostile_paths)
def test_fuzzed_paths_through_the_reading_tools_never_open_anything_outside(places, tool, path):
    arguments = {"path": path}
    if tool == "grep":
        arguments["pattern"] = "words|secret"
    tools = toolbox(places)
    with recording_opens() as opened:
        outcome = tools.run(tool, arguments)
    roots = (Path(os.path.realpath(places["workspace"])), Path(os.path.abspath(places["home"])))
    check_opens_stay_under(opened, roots)
    assert SECRET not in outcome.content
    event(f"{tool}: {'error' if outcome.is_error else 'ok'}")


def test_a_command_the_model_asks_for_without_yes_is_denied_and_never_runs(places):
    workspace, home = places["workspace"], places["home"]
    marker = workspace / "ran.txt"
    with start_fake_server(api_key="k") as fake:
        fake.enqueue(
            Reply(
                [tool_use_block("toolu_1", "bash", {"command": f"touch {marker}"})],
                stop_reason="tool_use",
            ),
            Reply(
                [tool_use_block("toolu_2", "write_file", {"path": "w.txt", "content": "x"})],
                stop_reason="tool_use",
            ),
            Reply([text_block("I could not run it.")]),
        )
        stdout = io.StringIO()
        code = main(
            ["--workspace", str(workspace)],
            stdin=io.StringIO("make the file\n"),
            stdout=stdout,
            stderr=stdout,
            env={
                "ANTHROPIC_API_KEY": "k",
                "ANTHROPIC_BASE_URL": fake.base_url,
                "AGENT_CLI_HOME": str(home),
            },
        )
        results = [
            block
            for message in fake.accepted[-1]["messages"]
            for block in message["content"]
            if block.get("type") == "tool_result"
        ]
    assert code == 0
    assert not marker.exists() and not (workspace / "w.txt").exists()
    said = stdout.getvalue()
    assert "bash was not run" in said and "write_file was not run" in said and "--yes" in said
    assert len(results) == 2 and all(result.get("is_error") for result in results)


# The smallest valid input of each built-in tool, into which each string is then given a NUL.
NUL_PROBE_INPUTS = {
    "read_file": {"path": "inside.txt"},
    "write_file": {"path": "new.txt", "content": "x"},
    "edit_file": {"path": "inside.txt", "old_string": "inside", "new_string": "outside"},
    "list_dir": {"path": "sub"},
    "grep": {"pattern": "words", "path": ".", "glob": "*.txt"},
    "bash": {"command": "true"},
    "read_artifact": {"pointer": "artifact:x"},
    "recall": {"search": "words"},
}
# Text that is data, not an argument to the OS: a NUL there is written or compared as is.
NUL_IS_DATA = {("write_file", "content"), ("edit_file", "old_string"), ("edit_file", "new_string")}
NUL_CHECKED_ELSEWHERE = {("bash", "command")}  # refused by the shell tool's own check


def test_a_nul_in_any_string_input_of_a_tool_is_refused_in_plain_words(
    places: dict[str, Path],
) -> None:
    """LOSS-9: a NUL in grep's glob reached subprocess and came back as "grep failed
    unexpectedly (ValueError: embedded null byte)", an internal error for the model."""
    from session_support import ScriptedProvider, make_session

    session = make_session(places["workspace"], ScriptedProvider([]))
    try:
        schemas = {schema["name"]: schema for schema in session.toolbox.schemas()}
        assert set(schemas) == set(NUL_PROBE_INPUTS)  # a new tool is probed too
        probed = []
        for name, schema in schemas.items():
            properties = schema["input_schema"]["properties"]
            for key in (k for k, prop in properties.items() if prop["type"] == "string"):
                if (name, key) in NUL_IS_DATA | NUL_CHECKED_ELSEWHERE:
                    continue
                arguments = {**NUL_PROBE_INPUTS[name], key: "a\x00b"}
                if name == "recall":  # exactly one of pointer, search, pattern
                    arguments = {key: "a\x00b"}
                outcome = session.toolbox.run(name, arguments)
                probed.append((name, key))
                assert outcome.is_error, (name, key)
                assert "unexpectedly" not in str(outcome.content), (name, key, outcome.content)
                assert "NUL" in str(outcome.content) or "pointer" in str(outcome.content), (
                    name,
                    key,
                    outcome.content,
                )
        assert ("grep", "glob") in probed and len(probed) >= 9
    finally:
        session.close()
