"""The variables a workspace keeps in dotenv files, read at start so tools redact them.

A project's `.env` is where its keys live most often, and agent-cli's environment may
not hold them: without this, `read_file .env` or `cat .env` would send every value.

Contract: `read_workspace_dotenv(workspace)` reads the dotenv files at the workspace
root and in its folders one level down (`DOTENV_FOLDERS_READ` at most; none whose name
starts with `.`, none in `SKIPPED_FOLDERS`): files named `.env`, `.env.<name>`,
`<name>.env` or `.envrc`, but not templates (`.env.example`, `.sample`, `.template`,
`.dist`, `.defaults`), whose values are placeholders. Each is opened without blocking
and read only when it is a regular file of at most `MAX_DOTENV_BYTES`; one that cannot
be read is skipped, never an error. It returns one `DotenvFile` per file read: its path
relative to the workspace and its `NAME=value` pairs (`export NAME=value` too; values
single- or double-quoted, a double-quoted one over several lines; `#` comments), a
later line winning. `tools.redaction.find_secrets` picks the secrets among them by the
environment's rule.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

MAX_DOTENV_BYTES = 262_144
DOTENV_FOLDERS_READ = 200
SKIPPED_FOLDERS = frozenset({"node_modules", "venv", "__pycache__", "site-packages"})
TEMPLATE_SUFFIXES = (".example", ".sample", ".template", ".dist", ".defaults", ".tmpl")
_ASSIGNMENT = re.compile(r"\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_.-]*)\s*=\s*(.*)")


@dataclass(frozen=True)
class DotenvFile:
    """One dotenv file: its path relative to the workspace, and its variables."""

    path: str
    variables: dict[str, str]


def read_workspace_dotenv(workspace: Path) -> tuple[DotenvFile, ...]:
    """The workspace's dotenv files and their variables (module contract)."""
    found = []
    for path in _dotenv_files(workspace):
        text = _read_small_regular_file(path)
        if text is not None:
            shown = path.relative_to(workspace).as_posix()
            found.append(DotenvFile(shown, dict(parse_dotenv(text))))
    return tuple(found)


def is_dotenv_name(name: str) -> bool:
    """A dotenv file's name that is no template (module contract)."""
    if name.lower().endswith(TEMPLATE_SUFFIXES):
        return False
    return name in (".env", ".envrc") or name.startswith(".env.") or name.endswith(".env")


def parse_dotenv(text: str) -> Iterator[tuple[str, str]]:
    """The `NAME=value` pairs of a dotenv text, in order (module contract)."""
    lines = iter(text.splitlines())
    for line in lines:
        matched = _ASSIGNMENT.fullmatch(line)
        if matched is None:
            continue
        name, value = matched[1], matched[2].strip()
        if value[:1] in ("'", '"'):
            value = _quoted_value(value, lines)
        else:
            value = re.split(r"\s+#", value, maxsplit=1)[0].strip()
        yield name, value


def _quoted_value(start: str, lines: Iterator[str]) -> str:
    """A quoted value from its opening quote on; a double-quoted one may go on over the
    following lines (a PEM key) until its closing quote."""
    quote, text = start[0], start[1:]
    while quote not in text:
        following = next(lines, None)
        if following is None or quote == "'":
            return text
        text += "\n" + following
    value = text[: text.index(quote)]
    return value.replace("\\n", "\n") if quote == '"' else value


def _dotenv_files(workspace: Path) -> Iterator[Path]:
    folders = 0
    for entry in _entries(workspace):
        if entry.name.startswith(".") or entry.name in SKIPPED_FOLDERS:
            if is_dotenv_name(entry.name):
                yield Path(entry.path)
            continue
        if _is_folder(entry) and folders < DOTENV_FOLDERS_READ:
            folders += 1
            inner = _entries(Path(entry.path))
            yield from (Path(each.path) for each in inner if is_dotenv_name(each.name))
        elif is_dotenv_name(entry.name):
            yield Path(entry.path)


def _entries(folder: Path) -> list[os.DirEntry[str]]:
    try:
        with os.scandir(folder) as listing:
            return sorted(listing, key=lambda entry: entry.name)
    except OSError:
        return []


def _is_folder(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir(follow_symlinks=False)
    except OSError:
        return False


def _read_small_regular_file(path: Path) -> str | None:
    """The text of `path` if it is a regular file of at most `MAX_DOTENV_BYTES` (a FIFO
    or a device is never waited on), else None."""
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        status = os.fstat(descriptor)
        if not stat.S_ISREG(status.st_mode) or status.st_size > MAX_DOTENV_BYTES:
            return None
        data = os.read(descriptor, MAX_DOTENV_BYTES + 1)
    except OSError:
        return None
    finally:
        os.close(descriptor)
    return data.decode("utf-8", errors="replace")
