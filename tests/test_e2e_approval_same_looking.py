"""An edit into a decomposed path is written out on a real 40-column terminal.

The twenty-second outside tester's first finding, end to end (tmux, the real SDK against
the fake Messages API): `edit_file` changes `BACKUP_DIR=/srv/café  # v1` (U+00E9) into
`.../cafe` + U+0301 `  # v2`. The screen showed two lines that differ only in `v1`/`v2`,
nothing written out, no note, and `y` wrote the decomposed path. Now both spellings are
written out and the header says so; the answer here is no, and the file is unchanged.
"""

from __future__ import annotations

import pytest
from e2e_support import count_prompts
from fake_anthropic import Reply, text_block, tool_use_block
from scene_support import open_scene

pytestmark = pytest.mark.e2e

API_KEY = "sk-ant-e2e-approval-same-looking-0123456789"
QUESTION = "allow?"
DONE = "All done here."
OLD = "BACKUP_DIR=/srv/caf\u00e9  # v1\n"


def test_an_edit_into_a_decomposed_path_is_written_out_and_no_leaves_the_file(tmp_path, terminals):
    files = {"deploy.sh": OLD}
    with open_scene(tmp_path, terminals, API_KEY, files, width=40, height=24) as scene:
        edit = {
            "path": "deploy.sh",
            "old_string": "caf\u00e9  # v1",
            "new_string": "cafe\u0301  # v2",
        }
        scene.server.enqueue(
            Reply([tool_use_block("toolu_s1", "edit_file", edit)], stop_reason="tool_use"),
            Reply([text_block(DONE)]),
        )
        scene.repl.send("bump the backup version")
        terminal = scene.repl.terminal
        screen = terminal.wait_for(
            lambda screen: QUESTION in screen and screen.rstrip().endswith(":"),
            "the whole permission question",
            source=terminal.visible,
        )
        flat = "".join(row.split("┆ ", 1)[-1] for row in screen.splitlines())
        assert "caf<U+00E9>" in flat and "cafe<U+0301>" in flat, screen
        header = " ".join(
            row.removeprefix("  ↳ ")
            for row in screen.splitlines()
            if row.startswith(("permission needed", "  ↳ "))
        )
        assert "same-looking change written out" in header or "characters that differ" in header
        before = count_prompts(terminal.screen())
        scene.repl.send("n")
        terminal.wait_for(
            lambda screen: count_prompts(screen) > before and DONE in screen, "the end of the turn"
        )
        assert (scene.workspace / "deploy.sh").read_text(encoding="utf-8") == OLD
