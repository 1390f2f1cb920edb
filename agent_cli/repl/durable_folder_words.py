"""The words for a resumed session's facts and pending items kept for another folder.

Contract: each function words one notice of `session.durable_folder` from its fields
(`folder`, `file`, `facts`, `pending`, and `ids` or `reason`), or the error `/facts bring`
raised (`DurableIdsClash`), on one line: where the items are, and what brings them here or
why nothing can. `describe_earlier_items` is the line `/facts` ends with while they wait.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from agent_cli.repl.safe_text import clip_line
from agent_cli.tools.output import count_noun

BRING = "/facts bring copies them here, under the same ids"


def describe_followed(fields: Mapping[str, object]) -> str:
    """`durable_followed`: the folder moved, its items came with it."""
    return (
        f"This session's folder was {_path(fields['folder'])} (moved or renamed since): its "
        f"{_items(fields)} came with it, under the same ids."
    )


def describe_elsewhere(fields: Mapping[str, object]) -> str:
    """`durable_elsewhere`: the items were kept for another folder; `/facts bring`."""
    return f"{_kept(fields, ' (not known to be this folder)')}: {BRING}."


def describe_elsewhere_one_shot(fields: Mapping[str, object], session_id: str | None) -> str:
    """`durable_elsewhere` in `-p`, where no command can follow."""
    resume = f"agent-cli --resume {clip_line(session_id, 80)}" if session_id else "agent-cli"
    return (
        f"{_kept(fields, ' (not known to be this folder)')}: run {resume} here and type "
        "/facts bring to copy them here, under the same ids."
    )


def describe_clash(fields: Mapping[str, object]) -> str:
    """`durable_clash`: this folder gave the same ids to items of its own."""
    ids = fields.get("ids")
    named = _ids(ids if isinstance(ids, list) else [])
    return (
        f"{_kept(fields, ' (this folder, moved or renamed)')}; they were not brought: this "
        f"folder gave {named} to items of its "
        "own (/facts lists them). Retype what still holds with /remember or /todo."
    )


def describe_not_brought(fields: Mapping[str, object]) -> str:
    """`durable_not_brought`: that memory file could not be read, or this one written."""
    return (
        f"This session's facts and pending items were kept for {_path(fields['folder'])} in "
        f"{_path(fields['file'])}; they could not be brought here "
        f"({clip_line(str(fields.get('reason')), 60)})."
    )


def describe_ids_clash(ids: Sequence[str]) -> str:
    """`DurableIdsClash` from `/facts bring`: nothing was brought."""
    return (
        f"not brought: this folder gave {_ids(ids)} to items of its own (/facts lists them); "
        "retype what still holds with /remember or /todo"
    )


def describe_earlier_items(folder: str, facts: int, pending: int, clashes: Sequence[str]) -> str:
    """The line `/facts` ends with while the session's earlier items wait elsewhere
    (`clashes`: their ids this folder gave to items of its own, when any)."""
    counts = _items({"facts": facts, "pending": pending})
    kept = f"not here: {counts} of this session, kept for {_path(folder)}"
    if clashes:
        return f"{kept}; not brought: this folder gave {_ids(clashes)} to items of its own"
    return f"{kept}: {BRING}"


def _kept(fields: Mapping[str, object], which: str) -> str:
    return (
        f"This session's {_items(fields)} were kept for {_path(fields['folder'])}{which}, "
        f"in {_path(fields['file'])}"
    )


def _items(fields: Mapping[str, object]) -> str:
    facts, pending = fields.get("facts"), fields.get("pending")
    facts = facts if type(facts) is int else 0
    pending = pending if type(pending) is int else 0
    return f"facts and pending items ({count_noun(facts, 'fact')}, " + (
        f"{count_noun(pending, 'pending item')})"
    )


def _ids(ids: Sequence[object]) -> str:
    shown = [clip_line(str(item_id), 40) for item_id in ids[:6]]
    more = f" and {len(ids) - 6:,} more" if len(ids) > 6 else ""
    return ", ".join(shown) + more if shown else "the same ids"


def _path(value: object) -> str:
    return clip_line(str(value), 300)
