"""A really full disk under a real `agent-cli` process (a small tmpfs as AGENT_CLI_HOME).

- Starting on a full disk fails in one line and leaves no empty transcript behind.
- Tool results that cannot be recorded are not dropped in silence: at exit the process
  says how many are lost; once there is room, `--continue` tells the model the result
  "was not recorded", not that the tool never finished.

The model is the strict fake Messages API on loopback, through the real SDK. Mounting a
tmpfs needs root (as the CI runs); elsewhere these tests skip, saying why.
"""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from fake_anthropic import Reply, start_fake_server, text_block, tool_use_block

API_KEY = "sk-ant-fulldisk-FAKE-3"
SIZE = "256k"


@pytest.fixture()
def small_disk(tmp_path: Path) -> Iterator[Path]:
    mount_point = tmp_path / f"disk-{uuid.uuid4().hex[:8]}"
    mount_point.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={SIZE},mode=0700", "tmpfs", str(mount_point)],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here: {done.stderr.strip()}")
    try:
        yield mount_point
    finally:
        subprocess.run(["umount", "-l", str(mount_point)], check=False)


def fill(disk: Path) -> Path:
    """Fill `disk` to the last byte with one file; return it (delete it to free space)."""
    filler = disk / "filler"
    subprocess.run(["sh", "-c", f"cat /dev/zero > {filler}"], capture_output=True, check=False)
    return filler


def run_agent(workspace: Path, home: Path, base_url: str, *args: str):
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
    env.update(ANTHROPIC_API_KEY=API_KEY, ANTHROPIC_BASE_URL=base_url, AGENT_CLI_HOME=str(home))
    return subprocess.run(
        [sys.executable, "-m", "agent_cli", *args],
        cwd=workspace,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )


def test_starting_on_a_full_disk_leaves_no_empty_transcript(small_disk, tmp_path) -> None:
    home = small_disk / "home"
    (home / "transcripts").mkdir(parents=True)
    (home / "memory").mkdir()
    fill(small_disk)
    with start_fake_server(api_key=API_KEY) as server:
        done = run_agent(tmp_path, home, server.base_url, "-p", "hello")
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert "ENOSPC" in done.stderr
    # no session was kept, so none is offered to resume (it said "then /resume <id>")
    assert "resume" not in done.stderr and "run agent-cli again" in done.stderr
    assert list((home / "transcripts").iterdir()) == []
    assert server.requests == []


def test_results_lost_to_a_full_disk_are_reported_at_exit_and_on_resume(
    small_disk, tmp_path
) -> None:
    home, workspace = small_disk / "home", tmp_path / "ws"
    workspace.mkdir()
    filler = small_disk / "filler"
    # fill the disk, then print more than the last page of the transcript has room for
    fill_the_disk = f"cat /dev/zero > {filler} 2>/dev/null; seq 1 1500"
    with start_fake_server(api_key=API_KEY) as server:
        server.enqueue(
            Reply([tool_use_block("toolu_fill", "bash", {"command": fill_the_disk})], "tool_use")
        )
        first = run_agent(workspace, home, server.base_url, "--yes", "-p", "fill it")
        assert first.returncode == 1
        assert "1 tool result(s) of session" in first.stderr
        assert "could not be recorded (" in first.stderr and ") and are lost" in first.stderr

        filler.unlink()
        server.enqueue(Reply([text_block("I see the result was not recorded.")]))
        second = run_agent(workspace, home, server.base_url, "--continue", "-p", "go on")
    assert second.returncode == 0, second.stderr
    assert all(r.rejection is None for r in server.requests)
    sent = server.accepted[-1]["messages"]
    [answer] = [
        block
        for message in sent
        if isinstance(message["content"], list)
        for block in message["content"]
        if block.get("type") == "tool_result"
    ]
    assert answer["tool_use_id"] == "toolu_fill"
    assert "The result was not recorded" in str(answer["content"])
    assert "ended before this tool returned" not in str(answer["content"])
