"""What the model last saw of each file, so that no write replaces changes it never saw.

Contract: `SeenFiles` holds, per resolved path, the fingerprint (`file_state`) of the
content the model last saw of that file: what `read_file` read (the whole file's
fingerprint, for a window of it too) or what `write_file` and `edit_file` wrote; and
per path as the model named it (`named`: the workspace path before links are followed,
`Workspace.named_path`), when that is another path, the fingerprint of what it last saw
under that name. `require_seen(path, now, shown, max_read_bytes, named)` runs when
`write_file` is prepared, before anyone is asked: it raises `FileChangedUnseen` (a
`ToolError` telling the model to read the file again) when the file at `path`, in state
`now`, is not what the model last saw there or under the name `named`: the user edited
it, a command or another program rewrote it, or it was swapped for something else (a
link to another file put in its place: the resolved path is then one the model never
saw, and only the name tells). So a write built from a stale copy is refused whatever
would have approved it (the question, an "always" answer, `--yes`), and nothing is
written. A name that was a link all along leads to what the model saw through it, and
its writes go through.

A file read_file cannot show (over `max_read_bytes`, its read cap; binary; unreadable)
could never be read again, and its writes would be refused for good: its refusal says so,
tells the model to look at it with bash, and itself counts as having seen the file as it
is now, so the next write replaces it unless it changes again. (Such a file over
`file_state.DIGEST_MAX_BYTES` is told by its inode and times, so a touch or chmod alone
makes this refusal; under it, by content, and they are no change.)

What is not checked: a file that does not exist now (a write creates it; nothing is
lost), and a file the model has not seen in this session (never read or written by this
toolbox, or forgotten, below): its write is asked about with a diff as before, and
`--yes` writes it. Each fingerprint noted (unless that path has it already) is told to
the listener `tell_each` set (the session records it in its transcript), and `restore` puts back those a resumed session's
transcript holds without telling them again (put back under the folder the tools run in
now, `seen_roots`, however the folder moved), so a file the user changed between two
runs is refused like one changed during a run. `edit_file` replaces its old text
in the file as it is, so it is never refused for being stale; what it wrote counts as
seen only when the file was as the model last saw it (or never seen): after an edit of a
file that had changed unseen, the model still has not seen that change, and a later
`write_file` is refused until it reads the file. Path and name are noted each by that
rule, so a name that led elsewhere than the model had seen stays stale.

Fingerprints are kept keyed (`KEYED`: an HMAC-SHA256 of the fingerprint under the key
the session gives with `use_key`, else one made for this run), and the listener hears
only keyed ones: a transcript's record of a small file is a SHA-256 of its bytes, and
with the rest of the file in the transcript (a `.env` with its password redacted) a plain
hash would let anyone holding the transcript test guesses of the password offline.
`restore` keys a plain fingerprint recorded before records were keyed.

Bounded: at most `MAX_SEEN_FILES` paths are kept; past that the one seen longest ago is
forgotten (treated as never seen). One session's calls run one at a time; this is not
shared between threads.

Why: a user who answered "always" for `notes.md`, then added a line in an editor, lost
that line to the model's next write_file, built from its copy of the file before the edit.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
from collections import OrderedDict
from collections.abc import Callable, Iterable
from pathlib import Path

from agent_cli.errors import ToolError
from agent_cli.tools.file_state import FileState, StateKind
from agent_cli.tools.output import format_size

MAX_SEEN_FILES = 10_000
KEYED = "hmac-sha256"  # the first part of a keyed fingerprint
# What `FileChangedUnseen` says, nothing having been written (`session.call_outcome`).
STALE_TEXT = (
    "{shown} changed since it was last read or written in this session (by the user, a "
    "command or another program); this write would replace what changed unseen, so "
    "nothing was written. Read it again with read_file, then write it again or use "
    "edit_file."
)
STALE_UNREADABLE_TEXT = (
    "{shown} changed since it was last read or written in this session (by the user, a "
    "command or another program); this write would replace what changed unseen, so "
    "nothing was written. read_file cannot show it ({why}): look at it with bash (head, "
    "tail, grep -n), then write it again. This refusal counts as having seen it as it is "
    "now: the next write_file replaces it unless it changes again."
)


class FileChangedUnseen(ToolError):
    """A write would replace a file that changed since the model last read or wrote it."""


Fingerprint = tuple[object, ...]
SeenListener = Callable[[Path, Fingerprint], None]


class SeenFiles:
    """Per path, the fingerprint of what the model last saw there (module contract)."""

    def __init__(self, limit: int = MAX_SEEN_FILES) -> None:
        self._limit = max(1, limit)
        self._seen: OrderedDict[Path, Fingerprint] = OrderedDict()  # keyed
        self._listener: SeenListener | None = None
        self._key = secrets.token_bytes(32)

    def use_key(self, key: bytes) -> None:
        """Key fingerprints with `key` (the session's, kept beside its transcripts) from
        now on; given before anything is noted or restored."""
        self._key = key

    def _keyed(self, fingerprint: Fingerprint) -> Fingerprint:
        """`fingerprint` keyed; one keyed already is kept as it is."""
        if len(fingerprint) == 2 and fingerprint[0] == KEYED:
            return fingerprint
        data = json.dumps(list(fingerprint), separators=(",", ":")).encode()
        return (KEYED, hmac.new(self._key, data, hashlib.sha256).hexdigest())

    def tell_each(self, listener: SeenListener) -> None:
        """From now on, call `listener(path, fingerprint)` for each fingerprint noted."""
        self._listener = listener

    def restore(self, seen: Iterable[tuple[Path, Fingerprint]]) -> None:
        """Take `seen` (oldest first) as what the model last saw, without telling anyone:
        what a resumed session's transcript recorded of an earlier run."""
        for path, fingerprint in seen:
            self._keep(path, self._keyed(fingerprint))

    def note_seen(self, path: Path, fingerprint: Fingerprint, named: Path | None = None) -> None:
        """The model has just read, or written, the content with `fingerprint` at `path`
        (through the name `named`, module contract); the listener hears of each path
        unless that is what was noted there already."""
        keyed = self._keyed(fingerprint)
        for each in _paths(path, named):
            known = self._seen.get(each)
            self._keep(each, keyed)
            if self._listener is not None and known != keyed:
                self._listener(each, keyed)

    def _keep(self, path: Path, fingerprint: Fingerprint) -> None:
        self._seen[path] = fingerprint
        self._seen.move_to_end(path)
        while len(self._seen) > self._limit:
            self._seen.popitem(last=False)

    def note_edited(
        self, path: Path, before: Fingerprint, after: Fingerprint, named: Path | None = None
    ) -> None:
        """An edit turned the content `before` into `after`: seen at `path` and under the
        name `named`, each unless the model had not seen `before` there (it changed since
        it last read or wrote it, or the name led to another file); then what it last saw
        there stays, and a later write is refused until it reads the file again."""
        for each in _paths(path, named):
            last = self._seen.get(each)
            if last is None or last == self._keyed(before):
                self.note_seen(each, after)

    def require_seen(
        self, path: Path, now: FileState, shown: str, max_read_bytes: int, named: Path | None = None
    ) -> None:
        """Raise `FileChangedUnseen` when `path`, in state `now`, is a file other than the
        one the model last saw there or under the name `named` (module contract); nothing
        to check for a path it never saw or where nothing is now. For a file read_file
        cannot show (over `max_read_bytes`, binary, unreadable) the refusal notes `now` as
        seen."""
        if now.kind is StateKind.ABSENT:
            return
        keyed = self._keyed(now.fingerprint)
        lasts = [self._seen.get(each) for each in _paths(path, named)]
        if all(last is None or last == keyed for last in lasts):
            return
        why = _why_unreadable(now, max_read_bytes)
        if why is None:
            raise FileChangedUnseen(STALE_TEXT.format(shown=shown))
        self.note_seen(path, now.fingerprint, named)
        raise FileChangedUnseen(STALE_UNREADABLE_TEXT.format(shown=shown, why=why))


def _paths(path: Path, named: Path | None) -> tuple[Path, ...]:
    """`path`, and `named` when the model named it by another path (through a link)."""
    return (path,) if named is None or named == path else (path, named)


def _why_unreadable(state: FileState, max_read_bytes: int) -> str | None:
    """Why read_file cannot show the file in `state` whole, or None when it can."""
    if state.kind is not StateKind.FILE:
        return "it is not a regular file"
    if state.size > max_read_bytes:
        return f"{format_size(state.size)}, over its {format_size(max_read_bytes)} read cap"
    if state.is_binary:
        return "it holds NUL bytes: binary"
    if not state.is_readable:
        return "it cannot be opened for reading"
    return None
