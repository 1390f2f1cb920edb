"""Small file-system helpers shared by the stores.

Everything that can fail because the disk is full or broken goes through `FileOps`, so a
test can hand a store a fake that fails on purpose (ENOSPC, short writes, EIO on fsync)
instead of patching the store's internals, or record that the durability calls (fsync of
files and of directories) happen. The real implementation is a thin shell over `os`.

Privacy rule: directories the stores create are 0700 and files 0600, whatever the umask.

Opening rule: a store opens an existing file of its own through `open_regular_file`:
non-blocking (a FIFO put where a transcript or the memory file belongs would otherwise
hang agent-cli in `open` or `read`) and never through a link, then refuses with
`StoreFileNotRegular` whatever `fstat` says is not a regular file.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
from pathlib import Path

from agent_cli.errors import StateDirUnavailable, StoreFileNotRegular

PRIVATE_DIR_MODE = 0o700
PRIVATE_FILE_MODE = 0o600


class FileOps:
    """The disk operations a store needs; subclass and override to inject failures."""

    def write(self, fd: int, data: bytes) -> int:
        """Write once and return how many bytes the OS took (may be fewer than asked)."""
        return os.write(fd, data)

    def fsync(self, fd: int) -> None:
        os.fsync(fd)

    def ftruncate(self, fd: int, size: int) -> None:
        os.ftruncate(fd, size)

    def replace(self, source: Path, target: Path) -> None:
        os.replace(source, target)

    def fsync_dir(self, path: Path) -> None:
        """Flush a directory's entries (a file created or renamed in it) to disk."""
        fsync_dir(path)

    def open(self, path: Path, flags: int, mode: int = 0o777) -> int:
        """`os.open`; a seam so that tests can refuse access (EACCES) even as root."""
        return os.open(path, flags, mode)

    def mkdir(self, path: Path, mode: int) -> None:
        os.mkdir(path, mode)


DEFAULT_FILE_OPS = FileOps()


# Flags every store open carries: no link followed, no wait on a FIFO, no leak to children.
SAFE_OPEN_FLAGS = os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC


def open_regular_file(
    path: Path,
    flags: int,
    fs: FileOps = DEFAULT_FILE_OPS,
    mode: int = PRIVATE_FILE_MODE,
    *,
    follow_links: bool = False,
) -> int:
    """An fd for the regular file at `path`, opened with `flags | SAFE_OPEN_FLAGS`.

    The open itself cannot block (O_NONBLOCK) and a link is not followed (ELOOP) unless
    `follow_links` (for a file the user owns and may link, like the config file); what
    was opened is checked with `fstat`, and anything but a regular file is closed again
    and refused with `StoreFileNotRegular` (its kind, never its contents). The returned
    fd is blocking again, so reads and writes behave as on any file. `OSError` from the
    open propagates for the caller to word (ENOENT, ELOOP, EACCES ...).
    """
    safety = SAFE_OPEN_FLAGS & ~os.O_NOFOLLOW if follow_links else SAFE_OPEN_FLAGS
    fd = fs.open(path, flags | safety, mode)
    try:
        kind = file_kind(os.fstat(fd).st_mode)
        if kind != "regular":
            raise StoreFileNotRegular(str(path), kind)
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def file_kind(st_mode: int) -> str:
    """ "regular", "fifo", "directory", "socket", "device", "symlink" or "other"."""
    kinds = (
        (stat.S_ISREG, "regular"),
        (stat.S_ISFIFO, "fifo"),
        (stat.S_ISDIR, "directory"),
        (stat.S_ISSOCK, "socket"),
        (stat.S_ISCHR, "device"),
        (stat.S_ISBLK, "device"),
        (stat.S_ISLNK, "symlink"),
    )
    return next((name for test, name in kinds if test(st_mode)), "other")


def errno_name(exc: OSError) -> str:
    """The symbolic name of an OSError's errno ("ENOSPC"), or "EUNKNOWN" when it has none."""
    return errno.errorcode.get(exc.errno or 0, "EUNKNOWN")


def ensure_private_dir(path: Path, fs: FileOps = DEFAULT_FILE_OPS) -> Path:
    """Make sure `path` is a writable directory; create missing levels with mode 0700.

    Only the levels this call creates are chmod-ed to 0700 (the umask could have made them
    wider or narrower); directories that already existed belong to someone and are left
    alone. Raises `StateDirUnavailable` with an errno name or a reason code when the
    directory cannot be created, is not a directory (`_why_not_a_directory` says what it
    is), or is not writable.
    """
    target = Path(path).absolute()
    try:
        for level in reversed(_missing_levels(target)):
            _make_private_level(level, fs)
        is_directory = target.is_dir()
    except OSError as exc:  # looking failed (e.g. ENAMETOOLONG, EACCES): not usable either
        raise StateDirUnavailable(str(target), errno_name(exc)) from exc
    if not is_directory:
        raise StateDirUnavailable(str(target), _why_not_a_directory(target))
    if not os.access(target, os.W_OK | os.X_OK):
        raise StateDirUnavailable(str(target), _why_not_writable(target))
    return target


def _why_not_a_directory(target: Path) -> str:
    """What `target`, no directory, is instead: "ELOOP" for a symbolic link in a loop,
    "dangling_link" for one that leads to nothing, the errno name when it cannot be
    looked at otherwise, and "not_a_directory" for anything there (a file, a FIFO)."""
    try:
        os.stat(target)
    except FileNotFoundError:
        return "dangling_link"
    except OSError as exc:
        return errno_name(exc)
    return "not_a_directory"


def _why_not_writable(folder: Path) -> str:
    """ "EROFS" when `folder`'s file system is mounted read-only, else "not_writable":
    `os.access` says no without saying why, and no change of permissions (which
    "not_writable" asks for) makes a read-only file system writable, even for root."""
    try:
        read_only = bool(os.statvfs(folder).f_flag & os.ST_RDONLY)
    except OSError:
        return "not_writable"
    return "EROFS" if read_only else "not_writable"


def _missing_levels(target: Path) -> list[Path]:
    """The levels of `target` that do not exist yet, deepest first."""
    missing: list[Path] = []
    probe = target
    while not probe.exists() and probe.parent != probe:
        missing.append(probe)
        probe = probe.parent
    return missing


def _make_private_level(level: Path, fs: FileOps) -> None:
    try:
        fs.mkdir(level, PRIVATE_DIR_MODE)
    except FileExistsError:
        return  # made by someone else in the meantime: not ours to chmod
    except OSError as exc:
        raise StateDirUnavailable(str(level), errno_name(exc)) from exc
    os.chmod(level, PRIVATE_DIR_MODE)


def ensure_private_file(path: Path) -> None:
    """Create `path` empty with mode 0600 if missing; narrow an existing regular file of
    ours to 0600. A symbolic link is left alone (never followed); failures are ignored,
    since the file's only reader is the line editor, which then works without it."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | SAFE_OPEN_FLAGS, 0o600)
    except OSError:
        return
    try:
        info = os.fstat(fd)
        if stat.S_ISREG(info.st_mode) and info.st_uid == os.getuid() and info.st_mode & 0o077:
            os.fchmod(fd, PRIVATE_FILE_MODE)
    except OSError:
        pass
    finally:
        os.close(fd)


def fsync_dir(path: Path) -> None:
    """Flush a directory entry change (create, rename) to disk."""
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_all(fs: FileOps, fd: int, data: bytes) -> None:
    """Write every byte of `data`, resuming after short writes; a zero-byte write is ENOSPC."""
    offset = 0
    while offset < len(data):
        written = fs.write(fd, data[offset:])
        if written <= 0:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        offset += written


def write_file_atomic(path: Path, data: bytes, fs: FileOps = DEFAULT_FILE_OPS) -> None:
    """Replace `path` with `data` so a reader sees the old file or the new one, never half.

    Writes a private temp file in the same directory, fsyncs it, renames it over the
    target and fsyncs the directory. On any failure the temp file is removed and the
    `OSError` propagates (the caller turns it into its own typed error); the target is
    then exactly as it was.
    """
    temp = path.with_name(f".{path.name}.tmp-{secrets.token_hex(6)}")
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, PRIVATE_FILE_MODE)
    try:
        try:
            os.fchmod(fd, PRIVATE_FILE_MODE)
            write_all(fs, fd, data)
            fs.fsync(fd)
        finally:
            os.close(fd)
        fs.replace(temp, path)
    except BaseException:
        _remove_quietly(temp)
        raise
    fs.fsync_dir(path.parent)


def _remove_quietly(path: Path) -> None:
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)


def next_free_suffix_path(base: Path, label: str) -> Path:
    """The first `<base>.<label>-<n>` (n = 1, 2, ...) that does not exist yet."""
    n = 1
    while True:
        candidate = base.with_name(f"{base.name}.{label}-{n}")
        if not os.path.lexists(candidate):
            return candidate
        n += 1
