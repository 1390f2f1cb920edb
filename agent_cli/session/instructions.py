"""Project instructions: `AGENTS.md` (or `CLAUDE.md`) from the workspace root.

Contract: `load_project_instructions(workspace)` reads the first of `INSTRUCTION_FILES`
that exists there and returns `ProjectInstructions`; it never raises for the file. A
file that cannot be used (unreadable, not UTF-8, not a regular file, a link that leads
out of the workspace) gives instructions with no text and a `problem` code, which the
session reports once. A file over `MAX_INSTRUCTION_CHARS` keeps its head and says, in
the text the model sees, that the rest was left out and why.

The text goes into every request as its own system block, right after the base system
prompt and inside the cached prefix: it changes rarely, so it should cost cache reads,
not fresh input. It is not part of the prompt view, so no compaction layer and no durable
state ever touches it; it changes only when the session starts or `/reload` re-reads it.
A link that leads out of the workspace is refused: a cloned repository must not be able
to make the agent send, say, a credentials file to the API as "instructions".
"""

from __future__ import annotations

import codecs
import contextlib
import hashlib
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent_cli.errors import StoreError

INSTRUCTION_FILES = ("AGENTS.md", "CLAUDE.md")  # the first that exists is used
RECORD_KIND = "project_instructions"  # transcript record: which file, its digest, its size
MAX_INSTRUCTION_CHARS = 40_000
_READ_LIMIT_BYTES = MAX_INSTRUCTION_CHARS * 4 + 4  # enough for the cap in any UTF-8 text
PROBLEM_WORDS = {
    "unreadable": "could not be read",
    "not_utf8": "is not UTF-8 text",
    "not_a_file": "is not a regular file",
    "outside_workspace": "is a link that leads outside the workspace",
}


@dataclass(frozen=True)
class ProjectInstructions:
    """What was found. `text` is exactly what requests carry ("" when nothing is)."""

    source: str | None = None  # "AGENTS.md", "CLAUDE.md", or None when there is none
    text: str = ""
    size_bytes: int = 0  # of the file on disk
    truncated: bool = False
    sha256: str = ""  # of the file's bytes as read
    problem: str | None = None  # a PROBLEM_WORDS code when the file could not be used

    def describe_problem(self) -> str:
        """One line for the user: which file, what is wrong, what happens now."""
        words = PROBLEM_WORDS.get(self.problem or "", "could not be used")
        return (
            f"Project instructions: {self.source} {words}, so requests go without it. "
            "Fix the file and run /reload."
        )


def load_project_instructions(workspace: Path) -> ProjectInstructions:
    """The project instructions of `workspace`; see the module contract."""
    for name in INSTRUCTION_FILES:
        path = Path(workspace) / name
        try:
            os.lstat(path)
        except FileNotFoundError:
            continue
        except OSError:
            return ProjectInstructions(name, problem="unreadable")
        return _read_instructions(Path(workspace), name)
    return ProjectInstructions()


def _read_instructions(workspace: Path, name: str) -> ProjectInstructions:
    path = workspace / name
    try:
        real = path.resolve(strict=True)
        if not real.is_relative_to(workspace.resolve()):
            return ProjectInstructions(name, problem="outside_workspace")
        if not stat.S_ISREG(os.stat(real).st_mode):
            return ProjectInstructions(name, problem="not_a_file")
        # non-blocking: a FIFO swapped in after the check must not hang the start-up
        with open(os.open(real, os.O_RDONLY | os.O_NONBLOCK), "rb") as handle:
            if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                return ProjectInstructions(name, problem="not_a_file")
            data = handle.read(_READ_LIMIT_BYTES)
            size = os.fstat(handle.fileno()).st_size
    except (OSError, RuntimeError):  # RuntimeError: a link loop, on Python 3.11
        return ProjectInstructions(name, problem="unreadable")
    try:
        # incremental: a character cut at the read limit is held back, not an error
        text = codecs.getincrementaldecoder("utf-8")().decode(data, final=size <= len(data))
    except UnicodeDecodeError:
        return ProjectInstructions(name, problem="not_utf8")
    return _build(name, text, data, size)


def _build(name: str, text: str, data: bytes, size: int) -> ProjectInstructions:
    from agent_cli.prompts import load_prompt

    text = text.strip()
    truncated = size > len(data) or len(text) > MAX_INSTRUCTION_CHARS
    body = text[:MAX_INSTRUCTION_CHARS]
    if truncated:
        body += (
            f"\n\n[{name} is {size:,} bytes, longer than the {MAX_INSTRUCTION_CHARS:,} "
            "characters carried here; the rest is left out. Read the file for it.]"
        )
    header = load_prompt("project_instructions").replace("{source}", name)
    return ProjectInstructions(
        source=name,
        text=f"{header}\n{body}" if body else "",
        size_bytes=size,
        truncated=truncated,
        sha256=hashlib.sha256(data).hexdigest(),
    )


def adopt_project_instructions(session: Any, found: ProjectInstructions) -> None:
    """Carry `found` in the session's requests from now on, and note in the transcript
    which file (by digest and size) the requests carry. The note is bookkeeping: a disk
    that refuses it does not stop the session."""
    session.project_instructions = found
    if found.source is None:
        return
    with contextlib.suppress(StoreError):
        session.log.append(
            RECORD_KIND,
            {
                "source": found.source,
                "sha256": found.sha256,
                "size_bytes": found.size_bytes,
                "truncated": found.truncated,
                "problem": found.problem,
            },
        )
