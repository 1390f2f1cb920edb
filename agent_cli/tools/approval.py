"""What a user approves when a tool writes: the whole new content, or the exact change.

Contract: `Approval` is the full text a permission question must show, never shortened
here (the REPL decides how to fit it on the screen, and must let the user see all of
it). `kind` says how to read it: `CONTENT` for a new file's text, `DIFF` for a unified
diff (stdlib `difflib`, matched by `LineMatcher`) of a file's old and new text, `COMMAND` for a shell command. A
prompt that said only "create setup.sh with 2 lines" let a hostile model slip
`curl ... | sh` past a user who approved what the screen showed.
A diff splits lines at `\\n` alone and marks a last line without one (`\\ No newline at
end of file`, as `diff -u` does), so a change of a CR, VT, NEL or U+2028 (which the view
writes out) or of the final newline is a change in the diff: split at every separator
`str.splitlines` knows, a CR turned into a line feed showed as an empty diff. A diff of
identical texts is empty; a diff of texts that differ never is, even where the change is
in text the diff hides (secrets) or cannot decode (bytes that are not UTF-8): `note`
then says so, as it says when an overwrite changes the file's encoding (a UTF-16 file is
diffed as read_file shows it, decoded, and written as UTF-8), which no diff of the texts
shows: an empty diff then means the same text in new bytes. `hidden_added_lines` numbers the added lines that show a secret's text as
`REDACTED_MARK` (1-based, as the view numbers the diff's lines), so the question can say
that what it asks about is partly unseen: a workspace `.env` value that was shell code,
written into `build.sh`, showed as `+[REDACTED]` and was approved blind.
`literal_mark_lines` numbers the lines whose own text holds `REDACTED_MARK` (the added
lines of a diff; every line of a content or a command), so the question can say those
ten characters are what is written, not a hidden value: a model that read `.env` as
`API_KEY=[REDACTED]` and copied it into `.env.production` was drawn exactly like a hidden
key, and the user approved a file holding the mark (session 26).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from enum import Enum
from pathlib import Path

from agent_cli.errors import ToolError
from agent_cli.secret_forms import NO_SECRETS, REDACTED_MARK, SecretForms
from agent_cli.secret_lines import hide_in_lines
from agent_cli.tools.line_matcher import LineMatcher
from agent_cli.tools.text_source import UNDECODABLE, UTF8, ShownText, read_shown_text
from agent_cli.tools.workspace import Workspace

# An old file bigger than this is not diffed: its new content is shown instead.
MAX_DIFF_SOURCE_BYTES = 2 * 1024 * 1024
DIFF_CONTEXT_LINES = 3
NO_NEWLINE_MARK = "\\ No newline at end of file"
HIDDEN_CHANGE_NOTE = "some of the change is in text shown as [REDACTED]"
# A diff of the texts cannot show that the bytes change encoding: a UTF-16 file is diffed
# decoded (as read_file shows it), and write_file writes UTF-8.
ENCODING_NOTE = "the file is {codec} text with a byte-order mark; the write makes it UTF-8"


class ApprovalKind(Enum):
    CONTENT = "content"
    DIFF = "diff"
    COMMAND = "command"


@dataclass(frozen=True)
class Approval:
    """The text the user must see before saying yes, and how to read it; `note`, what
    the text cannot show and the user must know (a change in hidden text, bytes that are
    not UTF-8 and will be replaced), "" when nothing; `hidden_added_lines` and
    `hidden_removed_lines`, the numbers (1-based, in `text`) of the added and of the
    removed lines of a diff that show secret text as `REDACTED_MARK`, in order."""

    kind: ApprovalKind
    text: str
    note: str = ""
    hidden_added_lines: tuple[int, ...] = ()
    hidden_removed_lines: tuple[int, ...] = ()
    literal_mark_lines: tuple[int, ...] = ()  # (module doc) lines holding the mark as text


def build_content_approval(content: str) -> Approval:
    return Approval(ApprovalKind.CONTENT, content, literal_mark_lines=_holding_mark(content))


def build_command_approval(command: str) -> Approval:
    return Approval(ApprovalKind.COMMAND, command, literal_mark_lines=_holding_mark(command))


def _holding_mark(text: str) -> tuple[int, ...]:
    """The numbers (1-based, lines split at `\n` as the view splits them) of the lines of
    `text` that hold `REDACTED_MARK`."""
    if REDACTED_MARK not in text:
        return ()
    return tuple(at + 1 for at, line in enumerate(text.split("\n")) if REDACTED_MARK in line)


def build_diff_approval(
    old: str, new: str, shown: str, secrets: SecretForms = NO_SECRETS
) -> Approval:
    """A unified diff from `old` to `new`, labelled with the file's workspace path. Which
    lines changed is decided on the real texts; the lines are shown with the secrets of
    either text as `REDACTED_MARK`, line by line as read_file shows them (`secret_lines`:
    a context line or a changed line beside a key puts it on the screen otherwise). A
    changed line that reads the same once hidden gets the note `HIDDEN_CHANGE_NOTE`,
    so a change made inside a secret is never shown as no change; an added or a removed
    line that shows hidden text is counted in `hidden_added_lines` or
    `hidden_removed_lines`, and an added line whose own text holds the mark in
    `literal_mark_lines`."""
    label = shown.replace("\n", "^J")  # the view writes out every other control
    real_old, real_new = _lines_with_ends(old), _lines_with_ends(new)
    shown_old = _lines_with_ends(_with_secrets_hidden(old, secrets))
    shown_new = _lines_with_ends(_with_secrets_hidden(new, secrets))
    matcher = LineMatcher(real_old, real_new)
    lines: list[str] = []
    hidden = False
    hidden_added: list[int] = []  # indices in `lines`
    hidden_removed: list[int] = []
    literal_added: list[int] = []
    for group in matcher.get_grouped_opcodes(DIFF_CONTEXT_LINES):
        if not lines:
            lines += [f"--- {label} (now)\n", f"+++ {label} (after)\n"]
        lines.append(_hunk_header(group))
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                lines += [" " + line for line in shown_old[i1:i2]]
                continue
            removed, added = shown_old[i1:i2], shown_new[j1:j2]
            hidden = hidden or _reads_the_same(real_old[i1:i2], removed, real_new[j1:j2], added)
            hidden_removed += _hidden_at(len(lines), real_old[i1:i2], removed)
            lines += ["-" + line for line in removed]
            hidden_added += _hidden_at(len(lines), real_new[j1:j2], added)
            literal_added += [
                len(lines) + at for at, line in enumerate(real_new[j1:j2]) if REDACTED_MARK in line
            ]
            lines += ["+" + line for line in added]
    note = HIDDEN_CHANGE_NOTE if hidden else ""
    added_numbers = _numbers_once_ended(lines, hidden_added)
    removed_numbers = _numbers_once_ended(lines, hidden_removed)
    text = "\n".join(_ended(lines))
    literal_numbers = _numbers_once_ended(lines, literal_added)
    return Approval(ApprovalKind.DIFF, text, note, added_numbers, removed_numbers, literal_numbers)


def _hidden_at(first: int, real: list[str], shown: list[str]) -> list[int]:
    """The indices, from `first` on, of the lines of `shown` that differ from `real`: they
    show a secret's text as `REDACTED_MARK`."""
    return [
        first + at for at, pair in enumerate(zip(real, shown, strict=True)) if pair[0] != pair[1]
    ]


def _numbers_once_ended(diff_lines: list[str], indices: list[int]) -> tuple[int, ...]:
    """The 1-based numbers that the lines at `indices` of `diff_lines` get in the text
    `_ended` makes of them: each line before one without its `\n` is followed by
    `NO_NEWLINE_MARK`, which takes a number of its own."""
    numbers, marks, position = [], 0, 0
    for index in indices:
        while position < index:
            marks += not diff_lines[position].endswith("\n")
            position += 1
        numbers.append(index + marks + 1)
    return tuple(numbers)


def _reads_the_same(
    real_removed: list[str], removed: list[str], real_added: list[str], added: list[str]
) -> bool:
    """True when a removed line and an added line read the same as shown, though their
    real texts differ: the change between them is in hidden text."""
    real_by_shown: dict[str, set[str]] = {}
    for real, shown in zip(real_removed, removed, strict=True):
        real_by_shown.setdefault(shown, set()).add(real)
    return any(
        shown in real_by_shown and real_by_shown[shown] - {real}
        for real, shown in zip(real_added, added, strict=True)
    )


def _hunk_header(group: list[tuple[str, int, int, int, int]]) -> str:
    """`@@ -a,b +c,d @@` for a group of opcodes, as `difflib.unified_diff` writes it."""
    old_range = _unified_range(group[0][1], group[-1][2])
    new_range = _unified_range(group[0][3], group[-1][4])
    return f"@@ -{old_range} +{new_range} @@\n"


def _unified_range(start: int, stop: int) -> str:
    """A hunk's line range in unified format: `5` for one line, `4,0` for none."""
    length = stop - start
    if length == 1:
        return f"{start + 1}"
    return f"{start + 1 if length else start},{length}"


def _lines_with_ends(text: str) -> list[str]:
    """The lines of `text` split at `\n` only, each keeping it (the last one may have
    none): `str.splitlines` also splits at CR, VT, FF, NEL, U+2028..., so a change that
    was one of them showed as an empty diff, and a change of the final newline as none."""
    lines = text.split("\n")
    with_ends = [line + "\n" for line in lines[:-1]]
    return [*with_ends, lines[-1]] if lines[-1] else with_ends


def _ended(diff_lines: Iterable[str]) -> Iterator[str]:
    """The diff's lines without their `\n`; a line that had none (the end of a text
    without a final newline) followed by `NO_NEWLINE_MARK`, as `diff -u` writes it."""
    for line in diff_lines:
        if line.endswith("\n"):
            yield line[:-1]
        else:
            yield line
            yield NO_NEWLINE_MARK


def build_overwrite_approval(
    workspace: Workspace, resolved: Path, shown: str, new: str, secrets: SecretForms = NO_SECRETS
) -> Approval:
    """The change an overwrite makes, as a diff of the old text as read_file shows it
    (`text_source.read_shown_text`: a UTF-16 file decoded, a NUL past the first 8 KB as
    text) against the new; the new content when the old file cannot be shown as text
    (binary, too big, gone, or not a regular file); secrets hidden as in every diff
    (`build_diff_approval`). What the diff of the texts cannot show is in the note: the
    file's encoding, when the write (always UTF-8) changes it (`ENCODING_NOTE`), and the
    bytes of the old file that do not decode (not UTF-8; in a UTF-16 file, an unpaired
    surrogate or an odd last byte), which are in the diff as what they are (the view
    writes them `<byte E9>`), so a line that loses them is a changed line."""
    old = read_text_for_diff(workspace, resolved, shown)
    if old is None:
        return build_content_approval(new)
    approval = build_diff_approval(old.text, new, shown, secrets)
    notes = [approval.note] if approval.note else []
    if old.codec != UTF8:
        notes.append(ENCODING_NOTE.format(codec=old.codec))
    undecodable = sum(1 for character in old.text if ord(character) in UNDECODABLE)
    if undecodable:
        bytes_ = f"{undecodable:,} byte{'s' if undecodable != 1 else ''}"
        what = "are not UTF-8" if old.codec == UTF8 else f"do not decode as {old.codec}"
        notes.append(f"the file holds {bytes_} that {what}; the new text replaces them")
    return dataclasses.replace(approval, note="; ".join(notes))


def _with_secrets_hidden(text: str, secrets: SecretForms) -> str:
    """`text` with each secret hidden in its own lines, the line count kept."""
    lines = text.split("\n")
    hidden, count = hide_in_lines(lines, 0, len(lines), secrets)
    return "\n".join(hidden) if count else text


def read_text_for_diff(workspace: Workspace, resolved: Path, shown: str) -> ShownText | None:
    """The old text to diff against, with its codec, or None where a diff cannot be shown
    (`text_source.read_shown_text`, under `MAX_DIFF_SOURCE_BYTES`)."""
    try:
        return read_shown_text(workspace, resolved, shown, MAX_DIFF_SOURCE_BYTES)
    except ToolError:
        return None
