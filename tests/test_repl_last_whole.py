"""`/last` shows the whole output, and pointers are never typed (issue 23 item 7).

A result stored as an artifact is read back whole for `/last` (not its head/tail
preview); taller than the screen, it goes through the pager as plain text; with no pager
(or on a pipe) it is printed whole. Each pointer on screen carries a number that
`/expand <number>` takes, and a number that leads nowhere says which numbers exist.
"""

from __future__ import annotations

import io
import shlex
import signal
import sys
from pathlib import Path

import pytest
from repl_fakes import FakeBackend, FakeSession, make_console
from rich.console import Console
from rich.text import Text

from agent_cli.events import ToolFinished, ToolStarted
from agent_cli.repl.loop import Repl
from agent_cli.repl.pager import show_long
from agent_cli.repl.pointer_handles import PointerHandles
from agent_cli.repl.views import build_sources_view
from agent_cli.sources import SourceResolution, SourceResolutionStatus

POINTER = "artifact:s-1:" + "ab12" * 8 + ".txt:" + "ab12" * 16
OTHER_POINTER = "artifact:s-1:" + "cd34" * 8 + ".txt:" + "cd34" * 16
SHOWN, OTHER_SHOWN = "artifact ab12ab12…", "artifact cd34cd34…"  # what a person reads
WHOLE = "Exit code: 0\n" + "\n".join(f"row {n:03}" for n in range(1, 401)) + "\n"
PREVIEW = (
    "Exit code: 0\n[Output was 3,213 bytes; this is a head/tail preview.]\nrow 001\n"
    "[... 3,000 bytes (398 lines) omitted; they start at byte offset 30 of the artifact ...]"
    f"\nrow 400\n[Full output: {POINTER}]"
)


def make_repl(session: FakeSession, console: Console | None = None) -> Repl:
    backend = FakeBackend(known={session.session_id: session}).factory(None, None)
    return Repl(
        session=session,
        backend=backend,
        reader=None,  # type: ignore[arg-type]
        console=console or make_console(width=120),
        live=False,
        offline_fallback=True,
    )


def run_tool(repl: Repl, tool_id: str, pointer: str | None, output: str = PREVIEW) -> None:
    finished = ToolFinished(tool_id, "bash", False, "exit 0, saved to artifact", 3_213, pointer)
    repl.render_events(
        iter([ToolStarted(tool_id, "bash", {"command": "seq"}), _with_output(finished, output)])
    )


def _with_output(event: ToolFinished, output: str) -> ToolFinished:
    import dataclasses

    return dataclasses.replace(event, output=output)


def shown(repl: Repl) -> str:
    return repl.console.export_text(clear=True)


# --- /last reads a stored output back whole --------------------------------------------------


def test_last_shows_every_line_of_a_stored_output_not_its_preview():
    session = FakeSession(stored_outputs={POINTER: WHOLE})
    repl = make_repl(session)
    run_tool(repl, "t1", POINTER)
    shown(repl)
    repl.handle_line("/last")
    printed = shown(repl)
    rows = printed.splitlines()
    assert all(f"row {n:03}" in rows for n in range(1, 401)), printed
    assert "omitted" not in printed and "[Full output:" not in printed
    assert ("read_tool_output", POINTER) in session.calls
    assert f"the whole output, read back from {SHOWN} (/expand 1)" in printed


def test_last_says_in_words_when_the_stored_output_cannot_be_read_back():
    repl = make_repl(FakeSession())  # nothing stored under the pointer
    run_tool(repl, "t1", POINTER)
    shown(repl)
    repl.handle_line("/last")
    printed = " ".join(shown(repl).split())
    assert "row 001" in printed and "omitted" in printed  # the preview, as the model got it
    assert "this is the head/tail preview the model got" in printed
    assert "could not be read back: its file is gone" in printed
    assert "ArtifactUnavailable" not in printed and "missing" not in printed


def test_last_of_an_output_never_stored_shows_it_as_it_came():
    session = FakeSession()
    repl = make_repl(session)
    run_tool(repl, "t1", None, output="Exit code: 0\nonly line")
    shown(repl)
    repl.handle_line("/last")
    assert "only line" in shown(repl)
    assert not any(call[0] == "read_tool_output" for call in session.calls)


# --- the pager ---------------------------------------------------------------------------


def terminal(height: int = 10) -> Console:
    return Console(
        file=io.StringIO(), width=80, height=height, force_terminal=True, color_system="truecolor"
    )


def capturing_pager(tmp_path: Path) -> tuple[dict[str, str], Path]:
    """A $PAGER that writes what it is given to a file (the test's stand-in for less)."""
    paged = tmp_path / "paged.txt"
    script = f"import sys; open({str(paged)!r}, 'wb').write(sys.stdin.buffer.read())"
    return {"PAGER": f"{shlex.quote(sys.executable)} -c {shlex.quote(script)}"}, paged


def test_a_text_taller_than_the_screen_goes_to_the_pager_as_plain_text(tmp_path):
    environment, paged = capturing_pager(tmp_path)
    console = terminal()
    body = "\n".join(f"line {n}" for n in range(50))
    show_long(console, Text(body, style="bold red"), environment)
    text = paged.read_text(encoding="utf-8")
    assert text.split() == body.split()
    assert "\x1b" not in text  # styles=False: nothing less -R would act on
    assert "line 0" not in console.file.getvalue()  # type: ignore[attr-defined]


def test_what_fits_on_the_screen_is_printed_without_a_pager(tmp_path):
    environment, paged = capturing_pager(tmp_path)
    console = terminal(height=40)
    show_long(console, Text("three\nshort\nlines"), environment)
    assert not paged.exists()
    assert "short" in console.file.getvalue()  # type: ignore[attr-defined]


def test_without_a_working_pager_everything_is_printed_after_one_line_saying_why():
    console = terminal()
    body = "\n".join(f"line {n}" for n in range(50))
    show_long(console, Text(body), {"PAGER": "no-such-pager-here --quiet"})
    printed = console.file.getvalue()  # type: ignore[attr-defined]
    assert "no pager could be started (no-such-pager-here --quiet was not found)" in printed
    assert all(f"line {n}" in printed for n in range(50))


def test_a_pipe_gets_the_whole_text_and_no_pager(tmp_path):
    environment, paged = capturing_pager(tmp_path)
    console = make_console()
    show_long(console, Text("\n".join(f"line {n}" for n in range(500))), environment)
    assert not paged.exists()
    assert "line 499" in console.export_text()


def ctrl_c_pressing_pager(tmp_path: Path) -> tuple[dict[str, str], Path, Path]:
    """A $PAGER that, before it reads anything, sends SIGINT to agent-cli (what Ctrl-C in
    less does to the whole foreground group) and notes how SIGINT was set when it began;
    then it reads all it is given into a file."""
    paged, disposition = tmp_path / "paged.txt", tmp_path / "sigint.txt"
    script = (
        "import os, signal, sys\n"
        f"open({str(disposition)!r}, 'w').write(str(signal.getsignal(signal.SIGINT)))\n"
        "os.kill(os.getppid(), signal.SIGINT)\n"
        f"open({str(paged)!r}, 'wb').write(sys.stdin.buffer.read())\n"
    )
    return {"PAGER": f"{shlex.quote(sys.executable)} -c {shlex.quote(script)}"}, paged, disposition


def test_ctrl_c_while_the_text_is_fed_to_the_pager_is_the_pagers_own(tmp_path):
    environment, paged, disposition = ctrl_c_pressing_pager(tmp_path)
    body = "\n".join(f"line {n:06d}" for n in range(100_000))  # far more than a pipe holds
    before = signal.getsignal(signal.SIGINT)
    try:
        show_long(terminal(), Text(body), environment)
    except KeyboardInterrupt:
        pytest.fail("Ctrl-C meant for the pager stopped agent-cli feeding and waiting for it")
    assert paged.read_text(encoding="utf-8").split() == body.split()  # fed whole, waited for
    assert signal.getsignal(signal.SIGINT) is before  # agent-cli's own handling is back
    assert "default_int_handler" in disposition.read_text()  # not inherited as ignored


def test_the_paged_output_of_a_tool_carries_no_control_characters(tmp_path, monkeypatch):
    environment, paged = capturing_pager(tmp_path)
    monkeypatch.setenv("PAGER", environment["PAGER"])
    hostile = WHOLE + "\x1b[2J\x1b]0;title\x07cleared\r\x9b2Jfake\n"
    repl = make_repl(FakeSession(stored_outputs={POINTER: hostile}), terminal())
    run_tool(repl, "t1", POINTER)
    repl.handle_line("/last")
    text = paged.read_text(encoding="utf-8")
    assert "row 400" in text and "cleared" in text and "fake" in text
    assert not any(ord(ch) < 32 and ch != "\n" for ch in text), repr(text[-80:])
    assert "\x9b" not in text and "title" not in text


# --- numbers for pointers ---------------------------------------------------------------------


def test_each_pointer_on_a_tool_line_carries_the_number_expand_takes():
    repl = make_repl(FakeSession())
    run_tool(repl, "t1", POINTER)
    run_tool(repl, "t2", OTHER_POINTER)
    run_tool(repl, "t3", POINTER)  # the same pointer again: the same number
    closing = [row for row in shown(repl).splitlines() if row.startswith("╰─")]
    assert closing[0].endswith(f"full output: {SHOWN} (/expand 1)"), closing
    assert closing[1].endswith(f"full output: {OTHER_SHOWN} (/expand 2)"), closing
    assert not any("ab12ab12ab12ab12ab12" in row for row in closing), closing  # no hash
    assert closing[2].endswith("(/expand 1)"), closing


def test_expand_with_a_number_expands_the_pointer_shown_with_it():
    found = SourceResolution(
        POINTER[:-52], SourceResolutionStatus.AVAILABLE, "ok", "ab" * 32, excerpt="row 001"
    )
    session = FakeSession(expansions={POINTER[:-52]: found})
    repl = make_repl(session)
    run_tool(repl, "t1", POINTER)
    shown(repl)
    repl.handle_line("/expand 1")
    assert ("expand", POINTER[:-52]) in session.calls
    assert "row 001" in shown(repl)
    repl.handle_line("/expand #1")
    assert session.calls.count(("expand", POINTER[:-52])) == 2


def test_expand_with_a_number_nothing_has_says_which_numbers_there_are():
    repl = make_repl(FakeSession())
    repl.handle_line("/expand 3")
    said = " ".join(shown(repl).split())
    assert "/expand 3: no pointer has a number yet" in said
    run_tool(repl, "t1", POINTER)
    shown(repl)
    repl.handle_line("/expand 9")
    said = " ".join(shown(repl).split())
    assert f"no pointer has that number. The only number is 1, for {SHOWN}" in said
    run_tool(repl, "t2", OTHER_POINTER)
    shown(repl)
    repl.handle_line("/expand 9")
    said = " ".join(shown(repl).split())
    assert "/expand 9: no pointer has that number. The numbers are 1 to 2" in said, said
    assert f"2 is {OTHER_SHOWN}; 1 is {SHOWN}" in said


def test_sources_shows_the_number_after_each_pointer():
    handles = PointerHandles()
    handles.number_for(POINTER)
    resolutions = [
        SourceResolution("transcript:s-1:4", SourceResolutionStatus.AVAILABLE, "ok", "ab" * 32),
        SourceResolution(POINTER[:-52], SourceResolutionStatus.MISSING, "not_found"),
    ]
    console = make_console(width=200)
    console.print(build_sources_view(resolutions, handles))
    rows = [row.split() for row in console.export_text().splitlines()]
    assert rows[1][:3] == ["2", "transcript:s-1:4", "available"], rows
    assert ["1", *SHOWN.split(), "missing"] == rows[2][:4], rows
    assert rows[-1][:3] == ["/expand", "<#>", "shows"]


def test_sources_on_a_narrow_screen_gives_each_pointer_a_line_of_its_own():
    """Found by an outside attack: at 40 columns `/sources` split every pointer over five
    rows and `available` into `availab` / `le`."""
    handles = PointerHandles()
    handles.number_for(POINTER)
    long_transcript = "transcript:20261205-175654-cfcfe1:2"
    resolutions = [
        SourceResolution(long_transcript, SourceResolutionStatus.AVAILABLE, "ok", "ab" * 32),
        SourceResolution(POINTER[:-52], SourceResolutionStatus.MISSING, "not_found"),
    ]
    console = make_console(width=40)
    console.print(build_sources_view(resolutions, handles))
    rows = [row.rstrip() for row in console.export_text().splitlines()]
    assert rows[0] == f"2  {long_transcript}", rows
    assert rows[1].startswith("   available · "), rows
    assert rows[rows.index(f"1  {SHOWN}") + 1].startswith("   missing · "), rows
    assert "/expand <#> shows" in rows[-2], rows


# --- the session reads a stored output back --------------------------------------------------


def test_a_real_session_reads_a_stored_output_back_whole_and_verified(tmp_path):
    from session_support import ScriptedProvider, make_session

    from agent_cli.errors import ArtifactUnavailable

    session = make_session(tmp_path, ScriptedProvider())
    try:
        ref = session.artifacts.put(session.session_id, WHOLE.encode("utf-8"))
        assert session.read_tool_output(ref.pointer) == WHOLE
        short = ref.pointer[: -64 + 12]  # the form the screen shows
        assert session.read_tool_output(short) == WHOLE
        ref.path.write_bytes(b"changed")
        with pytest.raises(ArtifactUnavailable) as refused:
            session.read_tool_output(ref.pointer)
        assert refused.value.reason == "digest_mismatch"
    finally:
        session.close()


def test_expand_pages_what_is_taller_than_the_screen_like_last(tmp_path, monkeypatch):
    """`/expand` of a big artifact printed thousands of lines into the scrollback."""
    environment, paged = capturing_pager(tmp_path)
    monkeypatch.setenv("PAGER", environment["PAGER"])
    excerpt = "\n".join(f"row {n:03d}" for n in range(200))
    found = SourceResolution(
        POINTER[:-52], SourceResolutionStatus.AVAILABLE, "ok", "ab" * 32, excerpt=excerpt
    )
    console = terminal()
    repl = make_repl(FakeSession(expansions={POINTER[:-52]: found}), console)
    run_tool(repl, "t1", POINTER)
    repl.handle_line("/expand 1")
    text = paged.read_text(encoding="utf-8")
    assert "row 000" in text and "row 199" in text
    assert "row 150" not in console.file.getvalue()  # type: ignore[attr-defined]
