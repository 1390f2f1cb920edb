"""Outside text (model, tools, files) cannot rewrite the screen or fake the REPL's logs."""

from __future__ import annotations

import io
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st
from repl_fakes import make_console
from rich.console import Console

from agent_cli.events import (
    ANSWER_DROPPED,
    AssistantDone,
    AssistantText,
    Notice,
    ToolFinished,
    ToolStarted,
)
from agent_cli.repl.render import EventRenderer
from agent_cli.repl.safe_text import (
    FAKE_COMPACT_MARK,
    StreamSanitizer,
    clip_line,
    clip_output_line,
    defuse_fake_compact_lines,
    escape_markup,
    sanitize_block,
    sanitize_text,
)

UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def test_sanitize_removes_colour_and_cursor_sequences_but_keeps_the_words():
    hostile = "\x1b[31mred\x1b[0m \x1b[2J\x1b[Hcleared \x1b[1A\x1b[Kup"
    assert sanitize_text(hostile) == "red cleared up"


def test_sanitize_removes_window_titles_and_hyperlinks():
    hostile = "a\x1b]0;pwned title\x07b\x1b]8;;http://evil.example\x1b\\link\x1b]8;;\x1b\\c"
    assert sanitize_text(hostile) == "ablinkc"


def test_sanitize_removes_device_control_strings_and_eight_bit_csi():
    assert sanitize_text("x\x1bPq#0;2;0;0;0\x1b\\y\x9b31mz") == "xyz"


def test_sanitize_keeps_newlines_and_tabs_and_drops_other_controls():
    assert sanitize_text("a\tb\nc\x00d\x07e\x08f\x7fg") == "a\tb\ncdefg"


def test_a_carriage_return_cannot_hide_what_came_before_it():
    assert sanitize_text("rm -rf /\rls") == "rm -rf /\nls"
    assert sanitize_text("one\r\ntwo") == "one\ntwo"


def test_bidi_overrides_that_reorder_text_are_removed():
    assert sanitize_text("abc\u202edcba\u202c") == "abcdcba"


def test_a_lone_escape_at_the_end_is_removed():
    assert sanitize_text("text\x1b") == "text"


@given(st.text(alphabet=st.characters(codec="utf-8"), max_size=200))
def test_sanitized_text_never_holds_an_escape_or_control_character(text):
    assert not UNSAFE.search(sanitize_text(text))


def test_clip_line_flattens_lines_and_cuts_very_long_text():
    clipped = clip_line("first\nsecond\t" + "x" * 10_000, limit=40)
    assert len(clipped) == 40
    assert clipped.startswith("first second x")
    assert clipped.endswith("…")
    assert "\n" not in clipped


def test_lines_posing_as_compact_logs_get_a_visible_mark():
    text = "fine\n[compact] L1 truncate tool results: 1 -> 0 tokens\n  [compact] total: x"
    defused = defuse_fake_compact_lines(text).split("\n")
    assert defused[0] == "fine"
    assert defused[1] == FAKE_COMPACT_MARK + "[compact] L1 truncate tool results: 1 -> 0 tokens"
    assert defused[2].startswith(FAKE_COMPACT_MARK)
    assert not any(line.startswith("[compact]") for line in defused)


def test_sanitize_block_also_defuses_a_compact_line_hidden_behind_a_carriage_return():
    assert not any(
        line.startswith("[compact]") for line in sanitize_block("ok\r[compact] total").split("\n")
    )


def test_escape_markup_escapes_tags_for_the_rare_markup_string():
    assert escape_markup("[bold]x[/bold]") == "\\[bold]x\\[/bold]"


def stream(pieces):
    sanitizer = StreamSanitizer()
    return "".join(sanitizer.feed(piece) for piece in pieces) + sanitizer.finish()


def test_a_fake_compact_line_split_across_stream_pieces_is_still_marked():
    shown = stream(["hello\n[comp", "act] L1 truncate", " tool results\nbye"])
    assert shown == f"hello\n{FAKE_COMPACT_MARK}[compact] L1 truncate tool results\nbye"


def test_text_that_only_starts_like_the_tag_is_shown_unchanged():
    assert stream(["[co", "de] is fine\n", "[c"]) == "[code] is fine\n[c"


def test_a_carriage_return_split_from_its_newline_makes_one_line_break():
    assert stream(["one\r", "\ntwo"]) == "one\ntwo"


def test_an_escape_sequence_split_across_pieces_cannot_reach_the_terminal():
    assert "\x1b" not in stream(["red \x1b", "[31mstill text"])


def test_an_arabic_letter_mark_zero_widths_and_tags_are_removed_like_bidi_overrides():
    """Session 30's outside tester: U+061C moved `-500` as U+200F does, and was shown."""
    text = "plain ALM: total \u061c-500\u061c credit and RLM \u200f-500\u200f end"
    assert sanitize_text(text) == "plain ALM: total -500 credit and RLM -500 end"
    assert sanitize_text("cu\u200brl x\U000e0041\U000e0042y \ufeffz") == "curl xy z"


FAMILY = "\U0001f468\u200d\U0001f469\u200d\U0001f467"


def test_an_emoji_split_across_stream_pieces_keeps_its_glue():
    assert stream(["a \U0001f468\u200d", "\U0001f469", "\u200d\U0001f467 b"]) == f"a {FAMILY} b"
    assert stream(["warn \u26a0", "\ufe0f done"]) == "warn \u26a0\ufe0f done"
    assert stream(["last \U0001f468\u200d"]) == "last \U0001f468\u200d"
    wales = "\U0001f3f4" + "".join(chr(0xE0000 + ord(c)) for c in "gbwls") + "\U000e007f"
    assert stream(["flag \U0001f3f4", wales[1:4], wales[4:], " ok"]) == f"flag {wales} ok"


# Session 30's review: each sample lost its joiner, selector or soft hyphen on screen.
SCRIPT_SAMPLES = (
    "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645",  # Persian, U+200C
    "\u0dc1\u0dca\u200d\u0dbb\u0dd3",  # Sinhala, U+200D
    "\u0915\u094d\u200d\u0937",  # Hindi, U+200D
    "\u845b\U000e0100",  # Japanese, an ideographic variation selector
    "\u182e\u180b\u1823\u180c\u1829\u180d\u182d\u180e\u1820\u180f",  # Mongolian
    "\u2269\ufe00",  # a standard variation sequence
    'x = "a\xadb"',  # a soft hyphen in code
    "pay\u200dpal",  # a joiner between letters is the text's too
)


@pytest.mark.parametrize("sample", SCRIPT_SAMPLES)
def test_joiners_selectors_and_the_soft_hyphen_stay_whole_and_streamed(sample):
    text = f"say {sample}\n{sample} end"
    assert sanitize_text(text) == sanitize_block(text) == text
    assert stream(list(text)) == text
    assert clip_line(sample) == sample and clip_output_line(sample) == sample


def test_a_long_chain_of_joined_emoji_streams_as_it_arrives():
    """Session 30's review: the stream held a chain of ZWJ-joined emoji back until it
    ended and scanned it again with every piece (16,000 in 2-character pieces: 12.8 s)."""
    sanitizer = StreamSanitizer()
    for _ in range(2_000):
        assert sanitizer.feed("\U0001f600\u200d") == "\U0001f600\u200d"
    assert sanitizer.finish() == ""


COMBINING_LEADS = {
    "a combining acute": "\u0301",
    "two combining marks": "\u0301\u0327",
    "a joiner": "\u200d",
    "a non-joiner and a space": "\u200c ",
    "a variation selector": "\ufe0f",
    "a soft hyphen": "\u00ad",
    "a no-break space": "\u00a0",
    "an enclosing mark": "\u20dd",
}


@pytest.mark.parametrize("lead", COMBINING_LEADS.values(), ids=COMBINING_LEADS.keys())
def test_a_fake_compact_line_led_by_what_draws_nothing_is_marked(lead):
    """Session 30's review: `U+0301 [compact] total: ...` was shown unmarked, and tmux
    drops a combining mark at column 0, so it read as the REPL's own line."""
    fake = f"{lead}[compact] total: 9,000 -> 10 tokens (-8,990) in 1 layer"
    assert sanitize_block(f"ok\n{fake}") == f"ok\n{FAKE_COMPACT_MARK}{fake}"
    assert stream(["ok\n", *fake]) == f"ok\n{FAKE_COMPACT_MARK}{fake}"
    assert stream(["ok\n" + fake[:2], fake[2:]]) == f"ok\n{FAKE_COMPACT_MARK}{fake}"


def test_a_line_whose_drawn_start_is_not_the_tag_is_not_marked():
    for line in ("e\u0301[compact]", "\u0301x [compact]", "\u0301[comp\u0301act]", "\u0301"):
        assert sanitize_block(line) == line
        assert stream(list(line)) == line


@given(
    st.lists(
        st.sampled_from(
            [
                "a",
                "1",
                " ",
                "\n",
                "\r",
                "\u200d",
                "\ufe0f",
                "\u202e",
                "\u061c",
                "\u0301",
                "\u200c",
                "\u00ad",
                "\U000e0100",
                "\U0001f468",
                "\u26a0",
                "[compact]",
                "\U0001f3f4",
                "\U000e0067",
            ]
        ),
        max_size=30,
    ),
    st.lists(st.integers(0, 60), max_size=6),
)
def test_text_streamed_in_any_pieces_shows_as_the_whole_text_would(parts, cuts):
    text = "".join(parts)
    points = sorted({0, len(text), *(cut % (len(text) + 1) for cut in cuts)})
    pieces = [text[a:b] for a, b in zip(points, points[1:], strict=False)]
    assert stream(pieces) == sanitize_block(text)


def test_rendered_model_text_shows_markup_literally_and_no_escape_codes():
    console = make_console()
    renderer = EventRenderer(console, live=False)
    hostile = "[bold red]not bold[/] \x1b[2J [link=http://x]y[/link]\n[compact] total: fake"
    renderer.render(AssistantText(hostile))
    renderer.render(AssistantDone(text=hostile, stop_reason="end_turn"))
    shown = console.export_text()
    assert "[bold red]not bold[/]" in shown
    assert "[link=http://x]y[/link]" in shown
    assert "\x1b" not in shown
    assert not any(line.startswith("[compact]") for line in shown.splitlines())


def test_tool_and_notice_text_cannot_draw_on_the_screen():
    console = make_console()
    renderer = EventRenderer(console, live=False)
    renderer.render(ToolStarted("t1", "bash", {"command": "echo \x1b[2Jhi\r[compact] x"}))
    renderer.render(ToolFinished("t1", "bash", True, "exit 1\x1b]0;title\x07", 10))
    renderer.render(
        Notice(
            "warning", "workspace_missing", {"recorded": "[red]careful[/red]\x07", "current": "/w"}
        )
    )
    shown = console.export_text()
    assert "\x1b" not in shown and "\x07" not in shown and "\r" not in shown
    assert "[red]careful[/red]" in shown
    assert not any(line.startswith("[compact]") for line in shown.splitlines())


def test_clip_line_cuts_between_words_when_a_space_is_near():
    clipped = clip_line("Check the path with list_dir and try again please", limit=30)
    assert clipped == "Check the path with list_dir…"


# --- lone surrogates: text UTF-8 cannot carry must never fail the terminal writer -------

LONE_SURROGATES = st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF, categories=["Cs"])


@given(st.text(alphabet=st.one_of(st.characters(), LONE_SURROGATES), max_size=200))
def test_no_lone_surrogate_survives_any_way_outside_text_is_made_safe(text):
    """A broken endpoint's `\\ud800`, or a name that is not UTF-8 (`\\udce9`), reached the
    terminal writer and raised UnicodeEncodeError: every shape of safe text encodes."""
    for shown in (
        sanitize_text(text),
        sanitize_block(text),
        clip_line(text),
        clip_output_line(text),
        stream([text[:7], text[7:]]),
    ):
        shown.encode("utf-8")


def test_a_lone_surrogate_is_shown_as_the_replacement_character():
    # compared as ascii(): a failure report holding a lone surrogate breaks pytest-xdist
    assert ascii(sanitize_text("caf\ud800e and caf\udce9")) == ascii("caf\ufffde and caf\ufffd")
    assert ascii(stream(["caf\ud800", "e"])) == ascii("caf\ufffde")


def strict_utf8_console(*, terminal: bool) -> tuple[Console, io.BytesIO]:
    """A console writing to a UTF-8 stream that raises on what UTF-8 cannot carry, as a
    real stdout does (`surrogateescape` raises on `\\ud800` as `strict` does)."""
    raw = io.BytesIO()
    stream_ = io.TextIOWrapper(raw, encoding="utf-8", errors="strict", write_through=True)
    console = Console(file=stream_, width=80, force_terminal=terminal, color_system=None)
    return console, raw


@pytest.mark.parametrize("live", [True, False], ids=["terminal", "pipe"])
def test_every_event_holding_a_lone_surrogate_reaches_a_strict_writer_without_failing(live):
    console, raw = strict_utf8_console(terminal=live)
    renderer = EventRenderer(console, live=live)
    bad = "caf\ud800e \udce9"
    for event in (
        AssistantText(bad),  # streamed, then ended by the next event
        ToolStarted("t1", "bash", {"command": f"echo {bad}", "path": bad}),
        ToolFinished("t1", "bash", False, bad, 10, output=f"{bad}\n{bad}"),
        Notice("warning", "workspace_missing", {"recorded": bad, "current": bad}),
        AssistantText(bad),
        AssistantDone(bad, "end_turn"),
        AssistantText(bad),
    ):
        renderer.render(event)
    renderer.print_error(bad)
    renderer.close()
    shown = raw.getvalue().decode("utf-8")
    assert "caf\ufffde" in shown


@pytest.mark.parametrize("live", [True, False], ids=["terminal", "pipe"])
def test_a_dropped_answer_leaves_a_live_view_and_stays_written_on_a_pipe(live):
    """A streamed answer the session dropped unrecorded is no answer: a terminal's live
    view erases it (and does not print it again) before the notice; on a pipe what was
    written stays, its line ended."""
    console = Console(file=io.StringIO(), width=200, force_terminal=live, color_system=None)
    renderer = EventRenderer(console, live=live)
    renderer.render(AssistantText("DROPPED caf\ud800e"))
    renderer.render(Notice("warning", "unsendable_answer", {"retry": True, ANSWER_DROPPED: True}))
    renderer.render(AssistantText("kept answer"))
    renderer.render(AssistantDone("kept answer", "end_turn"))
    file = console.file
    assert isinstance(file, io.StringIO)
    out = file.getvalue()
    last_shown, notice = out.rindex("DROPPED"), out.index("Asking once more")
    between = out[last_shown:notice]
    assert last_shown < notice and "kept answer" in out[notice:]
    if live:
        assert "\x1b[2K" in between, out  # erased, never written out again
    else:
        assert "\x1b" not in out and between.startswith("DROPPED caf\ufffde\n"), out
