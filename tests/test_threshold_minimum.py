"""Thresholds too small to work are refused where the user sets them (a fourteenth
outside attack, 8c): `soft_threshold = 1` made every message "large: stored as an
artifact", and `max_tool_result_tokens = 1` left every cut result its note alone. Through
the real CLI, in a real process."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from e2e_support import build_env, run_piped

from agent_cli.compaction.layers.truncate import MIN_SHARED_RESULT_TOKENS
from agent_cli.repl.args import MIN_SOFT_THRESHOLD


def run_cli(home: Path, workspace: Path, *flags: str) -> subprocess.CompletedProcess[str]:
    args = ["--provider", "offline", *flags, "-p", "hello"]
    return run_piped(args, cwd=workspace, env=build_env(home))


REASON = (
    f"must be at least {MIN_SOFT_THRESHOLD:,}, got {{got}} (the system prompt and tools "
    "alone take about 1,900 tokens of every request)"
)


# 0 and negatives too: "must be at least 1" sent the user to a second refusal (session 26).
@pytest.mark.parametrize("value", [-5, 0, 1, MIN_SOFT_THRESHOLD - 1])
def test_a_soft_threshold_too_small_in_config_toml_is_a_one_line_config_error(
    tmp_path: Path, value: int
) -> None:
    config = tmp_path / "config.toml"
    config.write_text(f"soft_threshold = {value}\n")
    done = run_cli(tmp_path, tmp_path)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == (
        f"config error: soft_threshold (from {config}): {REASON.format(got=f'{value:,}')}\n"
    )


@pytest.mark.parametrize("value", ["-5", "0", "1"])
def test_a_soft_threshold_too_small_as_a_flag_is_refused_naming_the_minimum(
    tmp_path: Path, value: str
):
    done = run_cli(tmp_path, tmp_path, "--soft-threshold", value)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.splitlines()[-1] == (
        f"agent-cli: error: argument --soft-threshold: {REASON.format(got=value)}"
    )


def test_the_smallest_soft_threshold_allowed_works(tmp_path: Path) -> None:
    (tmp_path / "config.toml").write_text(f"soft_threshold = {MIN_SOFT_THRESHOLD}\n")
    done = run_cli(tmp_path, tmp_path)
    assert done.returncode == 0, done.stderr
    assert "offline demo model" in done.stdout
    assert "stored whole as an artifact" not in done.stderr


@pytest.mark.parametrize("value", [0, 1, MIN_SHARED_RESULT_TOKENS - 1])
def test_a_result_budget_too_small_to_keep_any_of_a_result_is_refused(
    tmp_path: Path, value: int
) -> None:
    """At `max_tool_result_tokens = 1` every large result became the cut's note alone:
    the model saw nothing of any file it read, and nothing said why."""
    config = tmp_path / "config.toml"
    config.write_text(f"max_tool_result_tokens = {value}\n")
    done = run_cli(tmp_path, tmp_path)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == (
        f"config error: max_tool_result_tokens (from {config}): must be at least "
        f"{MIN_SHARED_RESULT_TOKENS}, got {value} (a cut result keeps its head, a note of "
        "what was cut and its tail; less would leave only the note)\n"
    )


def test_the_smallest_result_budget_allowed_starts_a_session(tmp_path: Path) -> None:
    (tmp_path / "config.toml").write_text(f"max_tool_result_tokens = {MIN_SHARED_RESULT_TOKENS}\n")
    done = run_cli(tmp_path, tmp_path)
    assert done.returncode == 0, done.stderr
    assert "offline demo model" in done.stdout
