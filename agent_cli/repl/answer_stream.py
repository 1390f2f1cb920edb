"""Showing the assistant's answer while it streams, then as it finally is.

Contract: `AnswerStream.add(text)` shows a streamed piece at once; `restart()` voids what
streamed for this request; `finish(full_text)` ends the answer; `abandon()` ends it early
(an interrupt or another event arrived) and keeps the half answer on screen as plain text;
`drop()` ends it as no answer at all (the session dropped it unrecorded): a live view takes
it off the screen, plain text already written stays, its line ended.

Two modes. On a terminal (`live=True`) the streamed text lives in a transient rich `Live`
region that shows only the tail that fits the screen (so it can always be erased
exactly), and `finish` replaces it with the answer rendered as Markdown. Elsewhere
(`live=False`: pipes, logs) pieces are written as plain text once and never repeated.
All text goes through `StreamSanitizer`/`sanitize_block` and is printed as `rich.Text`
or `Markdown` built from sanitized text, never as markup.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from rich.console import Console, ConsoleOptions, RenderableType, RenderResult
from rich.live import Live
from rich.segment import Segment
from rich.text import Text

from agent_cli.repl.markdown_check import parse_answer, shows_expected
from agent_cli.repl.safe_text import (
    FAKE_COMPACT_MARK,
    StreamSanitizer,
    is_fake_compact_line,
    sanitize_block,
    sanitize_segment_text,
)

REFRESH_INTERVAL_SECONDS = 0.05


def render_defused_lines(
    console: Console, renderable: RenderableType, options: ConsoleOptions
) -> list[list[Segment]]:
    """`renderable` as lines, every character sanitized, each line that reads like a
    `[compact]` log line marked.

    Both run on what will be on the screen, after Markdown has made characters of the
    text (`&#x202E;` a right-to-left override, `&#91;` or a code span a bracket, an
    autolink's `%E2%80%AE` an override too) and after wrapping has started a new line, so
    no rendering path can put a control or a hidden character on the terminal or make
    outside text pose as the REPL's log. Lines are rendered narrower by the mark's width,
    so a marked line still fits the console.
    """
    width = max(options.max_width - len(FAKE_COMPACT_MARK), 1)
    rendered = console.render_lines(renderable, options.update(width=width, height=None), pad=False)
    lines = [[_sanitized(segment) for segment in line] for line in rendered]
    for line in lines:
        if is_fake_compact_line("".join(segment.text for segment in line)):
            line.insert(0, Segment(FAKE_COMPACT_MARK))
    return lines


def _sanitized(segment: Segment) -> Segment:
    if segment.control:
        return segment  # rich's own cursor moves, never outside text
    return Segment(sanitize_segment_text(segment.text), segment.style)


class _TailView:
    """The last screenful of `text`: a live region must never be taller than the screen."""

    def __init__(self) -> None:
        self.text = ""

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        height = max((options.height or console.height) - 1, 1)
        tail = self.text[-(options.max_width * height * 2) :]
        for line in render_defused_lines(console, Text(tail), options)[-height:]:
            yield from line
            yield Segment.line()


class AnswerStream:
    """One assistant answer on its way to the screen; see the module contract."""

    def __init__(
        self, console: Console, *, live: bool, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._console = console
        self._is_live_mode = live
        self._clock = clock
        self._sanitizer = StreamSanitizer()
        self._live: Live | None = None
        self._view = _TailView()
        self._last_refresh = 0.0
        self._streamed_any = False
        self._ends_with_newline = True

    def add(self, piece: str) -> None:
        shown = self._sanitizer.feed(piece)
        self._streamed_any = True
        if self._is_live_mode:
            self._add_live(shown)
        elif shown:
            self._write_plain(shown)

    def restart(self) -> bool:
        """The provider retries: what streamed for this request is void. True when some
        of it stays on the screen (written as plain text, which cannot be taken back)."""
        self._sanitizer = StreamSanitizer()
        left_shown = self._live is None and self._streamed_any
        if self._live is not None:
            self._view.text = ""
            self._live.refresh()
        elif self._streamed_any and not self._ends_with_newline:
            self._write_plain("\n")
        self._streamed_any = False
        return left_shown

    def finish(self, full_text: str) -> None:
        """The answer is complete; `full_text` is what was recorded."""
        rest = self._sanitizer.finish()
        if self._is_live_mode:
            self._stop_live()
            if full_text.strip():
                self._console.print(_markdown(full_text))
        else:
            if not self._streamed_any and full_text:
                rest = sanitize_block(full_text)
            self._write_plain(rest)
            self._end_line()
        self._reset()

    def abandon(self) -> None:
        """End early and keep what streamed so far, as plain text."""
        if not self._streamed_any:
            return
        rest = self._sanitizer.finish()
        if self._live is not None:
            partial = self._view.text + rest
            self._stop_live()
            self._console.print(Text(partial), soft_wrap=True)
        else:
            self._write_plain(rest)
            self._end_line()
        self._reset()

    def drop(self) -> None:
        """End what streamed as no answer (see the module contract)."""
        if not self._streamed_any:
            return
        self._sanitizer.finish()
        if self._live is not None:
            self._stop_live()  # transient: the region is erased
        else:
            self._end_line()
        self._reset()

    def _add_live(self, shown: str) -> None:
        if self._live is None:
            self._live = Live(
                self._view,
                console=self._console,
                auto_refresh=False,
                transient=True,
                redirect_stdout=False,
                redirect_stderr=False,
            )
            self._live.start()
        self._view.text += shown
        now = self._clock()
        if now - self._last_refresh >= REFRESH_INTERVAL_SECONDS:
            self._last_refresh = now
            self._live.refresh()

    def _stop_live(self) -> None:
        if self._live is not None:
            self._live.stop()
            self._live = None

    def _write_plain(self, text: str) -> None:
        if text:
            self._console.print(Text(text), end="", soft_wrap=True)
            self._ends_with_newline = text.endswith("\n")

    def _end_line(self) -> None:
        if not self._ends_with_newline:
            self._write_plain("\n")

    def _reset(self) -> None:
        self._sanitizer = StreamSanitizer()
        self._view = _TailView()
        self._streamed_any = False
        self._ends_with_newline = True


def warm_up_answer_rendering() -> None:
    """Import what the first answer's Markdown needs (markdown-it and its plugins take a
    moment), so that cost is paid on a worker thread while the user types."""
    from rich.markdown import Markdown

    Markdown("warm *up*")


def _markdown(text: str) -> AnswerMarkdown:
    """The answer as Markdown, or as written where Markdown would hide part of it
    (`AnswerMarkdown`)."""
    return AnswerMarkdown(sanitize_block(text))


PLAIN_NOTE = "(shown as written: as Markdown, part of this answer would not show)"


class AnswerMarkdown:
    """The answer (sanitized) as Markdown when all of it shows that way
    (`markdown_check`); else as written, under a dim note that says why.

    rich's Markdown leaves out HTML, an image's address, a link's title, a fence's info
    past its language, link reference definitions and whatever lies past markdown-it's
    nesting limit: text the user never sees would still be in the history the model
    reads. Links are written out as `text (url)`, never made into terminal hyperlinks
    whose target the reader cannot see. Markdown is imported late: markdown-it costs time
    at start-up.
    """

    def __init__(self, text: str) -> None:
        self.text = text

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        from rich.markdown import Markdown

        parse = parse_answer(self.text)
        lines = None
        if not parse.hides:
            lines = render_defused_lines(console, Markdown(self.text, hyperlinks=False), options)
        if lines is None or not shows_expected(parse, lines):
            yield Text(PLAIN_NOTE, style="dim")
            yield Segment.line()
            lines = render_defused_lines(console, Text(self.text), options)
        for line in lines:
            yield from line
            yield Segment.line()
