"""End to end in tmux, against the fake API (an sk-ant key, and a short one), `--yes`:
what a command printed before Ctrl-C stopped it reaches the model, the screen and the
transcript whole, its last line included (twenty-third outside test: `trapped` came back
as `trappe` and `line2` as `line`, their last character taken for the start of the key's
base64 or base32, which a line break could only continue wrapped). An ending that may
really begin the key is held back, and the result says how many characters were."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

import pytest
from e2e_support import ReplDriver, agent_cli_argv, build_env
from fake_anthropic import Reply, start_fake_server, text_block, tool_use_block

pytestmark = pytest.mark.e2e


class Case(NamedTuple):
    """An API key; a command whose last line ends with the first character of a form of
    the key; what it prints; one printing the key's first characters (never holding them
    in one piece); how many it prints."""

    api_key: str
    lines: str
    printed_lines: str
    key_start: str
    key_chars: int


CASES = [
    # "c" begins the key's base64 (c2st...)
    Case(
        "sk-ant-api03-e2e-stopped-Zq9w8e7r6t5y4u3i2o1pLmNb",
        "echo trapped; printf 'line1\\nline2\\n'; echo abc",
        "trapped\nline1\nline2\nabc\n",
        "printf 'key: %s%s' sk-ant- api03-",
        13,
    ),
    # the outside test's: "d" begins the key's base64 (dGVz...), "2" its base32 (2GK4...)
    Case(
        "test-key",
        "printf 'line1\\nline2\\n'; echo trapped",
        "line1\nline2\ntrapped\n",
        "printf 'key: %s%s' tes t-k",
        6,
    ),
]


@pytest.fixture(params=CASES, ids=["sk-ant-key", "short-key"])
def scene(request, tmp_path: Path, terminals) -> Iterator[tuple[ReplDriver, object, Path]]:
    api_key = request.param.api_key
    folder = tmp_path / "ws"
    folder.mkdir()
    with start_fake_server(api_key=api_key) as fake:
        env = build_env(
            tmp_path / "home", {"ANTHROPIC_API_KEY": api_key, "ANTHROPIC_BASE_URL": fake.base_url}
        )
        terminal = terminals.open(env)
        terminal.start([*agent_cli_argv(), "--yes"], cwd=folder, width=100, height=40)
        repl = ReplDriver(terminal)
        repl.wait_for_prompt(timeout=60)
        yield repl, fake, tmp_path, request.param


def run_and_interrupt(repl: ReplDriver, folder: Path, number: int) -> None:
    """Ask for run `number` (the model's command prints, touches `printed-<number>`, then
    waits); once it printed, Ctrl-C, and wait for the turn to end cancelled."""
    repl.send(f"run {number}")
    terminal = repl.terminal
    marker = folder / f"printed-{number}"
    terminal.wait_for(lambda s: marker.exists(), "the command's output", timeout=60)
    terminal.press("C-c")
    terminal.wait_for(
        lambda s: s.count("turn cancelled") == number,
        "the cancel",
        source=terminal.screen,
        timeout=60,
    )


def tool_results(body: dict) -> list[str]:
    texts = []
    for message in body["messages"]:
        for block in message["content"] if isinstance(message["content"], list) else []:
            if block["type"] == "tool_result":
                inner = block["content"]
                parts = inner if isinstance(inner, list) else [{"text": inner}]
                texts.append("".join(part.get("text", "") for part in parts))
    return texts


def test_the_last_line_a_stopped_command_printed_is_kept_and_a_held_ending_is_said(scene):
    repl, server, root, case = scene
    for number, printing in enumerate((case.lines, case.key_start), start=1):
        command = f"{printing}; touch printed-{number}; sleep 60"
        server.enqueue(
            Reply([tool_use_block(f"toolu_p{number}", "bash", {"command": command})], "tool_use")
        )
        run_and_interrupt(repl, root / "ws", number)
    server.enqueue(Reply([text_block("seen both")]))
    repl.send("what did they print?")
    repl.terminal.wait_for_text("seen both", timeout=60)
    lines_result, key_result = tool_results(server.accepted[-1])
    assert lines_result.endswith(f"follows.\n{case.printed_lines}")
    held = f"{case.key_chars} characters printed last, where the command was stopped, held back"
    assert key_result.endswith(
        f"follows.\nkey: \n[{held}: they could begin a secret whose rest never came]"
    )
    screen = repl.terminal.screen()
    assert all(f"│ {line}\n" in screen for line in case.printed_lines.splitlines())
    assert held[:40] in screen
    transcript = next((root / "home" / "transcripts").glob("*.jsonl")).read_text(encoding="utf-8")
    assert json.dumps(case.printed_lines)[1:-1] in transcript
    shown_to_model = json.dumps([tool_results(body) for body in server.accepted])
    assert case.api_key[: case.key_chars] not in shown_to_model
