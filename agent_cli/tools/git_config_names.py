"""What git's configuration files name that can make git run programs: included
configuration files, the hooks folder, the attributes file.

Why: a relative `core.hooksPath` (`.githooks`, husky's `.husky/_`) was taken from the
folder of the configuration file naming it (`ws/.git/.githooks`), while git takes it from
the top of the worktree, where it runs hooks (`ws/.githooks`): a changed hook there ran
after `p` for `git status` unasked, and an edit of it carried no warning.

Contract: `read_config_names(configs, bases, home)` reads each file of `configs` and the
files they include, and is a `ConfigNames`: every configuration file read, the hooks
folders (`core.hooksPath`) and attributes files (`core.attributesFile`) they name. Where
git takes a path from (git-config(1), githooks(5), checked against git 2.39 by
tests/test_tools_git_config_names.py):
- `include.path`, `includeIf.*.path`: relative to the folder of the file including it;
- `core.hooksPath`, `core.attributesFile`: relative to the top of the worktree (git runs
  hooks there and reads from there, wherever in the worktree it was started), or a bare
  repository's git folder: each of `bases` (the worktree tops and git folders known);
- every one: a leading `~/` from `home`.
At most `MAX_INCLUDES` included files are followed. The reading is loose (no `includeIf`
condition is judged, a value is read up to a comment): a file that hides a name from it
still changes as a whole when it changes. Not followed: `core.worktree` (a worktree top
only it names is not a base).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from agent_cli.tools.file_digest import read_small_text

MAX_INCLUDES = 64  # configuration files followed through include.path, in all

_SECTION = re.compile(r'^\s*\[\s*([A-Za-z0-9.-]+)(?:\s+"(?:[^"\\]|\\.)*")?\s*\](.*)$')
_ENTRY = re.compile(r"^\s*([A-Za-z][A-Za-z0-9-]*)\s*=\s*(.*?)\s*$")
_NAMING_KEYS = {
    ("include", "path"): "include",
    ("includeif", "path"): "include",
    ("core", "attributesfile"): "attributes",
    ("core", "hookspath"): "hooks",
}


@dataclass(frozen=True)
class ConfigNames:
    """The configuration files read (`configs`, those given first) and what they name,
    each path as named (normalised, links not resolved)."""

    configs: tuple[Path, ...]
    hooks_folders: tuple[Path, ...]
    attribute_files: tuple[Path, ...]

    def has(self, path: Path) -> bool:
        """True when `path` (resolved) is one of these files or lies in a hooks folder."""
        if any(_real(named) == path for named in (*self.configs, *self.attribute_files)):
            return True
        return any(path.is_relative_to(_real(folder)) for folder in self.hooks_folders)


def read_config_names(configs: list[Path], bases: list[Path], home: Path) -> ConfigNames:
    """The files `configs` name, followed through includes (module contract)."""
    queue, read = list(configs), list[Path]()
    hooks: list[Path] = []
    attributes: list[Path] = []
    while queue and len(read) < MAX_INCLUDES + len(configs):
        path = queue.pop(0)
        if path in read:
            continue
        read.append(path)
        for kind, value in _named_in_config(read_small_text(path) or ""):
            if kind == "include":
                queue.append(_placed(value, [path.parent], home)[0])
            else:
                found = hooks if kind == "hooks" else attributes
                found += [p for p in _placed(value, bases, home) if p not in found]
    return ConfigNames(tuple(read), tuple(hooks), tuple(attributes))


def _placed(value: str, bases: list[Path], home: Path) -> list[Path]:
    """Where a configured path stands: `~/` from `home`, an absolute one as written, a
    relative one from each of `bases` (none: nowhere known)."""
    if value.startswith("~/"):
        return [Path(os.path.normpath(home / value[2:]))]
    if os.path.isabs(value):
        return [Path(os.path.normpath(value))]
    return [Path(os.path.normpath(base / value)) for base in bases]


def _named_in_config(text: str) -> Iterator[tuple[str, str]]:
    """The (kind, value) pairs a configuration text names (`_NAMING_KEYS`)."""
    section = ""
    for line in text.splitlines():
        header = _SECTION.match(line)
        if header:
            section, line = header.group(1).lower(), header.group(2)
        entry = _ENTRY.match(line)
        kind = _NAMING_KEYS.get((section, entry.group(1).lower())) if entry else None
        if entry is None or kind is None:
            continue
        value = entry.group(2).split(" #")[0].split(" ;")[0].strip().strip('"')
        if value:
            yield kind, value


def _real(path: Path) -> Path:
    return Path(os.path.realpath(path))
