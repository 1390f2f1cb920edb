"""`main` end to end with a fake session backend: piped input, `-p`, resume, exit codes."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from types import SimpleNamespace

import pytest
from repl_fakes import FakeBackend, FakeSession, answer

from agent_cli.errors import (
    MemoryFileDamaged,
    MissingApiKey,
    ProviderRequestFailed,
    TranscriptWriteFailed,
)
from agent_cli.events import (
    AssistantDone,
    AssistantText,
    CompactionFired,
    LayerLine,
    Notice,
    RequestBlocked,
    ToolFinished,
    ToolStarted,
    TurnEnded,
)
from agent_cli.repl.main import main


class Run:
    """One call of `main` with string streams and a fake backend."""

    def __init__(self, tmp_path, argv, stdin_text="", backend=None, env=None):
        self.backend = backend or FakeBackend()
        self.stdout, self.stderr = io.StringIO(), io.StringIO()
        paths = SimpleNamespace(
            config_file=tmp_path / "config.toml", history_file=tmp_path / "history"
        )
        self.code = main(
            argv,
            backend_factory=self.backend.factory,
            paths=paths,
            stdin=io.StringIO(stdin_text),
            stdout=self.stdout,
            stderr=self.stderr,
            env=env if env is not None else {},
        )

    @property
    def out(self) -> str:
        return self.stdout.getvalue()

    @property
    def err(self) -> str:
        return self.stderr.getvalue()

    @property
    def session(self) -> FakeSession:
        return self.backend.opened[0]


def test_piped_lines_run_turns_and_commands_then_eof_exits_zero(tmp_path):
    run = Run(tmp_path, ["--workspace", str(tmp_path)], "hi\nstats\n")
    assert run.code == 0
    assert ("run_turn", "hi") in run.session.calls
    assert "> hi" in run.out and "echo: hi" in run.out
    assert "soft threshold 80,000" in run.out  # the stats panel
    assert run.session.closed


def test_piped_input_never_measures_the_gauge_it_cannot_show(tmp_path):
    run = Run(tmp_path, [], "hi\n")
    assert ("gauge",) not in run.session.calls


def test_the_banner_names_the_offline_demo_model_and_how_to_use_claude(tmp_path):
    run = Run(tmp_path, ["--workspace", str(tmp_path)])
    assert "provider offline" in run.out and "model offline-demo" in run.out
    assert "offline demo model (no API key found)" in run.out
    assert "ANTHROPIC_API_KEY" in run.out and "ANTHROPIC_BASE_URL" in run.out
    assert "session new-1 (new)" in run.out and "/help" in run.out


def test_leaving_says_where_the_transcript_is(tmp_path):
    run = Run(tmp_path, ["--workspace", str(tmp_path)], "/quit\nnever sent\n")
    assert "transcript: /state/transcripts/new-1.jsonl" in run.out
    assert "agent-cli --resume new-1" in run.out
    assert ("run_turn", "never sent") not in run.session.calls


def test_exit_typed_bare_leaves_without_sending_it_to_the_model(tmp_path):
    run = Run(tmp_path, ["--workspace", str(tmp_path)], "exit\nnever sent\n")
    assert run.code == 0
    assert "agent-cli --resume new-1" in run.out
    assert ("run_turn", "exit") not in run.session.calls
    assert ("run_turn", "never sent") not in run.session.calls
    assert run.session.closed


def test_startup_notices_of_the_session_are_shown_after_the_banner(tmp_path):
    session = FakeSession(session_id="new-1")
    damaged = MemoryFileDamaged("/state/memory/w.json", "bad_json", kept_at="/state/kept.json")
    session.startup_notices = [Notice("error", "memory_damaged", error=damaged)]
    run = Run(tmp_path, [], backend=FakeBackend(new_session=lambda n: session))
    assert "error: The durable memory file could not be read (bad_json)" in run.out


def test_new_opens_a_session_and_closes_the_old_one(tmp_path):
    run = Run(tmp_path, [], "first\n/new\nsecond\n")
    first, second = run.backend.opened
    assert first.closed and second.closed
    assert ("run_turn", "first") in first.calls and ("run_turn", "second") in second.calls


def test_resume_of_an_unknown_session_keeps_the_current_one(tmp_path):
    run = Run(tmp_path, [], "/resume nope\nstill here\n")
    assert "no session nope" in run.out
    assert ("run_turn", "still here") in run.session.calls


def test_resume_without_an_id_lists_sessions_and_opens_the_latest(tmp_path):
    old = FakeSession(session_id="old-7")
    backend = FakeBackend(known={"old-7": old}, latest="old-7")
    run = Run(tmp_path, ["--resume"], "", backend=backend)
    assert backend.resume_requests == ["old-7"]
    assert "old-7" in run.out and "(resumed)" in run.out


def test_continue_with_no_earlier_session_starts_a_new_one_and_says_so(tmp_path):
    run = Run(tmp_path, ["--continue"])
    assert run.backend.resume_requests == [None]
    assert "no earlier session in this workspace" in run.out


def test_resume_of_an_unknown_id_at_start_is_exit_two(tmp_path):
    run = Run(tmp_path, ["--resume", "missing-1"])
    assert run.code == 2
    assert "no session missing-1" in run.err


def test_a_missing_api_key_is_exit_two_with_what_to_do(tmp_path):
    class NoKey(FakeBackend):
        def factory(self, settings, ask_permission):
            raise MissingApiKey()

    run = Run(tmp_path, ["--provider", "anthropic"], backend=NoKey())
    assert run.code == 2
    assert run.err.strip() == "No ANTHROPIC_API_KEY: set it, or run with --provider offline"


def test_a_bad_config_file_is_one_line_naming_key_and_file_and_exit_two(tmp_path):
    (tmp_path / "config.toml").write_text('hard_limit = "huge"\n', encoding="utf-8")
    run = Run(tmp_path, [])
    assert run.code == 2
    line = run.err.strip()
    assert "hard_limit" in line and str(tmp_path / "config.toml") in line and "\n" not in line


def test_config_values_reach_the_backend_and_flags_win(tmp_path):
    (tmp_path / "config.toml").write_text("soft_threshold = 3000\nyes = true\n", encoding="utf-8")
    run = Run(tmp_path, ["--soft-threshold", "2000"])
    assert run.backend.settings.soft_threshold == 2000 and run.backend.settings.yes is True


def test_piped_input_denies_permission_and_says_how_to_allow(tmp_path):
    run = Run(tmp_path, [])
    decision = run.backend.permission_asker(SimpleNamespace(tool="bash", description="rm -rf x"))
    assert decision.value == "deny_unasked"  # nobody could be asked (issue 23 item 15)
    assert "bash was not run" in run.out and "--yes" in run.out


def test_a_provider_error_in_a_turn_is_one_line_and_the_loop_goes_on(tmp_path):
    def failing(text):
        if text == "boom":
            raise ProviderRequestFailed("overloaded", status=529, attempts=3)
        return answer("fine")

    backend = FakeBackend(new_session=lambda n: FakeSession(session_id="s", script=failing))
    run = Run(tmp_path, [], "boom\nagain\n", backend=backend)
    assert "model request failed (overloaded, HTTP 529, 3 attempts)" in run.out
    assert "the conversation is unchanged; try again" in run.out
    assert "fine" in run.out and run.code == 0


def test_version_and_help_do_not_load_rich_or_prompt_toolkit():
    code = (
        "import sys, io, contextlib\n"
        "from agent_cli.repl.main import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    main(['--version']); main(['--help'])\n"
        "heavy = [m for m in ('rich', 'prompt_toolkit', 'anthropic', 'tiktoken') "
        "if m in sys.modules]\n"
        "print(heavy)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "[]"


WRITE_LONE_SURROGATE = (
    "from agent_cli.repl.startup import replace_unencodable_output\n"
    "replace_unencodable_output()\n"
    "import sys\n"
    "sys.stdout.write('a\\ud800b\\n')\n"
)


@pytest.mark.parametrize(
    ("errors", "out"),
    [
        ("strict", b"a?b\n"),
        ("surrogateescape", b"a?b\n"),
        ("backslashreplace", b"a\\ud800b\n"),  # a handler that never fails is kept
    ],
)
def test_stdout_writes_what_utf8_cannot_carry_instead_of_failing(errors, out):
    """Under LANG=C.UTF-8 Python's stdout uses `surrogateescape`, which raises on
    `\\ud800` as `strict` does; it was kept, and a streamed answer holding one ended
    the REPL with UnicodeEncodeError. (stderr's own handler, backslashreplace, never fails.)"""
    env = {**os.environ, "PYTHONIOENCODING": f"utf-8:{errors}"}
    done = subprocess.run(
        [sys.executable, "-c", WRITE_LONE_SURROGATE], capture_output=True, env=env, check=False
    )
    assert (done.returncode, done.stdout) == (0, out), done.stderr


# --- -p -----------------------------------------------------------------------------------


def scripted_backend(events):
    return FakeBackend(new_session=lambda n: FakeSession(session_id="p", script=lambda t: events))


L1 = LayerLine("L1", 91_204, 78_530, results_truncated=3)


def test_print_mode_puts_only_the_final_answer_on_stdout(tmp_path):
    events = [
        CompactionFired((L1,), 91_204, 78_530, 80_000, 120_000),
        AssistantText("Let me look."),
        AssistantDone("Let me look.", "tool_use"),
        ToolStarted("t1", "read_file", {"path": "a.py"}),
        ToolFinished("t1", "read_file", False, "read 3 lines", 90),
        AssistantText("The answer is 42."),
        AssistantDone("The answer is 42.", "end_turn"),
        TurnEnded("ok", "end_turn", 2),
    ]
    run = Run(tmp_path, ["-p", "what is it?"], backend=scripted_backend(events))
    assert run.code == 0
    assert run.out == "The answer is 42.\n"
    assert "[compact] L1 truncate tool results" in run.err
    assert "read_file" in run.err and "Let me look." in run.err
    assert ("run_turn", "what is it?") in run.session.calls and run.session.closed


@pytest.mark.parametrize(
    ("outcome", "code"), [("ok", 0), ("failed", 1), ("blocked", 3), ("cancelled", 130)]
)
def test_print_mode_exit_code_says_how_the_turn_ended(tmp_path, outcome, code):
    run = Run(tmp_path, ["-p", "x"], backend=scripted_backend([TurnEnded(outcome)]))
    assert run.code == code


def test_print_mode_fails_a_turn_whose_records_the_transcript_refused(tmp_path):
    """A turn that ended ok though a record of it did not reach the transcript (the
    calls of an answer that stopped for another reason, answered unrecorded) exited 0: a
    script took it for done, and `--continue` could not see it."""
    refused = TranscriptWriteFailed("p", "ENOSPC")
    events = [
        AssistantDone("done", "end_turn"),
        Notice("error", "transcript_write_failed", error=refused),
        TurnEnded("ok", "end_turn"),
    ]
    run = Run(tmp_path, ["-p", "x"], backend=scripted_backend(events))
    assert run.code == 1
    assert "Could not write the transcript" in run.err


def test_print_mode_words_a_failure_raised_by_the_turn_for_the_command_line(tmp_path):
    """It said "then /resume <id>", a command of the REPL, which `-p` has not got."""

    def refuse(_text):
        raise TranscriptWriteFailed("20261207-090803-4df0fa", "ENOSPC")

    backend = FakeBackend(new_session=lambda n: FakeSession(session_id="p", script=refuse))
    run = Run(tmp_path, ["-p", "x"], backend=backend)
    said = " ".join(run.err.split())
    assert run.code == 1
    assert "/resume" not in said
    assert "then `agent-cli --resume 20261207-090803-4df0fa`" in said


def test_print_mode_blocked_request_explains_on_stderr(tmp_path):
    events = [
        RequestBlocked(200_000, 130_000, 120_000, ("L1", "L2", "L3", "L4")),
        TurnEnded("blocked"),
    ]
    run = Run(tmp_path, ["-p", "x"], backend=scripted_backend(events))
    assert run.code == 3 and run.out == ""
    assert "[compact] blocked: view is 130,000 tokens after L1-L4" in run.err


def test_print_mode_reads_the_prompt_from_stdin_with_a_dash(tmp_path):
    run = Run(tmp_path, ["-p", "-"], "question from a pipe\n")
    assert ("run_turn", "question from a pipe\n") in run.session.calls


def test_print_mode_with_an_empty_prompt_is_a_usage_error(tmp_path):
    run = Run(tmp_path, ["-p", "  "])
    assert run.code == 2 and not run.backend.opened
    assert "-p needs a prompt, and it was empty" in " ".join(run.err.split())
    assert "config error" not in run.err


@pytest.mark.parametrize("prompt", ["/stats", "/stats --json", "exit", "QUIT", " stats "])
def test_print_mode_refuses_a_command_instead_of_sending_it_to_the_model(tmp_path, prompt):
    """`-p /stats` and `-p exit` went to the model as requests."""
    run = Run(tmp_path, ["-p", prompt])
    assert run.code == 2 and not run.backend.opened
    err = " ".join(run.err.split())
    assert "is a command of the interactive prompt, and -p runs none" in err, err


def test_print_mode_sends_a_double_slash_prompt_with_one_slash(tmp_path):
    run = Run(tmp_path, ["-p", "//etc/hosts is odd"])
    assert ("run_turn", "/etc/hosts is odd") in run.session.calls


def test_print_mode_answer_is_sanitized(tmp_path):
    events = [AssistantDone("ok\x1b[2J\r[compact] total: fake", "end_turn"), TurnEnded("ok")]
    run = Run(tmp_path, ["-p", "x"], backend=scripted_backend(events))
    assert "\x1b" not in run.out
    assert not any(line.startswith("[compact]") for line in run.out.splitlines())


def test_print_mode_denies_permission_without_yes(tmp_path):
    run = Run(tmp_path, ["-p", "x"])
    decision = run.backend.permission_asker(SimpleNamespace(tool="write_file", description="w"))
    assert decision.value == "deny_unasked" and "write_file was not run: -p cannot ask" in run.err


@pytest.mark.parametrize(("columns", "width"), [("99999999", 1_000), ("120", 120), ("60", 60)])
def test_an_absurd_columns_is_clamped_and_an_ordinary_one_kept(monkeypatch, columns, width):
    """`stats` piped with COLUMNS=99999999 laid its table out that wide for over 40 s."""
    from agent_cli.repl.startup import make_console

    monkeypatch.setenv("COLUMNS", columns)
    assert make_console(io.StringIO()).width == width
    assert make_console(None).width == width


# What the `agent-cli` script does (pip writes it from the package's entry point), with
# SIGINT sent while `TARGET` is being imported: the moment a Ctrl-C pressed right after
# launch lands in, made exact instead of timed.
CTRL_C_DURING_IMPORT = """
import importlib.metadata, os, signal, sys

TARGET = %r


class CtrlCWhileImporting:
    def find_spec(self, name, path=None, target=None):
        if name == TARGET:
            sys.meta_path.remove(self)
            os.kill(os.getpid(), signal.SIGINT)
        return None


(entry,) = importlib.metadata.entry_points(group="console_scripts", name="agent-cli")
sys.argv = ["agent-cli", "-p", "hello"]
sys.meta_path.insert(0, CtrlCWhileImporting())
start = entry.load()  # the script's `from <module> import <function>`
sys.exit(start())
"""


@pytest.mark.parametrize(
    "module",
    [
        "agent_cli.repl.main",
        "agent_cli.repl.args",
        "agent_cli.repl.startup",
        "agent_cli.termination",
    ],
)
def test_ctrl_c_while_agent_cli_still_loads_exits_130_without_a_traceback(tmp_path, module):
    """LOSS-8: a Ctrl-C in the first tenth of a second printed a KeyboardInterrupt
    traceback from inside the imports that run before `main` can catch it."""
    env = {**os.environ, "AGENT_CLI_HOME": str(tmp_path / "home")}
    env.pop("ANTHROPIC_API_KEY", None)
    done = subprocess.run(
        [sys.executable, "-c", CTRL_C_DURING_IMPORT % module],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        check=False,
        timeout=60,
    )
    assert "Traceback" not in done.stderr and "KeyboardInterrupt" not in done.stderr, done.stderr
    assert done.returncode == 130, done.stderr
