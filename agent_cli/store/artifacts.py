"""Content-addressed artifact store: big tool outputs kept whole, named by their sha256.

Layout: `<root>/<session_id>/tool-results/<sha256[:32]><suffix>`; the pointer is
`artifact:<session_id>:<name>:<full 64-hex sha256>`, so a pointer always names exactly the
bytes it was made for. Writes are atomic (temp file, fsync, rename, fsync of the folder)
and idempotent. Reads refuse symlinks and re-hash the whole file, streaming, before
handing back any byte: bytes changed after the pointer was made are never returned.
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from agent_cli.errors import (
    ArtifactUnavailable,
    ArtifactWriteFailed,
    InvalidStoreInput,
    SourcePointerError,
    SourceUnavailable,
    StoreFileNotRegular,
    UnknownSourceSchemeError,
)
from agent_cli.sources.files import open_beneath
from agent_cli.sources.pointers import parse_source_pointer
from agent_cli.store.artifact_removal import RESULTS_FOLDER, remove_session_artifacts
from agent_cli.store.fsutil import (
    DEFAULT_FILE_OPS,
    FileOps,
    ensure_private_dir,
    errno_name,
    open_regular_file,
    write_file_atomic,
)
from agent_cli.store.records import is_valid_session_id, require_session_id

DEFAULT_READ_LIMIT = 65536
_SUFFIX = re.compile(r"\.[a-z0-9]{1,8}")
_CHUNK = 1 << 20


@dataclass(frozen=True)
class ArtifactRef:
    """Where an artifact lives and the pointer that names it."""

    pointer: str
    name: str
    sha256: str
    size: int
    path: Path


@dataclass(frozen=True)
class ArtifactAddress:
    """The parts of an `artifact:<session_id>:<name>:<digest>` pointer."""

    session_id: str
    name: str
    digest: str


def parse_artifact_pointer(pointer: str) -> ArtifactAddress:
    """Split and check an artifact pointer; raise `ArtifactUnavailable` if it is not one.

    The grammar has one owner, `agent_cli.pointers.parse_source_pointer`. Reasons:
    "wrong_scheme" for a well-formed pointer of another scheme (transcript or unknown),
    "malformed_pointer" for anything that does not parse.
    """
    try:
        parsed = parse_source_pointer(pointer)
    except UnknownSourceSchemeError:
        raise ArtifactUnavailable("wrong_scheme") from None
    except SourcePointerError:
        raise ArtifactUnavailable("malformed_pointer") from None
    if not parsed.is_artifact or parsed.filename is None or parsed.digest is None:
        raise ArtifactUnavailable("wrong_scheme")
    return ArtifactAddress(parsed.session_id, parsed.filename, parsed.digest)


class ArtifactStore:
    """Artifacts under `root` (the state home). `fs` carries the disk operations."""

    def __init__(self, root: Path, fs: FileOps | None = None) -> None:
        self.root = Path(root)
        self._fs = fs or DEFAULT_FILE_OPS

    def delete_session(self, session_id: str) -> None:
        """Remove every artifact of `session_id` and its folder, if any, and nothing the
        store did not write (see `artifact_removal`): `SessionFolderKept` names what stays."""
        remove_session_artifacts(self.root, session_id)

    def put(self, session_id: str, data: bytes, suffix: str = ".txt") -> ArtifactRef:
        """Store `data` for `session_id` and return its reference.

        Same bytes, same name: if the file already holds them it is not rewritten. Raises
        `InvalidStoreInput` (bad id, suffix or data), `StateDirUnavailable`, or
        `ArtifactWriteFailed` after removing the temp file (no file at the final name
        then, and no pointer to partial bytes exists).
        """
        require_session_id(session_id)
        if not isinstance(suffix, str) or not _SUFFIX.fullmatch(suffix):
            raise InvalidStoreInput("suffix", "bad_suffix")
        if not isinstance(data, bytes | bytearray | memoryview):
            raise InvalidStoreInput("data", "not_bytes")
        data = bytes(data)
        digest = hashlib.sha256(data).hexdigest()
        name = f"{digest[:32]}{suffix}"
        folder = self._prepare_folder(session_id, name)
        ref = ArtifactRef(
            f"artifact:{session_id}:{name}:{digest}", name, digest, len(data), folder / name
        )
        if _digest_of_existing(ref.path) == digest:
            return ref
        try:
            write_file_atomic(ref.path, data, self._fs)
        except OSError as exc:
            raise ArtifactWriteFailed(name, errno_name(exc), session_id) from exc
        return ref

    def read_range(self, pointer: str, offset: int = 0, limit: int = DEFAULT_READ_LIMIT) -> bytes:
        """Up to `limit` bytes from `offset` of the artifact, after verifying its digest.

        The whole file is hashed in one streaming pass that also collects the range, so
        the bytes returned are the bytes that were verified. Raises `ArtifactUnavailable`
        ("missing", "symlink", "not_a_file", "digest_mismatch", "unreadable:<ERRNO>",
        or a pointer reason) and `InvalidStoreInput` for a negative offset or limit.
        """
        for field, value in (("offset", offset), ("limit", limit)):
            if type(value) is not int or value < 0:
                raise InvalidStoreInput(field, "not_a_non_negative_int")
        address = parse_artifact_pointer(pointer)
        fd = self._open_verified_path(address)
        with open(fd, "rb", buffering=0) as handle:
            actual, window = _hash_collecting(handle, offset, limit)
        if not actual.startswith(address.digest):
            raise ArtifactUnavailable("digest_mismatch")
        return window

    def path_for(self, session_id: str, name: str) -> Path:
        """Where an artifact named `name` of `session_id` is (or would be) stored."""
        if not is_valid_session_id(name):
            raise InvalidStoreInput("name", "bad_grammar")
        return self.root / require_session_id(session_id) / RESULTS_FOLDER / name

    # --- helpers ------------------------------------------------------------------------

    def _prepare_folder(self, session_id: str, name: str) -> Path:
        folder = self.root / session_id / RESULTS_FOLDER
        ensure_private_dir(folder, self._fs)
        for level in (self.root / session_id, folder):
            if os.path.islink(level):
                raise ArtifactWriteFailed(name, "ELOOP")
        return folder

    def _open_verified_path(self, address: ArtifactAddress) -> int:
        """Open the artifact beneath the root without following any link on the way.

        Each folder is opened relative to its parent with O_NOFOLLOW (`open_beneath`), so
        a folder swapped for a link between a check and the open cannot redirect the read.
        """
        try:  # the grammar check, no file touched
            self.path_for(address.session_id, address.name)
        except InvalidStoreInput:  # a reserved id: no session's artifacts live there
            raise ArtifactUnavailable("malformed_pointer") from None
        parts = [address.session_id, RESULTS_FOLDER, address.name]
        try:
            fd, _ = open_beneath(os.path.abspath(self.root), parts)
        except SourceUnavailable as exc:
            raise ArtifactUnavailable(_OPEN_REASONS.get(exc.reason, "missing")) from None
        return fd


# How `open_beneath` failures read as `ArtifactUnavailable` reasons.
_OPEN_REASONS = {
    "symlink": "symlink",
    "not_a_regular_file": "not_a_file",
    "permission": "unreadable:EACCES",
    "unreadable": "unreadable:EIO",
    "root_unreadable": "unreadable:EIO",
}


def _hash_collecting(handle: BinaryIO, offset: int, limit: int) -> tuple[str, bytes]:
    """Hash the whole stream; keep the bytes in [offset, offset + limit)."""
    hasher = hashlib.sha256()
    window = bytearray()
    position = 0
    end = offset + limit
    while chunk := handle.read(_CHUNK):
        hasher.update(chunk)
        if position < end and position + len(chunk) > offset:
            window += chunk[max(0, offset - position) : end - position]
        position += len(chunk)
    return hasher.hexdigest(), bytes(window)


def _digest_of_existing(path: Path) -> str | None:
    """The sha256 of a regular file already at `path`, or None if there is none."""
    try:
        fd = open_regular_file(path, os.O_RDONLY)
    except (OSError, StoreFileNotRegular):  # a FIFO there is replaced, never read
        return None
    with open(fd, "rb", buffering=0) as handle:
        hasher = hashlib.sha256()
        while chunk := handle.read(_CHUNK):
            hasher.update(chunk)
    return hasher.hexdigest()
