"""What a rewrite does to a file beyond its content is on the question before the user
answers, and on the screen after (fifteenth outside attack).

A real terminal (tmux), the fake API playing the model through the real SDK: a setuid
script and a read-only file overwritten, a file of another user and a file with another
hard link edited. The files end as the question said.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
from e2e_support import ReplDriver, count_prompts
from fake_anthropic import Reply, text_block, tool_use_block
from scene_support import Scene, open_scene

pytestmark = pytest.mark.e2e

API_KEY = "sk-ant-e2e-file-replace-0123456789"
QUESTION = "allow? [y] once"
NOBODY, NOGROUP = 65534, 65534


@pytest.fixture()
def scene(tmp_path: Path, terminals) -> Iterator[Scene]:
    files = {"suid.sh": "#!/bin/sh\necho hi\n", "ro.txt": "old\n", "owned.txt": "old\n"}
    with open_scene(tmp_path, terminals, API_KEY, files, width=160) as opened:
        yield opened


def ask_and_answer(
    scene: Scene, call_id: str, name: str, tool_input: dict, done: str
) -> tuple[str, str]:
    """The question the call asks (its screen, on one line), after which `y` is sent and
    the turn waited for; returns the question and the screen after, joined."""
    scene.server.enqueue(
        Reply([tool_use_block(call_id, name, tool_input)], stop_reason="tool_use"),
        Reply([text_block(done)]),
    )
    repl: ReplDriver = scene.repl
    repl.send(f"please do {call_id}")
    question = repl.terminal.wait_for(
        lambda screen: QUESTION in screen.rstrip().splitlines()[-1],
        "the permission question",
        source=repl.terminal.visible,
    )
    before = count_prompts(repl.terminal.screen())
    repl.send("y")
    after = repl.terminal.wait_for(
        lambda screen: count_prompts(screen) > before and done in screen,
        "the end of the turn",
        timeout=30,
    )
    return question, after


def test_overwriting_a_setuid_script_and_a_read_only_file_says_so_first(scene: Scene):
    script, read_only = scene.workspace / "suid.sh", scene.workspace / "ro.txt"
    script.chmod(0o6755)
    read_only.chmod(0o444)

    new_script = {"path": "suid.sh", "content": "#!/bin/sh\necho pwned\n"}
    question, after = ask_and_answer(scene, "toolu_suid", "write_file", new_script, "One.")
    assert (
        "permission needed for write_file: overwrite suid.sh with 2 lines; clears its "
        "setuid and setgid bits (diff of " in question
    )
    assert "wrote 2 lines; cleared its setuid and setgid bits" in after
    assert stat.S_IMODE(script.stat().st_mode) == 0o755

    question, after = ask_and_answer(
        scene, "toolu_ro", "write_file", {"path": "ro.txt", "content": "new ro\n"}, "Two."
    )
    assert (
        "permission needed for write_file: overwrite ro.txt with 1 line; it is read-only "
        "(r--r--r--) and stays so (diff of " in question
    )
    assert "wrote 1 line; it was read-only (r--r--r--) and stays so" in after
    assert stat.S_IMODE(read_only.stat().st_mode) == 0o444
    assert read_only.read_text() == "new ro\n"


def test_editing_another_users_file_and_a_hard_linked_one(scene: Scene, tmp_path: Path):
    owned, outside = scene.workspace / "owned.txt", tmp_path / "outside.txt"
    outside.write_text("outside original\n")
    os.link(outside, scene.workspace / "hl.txt")
    edit = {"path": "hl.txt", "old_string": "outside", "new_string": "EDITED"}
    question, after = ask_and_answer(scene, "toolu_link", "edit_file", edit, "One.")
    assert (
        "permission needed for edit_file: edit hl.txt: replace 1 line with 1 line; its "
        "other hard link keeps the old content (diff of " in question
    )
    assert "edited hl.txt; its other hard link kept the old content" in after
    assert outside.read_text() == "outside original\n"

    if os.geteuid() != 0:
        pytest.skip("giving a file to another user needs root")
    os.chown(owned, NOBODY, NOGROUP)
    owned.chmod(0o640)
    edit = {"path": "owned.txt", "old_string": "old", "new_string": "new"}
    question, after = ask_and_answer(scene, "toolu_own", "edit_file", edit, "Two.")
    assert (
        "permission needed for edit_file: edit owned.txt: replace 1 line with 1 line (diff of "
        in question
    )
    info = owned.stat()
    assert (info.st_uid, info.st_gid, stat.S_IMODE(info.st_mode)) == (NOBODY, NOGROUP, 0o640)
    assert owned.read_text() == "new\n"
