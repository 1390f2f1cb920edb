"""list_dir: one directory of the workspace, with the same ignore rules as grep.

Contract: entries that ripgrep would skip (`.gitignore`, `.ignore`, `.git/info/exclude`,
and the version-control, environment and cache folders no search enters) are left out
and counted, so a listing shows what the project holds, not `.hypothesis/` noise. A
directory is shown when ripgrep finds a file under it, or when no file lies under it at
all (empty, or folders of empty folders: nothing there for a rule to ignore). Symbolic
links are always shown with their target (marked when it leads out) and never followed.
Nothing inside `.git/` is ever listed. An error names no path that is not there
(`tools.echo`). A name's controls (an escape, a line feed) are written out as approvals
write them (`written_out.reveal_all`), so one entry never reads as two, or as another.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from agent_cli.errors import ToolError
from agent_cli.nofollow_open import DIRECTORY_FLAGS
from agent_cli.tools.context import PreparedCall, ToolContext
from agent_cli.tools.output import ToolResult, count_noun, format_size
from agent_cli.tools.ripgrep import RgRun, run_rg
from agent_cli.tools.state_folders import SKIPPED
from agent_cli.tools.workspace import SKIPPED_DIRECTORY_NAMES, Workspace
from agent_cli.written_out import reveal_all

VCS_DIRECTORY = ".git"
EMPTY_TREE_FOLDERS = 200  # folders `_holds_no_file` opens before it takes one as empty


def prepare_list_dir(context: ToolContext, arguments: dict[str, Any]) -> PreparedCall:
    raw = arguments.get("path", ".")
    resolved = context.workspace.resolve_inside(raw)
    shown = context.workspace.display(raw, resolved)
    refuse_inside_git(context.workspace, resolved)
    return PreparedCall(f"list {shown}", lambda: list_directory(context, resolved, shown))


def refuse_inside_git(workspace: Workspace, resolved: Path) -> None:
    """Version-control internals are not the project: neither grep nor list goes there.
    (The path is not repeated: it need not exist, and the answer is redacted.)"""
    if VCS_DIRECTORY in resolved.relative_to(workspace.root).parts:
        raise ToolError(
            f"That path is inside {VCS_DIRECTORY}/ (version-control internals); it is not "
            "listed or searched. Use bash with git commands to look at the history."
        )


def list_directory(context: ToolContext, path: Path, shown: str) -> ToolResult:
    """Directories first (with '/'), then files with sizes; symlinks show their target.

    The folder is opened from the held workspace root without following a link
    (`Workspace.open_directory`) and its entries are read and described through that
    descriptor, so a folder swapped for a link meanwhile is refused, never listed."""
    if not path.exists():
        raise ToolError("No such directory. List its parent to see what exists.")
    if not path.is_dir():
        raise ToolError(f"{shown} is a file, not a directory; use read_file.")
    visible, note = _names_with_unignored_files(context, path)
    descriptor = context.workspace.open_directory(path, shown)
    try:
        with os.scandir(descriptor) as scan:
            every = sorted(scan, key=lambda entry: (not _is_real_dir(entry), entry.name))
        entries = [entry for entry in every if _is_shown(entry, descriptor, visible)]
        cap = context.limits.list_max_entries
        lines = [
            _describe_entry(context.workspace, path, descriptor, entry) for entry in entries[:cap]
        ]
    finally:
        os.close(descriptor)
    return _render_listing(shown, every, entries, lines, cap, note)


def _render_listing(
    shown: str,
    every: list[os.DirEntry[str]],
    entries: list[os.DirEntry[str]],
    lines: list[str],
    cap: int,
    note: str,
) -> ToolResult:
    if len(entries) > cap:
        more = count_noun(len(entries) - cap, "more entry", "more entries")
        lines.append(f"[{more} not shown]")
    if len(every) > len(entries):
        lines.append(
            f"[{count_noun(len(every) - len(entries), 'ignored entry', 'ignored entries')} "
            "not shown (.gitignore, .git, "
            "environment and cache folders)]"
        )
    if note:
        lines.append(note)
    directories = sum(1 for entry in entries if _is_real_dir(entry))
    kinds = (
        f"{count_noun(directories, 'directory', 'directories')}, "
        f"{count_noun(len(entries) - directories, 'file')}"
    )
    header = f"Directory: {shown} ({kinds})"
    return ToolResult(
        header, "\n".join(lines), summary=count_noun(len(entries), "entry", "entries")
    )


def _is_real_dir(entry: os.DirEntry[str]) -> bool:
    return entry.is_dir(follow_symlinks=False)


def _names_with_unignored_files(context: ToolContext, path: Path) -> tuple[set[str] | None, str]:
    """Names directly in `path` that hold (or are) a file ripgrep does not ignore.

    None (with a note) when rg ran out of time: the listing then shows every entry."""
    relative = path.relative_to(context.workspace.root).as_posix()
    start = "./" if relative == "." else f"./{relative}/"
    run = RgRun()
    names: set[str] = set()
    lines = run_rg(
        ["--files", "--null", "--", start],
        context.workspace,
        run,
        timeout=context.limits.search_timeout_seconds,
    )
    pending = b""
    for chunk in lines:  # NUL ends each name; a name may hold a newline
        *complete, pending = (pending + chunk).split(b"\0")
        for listed in complete:
            names.add(listed.decode("utf-8", "surrogateescape")[len(start) :].split("/", 1)[0])
    if run.timed_out:
        seconds = context.limits.search_timeout_seconds
        return None, f"[ignore rules not applied: finding them took over {seconds:g} s]"
    return names, ""


def _is_shown(entry: os.DirEntry[str], folder: int, visible: set[str] | None) -> bool:
    if entry.name in SKIPPED_DIRECTORY_NAMES and _is_real_dir(entry):
        return False
    if visible is None or entry.is_symlink() or entry.name in visible:
        return True
    if _is_real_dir(entry):
        return _holds_no_file(folder, entry.name)
    return not entry.is_file(follow_symlinks=False)  # FIFOs, sockets: rg never lists them


def _holds_no_file(folder: int, name: str) -> bool:
    """True when no regular file lies anywhere under the folder `name` (of the folder open
    as `folder`): empty, or folders of empty folders (a fresh scaffold), which ripgrep
    cannot list and nothing ignores. Links are not followed; past `EMPTY_TREE_FOLDERS`
    folders, or where one cannot be read, it is taken as holding none (shown: listing it
    will say what is there)."""
    pending = [(folder, name)]
    opened: list[int] = []
    try:
        while pending:
            parent, child = pending.pop()
            if len(opened) >= EMPTY_TREE_FOLDERS:
                return True
            try:
                descriptor = os.open(child, DIRECTORY_FLAGS, dir_fd=parent)
            except OSError:
                return True
            opened.append(descriptor)
            with os.scandir(descriptor) as scan:
                for entry in scan:
                    if entry.is_file(follow_symlinks=False):
                        return False
                    if _is_real_dir(entry):
                        pending.append((descriptor, entry.name))
        return True
    finally:
        for descriptor in opened:
            os.close(descriptor)


def _describe_entry(
    workspace: Workspace, folder: Path, descriptor: int, entry: os.DirEntry[str]
) -> str:
    """One line for an entry of the folder open as `descriptor` (its stats go through it)."""
    name = reveal_all(entry.name)  # controls written out, as approvals write them
    if entry.is_symlink():
        target = os.readlink(entry.name, dir_fd=descriptor)
        label = _link_label(workspace, folder / target)
        return f"{name} -> {reveal_all(target)}{label}"
    if _is_real_dir(entry):
        if _is_state_folder(workspace, entry):
            return f"{name}/  [{SKIPPED}]"
        return f"{name}/"
    try:
        size = format_size(entry.stat(follow_symlinks=False).st_size)
    except OSError:  # gone since the folder was read: still listed, one entry never fails all
        size = "size unknown"
    return f"{name}  ({size})"


def _is_state_folder(workspace: Workspace, entry: os.DirEntry[str]) -> bool:
    """True for a folder agent-cli keeps for itself (`state_folders`): listed, marked,
    never entered."""
    try:
        return workspace.state_folders.is_one(entry.stat(follow_symlinks=False))
    except OSError:
        return False


def _link_label(workspace: Workspace, target: Path) -> str:
    """Where a link lands, as a label: outside the workspace, a loop, or nothing to say.

    The target is resolved only to label it, never opened. A loop (a -> b -> a) cannot be
    resolved (RuntimeError, or OSError ELOOP on newer Pythons): it is said so, and the
    rest of the folder is listed all the same."""
    try:
        landing = target.resolve(strict=False)
    except (RuntimeError, OSError):
        return " (a link loop: it cannot be resolved)"
    return "" if workspace.is_inside(landing) else " (outside the workspace)"
