"""Start-up mistakes end in one plain line and a non-zero exit, never a traceback.

The installed `agent-cli` runs as a subprocess on pipes with a real AGENT_CLI_HOME.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from e2e_support import build_env, run_piped

pytestmark = pytest.mark.e2e


def assert_one_plain_error_line(stderr: str, *needles: str) -> None:
    assert "Traceback" not in stderr, stderr
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1, stderr
    for needle in needles:
        assert needle in lines[0], lines[0]


@pytest.mark.parametrize("url", ["http://127.0.0.1:abc", "http://[::1", "localhost:8080/v1"])
@pytest.mark.parametrize("mode", ["print", "piped"])
def test_a_malformed_base_url_is_named_in_one_line_at_start_up(
    home: Path, workspace: Path, url: str, mode: str
) -> None:
    env = build_env(home, {"ANTHROPIC_API_KEY": "k", "ANTHROPIC_BASE_URL": url})
    args = ["-p", "hello"] if mode == "print" else []
    done = run_piped(args, cwd=workspace, env=env, stdin_text="hello\n")
    assert done.returncode != 0
    assert_one_plain_error_line(done.stderr, "ANTHROPIC_BASE_URL", "https://")
    assert "hello" not in done.stdout.replace("> hello", "")
