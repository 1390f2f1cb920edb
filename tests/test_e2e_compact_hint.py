"""The loop guard's `[compact]` hint offers `/compact` only when a summary asked for now
would have something older than its recent window to replace (twenty-second outside
test: right after an automatic summary the hint promised "/compact (a summary…)", and
`/compact` then pruned 49 tokens). The README's demo reads on the offline model, piped."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from e2e_support import build_env, run_piped

from agent_cli.compaction import has_older_messages_to_summarize
from agent_cli.compaction.markers import ACKNOWLEDGEMENT, SUMMARY_HEADER, mark_summary
from agent_cli.events import CompactionSkipped
from agent_cli.repl.compact_lines import format_skipped

REPO = Path(__file__).resolve().parent.parent
READS = ("README.md", "docs/architecture.md", "docs/reliability.md", "README.md")


@pytest.mark.e2e
def test_after_an_automatic_summary_the_hint_does_not_promise_what_compact_cannot_do(
    home: Path, workspace: Path
) -> None:
    (workspace / "docs").mkdir()
    for name in ("README.md", "docs/architecture.md", "docs/reliability.md"):
        (workspace / name).write_text((REPO / name).read_text("utf-8"))
    lines = [f"read {path}" for path in READS] + ["/compact"]

    run = run_piped(
        ["--provider", "offline"], cwd=workspace, env=build_env(home), stdin_text="\n".join(lines)
    )

    said = " ".join(run.stdout.split())
    assert run.returncode == 0, run.stderr
    assert "L4 summarize" in said  # the fourth read summarized, and the guard held
    hint = re.search(
        r"Compaction waits until the context passes [\d,]+ tokens[^.]*\. (.*?)\.", said
    )
    assert hint, said[-3000:]
    assert "To make room now: /compact" not in said
    assert (
        "To make room now: /new (facts and pending items go with it); /compact would keep" in said
    )
    after = said.split("> /compact", 1)[1]
    assert "L4 summarize" not in after  # as the hint said: no summary to be had yet


def summary_then(recent: int) -> list[dict[str, object]]:
    head = [
        mark_summary({"role": "user", "content": f"{SUMMARY_HEADER}\nearlier work"}),
        {"role": "assistant", "content": ACKNOWLEDGEMENT},
    ]
    turns = [
        {"role": "user" if n % 2 == 0 else "assistant", "content": f"message {n}"}
        for n in range(recent)
    ]
    return head + turns


def test_only_messages_beyond_the_window_other_than_the_summary_can_be_summarized() -> None:
    assert not has_older_messages_to_summarize(summary_then(4), keep_recent=4)
    assert not has_older_messages_to_summarize(summary_then(2), keep_recent=4)
    assert has_older_messages_to_summarize(summary_then(6), keep_recent=4)
    plain = summary_then(6)[2:]
    assert has_older_messages_to_summarize(plain, keep_recent=4)
    assert not has_older_messages_to_summarize(plain, keep_recent=6)


def test_the_hold_line_offers_compact_only_when_a_summary_would_help() -> None:
    held = CompactionSkipped("loop_guard", 2_714, "short_of_aim", 2_935, 3_385, 3_200, 60_000)
    assert "To make room now: /compact (a summary" in format_skipped(held)
    after_summary = CompactionSkipped(
        "loop_guard", 2_714, "short_of_aim", 2_935, 3_385, 3_200, 60_000, summary_would_help=False
    )
    line = format_skipped(after_summary)
    assert "To make room now: /new" in line and "/compact (a summary" not in line
