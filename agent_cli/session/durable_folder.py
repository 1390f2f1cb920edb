"""A resumed session's facts and pending items, when its folder moved or it goes on in another.

Contract: `follow_durable_folder(session, rebuilt)` runs once a resumed session has loaded
the memory of the folder it works in. The session kept its facts and pending items in the
memory file of `folder`: the one they were last brought into (`log.DURABLE_BROUGHT`), else
the one it started in. When that is another file than this folder's and it holds anything
(`durable.has_anything`):
- the same folder, moved or renamed (the (device, inode) the file was saved with, else
  the one the session's `file_seen` records give that folder, is this folder's; or
  `folder` now leads here, a link left at the old path): they are brought here and the
  earlier file removed (`DurableContext.bring_from`), said in one line (`durable_followed`);
- another folder (a copy), or one whose identity was never recorded: nothing is brought;
  one line says where they are and that `/facts bring` copies them here
  (`durable_elsewhere`);
- either, when this folder gave the same ids to items of its own (`DurableIdsClash`):
  nothing is brought, one line says where they are (`durable_clash`); a file that cannot
  be read or written, one line with the reason (`durable_not_brought`).
Whatever is not brought stays `DurableContext.earlier`: new ids go on past its ids.
A file holding no item but ids it forgot is brought, or kept as `earlier`, without a word.

Why: after `mv proj proj-renamed`, `--resume <id>` there went on with no facts and no
pending items, said nothing of them, and gave `F1` again to a new fact while the transcript
showed the first `F1`; the facts sat in the old path's memory file. A folder is matched by
its identity only here, where the session ties the two: alone, a deleted folder's inode
number may come back as an unrelated folder's.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from agent_cli.durable import has_anything
from agent_cli.errors import DurableIdsClash, StoreError
from agent_cli.events import Notice
from agent_cli.session.same_folder import is_same_folder
from agent_cli.store.folder_identity import Identity, folder_identity

if TYPE_CHECKING:
    from agent_cli.durable import DurableContextState
    from agent_cli.session.core import Session
    from agent_cli.session.log import RebuiltSession
    from agent_cli.store.memory import SavedMemory


def follow_durable_folder(session: Session, rebuilt: RebuiltSession) -> None:
    """Bring, or point at, the session's items kept for another folder (module contract)."""
    folder = rebuilt.durable_folder or rebuilt.workspace
    durable = session.durable
    if folder is None:
        return
    where = durable.memory.recorded_path_for(folder)
    if where == durable.memory.path_for(durable.workspace):
        return
    try:
        found = durable.memory.load_recorded(folder)
    except StoreError as error:
        session.announce(_not_brought(folder, where, error))
        return
    if found is None or not has_anything(found.state):
        return
    same = _is_this_folder(folder, found, _recorded_identities(rebuilt, folder), durable.workspace)
    fields = {"folder": folder, "file": str(where), **_counts(found.state)}
    if not same:
        durable.earlier = folder
        if not found.state.is_empty:
            session.announce(Notice("warning", "durable_elsewhere", fields))
        return
    try:
        durable.bring_from(folder, move=True)
    except DurableIdsClash as clash:
        durable.earlier = folder
        session.announce(Notice("warning", "durable_clash", {**fields, "ids": list(clash.ids)}))
        return
    except StoreError as error:
        durable.earlier = folder
        session.announce(_not_brought(folder, where, error))
        return
    if not found.state.is_empty:
        session.announce(Notice("info", "durable_followed", fields))


def _is_this_folder(
    folder: str, found: SavedMemory, recorded: tuple[Identity, ...], workspace: Path
) -> bool:
    """Whether `folder`, whose memory file is `found`, is `workspace` moved or renamed, or
    reached through a link (module contract)."""
    here = folder_identity(workspace)
    if found.identity is not None:
        return found.identity == here
    if here is not None and here in recorded:
        return True
    return is_same_folder(Path(folder), workspace)


def _recorded_identities(rebuilt: RebuiltSession, folder: str) -> tuple[Identity, ...]:
    """The (device, inode) the session's `file_seen` records give `folder`."""
    roots = (seen.root for seen in rebuilt.files_seen if seen.root is not None)
    return tuple(
        root.identity for root in roots if root.identity is not None and str(root.path) == folder
    )


def _counts(state: DurableContextState) -> dict[str, int]:
    return {"facts": len(state.facts), "pending": len(state.pending_items)}


def _not_brought(folder: str, where: Path, error: StoreError) -> Notice:
    """`durable_not_brought`, with the store's reason code (a damage, an errno name)."""
    reason = getattr(error, "reason", None) or getattr(error, "errno_name", None)
    fields = {"folder": folder, "file": str(where), "reason": str(reason or "unreadable")}
    return Notice("warning", "durable_not_brought", fields)
