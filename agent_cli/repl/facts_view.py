"""The `/facts` view: facts, pending items and retrieval evidence, each with its source.

Contract: like every view (`views`), `build_facts_view` turns values from the session into
a rich renderable and does nothing else; each item shows its source's status now, as the
durable block does (`durable.verification`: `changed` when its source no longer has the
digest it had when the item was made, said in words), and the number `/expand` takes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from rich.console import Group, RenderableType
from rich.text import Text

from agent_cli.durable.verification import CHANGED, item_source_status
from agent_cli.repl.error_text import describe_changed_source
from agent_cli.repl.pointer_forms import show_pointer
from agent_cli.repl.pointer_handles import PointerHandles, handle_label
from agent_cli.repl.safe_text import clip_line
from agent_cli.repl.views import status_text

if TYPE_CHECKING:
    from agent_cli.durable import DurableContextState, PendingItem
    from agent_cli.sources import SourceResolution


def _resolution_index(
    resolutions: Sequence[SourceResolution],
) -> dict[str, SourceResolution]:
    return {resolution.pointer: resolution for resolution in resolutions}


def _source_suffix(
    pointer: str,
    recorded: str | None,
    index: Mapping[str, SourceResolution],
    handles: PointerHandles | None,
) -> Text:
    """The item's source, its number and its status now; a source changed since the item
    was made says so in words (`durable.verification`)."""
    resolution = index.get(pointer)
    name = item_source_status(recorded, resolution) if resolution else None
    status = status_text(name) if name else Text("unresolved", style="dim")
    label = f" {handle_label(handles.number_for(pointer))}" if handles is not None else ""
    shown = show_pointer(pointer) if handles is not None else pointer
    suffix = Text.assemble(
        ("  · ", "dim"), (clip_line(shown, 120), "dim"), (label, "dim"), " ", status
    )
    if name == CHANGED:
        suffix.append(f" ({describe_changed_source(label.strip())})", style="red")
    return suffix


def describe_pending_status(item: PendingItem) -> Text:
    status = str(item.status)  # a StrEnum: its value
    if status == "blocked":
        return Text(f"[blocked: {clip_line(item.blocked_reason or '', 80)}]", style="yellow")
    return Text(f"[{clip_line(status, 12)}]", style="green" if status == "done" else "cyan")


def build_facts_view(
    state: DurableContextState,
    resolutions: Sequence[SourceResolution],
    handles: PointerHandles | None = None,
) -> Group:
    """Facts, pending items and retrieval evidence, each with its source's status now
    (and the number `/expand` takes for it, when `handles` numbers the pointers)."""
    index = _resolution_index(resolutions)
    parts: list[RenderableType] = [Text("facts", style="bold")]
    parts += [
        Text.assemble(
            f"  {clip_line(fact.fact_id, 40)}  ",
            clip_line(fact.content, 200),
            _source_suffix(fact.source_pointer, fact.evidence_sha256, index, handles),
        )
        for fact in state.facts
    ] or [Text("  none", style="dim")]
    parts.append(Text("pending", style="bold"))
    parts += [
        Text.assemble(
            f"  {clip_line(item.item_id, 40)}  ",
            describe_pending_status(item),
            " ",
            clip_line(item.description, 200),
            _source_suffix(item.source_pointer, item.evidence_sha256, index, handles),
        )
        for item in state.pending_items
    ] or [Text("  none", style="dim")]
    evidence = state.retrieval_evidence
    if evidence:
        parts.append(Text("retrieval evidence", style="bold"))
        parts += [
            Text(
                f"  {clip_line(ev.memory_id, 40)}  {clip_line(ev.source_title, 80)} "
                f"(score {ev.score:.2f}, rank {ev.source_rank}"
                + (f", conflict {clip_line(ev.conflict_key, 40)})" if ev.conflict_key else ")")
            )
            for ev in evidence
        ]
    return Group(*parts)
