"""A long changed line keeps each of its changes on a real terminal (tmux, 120 x 40, the
real SDK against the fake Messages API).

Session 26 (T2): an edit of a 6,000-character minified line changed `var a=1` -> `2` at
its start and `good.example` -> `evil.example` in its middle; the question showed only
the first change. A long line moved below a short one and changed on the way was drawn
the same on its `-` and `+` rows. Both are answered no here, and the files stay as they
were.
"""

from __future__ import annotations

import re

import pytest
from fake_anthropic import Reply, text_block, tool_use_block
from scene_support import Scene, open_scene

pytestmark = pytest.mark.e2e

API_KEY = "sk-ant-e2e-approval-long-lines-0123456789"
DONE = "All done here."
BODY = "var a=1;" + "x" * 3000 + ";url='https://good.example/api';" + "y" * 3000 + ";\n"
CONFIG = (
    "const CONFIG = {"
    + "'k': 'v', " * 300
    + "url: 'https://good.example/api', "
    + "'k': 'v', " * 300
    + "};"
)


def question_body(scene: Scene, name: str, tool_input: dict) -> str:
    """The body of the question about one call, each line's rows joined (gutters off)."""
    scene.server.enqueue(
        Reply([tool_use_block("toolu_l1", name, tool_input)], stop_reason="tool_use"),
        Reply([text_block(DONE)]),
    )
    scene.repl.send("tidy the config")
    terminal = scene.repl.terminal
    screen = terminal.wait_for(
        lambda screen: "allow?" in screen and screen.rstrip().endswith(":"),
        "the whole question",
        source=terminal.visible,
    )
    rows = screen.splitlines()
    top = max(at for at, row in enumerate(rows) if row.startswith("permission needed"))
    lines: list[str] = []
    for row in rows[top:]:
        found = re.match(r"^ *[0-9-]* ([│┆]) (.*)$", row)
        if found and found.group(1) == "│":
            lines.append(found.group(2))
        elif found and lines:
            lines[-1] += found.group(2)
    return "\n".join(line.replace("·", " ") for line in lines)


def answer_no(scene: Scene) -> None:
    scene.repl.send("n")
    scene.repl.terminal.wait_for_text(DONE)


def test_an_edit_changing_a_long_line_twice_shows_both_changes(tmp_path, terminals):
    with open_scene(tmp_path, terminals, API_KEY, {"app.min.js": BODY}) as scene:
        new = BODY.replace("var a=1;", "var a=2;").replace("good.example", "evil.example")
        edit = {"path": "app.min.js", "old_string": BODY[:-1], "new_string": new[:-1]}
        body = question_body(scene, "edit_file", edit)
        removed = next(line for line in body.splitlines() if line.startswith("-var"))
        added = next(line for line in body.splitlines() if line.startswith("+var"))
        assert "-var a=1" in removed and "good.example" in removed, body
        assert "+var a=2" in added and "evil.example" in added, body
        answer_no(scene)
        assert (scene.workspace / "app.min.js").read_text() == BODY


def test_a_long_line_moved_and_changed_shows_its_change(tmp_path, terminals):
    old = f"{CONFIG}\nexport default CONFIG;\n"
    with open_scene(tmp_path, terminals, API_KEY, {"config.js": old}) as scene:
        new = f"export default CONFIG;\n{CONFIG.replace('good', 'evil')}\n"
        body = question_body(scene, "write_file", {"path": "config.js", "content": new})
        assert "good.example" in body and "evil.example" in body, body
        answer_no(scene)
        assert (scene.workspace / "config.js").read_text() == old
