"""A symbolic link loop in the workspace (a -> b -> a, left by a test suite) is listed as
a link that cannot be resolved, and the rest of the folder is listed (fifth outside attack);
a real process against the fake API."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from e2e_support import build_env, run_piped
from fake_anthropic import Reply, text_block, tool_use_block

pytestmark = pytest.mark.e2e

API_KEY = "sk-ant-link-loop-FAKE-0123456789"


def test_list_dir_shows_a_link_loop_as_such_and_lists_the_rest(
    home: Path, workspace: Path, server: Any
) -> None:
    os.symlink("loop2", workspace / "loop1")
    os.symlink("loop1", workspace / "loop2")
    server.enqueue(
        Reply([tool_use_block("toolu_l", "list_dir", {})], "tool_use"),
        Reply([text_block("listed")]),
    )
    env = build_env(home, {"ANTHROPIC_API_KEY": API_KEY, "ANTHROPIC_BASE_URL": server.base_url})

    run = run_piped(["-p", "list the workspace"], cwd=workspace, env=env)

    assert run.returncode == 0, run.stderr
    result = server.accepted[-1]["messages"][-1]["content"][0]
    assert result["type"] == "tool_result" and not result.get("is_error"), result
    listing = str(result["content"])
    assert "README.md" in listing
    assert "loop1 -> loop2 (a link loop: it cannot be resolved)" in listing, listing
