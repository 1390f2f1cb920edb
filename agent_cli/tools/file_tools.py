"""read_file, write_file and edit_file: text files inside the workspace.

Contract: every path goes through `Workspace.resolve_inside` first, and is then opened
by walking it from the held workspace descriptor without following a link at any
component (`Workspace.open_file` / `open_directory`). Writes are atomic (a temp file
created with O_EXCL in the parent directory's descriptor, fsynced, then renamed over the
target within that descriptor), so a crash never leaves half a file, a symlink swapped in
at the last moment is replaced, not written through, and a folder swapped for a link on
the way is refused instead of written into (`file_replace`: what the new file keeps of the
old one, and the question's and result's words for what it cannot keep). `edit_file`
finds its old text in the file as it is when prepared (so the user is not asked about an
edit that cannot apply), whatever changed in it since the model last saw it, and is not
made when the file changed while the user decided (`file_state`). `write_file` replaces
the whole file, so it writes only over what the model last saw of it (`seen_files`:
what read_file read or a write wrote in this session; a file changed since then is
refused before anyone is asked, under "always" and --yes too) and over what its approval
showed (`file_state`: a file that appeared after "create" was approved, or whose content
changed after its diff was shown, is left alone); either way the model is told to read it
again. read_file notes what it read, and a write what it wrote, in `ToolContext.seen`,
under the file's resolved path and under the path as the model named it
(`Workspace.named_path`), so a name swapped for a link to another file after the model
read it is refused too, as `keep.txt (via link notes.txt) changed since…`.
An overwrite shown without a diff (too big, binary) says what it replaces.

Names: a file is named by its resolved path (`Workspace.display`), the file actually
read or written, in the description the user approves, the diff's labels, the "always"
answer and the result; a path that reaches it through a symbolic link is named too
(`overwrite .git/config with 3 lines (via link notes.md)`).

Secrets (`SecretForms`: the values the toolbox redacts, which `read_file` shows as
`[REDACTED]`): `edit_file` looks for `old_string` only where it touches no secret, so
"not found" or "found" tells nothing about a secret's value (else, asked without
approval, it would spell a key out one character a call), and no edit can cut into one.
`write_file` refuses to overwrite a file holding a secret with content holding the
redaction mark: the model can only have copied that from `read_file`, and writing it
back would destroy the user's secret.

No error repeats the path or a number the model gave (`tools.echo`); a path is named
once the file it names exists.
"""

from __future__ import annotations

import io
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from agent_cli.errors import ToolError
from agent_cli.secret_forms import NO_SECRETS, REDACTED_MARK, SecretForms
from agent_cli.secret_lines import context_chars, hide_in_lines
from agent_cli.tools.approval import (
    ApprovalKind,
    build_content_approval,
    build_diff_approval,
    build_overwrite_approval,
)
from agent_cli.tools.approval_scope import file_target
from agent_cli.tools.context import PreparedCall, ToolContext
from agent_cli.tools.file_replace import (
    DIRECTORY_TEXT,
    Writer,
    effects_suffix,
    predict_effects,
    read_facts_at,
    write_atomically,
)
from agent_cli.tools.file_state import (
    StateKind,
    content_fingerprint,
    open_file_fingerprint,
    read_file_state,
    require_unchanged,
    undiffable_note,
)
from agent_cli.tools.output import ToolResult, count_noun, format_size
from agent_cli.tools.text_source import (
    UTF8,
    check_size,
    decode_utf16,
    read_text_source,
    readable_codec,
)
from agent_cli.tools.workspace import Workspace

# Results of a write or an edit refused before anything was written (`session.call_outcome`
# reads them back: the recap says nothing was written). `{shown}` names the file.
MOVED_TARGET_TEXT = (
    "The path now leads somewhere else than when permission was asked; nothing was "
    "written. Check the path and try again."
)
SECRET_OVERWRITE_TEXT = (
    "{shown} holds a secret value, which read_file shows as " + REDACTED_MARK + "; this "
    "content would write that mark in its place and the secret would be lost. Use "
    "edit_file to change the other lines."
)
EMPTY_OLD_TEXT = (
    "old_string is empty; give the exact text to replace (use write_file to create a file)."
)
SAME_TEXT = "old_string and new_string are the same; there is nothing to change."
NOT_FOUND_TEXT = (
    "old_string was not found in {shown}. Read the file and copy the exact text, including "
    "whitespace and indentation (a secret, shown as " + REDACTED_MARK + ", cannot be part "
    "of it: edit around it)."
)
MANY_PLACES_TEXT = (
    "old_string matches {count} places in {shown}; it must match exactly one. Include "
    "more surrounding lines to make it unique."
)


def prepare_read_file(context: ToolContext, arguments: dict[str, Any]) -> PreparedCall:
    resolved, shown = _resolve_file(context.workspace, arguments["path"])
    start = arguments.get("start_line", 1)
    end = arguments.get("end_line")
    if end is not None and end < start:
        raise ToolError("end_line is before start_line; swap them.")
    last = end if end is not None else start + context.limits.read_window_lines - 1
    named = context.workspace.named_path(arguments["path"], resolved)
    return PreparedCall(
        f"read {shown}", lambda: read_file_lines(context, (resolved, named), shown, start, last)
    )


def read_file_lines(
    context: ToolContext, paths: tuple[Path, Path], shown: str, start: int, last: int
) -> ToolResult:
    """Lines `start`..`last` of a text file, numbered, under the output byte cap; `paths`:
    the file's resolved path and the path the model named it by (`seen_files`).

    Secrets are hidden in the file's own lines before they are numbered (`secret_lines`),
    with the lines around the window as context: numbered or cut into windows, a secret
    that spans lines would never be whole for the toolbox's redaction to find."""
    margin = context_chars(context.secrets)
    path, named = paths
    with os.fdopen(context.workspace.open_file(path, shown, os.O_RDONLY), "rb") as handle:
        check_size(handle, shown, context.limits.max_read_file_bytes)  # not hashed if refused
        seen = open_file_fingerprint(handle.fileno())  # before a byte is read (`seen_files`)
        source, codec = _as_utf8(handle, shown, context.limits.max_read_file_bytes)
        window = _collect_lines(source, start, last, context.limits.max_output_bytes, margin)
    total = window.total
    if start > total > 0:
        raise ToolError(
            f"start_line is past the end of {shown}, which has {count_lines_noun(total)}."
        )
    context.seen.note_seen(path, seen, named)
    if total == 0:
        return ToolResult(f"File: {shown} (empty file, 0 lines)", summary="read 0 lines")
    lines, hidden = hide_in_lines(
        window.lines, window.first, window.first + window.count, context.secrets
    )
    shown_last = start + len(lines) - 1
    crlf = sum(line.endswith("\r") for line in lines)
    lines = [line.rstrip("\r") for line in lines]
    body = "\n".join(f"{number:>6}\t{text}" for number, text in enumerate(lines, start))
    if shown_last < total:
        body += (
            f"\n[lines {shown_last + 1}-{total} not shown; continue with "
            f"start_line={shown_last + 1}]"
        )
    if window.undecodable:
        body += "\n" + _undecodable_note(window.undecodable)
    if crlf:
        body += "\n" + _crlf_note(crlf, len(lines))
    if codec is not None:
        body += "\n" + _utf16_note(codec, shown)
    header = f"File: {shown} (lines {start}-{shown_last} of {total})"
    summary = f"read {count_lines_noun(len(lines))}"
    return ToolResult(header, body, summary=summary, secrets_hidden=hidden)


def _crlf_note(count: int, shown: int) -> str:
    """What the model must know of lines that end with CRLF: they are shown without the
    CR; edit_file matches them as shown and keeps that ending, within lines that end
    alike (`apply_edit`)."""
    if count == shown:
        return (
            "[every line shown here ends with CRLF (Windows line endings), shown without "
            "the CR: edit_file matches such lines as shown here and keeps their CRLF]"
        )
    lines = f"{count_lines_noun(count)} shown here {'ends' if count == 1 else 'end'}"
    return (
        f"[{lines} with CRLF (Windows line endings), shown without the CR, and the others "
        "with LF: an edit_file old_string is found as shown within lines that end alike, "
        "not across both kinds]"
    )


def _as_utf8(handle: BinaryIO, shown: str, max_bytes: int) -> tuple[BinaryIO, str | None]:
    """`handle` itself for a file read_file reads as UTF-8, or for a UTF-16 one the file
    decoded and given as UTF-8, with its codec's name (`text_source.text_codec`: the one
    rule, which the stale-write guard and the approval diff follow too); a file over
    `max_bytes` or binary is refused."""
    codec = readable_codec(handle, shown, max_bytes)
    if codec == UTF8:
        return handle, None
    text = decode_utf16(handle.read(max_bytes), codec)
    return io.BytesIO(text.encode("utf-8")), codec


def _utf16_note(codec: str, shown: str) -> str:
    """What the model must know of a UTF-16 file it read: shown decoded, not editable."""
    return (
        f"[{shown} is {codec} text (it starts with a byte-order mark), shown decoded: "
        "edit_file cannot edit it, and write_file would write it as UTF-8; convert it "
        "with bash (iconv -f UTF-16 -t UTF-8) first if it must change]"
    )


def _undecodable_note(count: int) -> str:
    """What the model must know of lines holding bytes that are not UTF-8 (a Latin-1
    file): writing back what it read would destroy them."""
    lines = f"{count_lines_noun(count)} shown here {'holds' if count == 1 else 'hold'}"
    return (
        f"[{lines} bytes that are not UTF-8, shown as U+FFFD: edit_file "
        "cannot edit this file, and write_file would replace those bytes with U+FFFD for "
        "good; convert it with bash (iconv) first]"
    )


@dataclass
class _Window:
    """What `_collect_lines` read: the wanted lines (`lines[first:first + count]`) with
    `margin` characters of context either side as far as the file goes (the first line
    of context may be cut), and the file's line count. Lines are decoded, without their
    line feed (a carriage return before it stays)."""

    lines: list[str] = field(default_factory=list)
    first: int = 0
    count: int = 0
    total: int = 0
    undecodable: int = 0  # wanted lines holding bytes that are not UTF-8


def _collect_lines(handle: BinaryIO, start: int, last: int, max_bytes: int, margin: int) -> _Window:
    """The lines in [start, last] (stopping early at `max_bytes`), at least `margin`
    characters of the text either side, and the total."""
    after_chars = collected = offset = 0
    window, is_full = _Window(), False
    for number, raw in enumerate(handle, 1):
        window.total = number
        if number < start:
            offset += len(raw)
            continue
        if number <= last and not is_full:
            collected += len(raw)
            is_full = collected > max_bytes and window.count > 0
            if not is_full:
                window.lines.append(_decode_line(raw))
                window.count += 1
                window.undecodable += not _is_utf8(raw)
                continue
        if after_chars < margin:
            window.lines.append(_decode_line(raw))
            after_chars += len(window.lines[-1]) + 1
    if margin and offset and window.count:
        before = _text_before(handle, offset, margin)
        window.lines[:0] = before
        window.first = len(before)
    return window


def _text_before(handle: BinaryIO, offset: int, chars: int) -> list[str]:
    """The lines that end at byte `offset` (the first one maybe cut), at least `chars`
    characters of them: a character is at most 4 bytes, and one cut at the start is
    decoded as replacement characters, so 3 bytes more keep `chars` exact ones."""
    size = min(offset, 4 * chars + 3)
    handle.seek(offset - size)
    data = handle.read(size)
    return data.decode("utf-8", errors="replace").removesuffix("\n").split("\n")


def _is_utf8(raw: bytes) -> bool:
    if raw.isascii():
        return True
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _decode_line(raw: bytes) -> str:
    return raw.decode("utf-8", errors="replace").removesuffix("\n")


def prepare_write_file(context: ToolContext, arguments: dict[str, Any]) -> PreparedCall:
    resolved, shown = _resolve_file(context.workspace, arguments["path"])
    route = _link_note(context.workspace, arguments["path"], resolved)
    named = context.workspace.named_path(arguments["path"], resolved)
    data = arguments["content"].encode("utf-8")
    lines = count_lines_noun(count_text_lines(arguments["content"]))
    before = read_file_state(context.workspace, resolved, shown)  # before the diff is read
    if before.kind is StateKind.DIRECTORY:
        raise ToolError(DIRECTORY_TEXT.format(shown=shown))
    # asked or not: a stale copy is refused, also one of what the name led to before
    limit = context.limits.max_read_file_bytes
    context.seen.require_seen(resolved, before, f"{shown}{route}", limit, named)
    is_new = before.kind is StateKind.ABSENT
    if not is_new and REDACTED_MARK in arguments["content"]:
        _refuse_writing_over_a_secret(context, resolved, shown)
    if is_new:
        approval = build_content_approval(arguments["content"])
    else:
        approval = build_overwrite_approval(
            context.workspace, resolved, shown, arguments["content"], context.secrets
        )
    replaced = "" if is_new or approval.kind is ApprovalKind.DIFF else undiffable_note(before)
    effects = _replacement_suffix(context.workspace, resolved, shown)

    def execute() -> ToolResult:
        _require_same_target(context.workspace, arguments["path"], resolved)
        require_unchanged(context.workspace, resolved, shown, before)
        done = effects_suffix(write_atomically(context.workspace, resolved, data, shown), done=True)
        written = _written_fingerprint(context.workspace, resolved, shown, data)
        context.seen.note_seen(resolved, written, named)
        state = "new file" if is_new else "replaced the old content"
        header = f"Wrote {lines} ({format_size(len(data))}) to {shown} ({state}){route}{done}."
        return ToolResult(header, summary=f"wrote {lines}{done}")

    verb = "create" if is_new else "overwrite"
    target = file_target(resolved, shown)
    old = f" ({replaced})" if replaced else ""
    description = f"{verb} {shown}{old} with {lines}{route}{effects}"
    return PreparedCall(description, execute, approval, target)


def _written_fingerprint(
    workspace: Workspace, resolved: Path, shown: str, data: bytes
) -> tuple[object, ...]:
    """The fingerprint of the file just written with `data` (what the model has now seen
    there): that of the bytes, or for a file told by its inode and times (over
    `file_state.DIGEST_MAX_BYTES`), the file's as it is now."""
    fingerprint = content_fingerprint(data)
    if fingerprint is None:
        return read_file_state(workspace, resolved, shown).fingerprint
    return fingerprint


def _replacement_suffix(workspace: Workspace, resolved: Path, shown: str) -> str:
    """What replacing the file at `resolved` will do to it beyond its content, as the end
    of the question (`; clears its setuid bit`; `file_replace`); "" for a new file."""
    facts = read_facts_at(workspace, resolved, shown)
    return "" if facts is None else effects_suffix(predict_effects(facts, Writer.current()))


def _refuse_writing_over_a_secret(context: ToolContext, path: Path, shown: str) -> None:
    """Refuse content holding the redaction mark for a file that holds a secret (module
    doc): it would put the mark where the user's secret is."""
    text = read_text_source(context.workspace, path, shown, context.limits.max_read_file_bytes)
    pattern = context.secrets.pattern
    if pattern is not None and pattern.search(text):
        raise ToolError(SECRET_OVERWRITE_TEXT.format(shown=shown))


def prepare_edit_file(context: ToolContext, arguments: dict[str, Any]) -> PreparedCall:
    resolved, shown = _resolve_file(context.workspace, arguments["path"])
    old, new = arguments["old_string"], arguments["new_string"]
    if not old:
        raise ToolError(EMPTY_OLD_TEXT)
    if old == new:
        raise ToolError(SAME_TEXT)
    limit = context.limits.max_read_file_bytes
    state = read_file_state(context.workspace, resolved, shown)  # before the diff is read
    before = read_text_source(context.workspace, resolved, shown, limit)
    after = apply_edit(before, shown, old, new, context.secrets)[0]
    approval = build_diff_approval(before, after, shown, context.secrets)
    removed = count_lines_noun(count_text_lines(old))
    added = count_lines_noun(count_text_lines(new))
    route = _link_note(context.workspace, arguments["path"], resolved)
    named = context.workspace.named_path(arguments["path"], resolved)
    effects = _replacement_suffix(context.workspace, resolved, shown)

    def execute() -> ToolResult:
        _require_same_target(context.workspace, arguments["path"], resolved)
        require_unchanged(context.workspace, resolved, shown, state)
        updated, line_number = plan_edit(
            context.workspace, resolved, shown, (old, new), limit, context.secrets
        )
        done = effects_suffix(
            write_atomically(context.workspace, resolved, updated, shown), done=True
        )
        written = _written_fingerprint(context.workspace, resolved, shown, updated)
        context.seen.note_edited(resolved, state.fingerprint, written, named)
        header = (
            f"Edited {shown}{route}: replaced {removed} with {added} at line {line_number}{done}."
        )
        return ToolResult(header, summary=f"edited {shown}{done}")

    description = f"edit {shown}: replace {removed} with {added}{route}{effects}"
    return PreparedCall(description, execute, approval, file_target(resolved, shown))


def plan_edit(
    workspace: Workspace,
    path: Path,
    shown: str,
    change: tuple[str, str],
    max_bytes: int,
    secret_forms: SecretForms = NO_SECRETS,
) -> tuple[bytes, int]:
    """The file's new bytes with `change` (old, new) made, and the line where the change
    starts, or a `ToolError`."""
    text = read_text_source(workspace, path, shown, max_bytes)
    updated, line_number = apply_edit(text, shown, *change, secret_forms)
    return updated.encode("utf-8"), line_number


def apply_edit(
    text: str, shown: str, old: str, new: str, secret_forms: SecretForms = NO_SECRETS
) -> tuple[str, int]:
    """`text` with its one occurrence of `old` that touches no secret replaced, and the
    line where it starts (module doc). read_file shows CRLF lines without the CR, so in
    a file whose every line ends with CRLF, `old` and `new` are read with CRLF endings;
    in a file that mixes endings, `old` is looked for both as written and with CRLF
    endings (`new` then with them too), and the places of both count."""
    ways = [(old, new)]
    if "\r\n" in text and text.count("\n") == text.count("\r\n"):
        ways = [(_with_crlf(old), _with_crlf(new))]
    elif "\r\n" in text and "\n" in old and "\r" not in old:
        ways.append((_with_crlf(old), _with_crlf(new)))
    places = [(at, o, n) for o, n in ways for at in _places_of(text, o, secret_forms)]
    if not places:
        raise ToolError(NOT_FOUND_TEXT.format(shown=shown))
    if len(places) > 1:
        raise ToolError(MANY_PLACES_TEXT.format(count=len(places), shown=shown))
    at, old, new = places[0]
    return text[:at] + new + text[at + len(old) :], text.count("\n", 0, at) + 1


def _with_crlf(text: str) -> str:
    """`text` with each line feed not already after a CR made a CRLF."""
    return re.sub(r"(?<!\r)\n", "\r\n", text)


def _places_of(text: str, old: str, secret_forms: SecretForms) -> list[int]:
    """Where `old` starts in `text`, each occurrence after the one before it, leaving out
    every one that touches an occurrence of a secret."""
    holds = secret_forms.pattern is not None and secret_forms.pattern.search(text) is not None
    spans = list(secret_forms.occurrences(text, 0, len(text))) if holds else []  # overlapping
    places, at = [], text.find(old)
    while at != -1:
        end = at + len(old)
        if any(start < end and at < stop for start, stop in spans):
            at = text.find(old, at + 1)  # (so what follows is found as without the secret)
            continue
        places.append(at)
        at = text.find(old, end)
    return places


def _resolve_file(workspace: Workspace, raw_path: str) -> tuple[Path, str]:
    resolved = workspace.resolve_inside(raw_path)
    if resolved == workspace.root:
        raise ToolError("The path names the workspace directory itself; give a file path.")
    return resolved, workspace.display(raw_path, resolved)


def _link_note(workspace: Workspace, raw_path: str, resolved: Path) -> str:
    """` (via link notes.md)` when the path given reaches the file through
    a symbolic link (`Workspace.link_route`), else nothing."""
    route = workspace.link_route(raw_path, resolved)
    return f" (via link {route})" if route else ""


def count_lines_noun(count: int) -> str:
    return count_noun(count, "line")


def _require_same_target(workspace: Workspace, raw_path: str, prepared: Path) -> None:
    """Refuse when the path now resolves elsewhere (a link changed while the user decided)."""
    if workspace.resolve_inside(raw_path) != prepared:
        raise ToolError(MOVED_TARGET_TEXT)


def count_text_lines(text: str) -> int:
    """Lines of `text` as a file holding it has them: a last line ends with or without
    its line feed, and an empty text has none."""
    return text.count("\n") + (1 if text and not text.endswith("\n") else 0)
