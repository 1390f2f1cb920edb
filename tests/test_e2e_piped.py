"""End to end without a terminal: piped lines, and `-p` for scripts.

The installed `agent-cli` runs as a subprocess with stdin and stdout on pipes, the way
CI and shell scripts drive it.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from e2e_support import build_env, run_piped, session_id_on

pytestmark = pytest.mark.e2e

QUESTION = "read README.md and tell me its first heading"


def test_piped_lines_print_the_answer_and_the_stats_panel_then_exit_zero(
    home: Path, workspace: Path
) -> None:
    done = run_piped([], cwd=workspace, env=build_env(home), stdin_text="read README.md\nstats\n")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "> read README.md" in out and "> stats" in out
    assert "Demo Project" in out
    assert "╭─ stats" in out
    for label in ("model", "limits", "tokens", "compactions", "transcript"):
        assert f"│ {label} " in out, label
    session_id = session_id_on(out)
    assert f"resume with: agent-cli --resume {session_id}" in out
    assert (home / "transcripts" / f"{session_id}.jsonl").is_file()


def test_print_mode_writes_only_the_answer_on_stdout_and_exits_zero(
    home: Path, workspace: Path
) -> None:
    done = run_piped(["-p", QUESTION], cwd=workspace, env=build_env(home))
    assert done.returncode == 0, done.stderr
    answer_lines = done.stdout.splitlines()
    assert len(answer_lines) == 1, done.stdout
    assert "first heading is `# Demo Project`" in answer_lines[0]
    # Tool progress is for people: it goes to stderr, never into the answer.
    assert "read_file" in done.stderr and "read_file" not in done.stdout


def test_print_mode_that_needs_permission_says_it_cannot_ask_and_exits_non_zero(
    home: Path, workspace: Path
) -> None:
    done = run_piped(["-p", "run ls"], cwd=workspace, env=build_env(home))
    assert done.returncode == 4, done.stderr
    stderr = " ".join(done.stderr.split())
    assert "bash was not run: -p cannot ask for permission." in stderr
    assert "Run again with --yes" in stderr

    allowed = run_piped(["-p", "run ls", "--yes"], cwd=workspace, env=build_env(home))
    assert allowed.returncode == 0, allowed.stderr


@pytest.mark.parametrize("args", [[], ["-p", QUESTION]], ids=["piped lines", "-p"])
def test_an_output_its_reader_closed_ends_the_run_with_one_line_on_stderr(
    home: Path, workspace: Path, args: list[str]
) -> None:
    """`agent-cli < requests | head -c 20` (the ninth attack): once the reader has closed
    the pipe, agent-cli stops and says why on stderr (it used to exit 1 without a word),
    never with a traceback; what it did before is in the transcript (`-p`: its request and turn)."""
    import os
    import subprocess

    from e2e_support import agent_cli_argv

    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader is gone before the first write
    try:
        done = subprocess.run(
            [*agent_cli_argv(), *args],
            cwd=workspace,
            env=build_env(home),
            input=b"please fix the build\nthen run the tests\n",
            stdout=write_end,
            stderr=subprocess.PIPE,
            check=False,
            timeout=120,
        )
    finally:
        os.close(write_end)
    stderr = " ".join(done.stderr.decode().split())
    assert done.returncode == 1, stderr
    assert "agent-cli stopped: the program reading its output closed it" in stderr
    assert "Traceback" not in stderr and "Exception ignored" not in stderr
    (transcript,) = (home / "transcripts").glob("*.jsonl")
    recorded = transcript.read_text()
    assert ("first heading" in recorded) == bool(
        args
    )  # `-p` recorded its request and turn before printing


def test_a_closed_stderr_drops_only_the_diagnostics_and_p_still_answers(
    home: Path, workspace: Path
) -> None:
    """Only stderr's reader gone (`agent-cli -p ... 2>&1 >answer | head -c 0`): tool
    progress goes nowhere and the answer still reaches stdout, exit 0 (the review of the
    closed-output fix found the run stopped and the answer lost)."""
    import os
    import subprocess

    from e2e_support import agent_cli_argv

    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        done = subprocess.run(
            [*agent_cli_argv(), "-p", QUESTION],
            cwd=workspace,
            env=build_env(home),
            stdout=subprocess.PIPE,
            stderr=write_end,
            check=False,
            timeout=120,
        )
    finally:
        os.close(write_end)
    assert done.returncode == 0
    assert "first heading is `# Demo Project`" in done.stdout.decode()


def test_a_long_demo_session_ends_every_compaction_under_the_soft_threshold(
    home: Path, workspace: Path
) -> None:
    """Thirteenth attack, left then: on the demo thresholds (soft 3,200, of which the
    system prompt and tool schemas take 1,858) the digest grew to twice its budget of
    800, and after enough turns every compaction ended over the soft threshold, with
    the same paragraph each turn. The digest now takes at most a quarter of the room
    under the soft threshold (half once its requests fold), and a pause already
    explained is one short line."""
    for number in range(12):
        words = ("alpha", "beta", "gamma", "delta", "zeta", "theta")
        rows = [" ".join(words[(row + k + number) % 6] for k in range(12)) for row in range(40)]
        (workspace / f"f{number}.txt").write_text("\n".join(rows) + "\n", encoding="utf-8")
    requests = "".join(f"read f{turn % 12}.txt (request {turn})\n" for turn in range(150))
    done = run_piped([], cwd=workspace, env=build_env(home), stdin_text=requests + "stats\n")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert out.count("[compact] total:") > 30
    assert "still over the soft threshold" not in out
    assert out.count("close to the soft threshold") == 1
    assert out.count("as before, compaction waits until the context passes") > 10
    figures = {
        label: int(re.search(rf"│\s+(?:tokens\s+)?{label}\s+([\d,]+) ", out)[1].replace(",", ""))
        for label in ("system prompt", "tool schemas", "compaction digest")
    }
    room = 3_200 - figures["system prompt"] - figures["tool schemas"]
    assert 0 < figures["compaction digest"] <= room // 2
