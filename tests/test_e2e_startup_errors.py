"""Start-up mistakes end in one plain line and a non-zero exit, never a traceback.

The installed `agent-cli` runs as a subprocess on pipes with a real AGENT_CLI_HOME.
"""

from __future__ import annotations

import stat
from pathlib import Path

import pytest
from e2e_support import build_env, run_piped

from agent_cli.store.transcript import TranscriptStore

pytestmark = pytest.mark.e2e


def assert_one_plain_error_line(stderr: str, *needles: str) -> None:
    assert "Traceback" not in stderr, stderr
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1, stderr
    for needle in needles:
        assert needle in lines[0], lines[0]


@pytest.mark.parametrize("url", ["http://127.0.0.1:abc", "http://[::1", "localhost:8080/v1"])
@pytest.mark.parametrize("mode", ["print", "piped"])
def test_a_malformed_base_url_is_named_in_one_line_at_start_up(
    home: Path, workspace: Path, url: str, mode: str
) -> None:
    env = build_env(home, {"ANTHROPIC_API_KEY": "k", "ANTHROPIC_BASE_URL": url})
    args = ["-p", "hello"] if mode == "print" else []
    done = run_piped(args, cwd=workspace, env=env, stdin_text="hello\n")
    assert done.returncode != 0
    assert_one_plain_error_line(done.stderr, "ANTHROPIC_BASE_URL", "https://")
    assert "hello" not in done.stdout.replace("> hello", "")


def first_session(home: Path, workspace: Path) -> str:
    """Run one `-p` turn on the offline model; return the session id it recorded."""
    done = run_piped(["-p", "read README.md"], cwd=workspace, env=build_env(home))
    assert done.returncode == 0, done.stderr
    [transcript] = (home / "transcripts").glob("*.jsonl")
    return transcript.stem


@pytest.mark.parametrize("how", ["--continue", "--resume"])
def test_a_session_locked_by_another_process_does_not_advise_the_flag_that_failed(
    home: Path, workspace: Path, how: str
) -> None:
    session_id = first_session(home, workspace)
    holder = TranscriptStore(home / "transcripts").open_writer(session_id)  # another process
    try:
        args = [how] if how == "--continue" else [how, session_id]
        done = run_piped([*args, "-p", "hello"], cwd=workspace, env=build_env(home))
    finally:
        holder.close()
    assert done.returncode == 1
    assert_one_plain_error_line(done.stderr, session_id, "another agent-cli process")
    assert "use --continue" not in done.stderr
    assert "without --continue or --resume" in done.stderr


@pytest.mark.parametrize("raw", ["../../etc/passwd", "/etc/passwd", "a b"])
def test_resume_of_something_that_is_not_a_session_id_says_so_in_plain_words(
    home: Path, workspace: Path, raw: str
) -> None:
    done = run_piped(["--resume", raw, "-p", "hello"], cwd=workspace, env=build_env(home))
    assert done.returncode == 2
    assert_one_plain_error_line(done.stderr, "not a session id", "agent-cli --resume")
    assert "InvalidStoreInput" not in done.stderr and "bad_grammar" not in done.stderr


def test_a_damaged_transcript_at_start_up_gives_advice_for_a_process_that_exits(
    home: Path, workspace: Path
) -> None:
    session_id = first_session(home, workspace)
    transcript = home / "transcripts" / f"{session_id}.jsonl"
    lines = transcript.read_bytes().splitlines(keepends=True)
    transcript.write_bytes(lines[0] + b'{"not": "a record"}\n' + b"".join(lines[1:]))
    done = run_piped(["--continue", "-p", "hello"], cwd=workspace, env=build_env(home))
    assert done.returncode == 1
    assert_one_plain_error_line(done.stderr, "damaged at line 2", "without --continue")
    assert "/new" not in done.stderr


def test_a_config_file_nested_too_deeply_to_read_is_one_line_and_exit_2(
    home: Path, workspace: Path
) -> None:
    home.mkdir(exist_ok=True)
    (home / "config.toml").write_text("a = " + "[" * 5000 + "]" * 5000 + "\n")
    done = run_piped(["-p", "hello"], cwd=workspace, env=build_env(home))
    assert done.returncode == 2
    assert_one_plain_error_line(done.stderr, "config error", "not valid TOML", "nest too deeply")


def test_an_empty_model_name_is_refused(home: Path, workspace: Path) -> None:
    done = run_piped(["--model", "", "-p", "hello"], cwd=workspace, env=build_env(home))
    assert done.returncode == 2
    assert "--model: is empty" in done.stderr
    assert not (home / "transcripts").exists() or not list((home / "transcripts").iterdir())


FAKE_BANNER_MODEL = "x\nfake line: approvals are OFF\x1b[2K"
MODEL_REFUSED = "is not a model id (letters, digits and . _ - : @ / [ ] only, up to 200 characters)"


@pytest.mark.parametrize("source", ["--model", "config.toml", "ANTHROPIC_MODEL"])
def test_a_model_id_with_a_line_break_or_an_escape_is_refused_wherever_it_is_set(
    home: Path, workspace: Path, source: str
) -> None:
    """Eleventh attack: `/model` refused such an id, but one from a flag, the config file
    or ANTHROPIC_MODEL reached the banner, whose line then read "fake line: approvals
    are OFF". Every source now takes a model id only, in one line, exit 2."""
    extra = {"ANTHROPIC_API_KEY": "k", "ANTHROPIC_BASE_URL": "http://127.0.0.1:9"}
    args = ["-p", "hello"]
    if source == "--model":
        args = ["--model", FAKE_BANNER_MODEL, *args]
    elif source == "config.toml":
        home.mkdir(parents=True, exist_ok=True)
        (home / "config.toml").write_text('model = "x\\nfake line: approvals are OFF"\n')
    else:
        extra["ANTHROPIC_MODEL"] = FAKE_BANNER_MODEL
    done = run_piped(args, cwd=workspace, env=build_env(home, extra))
    assert done.returncode == 2, done.stderr
    if source == "--model":  # argparse's usage, then its one error line
        assert done.stderr.splitlines()[-1].endswith("argument --model: " + MODEL_REFUSED)
    else:
        assert_one_plain_error_line(done.stderr, source, "model id")
    assert "fake line" not in done.stdout + done.stderr


def test_a_history_file_left_readable_by_others_is_made_private(
    home: Path, workspace: Path
) -> None:
    home.mkdir(mode=0o755)
    history = home / "history"
    history.write_text("\n# 2026-12-01\n+my secret line\n")
    history.chmod(0o644)
    done = run_piped([], cwd=workspace, env=build_env(home), stdin_text="stats\n")
    assert done.returncode == 0, done.stderr
    assert stat.S_IMODE(history.stat().st_mode) == 0o600
    assert history.read_text().endswith("+my secret line\n")


def test_resuming_a_session_of_another_folder_runs_its_tools_there_and_says_so(
    home: Path, workspace: Path, tmp_path: Path
) -> None:
    session_id = first_session(home, workspace)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "README.md").write_text("# Somewhere Else\n")
    done = run_piped(
        ["--resume", session_id, "-p", "read README.md"], cwd=elsewhere, env=build_env(home)
    )
    assert done.returncode == 0, done.stderr
    assert f"This session worked in {workspace}; its tools run there" in done.stderr
    assert "Demo Project" in done.stdout and "Somewhere Else" not in done.stdout


def test_resuming_with_workspace_of_another_folder_says_which_folder_it_leaves_and_why(
    home: Path, workspace: Path, tmp_path: Path
) -> None:
    """Found (session 27, T2): run from a third folder with `--workspace B`, the warning
    called B the folder "where agent-cli was started"."""
    session_id = first_session(home, workspace)
    given, third = tmp_path / "given", tmp_path / "third"
    given.mkdir()
    third.mkdir()
    done = run_piped(
        ["--resume", session_id, "--workspace", str(given), "-p", "read README.md"],
        cwd=third,
        env=build_env(home),
    )
    assert done.returncode == 0, done.stderr
    said = " ".join(done.stderr.split())
    assert f"its tools run there, not in {given} (the folder this run was given" in said
    assert "--workspace" in said and "where agent-cli was started" not in said


def test_resume_of_something_that_is_not_a_session_id_inside_the_repl_says_so(
    home: Path, workspace: Path
) -> None:
    done = run_piped([], cwd=workspace, env=build_env(home), stdin_text="/resume ../x\n")
    assert done.returncode == 0, done.stderr
    assert "that is not a session id" in done.stdout and "/sessions lists them" in done.stdout
    assert "InvalidStoreInput" not in done.stdout and "bad_grammar" not in done.stdout


def test_resume_of_a_locked_session_inside_the_repl_does_not_advise_continue(
    home: Path, workspace: Path
) -> None:
    session_id = first_session(home, workspace)
    holder = TranscriptStore(home / "transcripts").open_writer(session_id)  # another process
    try:
        stdin_text = f"/resume {session_id}\n"
        done = run_piped([], cwd=workspace, env=build_env(home), stdin_text=stdin_text)
    finally:
        holder.close()
    assert done.returncode == 0, done.stderr
    assert "is open in another agent-cli process" in done.stdout
    assert "--continue" not in done.stdout


@pytest.mark.parametrize("key", [None, "", "   "])
def test_print_mode_says_on_stderr_when_the_offline_model_answers_for_want_of_a_key(
    home: Path, workspace: Path, key: str | None
) -> None:
    """Thirteenth attack: with no key (or a CI secret that expanded to nothing) `-p`
    printed the demo model's answer and nothing else, exit 0: a script's log could not
    tell it was no answer from Claude. The answer and the exit code stay as they were."""
    extra = {} if key is None else {"ANTHROPIC_API_KEY": key}
    run = run_piped(["-p", "list ."], cwd=workspace, env=build_env(home, extra))
    assert run.returncode == 0, run.stderr
    assert "no ANTHROPIC_API_KEY: the offline demo model answers, not Claude" in run.stderr
    assert "ANTHROPIC_API_KEY" not in run.stdout
    chosen = run_piped(
        ["--provider", "offline", "-p", "list ."], cwd=workspace, env=build_env(home)
    )
    assert chosen.returncode == 0 and "ANTHROPIC_API_KEY" not in chosen.stderr


def test_a_workspace_through_a_loop_of_links_is_one_line_and_exit_2(
    home: Path, workspace: Path, tmp_path: Path
) -> None:
    """The review of the link-loop fix: `--workspace` through a loop ended in a
    RuntimeError traceback, exit 1."""
    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    run = run_piped(
        ["--workspace", str(tmp_path / "a"), "-p", "x"], cwd=workspace, env=build_env(home)
    )
    assert run.returncode == 2 and "Traceback" not in run.stderr
    assert "symbolic links that lead back to each other" in run.stderr
    assert len(run.stderr.strip().splitlines()) == 1, run.stderr


@pytest.mark.parametrize(
    ("flags", "needles"),
    [
        (
            ["--provider", "anthropic", "--low-water", "99999"],
            [
                "the low-water mark 99,999 must be below the soft threshold 80,000 (built-in",
                "lower --low-water below 80,000 or raise --soft-threshold above 99,999",
            ],
        ),
        (
            ["--soft-threshold", "5000", "--hard-limit", "4000"],
            [
                "the hard limit 4,000 must be above the soft threshold 5,000",
                "raise --hard-limit above 5,000 or lower --soft-threshold",
            ],
        ),
    ],
)
def test_settings_that_contradict_each_other_name_both_values_and_the_fix(
    home: Path, workspace: Path, flags: list[str], needles: list[str]
) -> None:
    """Twenty-second tester: `--low-water 99999` said only "must be below soft_threshold",
    unlike the soft/hard error, which gave both numbers and what to change."""
    env = build_env(home, {"ANTHROPIC_API_KEY": "k"})
    done = run_piped([*flags, "-p", "hi"], cwd=workspace, env=env)
    assert done.returncode == 2
    assert_one_plain_error_line(done.stderr, "config error:", *needles)


@pytest.mark.parametrize("mode", ["print", "piped"])
def test_a_current_folder_that_was_deleted_is_named_in_one_line_at_start_up(
    home: Path, tmp_path: Path, mode: str
) -> None:
    """After `git worktree remove` or a rebuilt build folder the shell still stands in a
    folder that is gone: `os.getcwd()` fails, and the start-up printed a traceback."""
    import shlex
    import subprocess

    from e2e_support import agent_cli_argv

    gone = tmp_path / "gone"
    gone.mkdir()
    args = ["-p", "hello"] if mode == "print" else []
    program = " ".join(map(shlex.quote, [*agent_cli_argv(), *args]))
    done = subprocess.run(
        [
            "sh",
            "-c",
            f"cd {shlex.quote(str(gone))} && rmdir {shlex.quote(str(gone))} && exec {program}",
        ],
        env=build_env(home, {"ANTHROPIC_API_KEY": "k"}),
        input="hello\n",
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert done.returncode == 2, done.stderr
    assert_one_plain_error_line(
        done.stderr, "the current folder no longer exists", "--workspace DIR"
    )
