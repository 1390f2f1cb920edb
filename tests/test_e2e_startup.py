"""End to end, in tmux: the prompt is up before the session is open, and nothing is lost,
nor echoed by the terminal where no prompt is (twenty-sixth outside test: text typed right
after a line sent at the first prompt was echoed above the banner).

The prompt is drawn first and the session opens behind it, then the banner comes above
the prompt. To type while the session is still opening, whatever the machine's speed,
these tests hold the opening back: agent-cli runs under a small launcher that makes the
session's memory load first open a FIFO of the test's (outside the state folder), which
blocks until the test opens the other end. (agent-cli's own stores never wait on a FIFO:
a FIFO memory file is refused at once, see test_hostile_fifos.py, so it cannot serve.)
"""

from __future__ import annotations

import errno
import os
import shlex
import sys
import time
from pathlib import Path

import pytest
from e2e_support import (
    BANNER_END,
    PROMPT_MARK,
    TerminalPool,
    TmuxTerminal,
    agent_cli_argv,
    build_env,
    count_prompts,
    last_prompt_line,
)

pytestmark = pytest.mark.e2e

RELEASE_WAIT_SECONDS = 20.0
# Runs agent-cli's main, but stops where the first prompt frame would be drawn and says
# which of the modules the first frame does not need were loaded by then.
FIRST_FRAME_PROBE = """
import sys
from agent_cli.repl import prompt
NOT_FOR_THE_FIRST_FRAME = (
    "rich", "agent_cli.session", "agent_cli.repl.loop", "agent_cli.repl.commands",
    "agent_cli.provider", "agent_cli.compaction", "agent_cli.tokens", "agent_cli.tools",
    "anthropic", "httpx", "pydantic", "tiktoken", "pygments", "tomllib",
)
def probe(self, work):
    loaded = [name for name in NOT_FOR_THE_FIRST_FRAME if name in sys.modules]
    print("loaded before the first frame:", loaded, flush=True)
    raise SystemExit(0)
prompt.PromptReader.show_while = probe
from agent_cli.repl.main import main
raise SystemExit(main([]))
"""


# Runs agent-cli's main with the session's memory load held until the FIFO named by the
# first argument is opened at its other end; the rest of the arguments go to agent-cli.
HELD_OPENING_LAUNCHER = """
import sys
from agent_cli.store.memory import MemoryStore
load = MemoryStore.load
def held(store, workspace):
    with open(sys.argv[1], "rb"):
        pass
    return load(store, workspace)
MemoryStore.load = held
from agent_cli.repl.main import main
raise SystemExit(main(sys.argv[2:]))
"""


# Runs agent-cli's main, but says so and waits where the first prompt frame would be
# drawn until the FIFO named by the first argument is opened at its other end; the rest
# of the arguments go to agent-cli.
HELD_FIRST_FRAME_LAUNCHER = """
import sys
from agent_cli.repl import prompt
show_while = prompt.PromptReader.show_while
def held(self, work):
    print("held before the first frame", flush=True)
    with open(sys.argv[1], "rb"):
        pass
    return show_while(self, work)
prompt.PromptReader.show_while = held
from agent_cli.repl.main import main
raise SystemExit(main(sys.argv[2:]))
"""


def hold_the_opening(tmp_path: Path) -> Path:
    """A FIFO of the test's; the launcher's session opening blocks on it."""
    fifo = tmp_path / "hold-the-opening"
    os.mkfifo(fifo, 0o600)
    return fifo


def release_the_opening(fifo: Path) -> None:
    """Open the FIFO's other end (once the session waits on it): its open returns."""
    deadline = time.monotonic() + RELEASE_WAIT_SECONDS
    while True:
        try:
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
            return
        except OSError as exc:
            if exc.errno != errno.ENXIO or time.monotonic() >= deadline:
                raise  # ENXIO: nobody reads it yet, the opening has not got that far
            time.sleep(0.05)


def start_held(terminals: TerminalPool, home: Path, workspace: Path) -> tuple[TmuxTerminal, Path]:
    """agent-cli with its session opening held back, once its prompt is on screen."""
    fifo = hold_the_opening(workspace.parent)
    terminal = terminals.open(build_env(home))
    terminal.start([sys.executable, "-c", HELD_OPENING_LAUNCHER, str(fifo), "--yes"], cwd=workspace)
    screen = terminal.wait_for(lambda text: count_prompts(text) >= 1, "the early prompt")
    assert BANNER_END not in screen, "the banner came before the session could open"
    return terminal, fifo


def test_a_line_sent_before_the_session_opened_runs_once_it_has_below_the_banner(
    terminals: TerminalPool, home: Path, workspace: Path
) -> None:
    terminal, fifo = start_held(terminals, home, workspace)
    terminal.type_text("list .")
    terminal.press("Enter")
    terminal.type_text("read README.md")  # typed ahead, not sent yet
    terminal.wait_for(lambda text: count_prompts(text) == 0, "the early prompt taken down")
    assert "big.txt" not in terminal.screen(), "the line ran before the session was open"

    release_the_opening(fifo)
    screen = terminal.wait_for(
        lambda text: last_prompt_line(text) == f"{PROMPT_MARK} read README.md",
        "the typed-ahead text at the prompt after the early line's answer",
    )
    sent = f"{PROMPT_MARK} list ."
    assert screen.count(sent) == 1, screen
    assert screen.index(BANNER_END) < screen.index(sent) < screen.index("big.txt"), screen
    terminal.press("Enter")
    # Ctrl-D once the next prompt is up: pressed while the turn still ran (the preview
    # shows "Demo Project" before the answer), the tty could drop it as the prompt began
    terminal.wait_for(
        lambda text: "Its first heading" in text and last_prompt_line(text) == PROMPT_MARK,
        "the answer and the prompt after it",
    )
    terminal.press("C-d")
    assert terminal.wait_for_exit() == 0
    history = (home / "history").read_text(encoding="utf-8")
    assert history.count("+list .") == 1 and history.count("+read README.md") == 1


def test_text_typed_after_a_line_sent_while_the_session_opens_is_not_echoed(
    terminals: TerminalPool, home: Path, workspace: Path
) -> None:
    terminal, fifo = start_held(terminals, home, workspace)
    terminal.type_text("list .")
    terminal.press("Enter")
    terminal.wait_for(lambda text: count_prompts(text) == 0, "the early prompt taken down")
    # and out of its raw mode (Ctrl-C a signal again): the keys typed now reach no prompt
    terminal.wait_for(
        lambda modes: "isig" in modes.split(), "the prompt gone", source=terminal.terminal_modes
    )
    typed = "typed while it opens"
    terminal.type_text(typed)  # no prompt is shown now: the terminal must not echo it

    release_the_opening(fifo)
    screen = terminal.wait_for(
        lambda text: last_prompt_line(text) == f"{PROMPT_MARK} {typed}",
        "the typed text at the prompt after the early line's answer",
    )
    assert screen.count(typed) == 1, screen  # in that prompt, and nowhere else
    assert screen.index(BANNER_END) < screen.index(f"{PROMPT_MARK} list .") < screen.index(typed)


def test_lines_typed_before_the_first_frame_are_not_echoed_and_wait_for_the_prompts(
    terminals: TerminalPool, home: Path, workspace: Path
) -> None:
    fifo = hold_the_opening(workspace.parent)
    terminal = terminals.open(build_env(home))
    argv = [sys.executable, "-c", HELD_FIRST_FRAME_LAUNCHER, str(fifo), "--yes"]
    # then the terminal's settings, as agent-cli left them
    terminal.start(["sh", "-c", f"{shlex.join(argv)}; stty -a"], cwd=workspace)
    terminal.wait_for_text("held before the first frame")
    typed = "typed before the first frame"
    terminal.type_text("list .")
    terminal.press("Enter")
    terminal.type_text(typed)

    release_the_opening(fifo)
    screen = terminal.wait_for(
        lambda text: last_prompt_line(text) == f"{PROMPT_MARK} {typed}",
        "the typed text at the prompt after the first line's answer",
    )
    sent = f"{PROMPT_MARK} list ."
    assert screen.count("list .") == 1 and screen.count(typed) == 1, screen
    assert screen.index(BANNER_END) < screen.index(sent) < screen.index("big.txt"), screen
    terminal.press("C-u")
    terminal.wait_for(lambda text: last_prompt_line(text) == PROMPT_MARK, "the line cleared")
    terminal.press("C-d")
    assert terminal.wait_for_exit() == 0
    modes = terminal.screen().partition("transcript: ")[2].split()
    assert "echo" in modes and "icanon" in modes, modes  # put back as it was at the start


def test_ctrl_d_before_the_session_opened_still_shows_the_banner_then_the_goodbye(
    terminals: TerminalPool, home: Path, workspace: Path
) -> None:
    terminal, fifo = start_held(terminals, home, workspace)
    terminal.press("C-d")
    terminal.wait_for(lambda text: count_prompts(text) == 0, "the early prompt taken down")
    assert terminal.exit_status() is None, "it exited before the session was open"

    release_the_opening(fifo)
    assert terminal.wait_for_exit() == 0
    screen = terminal.screen()
    assert screen.index(BANNER_END) < screen.index(PROMPT_MARK) < screen.index("transcript: ")


def test_an_error_opening_the_session_leaves_only_the_error_on_screen(
    terminals: TerminalPool, home: Path, workspace: Path
) -> None:
    terminal = terminals.open(build_env(home))
    terminal.start([*agent_cli_argv(), "--resume", "20200101-000000-abcdef"], cwd=workspace)
    status = terminal.wait_for_exit()
    screen = terminal.screen()
    assert status != 0
    assert "20200101-000000-abcdef" in screen
    assert count_prompts(screen) == 0 and "ctx " not in screen, screen


def test_nothing_the_first_frame_does_not_need_is_imported_before_it(
    terminals: TerminalPool, home: Path, workspace: Path
) -> None:
    terminal = terminals.open(build_env(home))
    terminal.start([sys.executable, "-c", FIRST_FRAME_PROBE], cwd=workspace)
    assert terminal.wait_for_exit() == 0
    assert "loaded before the first frame: []" in terminal.screen(), terminal.screen()
