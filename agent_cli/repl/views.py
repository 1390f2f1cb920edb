"""What the informational commands show: context, sources, expansions, sessions.

Contract: each `build_*` function turns values from the session into a rich renderable
and does nothing else (no session calls, no printing; a view given the REPL's
`PointerHandles` numbers the pointers it shows, as showing them is what numbers them). Every string from the session,
the model, files or tools is sanitized or clipped before it is shown, and always as
`Text`, never as markup (a plain string in a table cell would be read as markup).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.padding import Padding
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from agent_cli.durable.verification import CHANGED
from agent_cli.repl.error_text import (
    CHANGED_POINTER,
    describe_not_a_pointer,
    explain_resolution,
    is_not_a_pointer,
)
from agent_cli.repl.pointer_forms import shorten_artifact_pointer, show_pointer
from agent_cli.repl.pointer_handles import PointerHandles, handle_label
from agent_cli.repl.safe_text import clip_line, sanitize_block
from agent_cli.repl.tool_lines import classify_outcome
from agent_cli.tools.output import count_noun

if TYPE_CHECKING:
    from agent_cli.events import ContextPreview, ToolFinished
    from agent_cli.sources import SourceResolution, SourceResolutionStatus

STATUS_STYLES = {
    "available": "green",
    "missing": "yellow",
    "denied": "red",
    "corrupt": "red",
    "unsupported": "yellow",
    CHANGED: "red",
}
EXPAND_BY_NUMBER = "/expand <#> shows what a pointer holds, e.g. /expand 1"
SOURCES_GAP = 2  # cells between two columns of the `/sources` table
MEANING_ROOM = 20  # the least the meaning column gets before the table is given up


def status_text(status: SourceResolutionStatus | str) -> Text:
    """A source status in its colour (`STATUS_STYLES`)."""
    name = str(status)  # a StrEnum: its value
    return Text(clip_line(name, 20), style=STATUS_STYLES.get(name, ""))


def build_context_view(preview: ContextPreview, summary: str | None = None) -> Group:
    """What the next request would carry: system prompt, durable block, one line a message,
    and the last compaction summary whole (its message line alone is clipped)."""
    system = preview.system_prompt
    first_line = system.strip().splitlines()[0] if system.strip() else ""
    parts: list[RenderableType] = [
        Text.assemble(
            ("system prompt ", "bold"),
            f"{len(system):,} characters · ",
            (clip_line(first_line, 80), "dim"),
        )
    ]
    parts.append(build_project_instructions_line(preview))
    parts.append(build_window_line(preview))
    durable = sanitize_block(preview.durable_context).strip()
    parts.append(
        Panel(
            Text(durable) if durable else Text("(empty)", style="dim"),
            title="durable context",
            title_align="left",
            border_style="dim",
        )
    )
    lines = list(preview.message_lines)
    parts.append(Text(f"view: {count_noun(len(lines), 'message')}", style="bold"))
    parts.extend(Text("  " + clip_line(line, 200)) for line in lines)
    if summary:
        parts.append(build_summary_view(summary))
    return Group(*parts)


def build_project_instructions_line(preview: ContextPreview) -> Text:
    """Which file the requests carry as project instructions, and how big it is."""
    text = preview.project_instructions
    source = clip_line(preview.project_source or "none", 120)
    size = f" · {len(text):,} characters in each request" if text else ""
    return Text.assemble(("project instructions ", "bold"), source, (size, "dim"))


def build_window_line(preview: ContextPreview) -> Text:
    """The model's context window, what the next request takes of it, and what is free."""
    window = preview.context_window
    used = preview.request_tokens
    if window <= 0:
        return Text("context window unknown", style="dim")
    free = max(0, window - used)
    return Text.assemble(
        ("context window ", "bold"),
        f"{window:,} tokens · the next request about {used:,} · free {free:,} "
        f"({100 * free / window:.0f}%)",
    )


def pointer_order(pointer: str) -> tuple[int, str, int, str]:
    """Sort key that lists pointers as a person reads them: transcript pointers first, by
    session and then by sequence as a number (2 before 10), then artifacts, then the rest."""
    parts = pointer.split(":")
    if len(parts) == 3 and parts[0] == "transcript" and parts[2].isascii() and parts[2].isdigit():
        return (0, parts[1], int(parts[2]), "")
    if len(parts) == 4 and parts[0] == "artifact":
        return (1, parts[1], 0, parts[2])
    return (2, pointer, 0, "")


def build_sources_view(
    resolutions: Sequence[SourceResolution],
    handles: PointerHandles | None = None,
    shown: Mapping[str, str] | None = None,
) -> Group | SourcesView | Text:
    """Every pointer of the durable state with its status and what that means, in
    `pointer_order`; `shown`: each pointer's status as the durable state sees it
    (`durable.verification.source_statuses`: `changed` where an item's source no longer
    has the digest it had), else the resolution's. With `handles`, each with the number
    `/expand` takes for it first, and a line saying so below. Laid out at render time
    (`SourcesView`): a table while every pointer and status fits whole on its row, else one
    pointer per line."""
    if not resolutions:
        return Text("the durable state has no source pointers yet", style="dim")
    rows = [
        _source_row(resolution, handles, (shown or {}).get(resolution.pointer))
        for resolution in sorted(resolutions, key=lambda found: pointer_order(found.pointer))
    ]
    view = SourcesView(rows)
    if handles is None:
        return view
    return Group(view, Text(EXPAND_BY_NUMBER, style="dim"))


def _source_row(
    resolution: SourceResolution, handles: PointerHandles | None, shown: str | None
) -> SourceRow:
    pointer = resolution.pointer
    number = str(handles.number_for(pointer)) if handles else None
    if shown == CHANGED:
        return SourceRow(number, _shown_pointer(pointer, handles), CHANGED, CHANGED_POINTER)
    meaning = explain_resolution(str(resolution.status), str(resolution.reason))
    return SourceRow(number, _shown_pointer(pointer, handles), resolution.status, meaning)


def _shown_pointer(pointer: str, handles: PointerHandles | None) -> str:
    return clip_line(show_pointer(pointer) if handles else pointer, 160)


@dataclass(frozen=True)
class SourceRow:
    """One pointer as `/sources` shows it: its `/expand` number (None: not numbered), the
    pointer as shown, its status and what that means."""

    number: str | None
    pointer: str
    status: SourceResolutionStatus | str
    meaning: str


class SourcesView:
    """The `/sources` rows, fitted to the width they get. A table (`#`, pointer, status,
    meaning) while its pointer and status columns fit whole with room left for the
    meaning (`MEANING_ROOM`, or its longest word); else, on a narrow screen, each pointer
    on a line of its own (after its number) and, indented below it, its status and
    meaning: no pointer or status word is split over rows unless it is wider than the
    screen itself."""

    def __init__(self, rows: Sequence[SourceRow]) -> None:
        self.rows = tuple(rows)
        self.numbered = any(row.number is not None for row in self.rows)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        if options.max_width >= self.table_width():
            yield self.build_table()
        else:
            yield from self.build_stacked()

    def table_width(self) -> int:
        """The cells the table needs to keep every pointer and status whole."""
        meaning = max(cell_len(word) for row in self.rows for word in row.meaning.split() or [""])
        widths = [
            *([max(cell_len(row.number or "") for row in self.rows)] if self.numbered else []),
            max([cell_len(row.pointer) for row in self.rows] + [len("pointer")]),
            max([cell_len(status_text(row.status).plain) for row in self.rows] + [len("status")]),
            max(meaning, min(MEANING_ROOM, max(cell_len(row.meaning) for row in self.rows))),
        ]
        return sum(widths) + SOURCES_GAP * (len(widths) - 1)

    def build_table(self) -> Table:
        table = Table(box=None, padding=(0, SOURCES_GAP), show_edge=False)
        if self.numbered:
            table.add_column("#", no_wrap=True, style="dim")
        table.add_column("pointer", no_wrap=True, overflow="fold")
        table.add_column("status", no_wrap=True, overflow="fold")
        table.add_column("meaning", overflow="fold")
        for row in self.rows:
            number = [Text(row.number or "")] if self.numbered else []
            table.add_row(*number, Text(row.pointer), status_text(row.status), Text(row.meaning))
        return table

    def build_stacked(self) -> list[RenderableType]:
        """Per pointer: `<number>  <pointer>`, then `<status> · <meaning>` below the
        pointer."""
        width = max((cell_len(row.number or "") for row in self.rows), default=0)
        indent = width + SOURCES_GAP if self.numbered else SOURCES_GAP
        parts: list[RenderableType] = []
        for row in self.rows:
            number = (row.number or "").ljust(width + SOURCES_GAP) if self.numbered else ""
            parts.append(Text.assemble((number, "dim"), row.pointer, overflow="fold"))
            status = Text.assemble(status_text(row.status), " · ", row.meaning)
            parts.append(Padding(status, (0, 0, 0, indent)))
        return parts


def build_summary_view(text: str) -> Panel:
    """The last compaction summary, whole, in a panel (terminal controls made visible)."""
    return Panel(
        Text(sanitize_block(text)), title="last summary", title_align="left", border_style="dim"
    )


def build_expansion_view(resolution: SourceResolution) -> Group:
    """What a pointer leads to: its status, reason, digest and (when available) excerpt;
    for text that is no pointer at all, one line that says so and what to type."""
    status = str(resolution.status)
    if is_not_a_pointer(status, str(resolution.reason)):
        return Group(Text(describe_not_a_pointer(), style="yellow"))
    shown = clip_line(show_pointer(resolution.pointer), 160)
    header = Text.assemble(shown, " ", status_text(resolution.status))
    parts: list[RenderableType] = [header]
    if status != "available":
        parts.append(Text(explain_resolution(status, str(resolution.reason)), style="yellow"))
    digest = resolution.evidence_sha256
    if digest:
        parts.append(Text(f"sha256 {clip_line(digest, 64)}", style="dim"))
    excerpt = resolution.excerpt
    if excerpt:
        truncated = " (excerpt truncated)" if resolution.excerpt_truncated else ""
        parts.append(
            Panel(
                Text(sanitize_block(excerpt)),
                title=f"excerpt{truncated}",
                title_align="left",
                border_style="dim",
            )
        )
    elif status == "available":
        parts.append(Text("no excerpt to show", style="dim"))
    return Group(*parts)


def build_last_result_view(
    result: ToolFinished | None,
    whole_output: str | None = None,
    read_problem: str | None = None,
    handle: int | None = None,
) -> Group | Text:
    """The whole of what the last tool call returned (a `ToolFinished`). For a result
    stored as an artifact, `whole_output` is the artifact read back (the model got a
    head/tail preview of it); when it could not be read, `read_problem` says why and the
    preview is shown, marked as such. `handle` is the number of its pointer, if any."""
    if result is None:
        return Text("no tool has run in this session yet", style="dim")
    outcome = "done" if classify_outcome(result) == "ok" else "failed"  # exit 2 too
    output = result.output if whole_output is None else whole_output
    parts: list[RenderableType] = [
        Text.assemble(
            (clip_line(result.name, 40), "bold magenta"),
            f" {outcome}: ",
            clip_line(result.summary, 160),
        ),
        Text(sanitize_block(output) or "(no output)"),
    ]
    if result.artifact_pointer:
        parts.append(_stored_output_line(result.artifact_pointer, read_problem, handle))
    return Group(*parts)


def _stored_output_line(pointer: str, read_problem: str | None, handle: int | None) -> Text:
    """Where the whole output above came from, or why only its preview is shown."""
    label = f" {handle_label(handle)}" if handle is not None else ""
    shown = show_pointer(pointer) if handle is not None else shorten_artifact_pointer(pointer)
    shown = clip_line(shown, 200)
    if read_problem is None:
        return Text(f"the whole output, read back from {shown}{label}", style="dim")
    return Text(
        f"this is the head/tail preview the model got: the whole output ({shown}{label}) "
        f"could not be read back: {read_problem}",
        style="yellow",
    )
