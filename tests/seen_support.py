"""A first run in which the model reads `notes.txt`: the start of the stale-write e2e tests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from e2e_support import build_env, run_piped
from fake_anthropic import Reply, text_block, tool_use_block


def read_notes_in_a_first_run(
    workspace: Path, home: Path, server: Any, api_key: str
) -> dict[str, str]:
    """Run `agent-cli --yes` on pipes in `workspace` once, the fake model reading
    `notes.txt`; give the environment the runs share."""
    env = build_env(home, {"ANTHROPIC_API_KEY": api_key, "ANTHROPIC_BASE_URL": server.base_url})
    server.enqueue(
        Reply([tool_use_block("toolu_r", "read_file", {"path": "notes.txt"})], "tool_use"),
        Reply([text_block("Read it.")]),
    )
    first = run_piped(["--yes"], cwd=workspace, env=env, stdin_text="read notes\n")
    assert first.returncode == 0, first.stderr
    return env
