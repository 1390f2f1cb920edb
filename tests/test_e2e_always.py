""" "Always" in a real terminal (tmux), the fake API playing the model through the real SDK.

The case from the issue: the user answers `a` to `echo one`; the model's next command is
`echo two; rm -f tall.txt`. It must be asked about (and, denied, never run), and the
question must say what each "always" covers.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from e2e_support import ReplDriver, count_prompts, shows_whole_question
from fake_anthropic import Reply, text_block, tool_use_block
from scene_support import Scene, open_scene

pytestmark = pytest.mark.e2e

API_KEY = "sk-ant-e2e-always-0123456789"
QUESTION = "allow? [y] once"


@pytest.fixture()
def scene(tmp_path: Path, terminals) -> Iterator[Scene]:
    with open_scene(tmp_path, terminals, API_KEY, {"tall.txt": "keep me\n"}) as opened:
        yield opened


def turn_with_command(scene: Scene, call_id: str, command: str, done: str) -> None:
    """The model runs `command` with bash, then says `done`."""
    scene.server.enqueue(
        Reply([tool_use_block(call_id, "bash", {"command": command})], stop_reason="tool_use"),
        Reply([text_block(done)]),
    )
    scene.repl.send(f"please run {call_id}")


def wait_for_question(repl: ReplDriver, command_mark: str) -> str:
    return repl.terminal.wait_for(
        lambda screen: (
            command_mark in screen
            and QUESTION in screen.rstrip().splitlines()[-1]
            and shows_whole_question(screen)
        ),
        "the whole permission question",
        source=repl.terminal.visible,
    )


def answer_and_wait(repl: ReplDriver, reply: str, done: str) -> str:
    before = count_prompts(repl.terminal.screen())
    repl.send(reply)
    return repl.terminal.wait_for(
        lambda screen: count_prompts(screen) > before and done in screen,
        "the end of the turn",
        timeout=30,
    )


def test_always_for_echo_one_still_asks_about_echo_two_and_rm(scene):
    repl = scene.repl
    turn_with_command(scene, "toolu_one", "echo one", "First done.")
    first = wait_for_question(repl, "echo one")
    assert (
        first.rstrip()
        .splitlines()[-1]
        .startswith(
            'allow? [y] once · [a] always this exact command · [p] always "echo one …" · [n] no'
        )
    )
    after_first = answer_and_wait(repl, "a", "First done.")
    assert "allowed without asking for the rest of this session: this exact command" in (
        " ".join(after_first.split())
    )
    turn_with_command(scene, "toolu_two", "echo two; rm -f tall.txt", "Second done.")
    second = wait_for_question(repl, "echo two; rm -f tall.txt")
    assert (
        second.rstrip()
        .splitlines()[-1]
        .startswith("allow? [y] once · [a] always this exact command · [n] no")
    )
    answer_and_wait(repl, "n", "Second done.")
    assert (scene.workspace / "tall.txt").read_text() == "keep me\n"
    # and the exact command approved before now runs without a question
    before = repl.terminal.screen().count(QUESTION)
    turn_with_command(scene, "toolu_three", "echo one", "Third done.")
    repl.terminal.wait_for(
        lambda screen: "Third done." in screen, "the third turn to end", timeout=30
    )
    assert repl.terminal.screen().count(QUESTION) == before


def test_stats_names_a_prefix_answer_and_permissions_takes_it_back(scene):
    """After `p` for `echo one`, `stats` names it (it said everything was asked for),
    `/permissions revoke 1` takes it back, and the next `echo one two` is asked again."""
    repl = scene.repl
    turn_with_command(scene, "toolu_one", "echo one", "First done.")
    wait_for_question(repl, "echo one")
    answer_and_wait(repl, "p", "First done.")
    turn_with_command(scene, "toolu_two", "echo one two", "Second done.")
    repl.terminal.wait_for(lambda screen: "Second done." in screen, "the covered call", timeout=30)
    # the prompt after each command: what it prints is whole by then
    stats = " ".join(repl.submit("stats").replace("│", " ").split())
    assert "/permissions takes them back" in stats, stats
    assert 'commands "echo one …" with plain words after it' in stats, stats
    assert "asked about again" in " ".join(repl.submit("/permissions revoke 1").split())
    turn_with_command(scene, "toolu_three", "echo one two", "Third done.")
    wait_for_question(repl, "echo one two")
    answer_and_wait(repl, "n", "Third done.")
