"""Races: a workspace folder swapped for a link out while the file tools work in it.

Another process exchanges `ws/sub` with a symlink to an outside folder (renameat2
RENAME_EXCHANGE, thousands of times a second) while a tool is called over and over with
a path through `sub`. The outside folder holds the same names with a canary in them. A
call may be refused (the link was there when the path was checked, or appeared on the
way), never leak: no canary in any result, no name of the outside folder listed, no file
created or changed outside. Both sides of the swap must have been met (some calls
succeed, some are refused), or the test proved nothing.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from race_support import LinkSwapper
from tools_support import FakeArtifactStore

from agent_cli.tools import Toolbox, ToolOutcome

CALLS_PER_TOOL = 400
# on a loaded machine one side of the swap can be missed for hundreds of calls in a row
# (a slow call spans many swaps): keep calling until both were met, up to this many
MAX_CALLS_PER_TOOL = 4_000
CANARY = "OUTSIDE-CANARY-7f3a"
OUTSIDE_ONLY_NAME = "outside-only-name.txt"


@dataclass
class RaceTally:
    succeeded: int = 0
    refused: int = 0
    leaks: list[str] = field(default_factory=list)

    def count(self, outcome: ToolOutcome) -> None:
        if outcome.is_error:
            self.refused += 1
        else:
            self.succeeded += 1


@dataclass(frozen=True)
class RaceWorld:
    workspace: Path
    outside: Path
    toolbox: Toolbox

    def outside_snapshot(self) -> dict[str, str]:
        """Every name under the outside folder with its content's digest."""
        return {
            str(path.relative_to(self.outside)): (
                hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else "folder"
            )
            for path in sorted(self.outside.rglob("*"))
        }


@pytest.fixture
def world(tmp_path: Path) -> RaceWorld:
    workspace, outside = tmp_path / "ws", tmp_path / "outside"
    (workspace / "sub" / "deeper").mkdir(parents=True)
    (outside / "deeper").mkdir(parents=True)
    for folder, text in ((workspace / "sub", "inside words"), (outside, CANARY)):
        (folder / "note.txt").write_text(f"{text}\nsecond line\n")
        (folder / "edit.txt").write_text(f"{text} to edit\n")
        (folder / "deeper" / "more.txt").write_text(f"{text} deeper\n")
    (outside / OUTSIDE_ONLY_NAME).write_text(f"{CANARY}\n")
    toolbox = Toolbox(workspace, FakeArtifactStore(), "race", auto_approve=True)
    return RaceWorld(workspace, outside, toolbox)


def run_race(
    world: RaceWorld,
    call: Callable[[int], dict[str, Any]],
    tool: str,
    until_both_sides: bool = True,
) -> RaceTally:
    """Call `tool` CALLS_PER_TOOL times while `sub` is swapped, and (`until_both_sides`)
    on until calls have both succeeded and been refused, at most MAX_CALLS_PER_TOOL in
    all; leaks are collected."""
    tally = RaceTally()
    before = world.outside_snapshot()
    with LinkSwapper(world.workspace / "sub", world.outside) as swapper:
        if not swapper.is_supported:
            pytest.skip("this kernel cannot exchange two names atomically")
        for index in range(MAX_CALLS_PER_TOOL if until_both_sides else CALLS_PER_TOOL):
            if index >= CALLS_PER_TOOL and tally.succeeded and tally.refused:
                break
            outcome = world.toolbox.run(tool, call(index))
            tally.count(outcome)
            if CANARY in outcome.content or OUTSIDE_ONLY_NAME in outcome.content:
                tally.leaks.append(outcome.content[:200])
    after = world.outside_snapshot()
    if after != before:
        changed = sorted(
            name for name in set(after) | set(before) if after.get(name) != before.get(name)
        )
        tally.leaks.append(f"{len(changed)} names changed in the outside folder: {changed[:5]}")
    assert swapper.swaps >= CALLS_PER_TOOL, swapper.swaps  # the swapper really raced
    return tally


def assert_no_leak_and_both_sides_seen(tally: RaceTally) -> None:
    assert tally.leaks == [], f"{len(tally.leaks)} of {CALLS_PER_TOOL} calls leaked: {tally}"
    assert tally.succeeded > 0 and tally.refused > 0, tally


def test_read_file_never_reads_outside_while_a_folder_is_swapped(world):
    tally = run_race(world, lambda _: {"path": "sub/note.txt"}, "read_file")
    assert_no_leak_and_both_sides_seen(tally)


def test_read_file_two_levels_down_never_reads_outside(world):
    tally = run_race(world, lambda _: {"path": "sub/deeper/more.txt"}, "read_file")
    assert_no_leak_and_both_sides_seen(tally)


def test_grep_in_the_swapped_folder_never_shows_outside_lines(world):
    tally = run_race(world, lambda _: {"pattern": "CANARY|inside", "path": "sub"}, "grep")
    assert_no_leak_and_both_sides_seen(tally)


def test_grep_of_the_whole_workspace_never_enters_the_link(world):
    tally = run_race(world, lambda _: {"pattern": "CANARY|inside"}, "grep", until_both_sides=False)
    assert tally.leaks == [], f"{len(tally.leaks)} of {CALLS_PER_TOOL} calls leaked: {tally}"
    assert tally.succeeded == CALLS_PER_TOOL  # the root itself is never swapped


def test_list_dir_never_lists_the_outside_folder(world):
    tally = run_race(world, lambda _: {"path": "sub"}, "list_dir")
    assert_no_leak_and_both_sides_seen(tally)


@pytest.mark.parametrize(
    ("path_of", "left_outside"),
    [
        (lambda index: f"sub/new-{index}.txt", ("new-*", ".new-*")),
        (lambda index: f"sub/made-{index}/file.txt", ("made-*",)),  # folders made on the way
    ],
    ids=["file", "file in a new folder"],
)
def test_write_file_never_creates_anything_outside(world, path_of, left_outside):
    tally = run_race(
        world, lambda index: {"path": path_of(index), "content": "written\n"}, "write_file"
    )
    assert_no_leak_and_both_sides_seen(tally)
    assert not [path for pattern in left_outside for path in world.outside.glob(pattern)]


def test_edit_file_never_changes_a_file_outside(world):
    edit = {"path": "sub/edit.txt", "old_string": "to edit\n", "new_string": "to edit\n+"}
    tally = run_race(world, lambda _: edit, "edit_file")
    assert_no_leak_and_both_sides_seen(tally)
