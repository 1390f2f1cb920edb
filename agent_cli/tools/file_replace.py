"""How write_file and edit_file replace a file, and what the replacement does to it.

Contract: `write_atomically(workspace, path, data, shown)` writes `data` to a temp file
(`temp_name_for`: within a file name's byte limit however long the name is) made with
O_EXCL in the parent directory's descriptor, fsyncs it and renames it over
`path` (see `file_tools`). Before the rename the temp file is given what the old regular
file had, as far as the user agent-cli runs as may give it:
- its owner and group (`fchown`: both as root; otherwise the group when that user is in
  it, and the owner only when it is that user already);
- its extended attributes in the `user.` namespace and its access ACL
  (`system.posix_acl_access`); not `security.*` (file capabilities are dropped like
  setuid; an SELinux label is the folder's default) nor `trusted.*`;
- its permission bits without setuid and setgid: rewritten, a program must not keep
  running as its owner (the kernel clears them on a write by anyone but root; cp,
  editors and `install` do too).

What it cannot keep, and what a rename does anyway, is said twice, in the same words:
`predict_effects` (pure: the old file's `FileFacts` and the `Writer`) before the user
answers, for the question, and `write_atomically`'s own `Effects`, what happened, for the
result. Beside the above: a file read-only to the writer (0444, or another user's) is
replaced all the same, since a rename needs write permission on the folder only, and keeps
its mode; a file with other hard links is replaced under this name only, and the other
names keep the old content.

Why links are broken rather than written through: a write in place would give up the
guarantee that a crash never leaves half a file, and it would write into a file that may
lie outside the workspace (a hard link to a file elsewhere on the same file system).
"""

from __future__ import annotations

import contextlib
import grp
import os
import pwd
import secrets
import stat
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from agent_cli.errors import ToolError
from agent_cli.tools.workspace import Workspace

SPECIAL_BITS = stat.S_ISUID | stat.S_ISGID
KEPT_ATTRIBUTE_PREFIXES = ("user.", "system.posix_acl_access")
# The label SELinux gives a new file in the folder; not worth a word when it differs.
UNSAID_ATTRIBUTES = ("security.selinux",)
# A write whose target is a folder, refused with nothing written (`session.call_outcome`).
DIRECTORY_TEXT = "{shown} is a directory; give a file path."
NAME_MAX_BYTES = 255  # the longest name a Linux file system takes for one file

NameOf = Callable[[int], str]


@dataclass(frozen=True)
class FileFacts:
    """What a replacement may change of a regular file: its permission bits (with
    setuid, setgid and sticky), owner, group, link count, extended attribute names;
    `folder_gid`: the folder's group when the folder is setgid (a file made there gets
    it), else None."""

    mode: int
    uid: int
    gid: int
    links: int = 1
    attributes: tuple[str, ...] = ()
    folder_gid: int | None = None


@dataclass(frozen=True)
class Writer:
    """The user a write runs as: its effective uid, the group a file it makes gets (its
    effective gid) and every group it is in."""

    uid: int
    gid: int
    gids: frozenset[int]

    @classmethod
    def current(cls) -> Writer:
        gid = os.getegid()
        return cls(os.geteuid(), gid, frozenset({gid, *os.getgroups()}))

    @property
    def is_root(self) -> bool:
        return self.uid == 0


@dataclass(frozen=True)
class Effects:
    """What replacing a file does to it beyond its content (module contract); no field
    set means nothing worth a word. Owner and group are names, (before, after)."""

    cleared: tuple[str, ...] = ()
    owner: tuple[str, str] | None = None
    group: tuple[str, str] | None = None
    read_only: str = ""  # the mode as `ls` shows it, when the writer may not write to it
    writer: str = ""  # the writer's name, for a file read-only to it alone
    other_links: int = 0
    dropped: tuple[str, ...] = ()


def user_name(uid: int) -> str:
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return str(uid)


def group_name(gid: int) -> str:
    try:
        return grp.getgrgid(gid).gr_name
    except KeyError:
        return str(gid)


def predict_effects(
    facts: FileFacts, writer: Writer, name_user: NameOf = user_name, name_group: NameOf = group_name
) -> Effects:
    """What replacing a file with `facts` as `writer` will do to it (module contract)."""
    keeps_owner = writer.is_root or facts.uid == writer.uid
    new_gid = writer.gid if facts.folder_gid is None else facts.folder_gid
    keeps_group = writer.is_root or facts.gid in writer.gids or facts.gid == new_gid
    read_only = _read_only_mode(facts, writer)
    return Effects(
        cleared=cleared_bits(facts.mode),
        owner=None if keeps_owner else (name_user(facts.uid), name_user(writer.uid)),
        group=None if keeps_group else (name_group(facts.gid), name_group(new_gid)),
        read_only=read_only,
        writer=name_user(writer.uid) if read_only and facts.mode & 0o222 else "",
        other_links=facts.links - 1,
        dropped=tuple(name for name in facts.attributes if is_dropped_attribute(name)),
    )


def cleared_bits(mode: int) -> tuple[str, ...]:
    """The special bits a rewrite clears: ("setuid",), ("setuid", "setgid"), ()."""
    return tuple(
        name for bit, name in ((stat.S_ISUID, "setuid"), (stat.S_ISGID, "setgid")) if mode & bit
    )


def _read_only_mode(facts: FileFacts, writer: Writer) -> str:
    """The mode as `ls` shows it when `writer` may not write to the file itself, else "".
    Root may write to any file, so for root a file is read-only when no one may."""
    if writer.is_root:
        bit = 0o222
    elif facts.uid == writer.uid:
        bit = stat.S_IWUSR
    elif facts.gid in writer.gids:
        bit = stat.S_IWGRP
    else:
        bit = stat.S_IWOTH
    return "" if facts.mode & bit else stat.filemode(stat.S_IFREG | facts.mode)[1:]


def is_dropped_attribute(name: str) -> bool:
    """An extended attribute a replacement does not keep, and says so."""
    return not name.startswith(KEPT_ATTRIBUTE_PREFIXES) and name not in UNSAID_ATTRIBUTES


def describe_effects(effects: Effects, *, done: bool = False) -> list[str]:
    """The effects in words, one clause each: as the question says them (`clears its
    setuid bit`) or, `done`, as the result does (`cleared its setuid bit`)."""
    words = []
    if effects.cleared:
        bits = " and ".join(effects.cleared)
        plural = "s" if len(effects.cleared) > 1 else ""
        words.append(f"{'cleared' if done else 'clears'} its {bits} bit{plural}")
    words.extend(_ownership_words(effects, done))
    if effects.read_only:
        who = f"by {effects.writer} " if effects.writer else ""
        state = "was" if done else "is"
        if effects.writer:
            words.append(f"it {state} not writable {who}({effects.read_only}), only replaceable")
        else:
            words.append(f"it {state} read-only ({effects.read_only}) and stays so")
    if effects.other_links:
        count = effects.other_links
        links = "its other hard link" if count == 1 else f"its {count} other hard links"
        verb = "kept" if done else ("keeps" if count == 1 else "keep")
        words.append(f"{links} {verb} the old content")
    if effects.dropped:
        verb = "did not keep" if done else "does not keep"
        noun = "attribute" if len(effects.dropped) == 1 else "attributes"
        words.append(f"{verb} its extended {noun} {', '.join(effects.dropped)}")
    return words


def _ownership_words(effects: Effects, done: bool) -> list[str]:
    verb, plural = ("became", "became") if done else ("becomes", "become")
    if effects.owner and effects.group:
        (owner, new_owner), (group, new_group) = effects.owner, effects.group
        return [f"its owner and group {plural} {new_owner}:{new_group} (was {owner}:{group})"]
    if effects.owner:
        return [f"its owner {verb} {effects.owner[1]} (was {effects.owner[0]})"]
    if effects.group:
        return [f"its group {verb} {effects.group[1]} (was {effects.group[0]})"]
    return []


def effects_suffix(effects: Effects | None, *, done: bool = False) -> str:
    """`; clears its setuid bit; …` to end a description or a result's header, or ""."""
    words = describe_effects(effects, done=done) if effects is not None else []
    return "".join(f"; {clause}" for clause in words)


def read_facts_at(workspace: Workspace, path: Path, shown: str) -> FileFacts | None:
    """The facts of the regular file at `path` now, or None (nothing there, or not a
    regular file, or a folder on the way missing); nothing is followed."""
    try:
        parent = workspace.open_directory(path.parent, shown)
    except ToolError:
        return None
    try:
        old = _old_file(parent, path.name, shown)
    finally:
        os.close(parent)
    return None if old is None else old.facts


def _attribute_names(handle: int) -> tuple[str, ...]:
    """The extended attribute names of the file an O_PATH descriptor holds (through
    /proc: the f*xattr calls refuse such a descriptor); () where it cannot be listed."""
    try:
        return tuple(sorted(os.listxattr(f"/proc/self/fd/{handle}")))
    except OSError:
        return ()


def temp_name_for(name: str, token: str) -> str:
    """The hidden name a replacement of `name` is written under before its rename:
    `.<name>.agent-cli-<token>.tmp`, with `name` shortened (at a character's boundary)
    when the whole would pass `NAME_MAX_BYTES`, so a file whose own name is near that
    limit can still be replaced."""
    suffix = f".agent-cli-{token}.tmp"
    room = NAME_MAX_BYTES - len(suffix.encode()) - 1
    raw = os.fsencode(name)
    if len(raw) > room:
        name = raw[:room].decode("utf-8", "ignore")
    return f".{name}{suffix}"


def write_atomically(workspace: Workspace, path: Path, data: bytes, shown: str) -> Effects | None:
    """Replace `path` with `data` in one rename (module contract); what the replacement
    did to an existing file beyond its content, None for a new file.

    Everything happens relative to the parent directory's descriptor (made on the way
    when missing, never through a link), so the file lands in that very directory.
    """
    parent = workspace.open_directory(path.parent, shown, create_missing=True)
    try:
        old = _old_file(parent, path.name, shown)
        temp = temp_name_for(path.name, secrets.token_hex(6))
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
        descriptor = os.open(temp, flags, 0o666, dir_fd=parent)
        try:
            with os.fdopen(descriptor, "wb") as handle:
                effects = _carry_over(handle.fileno(), old) if old is not None else None
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(temp, path.name, src_dir_fd=parent, dst_dir_fd=parent)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temp, dir_fd=parent)
            raise
    finally:
        os.close(parent)
    return effects


@dataclass(frozen=True)
class _OldFile:
    facts: FileFacts
    attributes: dict[str, bytes]


def _old_file(parent: int, name: str, shown: str) -> _OldFile | None:
    """The file being replaced, with the values of the attributes to keep; None for a new
    file or one that is not regular (a FIFO is replaced by a plain new file)."""
    try:
        handle = os.open(name, os.O_PATH | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=parent)
    except FileNotFoundError:
        return None
    try:
        info = os.fstat(handle)
        if stat.S_ISDIR(info.st_mode):
            raise ToolError(DIRECTORY_TEXT.format(shown=shown))
        if not stat.S_ISREG(info.st_mode):
            return None
        names = _attribute_names(handle)
        folder = os.fstat(parent)
        folder_gid = folder.st_gid if folder.st_mode & stat.S_ISGID else None
        facts = FileFacts(
            stat.S_IMODE(info.st_mode), info.st_uid, info.st_gid, info.st_nlink, names, folder_gid
        )
        values = {}
        for attribute in names:
            if attribute.startswith(KEPT_ATTRIBUTE_PREFIXES):
                with contextlib.suppress(OSError):
                    values[attribute] = os.getxattr(f"/proc/self/fd/{handle}", attribute)
        return _OldFile(facts, values)
    finally:
        os.close(handle)


def _carry_over(descriptor: int, old: _OldFile) -> Effects:
    """Give the temp file `descriptor` what it may keep of `old` (module contract), in the
    order that keeps it: owner first (a chown clears the special bits), then the
    attributes (an ACL sets the group bits), then the mode; what happened."""
    facts = old.facts
    _keep_owner(descriptor, facts)
    kept = set()
    for attribute, value in old.attributes.items():
        with contextlib.suppress(OSError):
            os.setxattr(descriptor, attribute, value)
            kept.add(attribute)
    os.fchmod(descriptor, facts.mode & ~SPECIAL_BITS)
    now = os.fstat(descriptor)
    return replace(  # the prediction, with what the owner and attributes came to
        predict_effects(facts, Writer.current()),
        owner=None if now.st_uid == facts.uid else (user_name(facts.uid), user_name(now.st_uid)),
        group=None if now.st_gid == facts.gid else (group_name(facts.gid), group_name(now.st_gid)),
        dropped=tuple(
            name for name in facts.attributes if name not in kept and name not in UNSAID_ATTRIBUTES
        ),
    )


def _keep_owner(descriptor: int, facts: FileFacts) -> None:
    """Owner and group as they were where allowed; else the group alone; else neither."""
    for uid, gid in ((facts.uid, facts.gid), (-1, facts.gid)):
        try:
            os.fchown(descriptor, uid, gid)
            return
        except OSError:  # not allowed, or an id this user namespace does not map
            continue
