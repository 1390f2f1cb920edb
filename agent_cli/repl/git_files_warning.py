"""The warnings an approval carries where git's files could make git run programs.

Why: git's read-only commands run programs their configuration names (`core.fsmonitor`,
`core.pager`, hooks, diff and filter drivers chosen by `.gitattributes`). The model asked,
as an ordinary edit, to add `fsmonitor = touch FSMONITOR_RAN; false` to `.git/config`;
nothing said what that could do, and after `p` for `git status` the next `git status` ran
it. Now such an answer holds only while git's files are unchanged (`tools.permissions`),
and the question says so when it is asked again; an edit or write of such a file says,
before it is approved, what it can do.

Contract: `build_git_changed_warning(changed)` is the warning for a call asked again
because the files changed since its "always" answer (`GitFilesChanged`): which answer,
which files (`MAX_FILES_NAMED` at most, the rest counted, controls written out), and that
they can make git run programs. `build_git_file_warning(shown, asked)` is the warning for
a write or edit of `shown`, a file git reads its programs from (the gate says which:
`PermissionRequest.writes_git_file`, from `is_git_program_file`, which also knows the
hooks folder and files the configuration names, `.githooks/...` included). With
`asked=False` (a call an "always" answer let through) neither advises an answer.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text

from agent_cli.repl.approval_question import describe_scope
from agent_cli.repl.safe_text import show_path
from agent_cli.tools.git_program_files import MAX_FILES_NAMED

if TYPE_CHECKING:
    from agent_cli.tools.permissions import GitFilesChanged

WARNING_STYLE = "bold red"
PROGRAMS_NAMED = "core.fsmonitor, core.pager, hooks, diff and filter drivers"
MAX_PATH_CHARS = 60


def build_git_changed_warning(changed: GitFilesChanged) -> Text:
    """The warning above a question asked again because git's files changed."""
    files = _listed(changed.files)
    answer = describe_scope(changed.scope)
    return Text(
        f"warning: asked again although you answered {answer}: git's configuration changed "
        f"since ({files}), and it can make git run programs ({PROGRAMS_NAMED}). "
        "Answer n unless you know what changed there.",
        style=WARNING_STYLE,
    )


def build_git_file_warning(shown: str, asked: bool = True) -> Text:
    """The warning for writing or editing `shown`, a file git reads (module contract)."""
    words = (
        f"warning: git reads {show_path(shown, MAX_PATH_CHARS)}, and what it says can make "
        f"git commands run programs ({PROGRAMS_NAMED}), even git status or git diff."
    )
    advice = " Answer n unless you expect this change there." if asked else ""
    return Text(words + advice, style=WARNING_STYLE)


def _listed(files: tuple[str, ...]) -> str:
    """`.git/config, sub/.gitattributes`; past `MAX_FILES_NAMED`, how many more."""
    shown = ", ".join(show_path(name, MAX_PATH_CHARS) for name in files[:MAX_FILES_NAMED])
    left = len(files) - MAX_FILES_NAMED
    return f"{shown} and {left:,} more" if left > 0 else shown or "its files"
