"""A resumed session's facts and pending items kept for another folder than the one it is in.

Contract: `note_durable_elsewhere(session, rebuilt)` runs once a resumed session has loaded
the memory of the folder it works in. The session kept its items in the memory files of
the folders `rebuilt.durable_folders` names (the one it started in, each one a change was
saved to). For each of those whose file is another than this folder's and holds anything
(`durable.has_anything`):
- it joins `DurableContext.earlier`: new ids go on past its ids, and `/facts bring` copies
  its items here (`DurableContext.bring_earlier`);
- when it holds facts or pending items this folder does not hold alike, one line says where
  they are kept and that `/facts bring` copies them here (`durable_elsewhere`), or, when
  this folder gave some of their ids to items of its own, which ids keep them apart
  (`durable_clash`);
- a file that cannot be read: one line with the store's reason (`durable_not_brought`).
No file is moved, merged or removed here, whatever the folders' device and inode numbers
or the session's `file_seen` records say.

Why: a resume that took the folder's identity for proof and moved the memory file leaked
one client's facts into an unrelated folder that reused a deleted folder's inode, took the
file from under a session still running at the old path, and lost the facts of a folder
moved and moved back. Telling the user, and copying when asked, cannot do any of that.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from agent_cli.durable import has_anything, items_elsewhere
from agent_cli.errors import MemoryFileDamaged, StateDirUnavailable
from agent_cli.events import Notice

if TYPE_CHECKING:
    from agent_cli.durable import DurableContextState, ItemsElsewhere
    from agent_cli.session.core import Session
    from agent_cli.session.log import RebuiltSession


def note_durable_elsewhere(session: Session, rebuilt: RebuiltSession) -> None:
    """Point at the session's items kept for other folders (module contract)."""
    durable = session.durable
    files = {durable.memory.path_for(durable.workspace)}
    for folder in rebuilt.durable_folders:
        where = durable.memory.recorded_path_for(folder)
        if where in files:
            continue
        files.add(where)
        try:
            held = durable.memory.load_recorded(folder)
        except (MemoryFileDamaged, StateDirUnavailable) as error:
            session.announce(_unreadable(folder, where, error))
            continue
        if held is None or not has_anything(held):
            continue
        durable.earlier = (*durable.earlier, folder)
        found = items_elsewhere(folder, held, durable.state)
        if not found.waiting.is_empty:
            session.announce(_kept_elsewhere(found, where))


def _kept_elsewhere(found: ItemsElsewhere, where: Path) -> Notice:
    """`durable_elsewhere`, or `durable_clash` with the ids that keep the items apart."""
    fields: dict[str, object] = {"folder": found.folder, "file": str(where)}
    fields.update(_counts(found.waiting))
    if found.clashes:
        return Notice("warning", "durable_clash", {**fields, "ids": list(found.clashes)})
    return Notice("warning", "durable_elsewhere", fields)


def _counts(state: DurableContextState) -> dict[str, int]:
    return {"facts": len(state.facts), "pending": len(state.pending_items)}


def _unreadable(folder: str, where: Path, error: MemoryFileDamaged | StateDirUnavailable) -> Notice:
    """`durable_not_brought`, with the store's reason code (a damage, an errno name)."""
    fields = {"folder": folder, "file": str(where), "reason": error.reason}
    return Notice("warning", "durable_not_brought", fields)
