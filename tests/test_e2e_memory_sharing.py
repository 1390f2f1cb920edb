"""Two REPLs in one workspace share one memory file: neither loses the other's facts.

Both programs are real `agent-cli` processes in their own terminals (tmux), each with its
own session, over one AGENT_CLI_HOME and one workspace. Both load the (empty) memory at
start; the second remembers first, then the first. Without a lock and a re-read under it,
the first process's save overwrote the second's fact and both were told "F1".
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from e2e_support import ReplDriver, TerminalPool, agent_cli_argv, build_env

from agent_cli.store.memory import MemoryStore
from agent_cli.store.paths import resolve_state_paths

pytestmark = pytest.mark.e2e


def start_repl(terminals: TerminalPool, home: Path, workspace: Path) -> ReplDriver:
    terminal = terminals.open(build_env(home))
    terminal.start(agent_cli_argv(), cwd=workspace)
    driver = ReplDriver(terminal)
    driver.wait_for_prompt()
    return driver


def test_two_sessions_in_one_workspace_both_keep_their_remembered_facts(
    terminals: TerminalPool, home: Path, workspace: Path
) -> None:
    first = start_repl(terminals, home, workspace)
    second = start_repl(terminals, home, workspace)

    said_by_second = second.submit("/remember the build uses make")
    said_by_first = first.submit("/remember tests run under pytest")

    assert "remembered F1" in said_by_second, said_by_second
    assert "remembered F2" in said_by_first, said_by_first
    memory_file = MemoryStore(resolve_state_paths({"AGENT_CLI_HOME": str(home)}).memory).path_for(
        workspace
    )
    facts = json.loads(memory_file.read_text())["state"]["facts"]
    assert sorted((f["fact_id"], f["content"]) for f in facts) == [
        ("F1", "the build uses make"),
        ("F2", "tests run under pytest"),
    ]


WRITER = """
import sys
from pathlib import Path
from agent_cli.durable import DurableFact, add_fact
from agent_cli.store.memory import MemoryStore

store, workspace, name = MemoryStore(Path(sys.argv[1])), Path(sys.argv[2]), sys.argv[3]
for n in range(int(sys.argv[4])):
    def change(state, n=n):
        number = len(state.facts) + 1
        return add_fact(state, DurableFact(
            fact_id=f"F{number}", content=f"{name} {n}",
            source_pointer=f"transcript:{name}:{n + 1}",
            last_confirmed_at="2026-12-03T10:00:00+00:00",
        ))
    store.update(workspace, change)
"""


def test_two_processes_updating_one_memory_file_at_once_lose_nothing(tmp_path: Path) -> None:
    import subprocess
    import sys

    root, workspace, rounds = tmp_path / "memory", tmp_path / "ws", 40
    workspace.mkdir()
    writers = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(root), str(workspace), name, str(rounds)]
        )
        for name in ("alpha", "beta")
    ]
    assert [writer.wait(timeout=60) for writer in writers] == [0, 0]
    facts = MemoryStore(root).load(workspace).facts
    assert sorted(f.content for f in facts) == sorted(
        f"{name} {n}" for name in ("alpha", "beta") for n in range(rounds)
    )
    assert len({f.fact_id for f in facts}) == 2 * rounds
