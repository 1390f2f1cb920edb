"""End to end in tmux: `/last` pages a long output through less, and Tab completes
`/res` to `/resume` and then the id of a saved session (issue 23 items 7 and 11)."""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from e2e_support import (
    BANNER_END,
    ReplDriver,
    TerminalPool,
    agent_cli_argv,
    build_env,
    run_piped,
    session_id_on,
)

pytestmark = pytest.mark.e2e
TAB_ATTEMPTS = 3


def start(terminals: TerminalPool, home: Path, workspace: Path, pager: str) -> ReplDriver:
    terminal = terminals.open(build_env(home, {"PAGER": pager}))
    terminal.start(agent_cli_argv(), cwd=workspace, width=120)
    driver = ReplDriver(terminal)
    driver.wait_for_prompt()
    return driver


def press_tab_until(
    repl: ReplDriver, check: Callable[[str], bool], what: str, key: str = "Tab"
) -> str:
    """Press Tab (or `key`) until `check` holds on screen. A Tab that arrives while
    prompt_toolkit still completes what was just typed is dropped (one completion runs at
    a time), so one more is pressed then; a person's Tab comes later than a test's. Less
    likewise lets a Ctrl-C that it has not yet handled cancel the command typed after it."""
    for attempt in range(1, TAB_ATTEMPTS + 1):
        repl.terminal.press(key)
        try:
            return repl.terminal.wait_for(check, what, timeout=3, source=repl.terminal.visible)
        except AssertionError:
            if attempt == TAB_ATTEMPTS:
                raise
    raise AssertionError(what)


@pytest.mark.skipif(shutil.which("less") is None, reason="less is not installed")
def test_last_shows_a_long_output_whole_in_less_and_the_prompt_comes_back(
    terminals: TerminalPool, home: Path, workspace: Path
) -> None:
    repl = start(terminals, home, workspace, "less -R")
    assert "saved to artifact" in repl.submit("read big.txt")
    repl.send("/last")
    first_page = repl.terminal.wait_for(
        lambda text: "line 000" in text and text.rstrip().endswith(":"),
        "less showing the first page",
        source=repl.terminal.visible,
    )
    assert "\x1b" not in first_page and BANNER_END not in first_page
    repl.terminal.press("G")
    end = repl.terminal.wait_for(
        lambda text: "(END)" in text, "less at the end", source=repl.terminal.visible
    )
    assert "line 399" in end and "the whole output, read back from artifact " in end
    assert "omitted" not in end
    leave_the_pager_and_go_on(repl)


@pytest.mark.skipif(shutil.which("less") is None, reason="less is not installed")
def test_ctrl_c_in_less_while_agent_cli_still_feeds_it_is_less_own(
    terminals: TerminalPool, home: Path, workspace: Path
) -> None:
    """1 MB is far more than a pipe holds: agent-cli is still writing it into less (which
    reads on demand) when Ctrl-C comes. It must go on feeding and waiting for less: `G`
    then reaches the very last line, and the prompt comes back only after `q`."""
    rows = [f"row {n:06d} " + "filler " * 70 for n in range(1_900)]  # read_file shows 2,000
    (workspace / "big.txt").write_text("\n".join(rows) + "\n", encoding="utf-8")
    repl = start(terminals, home, workspace, "less -R")
    assert "saved to artifact" in repl.submit("read big.txt")
    repl.send("/last")
    repl.terminal.wait_for(
        lambda text: "row 000000" in text and text.rstrip().endswith(":"),
        "less showing the first page",
        source=repl.terminal.visible,
    )
    repl.terminal.press("C-c")
    end = press_tab_until(repl, lambda text: "(END)" in text, "less at the end", key="G")
    assert "row 001899" in end and "›" not in end
    leave_the_pager_and_go_on(repl)


@pytest.mark.skipif(shutil.which("more") is None, reason="more is not installed")
def test_enter_in_more_shows_one_more_line(
    terminals: TerminalPool, home: Path, workspace: Path
) -> None:
    """util-linux `more` reads only LF as Enter. The quiet mode agent-cli keeps between
    prompts turns the terminal's CR-to-LF translation off (so a pasted CRLF stays one
    break), and the pager it starts for `/last` got Enter as CR: nothing happened (review
    of round 28). The pager is given the translation back while it runs."""
    repl = start(terminals, home, workspace, "more")
    assert "saved to artifact" in repl.submit("read big.txt")
    repl.send("/last")
    page = repl.terminal.wait_for(
        lambda text: "line 000" in text and "--More--" in text,
        "more showing the first page",
        source=repl.terminal.visible,
    )
    last = max(int(n) for n in re.findall(r"line (\d{3})", page))
    repl.terminal.press("Enter")
    repl.terminal.wait_for(
        lambda text: f"line {last + 1:03d}" in text,
        "one more line after Enter",
        source=repl.terminal.visible,
    )
    leave_the_pager_and_go_on(repl, showing="--More--")


def test_tab_completes_the_resume_command_and_a_session_id(
    terminals: TerminalPool, home: Path, workspace: Path
) -> None:
    done = run_piped([], cwd=workspace, env=build_env(home), stdin_text="list .\n")
    assert done.returncode == 0, done.stderr
    earlier = session_id_on(done.stdout)
    repl = start(terminals, home, workspace, "cat")
    repl.terminal.type_text("/res")
    press_tab_until(repl, lambda text: "› /resume" in text, "/res completed")
    repl.terminal.type_text(" ")
    press_tab_until(
        repl, lambda text: f"› /resume {earlier}" in text, "the other session's id completed"
    )
    repl.terminal.press("Enter")
    repl.terminal.wait_for_text(f"session {earlier} (resumed)")


def leave_the_pager_and_go_on(repl: ReplDriver, showing: str = "(END)") -> None:
    """`q` in the pager (its screen `showing` that); the prompt comes back and the next
    turn works."""
    repl.terminal.press("q")
    repl.terminal.wait_for(
        lambda text: showing not in text and "ctx " in text,
        "the prompt again",
        source=repl.terminal.visible,
    )
    assert "Demo Project" in repl.submit("read README.md and tell me its first heading")
