"""End to end in tmux: telling sessions apart, --continue, and deleting old ones."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from e2e_support import (
    ReplDriver,
    TerminalPool,
    build_env,
    run_piped,
    session_id_on,
    start_repl,
)

pytestmark = pytest.mark.e2e
SESSION_ROW = re.compile(r"^\s*\*?\s*(\d{8}-\d{6}-[0-9a-f]+)\s")


def quit_repl(repl: ReplDriver) -> None:
    repl.send("/quit")
    repl.terminal.wait_for_exit()


def test_continue_goes_on_from_a_newer_blocked_run_and_sessions_can_be_told_apart_and_deleted(
    terminals: TerminalPool, home: Path, workspace: Path
) -> None:
    first = start_repl(terminals, home, workspace)
    interactive = session_id_on(first.terminal.screen())
    first.submit("read README.md and tell me its first heading")
    quit_repl(first)
    # a one-shot run the hard limit blocks: a newer session whose request was kept unanswered
    blocked = run_piped(
        ["--soft-threshold", "2000", "--hard-limit", "2010", "-p", "word " * 300],
        cwd=workspace,
        env=build_env(home),
    )
    assert blocked.returncode == 3, blocked.stderr

    again = start_repl(terminals, home, workspace, "--continue")
    screen = again.terminal.screen()
    kept = session_id_on(screen)  # the newest session holding a request: the blocked run's
    assert kept != interactive, screen
    listing = again.submit("/sessions")
    rows = {match.group(1): line for line in listing.splitlines()
            if (match := SESSION_ROW.match(line))}  # fmt: skip
    assert set(rows) == {interactive, kept}, listing
    assert "read README.md and tell me" in rows[interactive], listing
    assert " 1/1 " in rows[interactive], listing
    assert rows[kept].lstrip().startswith("*"), listing
    assert " 0/1 " in rows[kept] and "word word" in rows[kept], listing

    refused = again.submit(f"/sessions delete {kept}")
    assert "the open session cannot be deleted" in refused
    deleted = again.submit(f"/sessions delete {interactive}")
    assert f"deleted 1 session (transcript and artifacts): {interactive}" in deleted
    assert not (home / "transcripts" / f"{interactive}.jsonl").exists()
    assert interactive not in again.submit("/sessions")


def test_deleting_several_sessions_reports_each_one_even_when_one_is_open_elsewhere(
    terminals: TerminalPool, home: Path, workspace: Path
) -> None:
    for request in ("first one-shot", "second one-shot"):
        done = run_piped(["-p", request], cwd=workspace, env=build_env(home))
        assert done.returncode == 0, done.stderr
    first, second = sorted(path.stem for path in (home / "transcripts").glob("*.jsonl"))
    holder = start_repl(terminals, home, workspace)
    held = session_id_on(holder.terminal.screen())
    deleting = start_repl(terminals, home, workspace)
    absent = "20990101-000000-abcdef"

    report = deleting.submit(f"/sessions delete {first} {held} {absent} {second}")

    assert f"deleted 2 sessions (transcript and artifacts): {first}, {second}" in report
    assert f"no such session: {absent}" in report
    assert f"not deleted: {held}: session {held} is open in another agent-cli" in report
    assert (home / "transcripts" / f"{held}.jsonl").exists()
    assert not (home / "transcripts" / f"{first}.jsonl").exists()
    assert not (home / "transcripts" / f"{second}.jsonl").exists()
    quit_repl(deleting)
    quit_repl(holder)


def test_deleting_old_sessions_never_touches_memory_even_with_a_transcript_named_memory(
    home: Path, workspace: Path
) -> None:
    import os
    import shutil

    done = run_piped(["-p", "remember the parser"], cwd=workspace, env=build_env(home))
    assert done.returncode == 0, done.stderr
    (real,) = (home / "transcripts").glob("*.jsonl")
    remembered = home / "memory" / "0123456789abcdef.json"
    remembered.write_text("{}", encoding="utf-8")
    backup = home / "transcripts" / "memory.jsonl"  # a renamed backup of a transcript
    shutil.copyfile(real, backup)
    for path in (real, backup):
        os.utime(path, (1_000_000_000, 1_000_000_000))  # 2001

    run = run_piped(
        [], cwd=workspace, env=build_env(home),
        stdin_text="/sessions delete --older-than 1\n/sessions delete memory Transcripts\n",
    )  # fmt: skip

    assert run.returncode == 0, run.stderr
    assert f"deleted 1 session (transcript and artifacts): {real.stem}" in run.stdout
    assert "not session ids, nothing deleted for them: memory, Transcripts" in run.stdout
    assert remembered.read_text(encoding="utf-8") == "{}" and backup.is_file()
    assert not real.exists()


def test_resuming_an_id_that_names_a_home_folder_says_it_is_no_session(
    home: Path, workspace: Path
) -> None:
    run = run_piped(["--resume", "Memory", "-p", "hello"], cwd=workspace, env=build_env(home))
    assert run.returncode == 2
    assert (
        "--resume: that is not a session id (it names one of agent-cli's own folders or "
        "files, like memory or transcripts)"
    ) in run.stderr, run.stderr
    assert not (home / "Memory").exists()


def test_deleting_old_sessions_at_a_terminal_asks_first_and_a_no_keeps_them(
    terminals: TerminalPool, home: Path, workspace: Path
) -> None:
    """`--older-than 0` picks every other session of this folder: at a terminal it says
    how many and deletes them only after a yes."""
    earlier = run_piped([], cwd=workspace, env=build_env(home), stdin_text="list .\n")
    assert earlier.returncode == 0, earlier.stderr
    kept = home / "transcripts" / f"{session_id_on(earlier.stdout)}.jsonl"
    assert kept.is_file(), sorted(home.rglob("*.jsonl"))
    repl = start_repl(terminals, home, workspace)
    repl.send("/sessions delete --older-than 0")
    repl.terminal.wait_for_text("delete 1 session of this folder last changed over 0 days ago")
    repl.send("n")
    repl.terminal.wait_for_text("nothing deleted")
    assert kept.is_file()
    repl.send("/sessions delete --older-than 0")
    repl.terminal.wait_for(
        lambda text: text.count("delete 1 session of this folder") == 2, "the question again"
    )
    repl.send("y")
    repl.terminal.wait_for_text("deleted 1 session (transcript and artifacts)")
    assert not kept.exists()
    quit_repl(repl)


def test_resume_flag_takes_what_the_resume_command_takes(home: Path, workspace: Path) -> None:
    """Twelfth attack: `--resume` took only a whole id, where `/resume` also takes the
    only id that starts with what was typed."""
    ids = []
    for _ in range(2):
        done = run_piped(["-p", "hello"], cwd=workspace, env=build_env(home))
        assert done.returncode == 0, done.stderr
        ids.append(
            next(p.stem for p in (home / "transcripts").glob("*.jsonl") if p.stem not in ids)
        )
    older, newer = ids
    common = next(older[:n] for n in range(len(older), 0, -1) if newer.startswith(older[:n]))
    for typed, expected in ((older[: len(common) + 1], older), (newer[: len(common) + 1], newer)):
        run = run_piped(
            ["--resume", typed], cwd=workspace, env=build_env(home), stdin_text="/stats\n"
        )
        assert run.returncode == 0, run.stderr
        assert f"session {expected} (resumed)" in run.stdout, (typed, run.stdout)
    both = run_piped(["--resume", common, "-p", "x"], cwd=workspace, env=build_env(home))
    assert both.returncode == 2
    assert f"--resume {common}: 2 sessions start with that: {newer}, {older}" in both.stderr
    none = run_piped(["--resume", "zz-nothing", "-p", "x"], cwd=workspace, env=build_env(home))
    assert none.returncode == 2 and "no session zz-nothing" in none.stderr
    # twenty-second tester: the flag takes the number /sessions shows, as /resume does
    # (bare --resume lists this folder's sessions with those numbers)
    number = run_piped(["--resume", "2", "-p", "by number"], cwd=workspace, env=build_env(home))
    assert number.returncode == 0, number.stderr
    assert "by number" in (home / "transcripts" / f"{older}.jsonl").read_text()
    past_end = run_piped(["--resume", "3", "-p", "x"], cwd=workspace, env=build_env(home))
    assert past_end.returncode == 2 and "no session 3" in past_end.stderr


def test_resume_flag_takes_the_number_sessions_shows_across_folders(
    home: Path, workspace: Path, tmp_path: Path
) -> None:
    """Twenty-second tester: `--resume 3` said "no session 3" though the hint for an
    ambiguous prefix said to type "its number in /sessions". The number is the one
    `/sessions` shows (every folder's sessions, newest first), and bare `--resume` shows
    this folder's sessions with those same numbers."""
    other = tmp_path / "other"
    other.mkdir()
    for folder, request in ((workspace, "first A"), (other, "first B"), (workspace, "first C")):
        done = run_piped(["-p", request], cwd=folder, env=build_env(home))
        assert done.returncode == 0, done.stderr
    ids = {
        path.read_text().split('"first ')[1][0]: path.stem
        for path in (home / "transcripts").glob("*.jsonl")
    }
    # /sessions (every folder's, newest first) numbers C 1, B 2, A 3; bare --resume lists
    # this folder's, A and C, with those numbers (not A 2)
    bare = run_piped(["--resume"], cwd=workspace, env=build_env(home), stdin_text="/quit\n")
    shown = listed_numbers(bare.stdout.split("(resumed)")[0])
    assert shown == {ids["C"]: (1, "C"), ids["A"]: (3, "A")}, bare.stdout

    run = run_piped(["--resume", "3", "-p", "what was first?"], cwd=workspace, env=build_env(home))

    assert run.returncode == 0, run.stderr
    assert "what was first?" in (home / "transcripts" / f"{ids['A']}.jsonl").read_text()
    assert run.stdout.strip()


def listed_numbers(screen: str) -> dict[str, tuple[int, str]]:
    """session id -> (its number, the letter after "first ") from a piped listing (two
    lines a session: `  <id>  <number>  <time>`, then its turns and first request)."""
    found: dict[str, tuple[int, str]] = {}
    lines = screen.splitlines()
    for head, detail in zip(lines, lines[1:], strict=False):
        match = re.match(r"^[* ] (\d{8}-\S+)\s+(\d+)\s", head)
        if match and "first " in detail:
            found[match.group(1)] = (int(match.group(2)), detail.split("first ")[1][0])
    return found


def test_resuming_a_transcript_whose_last_record_was_cut_says_so(
    home: Path, workspace: Path
) -> None:
    """Thirteenth attack: a record cut in half (kill -9 or power loss mid-write) was set
    aside in `<id>.jsonl.torn-1` and left out without a word on screen."""
    done = run_piped(["-p", "list ."], cwd=workspace, env=build_env(home))
    assert done.returncode == 0, done.stderr
    [transcript] = (home / "transcripts").glob("*.jsonl")
    lines = transcript.read_bytes().splitlines(keepends=True)
    transcript.write_bytes(b"".join(lines[:-1]) + lines[-1][: len(lines[-1]) // 2])
    resumed = run_piped(["--resume", transcript.stem], cwd=workspace, env=build_env(home))
    assert resumed.returncode == 0, resumed.stderr
    said = " ".join((resumed.stdout + resumed.stderr).split())
    side = f"{transcript.name}.torn-1"
    assert "The transcript's last record was cut off" in said and side in said
    assert (transcript.parent / side).is_file()
    again = run_piped(["--resume", transcript.stem], cwd=workspace, env=build_env(home))
    assert "cut off" not in again.stdout + again.stderr  # said once, when it was set aside
