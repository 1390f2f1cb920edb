"""Big outputs go to the artifact store behind a preview, and read_artifact gets them back."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from tools_support import (
    BrokenArtifactStore,
    FailingArtifactStore,
    FakeArtifactStore,
    make_toolbox,
)

from agent_cli.store.artifacts import ArtifactStore

THRESHOLD = 400


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    return root


def spill_toolbox(workspace: Path, artifacts=None):
    artifacts = artifacts if artifacts is not None else FakeArtifactStore()
    toolbox = make_toolbox(workspace, artifacts=artifacts, artifact_threshold_bytes=THRESHOLD)
    return toolbox, artifacts


def read_whole_artifact(toolbox, pointer: str) -> str:
    """Page through an artifact with read_artifact the way a model would."""
    pieces, offset = [], 0
    while True:
        outcome = toolbox.run("read_artifact", {"pointer": pointer, "offset": offset})
        assert not outcome.is_error, outcome.content
        header, _, rest = outcome.content.partition("\n")
        body, _, footer = rest.rpartition("\n")
        pieces.append(body)
        found = re.search(r"continue with offset=(\d+)", footer)
        if found is None:
            assert footer == "[end of artifact]"
            return "".join(pieces)
        offset = int(found.group(1))


def test_small_output_stays_inline_without_a_pointer(workspace: Path):
    toolbox, artifacts = spill_toolbox(workspace)
    outcome = toolbox.run("bash", {"command": "echo small"})
    assert outcome.artifact_pointer is None
    assert outcome.content == "Exit code: 0\nsmall\n"
    assert artifacts.saved == {}


def test_big_output_is_stored_whole_and_previewed_with_its_pointer(workspace: Path):
    toolbox, artifacts = spill_toolbox(workspace)
    outcome = toolbox.run("bash", {"command": "seq 1 3000"})
    full = "Exit code: 0\n" + "".join(f"{n}\n" for n in range(1, 3001))
    pointer = outcome.artifact_pointer
    assert pointer is not None and pointer.startswith("artifact:session-1:")
    assert artifacts.saved[pointer] == full.encode()
    assert outcome.size_bytes == len(full.encode())
    assert outcome.content.startswith("Exit code: 0\n[Output was")
    assert pointer in outcome.content
    assert "read_artifact" in outcome.content
    assert "\n1\n2\n3\n" in outcome.content
    assert "\n2999\n3000\n" in outcome.content
    assert "omitted" in outcome.content
    assert len(outcome.content.encode()) < len(full.encode()) // 4
    assert outcome.summary.endswith("saved to artifact")


def test_the_preview_says_where_the_omitted_middle_starts(workspace: Path):
    toolbox, artifacts = spill_toolbox(workspace)
    outcome = toolbox.run("bash", {"command": "seq 1 3000"})
    start = int(re.search(r"start at byte offset ([\d,]+)", outcome.content)[1].replace(",", ""))
    full = artifacts.saved[outcome.artifact_pointer]
    head_in_preview = outcome.content.split("\n[... ")[0].split("]\n", 1)[1] + "\n"
    assert full.startswith(b"Exit code: 0\n" + head_in_preview.encode())
    assert start == len(b"Exit code: 0\n" + head_in_preview.encode())


def test_a_spilled_read_file_result_still_names_the_file_first(workspace: Path):
    (workspace / "big.py").write_text("".join(f"value_{n} = {n}\n" for n in range(500)))
    toolbox, _ = spill_toolbox(workspace)
    outcome = toolbox.run("read_file", {"path": "big.py"})
    assert outcome.artifact_pointer is not None
    assert outcome.content.splitlines()[0] == "File: big.py (lines 1-500 of 500)"


def test_read_artifact_pages_back_exactly_what_was_stored(workspace: Path):
    toolbox, artifacts = spill_toolbox(workspace)
    outcome = toolbox.run("bash", {"command": "seq 1 3000"})
    text = read_whole_artifact(toolbox, outcome.artifact_pointer)
    assert text.encode() == artifacts.saved[outcome.artifact_pointer]


def test_read_artifact_never_splits_a_multibyte_character(workspace: Path):
    toolbox, _ = spill_toolbox(workspace)
    outcome = toolbox.run("bash", {"command": "for i in $(seq 1 400); do printf 'é€'; done"})
    first = toolbox.run(
        "read_artifact", {"pointer": outcome.artifact_pointer, "offset": 0, "limit": 16}
    )
    assert "\ufffd" not in first.content
    text = read_whole_artifact(toolbox, outcome.artifact_pointer)
    assert text == "Exit code: 0\n" + "é€" * 400


def test_read_artifact_limits_each_read_to_the_threshold(workspace: Path):
    toolbox, _ = spill_toolbox(workspace)
    outcome = toolbox.run("bash", {"command": "seq 1 3000"})
    page = toolbox.run("read_artifact", {"pointer": outcome.artifact_pointer, "limit": 1_000_000})
    assert page.artifact_pointer is None
    assert f"continue with offset={THRESHOLD}]" in page.content


def test_read_artifact_of_an_unknown_pointer_is_an_error(workspace: Path):
    toolbox, _ = spill_toolbox(workspace)
    outcome = toolbox.run("read_artifact", {"pointer": "artifact:session-1:nope.txt:" + "0" * 64})
    assert outcome.is_error
    assert "cannot be read" in outcome.content


def test_read_artifact_of_something_that_is_not_a_pointer_is_an_error(workspace: Path):
    toolbox, _ = spill_toolbox(workspace)
    outcome = toolbox.run("read_artifact", {"pointer": "/etc/passwd"})
    assert outcome.is_error
    assert "must start with 'artifact:'" in outcome.content


def test_read_artifact_past_the_end_is_an_error(workspace: Path):
    toolbox, _ = spill_toolbox(workspace)
    pointer = toolbox.run("bash", {"command": "seq 1 3000"}).artifact_pointer
    outcome = toolbox.run("read_artifact", {"pointer": pointer, "offset": 10_000_000})
    assert outcome.is_error
    assert "past the end" in outcome.content


def test_a_failed_artifact_write_says_the_preview_is_all_there_is(workspace: Path):
    toolbox, _ = spill_toolbox(workspace, FailingArtifactStore())
    outcome = toolbox.run("bash", {"command": "seq 1 3000"})
    assert outcome.artifact_pointer is None
    assert "artifact:" not in outcome.content
    assert "failed (ArtifactWriteFailed)" in outcome.content
    assert "truncated" in outcome.content
    assert "\n3000\n" in outcome.content
    assert outcome.summary.endswith("truncated")


def test_an_unexpected_exception_inside_a_tool_becomes_an_error_result(workspace: Path):
    toolbox, _ = spill_toolbox(workspace, BrokenArtifactStore())
    outcome = toolbox.run(
        "read_artifact",
        {"pointer": "artifact:session-1:n.txt:" + "a" * 64},  # its own session
    )
    assert outcome.is_error
    assert "read_artifact failed unexpectedly (RuntimeError" in outcome.content


def test_spill_works_with_the_real_artifact_store(workspace: Path, tmp_path: Path):
    store = ArtifactStore(tmp_path / "state")
    toolbox, _ = spill_toolbox(workspace, store)
    outcome = toolbox.run("bash", {"command": "seq 1 3000"})
    full = "Exit code: 0\n" + "".join(f"{n}\n" for n in range(1, 3001))
    assert outcome.artifact_pointer is not None
    assert read_whole_artifact(toolbox, outcome.artifact_pointer) == full
    stored = list((tmp_path / "state" / "session-1" / "tool-results").iterdir())
    assert [path.read_text() for path in stored] == [full]


class ExplodingArtifactStore(FakeArtifactStore):
    def put(self, session_id: str, data: bytes, suffix: str = ".txt"):
        raise TypeError("store bug")


def test_an_unexpected_store_failure_still_returns_the_preview(workspace: Path):
    toolbox, _ = spill_toolbox(workspace, ExplodingArtifactStore())
    outcome = toolbox.run("bash", {"command": "seq 1 3000"})
    assert outcome.artifact_pointer is None
    assert "failed (TypeError)" in outcome.content
    assert "\n3000\n" in outcome.content
