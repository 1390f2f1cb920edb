"""End to end in tmux: what a person reads is in plain words, whole, and agrees in number."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from e2e_support import ReplDriver, TerminalPool, count_prompts, session_id_on, start_repl

pytestmark = pytest.mark.e2e


def start(terminals: TerminalPool, home: Path, workspace: Path, width: int = 120) -> ReplDriver:
    return start_repl(terminals, home, workspace, "--yes", width=width)


def flat(text: str) -> str:
    return " ".join(text.split())


def test_command_errors_say_what_happened_and_what_to_do(
    terminals: TerminalPool, home: Path, workspace: Path
) -> None:
    repl = start(terminals, home, workspace)
    repl.submit("/todo write the release notes")
    assert "T1 is done" in repl.submit("/done 1")
    missing = flat(repl.submit("/done 999"))
    assert "there is no pending item T999; /facts lists them" in missing
    assert "unknown_item" not in missing
    garbage = flat(repl.submit("/expand garbage"))
    assert "that is not a pointer: a pointer looks like transcript:<session>:<sequence>" in garbage
    assert "missing_scheme" not in garbage


def test_a_failed_tool_shows_its_whole_message_on_a_wide_screen(
    terminals: TerminalPool, home: Path, workspace: Path
) -> None:
    repl = start(terminals, home, workspace, width=160)
    printed = repl.submit("read no/such/file.txt")
    closing = next(line for line in printed.splitlines() if line.startswith("╰─ ✗"))
    assert closing == "╰─ ✗ No such file or directory. Check the path with list_dir."


def test_counts_agree_in_number_and_zero_counts_are_left_out(
    terminals: TerminalPool, home: Path, workspace: Path
) -> None:
    (workspace / "only.txt").write_text("unique-needle\n", encoding="utf-8")
    repl = start(terminals, home, workspace)
    assert "✓ 1 match in 1 file" in repl.submit("grep unique-needle")


@pytest.mark.parametrize("width", [60, 40])  # 40: an outside attack found `5…`, `1…`
def test_stats_on_a_narrow_screen_keeps_the_numbers_whole(
    terminals: TerminalPool, home: Path, workspace: Path, width: int
) -> None:
    repl = start(terminals, home, workspace, width=width)
    repl.submit("read big.txt")  # five-digit figures, which a 24-cell bar would squeeze
    panel = repl.submit("stats")
    rows = [
        line
        for line in panel.splitlines()
        if re.search(r"│ +(tokens +)?(system prompt|tool results|total) ", line)
    ]
    assert len(rows) == 3, panel
    for row in rows:
        assert re.search(r" \d{1,3}(,\d{3})* ", row) and "…" not in row, panel


def test_sources_on_a_40_column_screen_keeps_each_pointer_and_status_whole(
    terminals: TerminalPool, home: Path, workspace: Path
) -> None:
    repl = start(terminals, home, workspace, width=40)
    repl.submit("/remember the build uses make")
    shown = repl.submit("/sources")
    session = session_id_on(repl.terminal.screen().replace("\n", ""))
    rows = shown.splitlines()
    pointer = next(n for n, row in enumerate(rows) if f"transcript:{session}:" in row)
    assert rows[pointer + 1].lstrip().startswith("available · "), shown


def test_forget_drops_facts_and_todos_and_facts_carry_into_new_sessions(
    terminals: TerminalPool, home: Path, workspace: Path
) -> None:
    repl = start(terminals, home, workspace)
    repl.submit("/remember the tests run with make test")
    repl.submit("/remember the staging host is old-staging")
    repl.submit("/todo write the changelog")
    assert "forgot F2" in repl.submit("/forget f2")
    assert "forgot T1" in repl.submit("/forget T1")
    facts = repl.submit("/facts")
    assert "the tests run with make test" in facts
    assert "old-staging" not in facts and "write the changelog" not in facts
    assert "there is no fact or pending item F9" in flat(repl.submit("/forget F9"))

    repl.submit("/new")
    carried = repl.submit("/facts")
    assert "the tests run with make test" in carried and "old-staging" not in carried


def test_a_mistyped_command_gets_a_suggestion(
    terminals: TerminalPool, home: Path, workspace: Path
) -> None:
    repl = start(terminals, home, workspace)
    shown = flat(repl.submit("/stat"))
    assert "unknown command /stat: did you mean /stats? /help lists the commands" in shown


def test_a_long_paste_is_shown_collapsed_and_sent_whole(
    terminals: TerminalPool, home: Path, workspace: Path
) -> None:
    repl = start(terminals, home, workspace)
    pasted = "".join(f"log line {n:04d} {'x' * 142}\n" for n in range(128))[:20_000]
    assert len(pasted) == 20_000
    repl.terminal.paste(pasted)
    repl.terminal.wait_for_text("› [pasted 20,000 characters]")
    repl.terminal.press("Enter")
    screen = repl.terminal.wait_for(
        lambda text: count_prompts(text) >= 2 and "offline demo model" in text.split("[pasted")[-1],
        "the answer to the paste",
    )
    assert "log line 0005" not in screen  # the paste is not echoed
    stored = "".join(
        path.read_text(encoding="utf-8")
        for path in [*(home / "transcripts").glob("*.jsonl"), *home.glob("*/tool-results/*")]
    )
    missing = [n for n in range(128) if f"log line {n:04d}" not in stored]
    assert missing == []  # every line kept: the transcript, or the artifact it points to


def test_toolbar_stats_and_context_show_the_same_context_figure(
    terminals: TerminalPool, home: Path, workspace: Path
) -> None:
    repl = start(terminals, home, workspace)
    repl.submit("read README.md")
    repl.submit("/remember the demo project is small")

    def toolbar_figure(_: str) -> str | None:
        match = re.search(r"ctx ([\d,]+) /", repl.toolbar())
        return match.group(1) if match else None

    before_facts = repl.terminal.wait_for(
        lambda screen: toolbar_figure(screen) is not None, "the gauge", source=repl.terminal.visible
    )
    figure = toolbar_figure(before_facts)
    repl.submit("/facts")  # looking at the facts must not move the figure
    after_facts = repl.terminal.wait_for(
        lambda screen: toolbar_figure(screen) is not None, "the gauge", source=repl.terminal.visible
    )
    assert toolbar_figure(after_facts) == figure
    stats = flat(repl.submit("stats"))
    assert f"context {figure} tokens in the next request" in stats
    context = flat(repl.submit("/context"))
    assert f"the next request about {figure} · free" in context


@pytest.mark.parametrize("width", [120, 60])
def test_lines_break_between_words_and_fit_the_screen(
    terminals: TerminalPool, home: Path, workspace: Path, width: int
) -> None:
    repl = start(terminals, home, workspace, width=width)
    banner = repl.terminal.visible()
    words = banner.split()
    assert "again." in words and "agent-cli" in words, banner  # not "ag" / "ain."
    printed = repl.submit("read big.txt")
    frame = [row for row in printed.splitlines() if row.startswith(("╭─", "│", "╰─"))]
    closing = next(row for row in frame if row.startswith("╰─"))
    assert closing.startswith("╰─ ✓ read 400 lines, saved to artifact · "), printed
    if width == 120:  # the pointer as a person reads it, and the number that expands it
        assert re.search(r" · full output: artifact [0-9a-f]{8}… \(/expand 1\)$", closing), printed
    else:  # even that does not fit beside the words: its number does, which stays right
        assert closing.endswith(" · /expand 1"), printed
    assert not re.search("[0-9a-f]{12}", "\n".join(frame)), printed  # no digest to read
    assert all(len(row) <= width for row in frame), printed
    toolbar = repl.toolbar()
    assert re.fullmatch(r"ctx [\d,]+ / 3,200 soft / 60,000 hard \(\d+%\).*", toolbar), toolbar
    assert toolbar.endswith(("Alt+Enter: new line", "%)")), toolbar


NOTICE_WORDS = (
    "warning:",
    "low-water",
    "every",
    "request",
    "carries",
    "besides",
    "conversation",
    "compaction",
    "could",
    "never",
    "Compacting",
    "instead,",
    "halfway",
    "threshold;",
    "--low-water",
    "low_water)",
    "choose",
)


@pytest.mark.parametrize("width", [120, 60])
def test_a_notice_breaks_between_words_and_is_said_once(
    terminals: TerminalPool, home: Path, workspace: Path, width: int
) -> None:
    """A notice longer than the screen (an unreachable --low-water) wraps at words: each
    of its words reads whole, every row fits, and it is said once (issue 23 item 16)."""
    repl = start_repl(terminals, home, workspace, "--low-water", "5", width=width)
    printed = repl.submit("hello")
    notice = printed[printed.index("warning:") : printed.index("I am the offline")]
    rows = notice.rstrip("\n").splitlines()
    assert len(rows) > 1, notice
    assert all(len(row) <= width for row in rows), notice
    words = notice.split()
    assert [word for word in NOTICE_WORDS if word not in words] == [], notice
    assert printed.count("warning:") == 1, printed


def test_the_pointers_remember_and_todo_print_are_numbered_for_expand(
    terminals: TerminalPool, home: Path, workspace: Path
) -> None:
    repl = start(terminals, home, workspace, width=60)
    remembered = flat(repl.submit("/remember the colour is blue"))
    found = re.search(r"source transcript:\S+ \(/expand (\d+)\)", remembered)
    assert found is not None, remembered
    added = flat(repl.submit("/todo paint the shed"))
    second = re.search(r"source transcript:\S+ \(/expand (\d+)\)", added)
    assert second is not None and second.group(1) != found.group(1), added
    expanded = flat(repl.submit(f"/expand {found.group(1)}"))
    assert "available" in expanded and "the colour is blue" in expanded, expanded
