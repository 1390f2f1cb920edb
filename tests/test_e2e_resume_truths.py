"""End to end: a resumed session says what really happened, and where its tools run.

The installed CLI on a real terminal (tmux), the fake Messages API playing the model
through the real SDK:
- two calls the user answered `n` to, then quit and `--continue`: the "where you left
  off" recap said `used write_file, bash`; it now says they were denied;
- `--resume` from folder B of a session started in A: the question for `rm -rf build`
  did not say it runs in A (the user's A/build was deleted while they stood in B); its
  header now names A.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from e2e_support import (
    ReplDriver,
    TerminalPool,
    agent_cli_argv,
    build_env,
    count_prompts,
    session_id_on,
)
from fake_anthropic import Reply, start_fake_server, text_block, tool_use_block

pytestmark = pytest.mark.e2e

API_KEY = "sk-ant-e2e-resume-truths-0123456789"
QUESTION = "allow? [y] once"


@pytest.fixture()
def fake() -> Iterator[Any]:
    with start_fake_server(api_key=API_KEY) as server:
        yield server


def start(terminals: TerminalPool, fake: Any, home: Path, folder: Path, *flags: str) -> ReplDriver:
    """agent-cli `flags` started in `folder` against the fake API, at its first prompt."""
    env = build_env(home, {"ANTHROPIC_API_KEY": API_KEY, "ANTHROPIC_BASE_URL": fake.base_url})
    terminal = terminals.open(env)
    terminal.start([*agent_cli_argv(), *flags], cwd=folder, width=120, height=40)
    driver = ReplDriver(terminal)
    driver.wait_for_prompt(timeout=60)
    return driver


def questions_on(screen: str) -> int:
    return sum(1 for line in screen.splitlines() if line.startswith(QUESTION))


def answer_question(repl: ReplDriver, number: int, reply: str) -> str:
    """Wait for the `number`-th question on screen, answer `reply`; the screen asked."""
    screen = repl.terminal.wait_for(
        lambda text: (
            questions_on(text) >= number and text.rstrip().splitlines()[-1].startswith(QUESTION)
        ),
        f"permission question {number}",
    )
    repl.send(reply)
    return screen


def quit_repl(repl: ReplDriver) -> None:
    repl.terminal.press("C-d")
    assert repl.terminal.wait_for_exit() == 0


def test_calls_denied_before_quitting_are_recapped_as_denied_not_used(
    terminals: TerminalPool, fake: Any, home: Path, tmp_path: Path
) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    fake.enqueue(
        Reply(
            [
                text_block("I'll write the config and deploy."),
                tool_use_block("toolu_w", "write_file", {"path": "deploy.conf", "content": "x\n"}),
                tool_use_block("toolu_b", "bash", {"command": "echo deploying > deployed.txt"}),
            ],
            stop_reason="tool_use",
        ),
        Reply([text_block("OK, I did not change anything.")]),
    )
    repl = start(terminals, fake, home, workspace)
    repl.send("deploy it")
    answer_question(repl, 1, "n")
    answer_question(repl, 2, "n")
    repl.terminal.wait_for(lambda text: "OK, I did not change" in text, "the answer")
    quit_repl(repl)

    resumed = start(terminals, fake, home, workspace, "--continue")
    screen = " ".join(resumed.terminal.screen().split())
    recap = screen.split("── where you left off ──", 1)[1]
    assert "you: deploy it denied write_file, bash" in recap
    assert "used" not in recap.split("OK, I did not change", 1)[0]
    assert not (workspace / "deploy.conf").exists() and not (workspace / "deployed.txt").exists()


def test_a_question_in_a_session_resumed_from_another_folder_names_the_folder(
    terminals: TerminalPool, fake: Any, home: Path, tmp_path: Path
) -> None:
    a, b = (tmp_path / "projectA").resolve(), (tmp_path / "projectB").resolve()
    for folder in (a, b):
        (folder / "build").mkdir(parents=True)
    fake.enqueue(Reply([text_block("hello back")]))
    repl = start(terminals, fake, home, a)
    before = count_prompts(repl.terminal.screen())
    repl.send("hello from A")
    screen = repl.terminal.wait_for(
        lambda text: "hello back" in text and count_prompts(text) > before, "the answer"
    )
    session_id = session_id_on(screen)
    quit_repl(repl)

    fake.enqueue(
        Reply([tool_use_block("toolu_rm", "bash", {"command": "rm -rf build"})], "tool_use"),
        Reply([text_block("left it alone")]),
    )
    resumed = start(terminals, fake, home, b, "--resume", session_id)
    resumed.send("clean the build folder")
    asked = answer_question(resumed, 1, "n")
    header = " ".join(asked.replace("\n  ↳ ", " ").split())
    assert f"permission needed for bash in {a}: run this command (1 line)" in header
    resumed.terminal.wait_for(lambda text: "left it alone" in text, "the answer")
    assert (a / "build").is_dir() and (b / "build").is_dir()
