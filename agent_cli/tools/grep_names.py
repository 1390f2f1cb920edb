"""The files grep leaves out as if absent: those whose name holds a secret.

Why (a fifth outside attack): grep's `glob` and rg's count of the files it searched are
answers about file names. A file whose relative path holds a secret (`cache/<token>.json`,
shown by list_dir as `[REDACTED].json`) let `glob: cache/ghp_Z[q]*.json` spell the token
out, one match (or one file searched) at a time. Such a file is therefore never searched,
listed or counted: rg is told to skip it by its exact path, after any glob of the model's,
so no glob and no pattern can tell its name. A path holding a line feed is left out the
same way: rg's output is read line by line, and such a name cannot be read back whole.

Contract: `listed_files(listing_args, workspace, timeout=...)` runs rg's own walk
(`--files`, with the caller's filters and start path) and returns the paths it lists;
`GrepNamesTimedOut` when the walk outlasted `timeout`: the caller must not search then,
since it cannot know which files to leave out. `exclusion_globs(listed, secrets)` returns
one `--glob=!...` option per listed file to leave out, to put after the caller's options
(none with no secrets); `is_left_out(path, secrets)` says whether one is.
`withheld_notes(listed, everything, secrets)` is what the answer says of them: how many
names hold a secret, counted in `everything` (the walk without the model's glob, so that
no glob can ask whether such a name matches it), and how many in `listed` hold a line
break; never which (a sixth finding of the fifteenth outside attack: "No matches (1 file
searched)" about a folder whose matching file was left out without a word).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from agent_cli.errors import ToolError
from agent_cli.secret_forms import SecretForms
from agent_cli.tools.ripgrep import RgRun, run_rg
from agent_cli.tools.workspace import Workspace

_GLOB_SPECIAL = re.compile(r"([^A-Za-z0-9/])")  # escaped: each stands for itself


class GrepNamesTimedOut(ToolError):
    """rg's walk to find the files to leave out did not end in time."""


def listed_files(listing_args: Sequence[str], workspace: Workspace, *, timeout: float) -> list[str]:
    """The files rg's own walk (`--files`, with the caller's filters and start path)
    would search, relative to the workspace root (`GrepNamesTimedOut` when it outlasts
    `timeout`)."""
    run = RgRun()
    output = b"".join(run_rg(["--files", "--null", *listing_args], workspace, run, timeout=timeout))
    if run.timed_out:
        raise GrepNamesTimedOut("the search took too long to list its files")
    paths = (raw.decode("utf-8", "surrogateescape") for raw in output.split(b"\0") if raw)
    return [path.removeprefix("./") for path in paths]


def exclusion_globs(listed: Sequence[str], secrets: SecretForms) -> list[str]:
    """`--glob=!/<path>` for each file of the walk (`listed_files`) whose path holds a
    secret or a line feed (module contract)."""
    return [f"--glob=!/{literal_glob(path)}" for path in listed if is_left_out(path, secrets)]


def is_left_out(path: str, secrets: SecretForms) -> bool:
    return "\n" in path or _holds_secret(path, secrets)


def withheld_notes(
    listed: Sequence[str], everything: Sequence[str], secrets: SecretForms
) -> list[str]:
    """One line for the names holding a secret (of `everything`), one for those holding
    a line break (of `listed`): see the module contract."""
    notes = []
    secret = sum(_holds_secret(path, secrets) for path in everything)
    if secret:
        files = "1 file" if secret == 1 else f"{secret:,} files"
        whose = "its name holds" if secret == 1 else "their names hold"
        notes.append(f"[{files} withheld: {whose} a secret; grep never searches or names it]")
    broken = sum("\n" in path and not _holds_secret(path, secrets) for path in listed)
    if broken:
        files = "1 file" if broken == 1 else f"{broken:,} files"
        whose = "its name holds" if broken == 1 else "their names hold"
        notes.append(f"[{files} not searched: {whose} a line break; use bash to search it]")
    return notes


def _holds_secret(path: str, secrets: SecretForms) -> bool:
    shown = path.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    return secrets.pattern is not None and secrets.pattern.search(shown) is not None


def literal_glob(path: str) -> str:
    """`path` as a glob that matches only itself."""
    return _GLOB_SPECIAL.sub(r"\\\1", path)
