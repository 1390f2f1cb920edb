"""End to end through the CLI (offline model): folders deleted under a session.

The current folder deleted under the shell (`sh -c 'cd D && rmdir D && exec agent-cli'`,
as a shell left standing in a removed worktree): `--resume <id>` and `--continue` go on in
the session's recorded folder, and are refused, with what to do, only when that folder
is gone too; a relative `--workspace` there says the current folder is gone. The
workspace folder deleted while the REPL runs: `/new` and `/reload` say so in the words
the tools use, the tool panel addresses the user (the model's words speak of "the
user"), and the advice given holds when followed (a twenty-third outside test).
"""

from __future__ import annotations

import re
import shlex
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest
from e2e_support import agent_cli_argv, build_env, run_piped

pytestmark = pytest.mark.e2e

OFFLINE = ["--provider", "offline", "--yes"]


def run_in_deleted_folder(
    folder: Path, args: Sequence[str], env: Mapping[str, str], stdin_text: str = ""
) -> subprocess.CompletedProcess[str]:
    """`agent-cli args` started in `folder` after it was removed (the shell stands in it;
    `sh` hands its name down as PWD, as shells do)."""
    folder.mkdir(exist_ok=True)
    program = " ".join(map(shlex.quote, [*agent_cli_argv(), *args]))
    quoted = shlex.quote(str(folder))
    return subprocess.run(
        ["sh", "-c", f"cd {quoted} && rm -rf {quoted} && exec {program}"],
        env=dict(env),
        input=stdin_text,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )


def start_session(workspace: Path, home: Path, env: Mapping[str, str]) -> str:
    """A session recorded in `workspace`; its id (its transcript is the only one)."""
    done = run_piped([*OFFLINE, "-p", "hello"], cwd=workspace, env=env)
    assert done.returncode == 0, done.stderr
    (transcript,) = (home / "transcripts").glob("*.jsonl")
    return transcript.stem


def test_resume_in_a_deleted_current_folder_goes_on_in_the_recorded_folder(
    tmp_path: Path, home: Path
) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "kept.txt").write_text("kept\n", encoding="utf-8")
    env = build_env(home)
    session_id = start_session(workspace, home, env)

    done = run_in_deleted_folder(
        tmp_path / "gone", [*OFFLINE, "--resume", session_id, "-p", "list ."], env
    )
    assert done.returncode == 0, done.stderr
    assert (
        f"This session worked in {workspace}; its tools run there (the folder agent-cli "
        "was started in no longer exists)."
    ) in done.stderr
    assert "kept.txt" in done.stdout + done.stderr


def test_resume_and_continue_are_refused_with_what_to_do_when_both_folders_are_gone(
    tmp_path: Path, home: Path
) -> None:
    """The tools must not run in no folder: the refusal says to cd to a folder that exists
    (or give --workspace DIR), and that `--resume <id>` then goes on; doing so works."""
    workspace = tmp_path / "ws"
    workspace.mkdir()
    env = build_env(home)
    session_id = start_session(workspace, home, env)
    refusal = (
        f"session {session_id} worked in {workspace}, which no longer exists, and neither "
        "does the folder agent-cli was started in: cd to a folder that exists, or give one "
        f"with --workspace DIR; `agent-cli --resume {session_id}` then goes on with it there"
    )
    # --continue in the deleted workspace itself finds its session by the shell's PWD
    for args, folder in (
        (["--continue", "-p", "hi"], workspace),
        (["--resume", session_id, "-p", "hi"], tmp_path / "gone"),
    ):
        done = run_in_deleted_folder(folder, [*OFFLINE, *args], env)
        assert done.returncode == 2, done.stderr
        lines = [line for line in done.stderr.splitlines() if line.strip()]
        assert " ".join(" ".join(lines).split()) == refusal, done.stderr
        assert "Traceback" not in done.stderr

    other = tmp_path / "other"
    other.mkdir()
    (other / "here.txt").write_text("x\n", encoding="utf-8")
    followed = run_piped([*OFFLINE, "--resume", session_id, "-p", "list ."], cwd=tmp_path, env=env)
    with_flag = run_piped(
        [*OFFLINE, "--workspace", str(other), "--resume", session_id, "-p", "list ."],
        cwd=other,
        env=env,
    )
    assert followed.returncode == 0, followed.stderr
    assert with_flag.returncode == 0 and "here.txt" in with_flag.stdout + with_flag.stderr


@pytest.mark.parametrize("given", [".", "./sub"])
def test_a_relative_workspace_in_a_deleted_folder_says_the_current_folder_is_gone(
    tmp_path: Path, home: Path, given: str
) -> None:
    done = run_in_deleted_folder(
        tmp_path / "gone", [*OFFLINE, "--workspace", given, "-p", "hi"], build_env(home)
    )
    assert done.returncode == 2
    assert " ".join(done.stderr.split()) == (
        "config error: workspace (from --workspace): the current folder no longer exists "
        f"(deleted or moved), so {given} names no folder: cd to one that does, or give "
        "--workspace a full path"
    ), done.stderr


def test_new_reload_and_the_tools_say_the_workspace_folder_is_gone_to_the_user(
    tmp_path: Path, home: Path
) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "AGENTS.md").write_text("Answer briefly.\n", encoding="utf-8")
    env = build_env(home)
    lines = [f"run rm -rf {workspace}", "read AGENTS.md", "/new", "/reload", "/quit"]
    done = run_piped(
        [*OFFLINE, "--workspace", str(workspace)],
        cwd=tmp_path,
        env=env,
        stdin_text="\n".join(lines) + "\n",
    )
    output = " ".join((done.stdout + done.stderr).split())  # rows joined at their breaks
    session_id = re.search(r"resume with: agent-cli --resume (\S+)", output)
    assert session_id is not None, output
    resume = f"`agent-cli --resume {session_id.group(1)}`"
    gone = f"The workspace folder {workspace} no longer exists (moved or deleted while this session ran)"
    advice = (
        f"No file tool or command can work in this session now. To go on with this "
        f"conversation, quit and run {resume} in a folder that exists: its tools then work "
        f"in {workspace} if you make that folder again, else in the folder you run it in."
    )
    # the tool's panel, in words to the user; the model's words speak of the user
    removed = gone.replace("while this session ran", "during this call")
    assert f"╰─ ✓ exit 0, 0 B {removed}. {advice}" in output  # the call that removed it
    assert f"✗ {gone}; nothing was done. {advice}" in output
    assert "The user can" not in output
    transcript = (home / "transcripts" / f"{session_id.group(1)}.jsonl").read_text()
    assert "The user can quit and run" in transcript
    # /new: the same fact and a way on, not "config error: workspace: missing"
    assert (
        f"The folder {workspace} no longer exists (moved or deleted), so a new session "
        f"cannot start in it. Quit, then start agent-cli in a folder that exists (or make "
        f"that folder again); {resume} run there goes on with this conversation."
    ) in output
    assert "config error" not in output
    # /reload: the folder is gone, not "no AGENTS.md"; the one loaded before is kept
    assert (
        f"{gone}: there is no AGENTS.md or CLAUDE.md to read again. Requests keep carrying "
        f"the AGENTS.md loaded before. {advice}"
    ) in output
    assert "in the workspace root: requests carry none" not in output
    assert done.returncode == 0


def test_the_advice_holds_resumed_from_a_deleted_folder_once_the_workspace_is_made_again(
    tmp_path: Path, home: Path
) -> None:
    """ "its tools then work in W if you make that folder again", even from a shell still
    standing in a deleted folder."""
    workspace = tmp_path / "ws"
    workspace.mkdir()
    env = build_env(home)
    session_id = start_session(workspace, home, env)
    subprocess.run(["rm", "-rf", str(workspace)], check=True)
    workspace.mkdir()
    (workspace / "again.txt").write_text("x\n", encoding="utf-8")
    done = run_in_deleted_folder(
        tmp_path / "gone", [*OFFLINE, "--resume", session_id, "-p", "list ."], env
    )
    assert done.returncode == 0, done.stderr
    assert "again.txt" in done.stdout + done.stderr


def test_continue_in_a_deleted_folder_with_no_session_only_refuses(
    tmp_path: Path, home: Path
) -> None:
    """Third round: `--continue` in a deleted folder with no session recorded there said
    "no earlier session in this workspace; starting a new one" in a terminal, then refused
    to start it. The new session is said only once it is open (here, piped, the refusal
    alone is checked: the words before it were printed on a terminal only)."""
    done = run_in_deleted_folder(
        tmp_path / "gone", [*OFFLINE, "--continue"], build_env(home), stdin_text="hi\n"
    )
    assert done.returncode == 2, done.stderr
    assert "no longer exists" in done.stderr
    assert "new one" not in done.stdout + done.stderr


def test_continue_with_no_session_says_a_new_one_was_started(tmp_path: Path, home: Path) -> None:
    workspace = tmp_path / "fresh"
    workspace.mkdir()
    done = run_piped([*OFFLINE, "--continue", "-p", "hi"], cwd=workspace, env=build_env(home))
    assert done.returncode == 0, done.stderr
    assert "no earlier session in this workspace; started a new one" in done.stdout + done.stderr
