"""Project instructions: `AGENTS.md` (or `CLAUDE.md`) from the workspace root.

Contract: `load_project_instructions(workspace, redactor)` reads the first of
`INSTRUCTION_FILES` that exists there and returns `ProjectInstructions`; it never raises
for the file. A file that cannot be used gives instructions with no text and a `problem`
code, which the session reports once: unreadable, not UTF-8 (nor UTF-16 with its byte-order
mark, as Windows tools write it), not a regular file, binary (a NUL in its head), a link that leads out of the workspace, a link to a hidden name
(`.env`, anything under `.git/` or another dot-folder), or a link to a file that is not
Markdown (`MARKDOWN_SUFFIXES`: `config/master.key`, `terraform.tfstate`, `deploy/id_rsa`).
A link to Markdown is an ordinary set-up (`AGENTS.md -> CLAUDE.md`, `-> docs/AGENTS.md`)
and is followed, inside the workspace only. A file over
`MAX_INSTRUCTION_CHARS` keeps its head and says, in the text the model sees, that the
rest was left out and why.

The file is opened the way the file tools open one (`Workspace.resolve_inside`, then a
walk from the held root that follows no link), so it is refused wherever `read_file`
would refuse it. Its text then goes through the same secret redaction as every tool
result (`tools.redaction`), before it is cut to the cap: a secret the agent holds is
sent as `[REDACTED]`, never in part.

The text goes into every request as its own system block, right after the base system
prompt and inside the cached prefix: it changes rarely, so it should cost cache reads,
not fresh input. It is not part of the prompt view, so no compaction layer and no durable
state ever touches it; it changes only when the session starts or `/reload` re-reads it,
and when a secret is learned mid-session (`tools.dotenv_watch`): `redact_instructions`
then redacts the new values from the text carried (not read again: the file may have
changed since, and reading it is `/reload`'s), counts them with those redacted before and
says so in the note the model reads; a head cut at the cap loses an ending that may be
the start of a new value (what follows it was not kept).
Why links are checked: git stores links, so a cloned repository can ship
`AGENTS.md -> .env`, `AGENTS.md -> ../../.aws/credentials` or `AGENTS.md ->
config/master.key` (a key Rails makes, and git ignores, once the user sets the project
up), and the agent must not send that file to the API as "instructions" with every
request. Instructions are Markdown; a key, a state or settings file never is, whatever its
name, so the rule goes by what the link finally names (every link on the way followed).
"""

from __future__ import annotations

import codecs
import dataclasses
import hashlib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent_cli import nofollow_open
from agent_cli.errors import ConfigError, PathStepRefused, ToolError, WorkspaceEscape
from agent_cli.safe_cuts import stopped_secret_start
from agent_cli.secret_forms import REDACTED_MARK
from agent_cli.tools.redaction import SecretRedactor
from agent_cli.tools.text_source import UTF8, text_codec
from agent_cli.tools.workspace import Workspace

INSTRUCTION_FILES = ("AGENTS.md", "CLAUDE.md")  # the first that exists is used
# What a link may finally name: a Markdown file (the name's ending, in any case).
MARKDOWN_SUFFIXES = (".md", ".markdown", ".mdx")
RECORD_KIND = "project_instructions"  # transcript record: which file, its digest, its size
MAX_INSTRUCTION_CHARS = 40_000
_REFUSED_STEPS = {"is_a_directory": "not_a_file", "not_a_regular_file": "not_a_file"}


@dataclass(frozen=True)
class ProjectInstructions:
    """What was found. `text` is exactly what requests carry ("" when nothing is)."""

    source: str | None = None  # "AGENTS.md", "CLAUDE.md", or None when there is none
    text: str = ""
    size_bytes: int = 0  # of the file on disk
    truncated: bool = False
    sha256: str = ""  # of the file's bytes as read
    problem: str | None = None  # why the file could not be used: unreadable, not_utf8,
    # not_a_file, binary, outside_workspace, hidden_target or not_markdown_target (the
    # REPL words them)
    redacted: int = 0  # secret values replaced by `[REDACTED]` in `text`
    body: str = ""  # the file's text in `text`: its kept head, redacted, without the notes


def load_project_instructions(
    workspace: Path, redactor: SecretRedactor | None = None
) -> ProjectInstructions:
    """The project instructions of `workspace`, with the secrets `redactor` knows (by
    default: those of this process's environment) redacted; see the module contract."""
    for name in INSTRUCTION_FILES:
        path = Path(workspace) / name
        try:
            os.lstat(path)
        except FileNotFoundError:
            continue
        except OSError:
            return ProjectInstructions(name, problem="unreadable")
        chosen = redactor if redactor is not None else SecretRedactor.from_environment()
        return _read_instructions(Path(workspace), name, chosen)
    return ProjectInstructions()


def _read_instructions(workspace: Path, name: str, redactor: SecretRedactor) -> ProjectInstructions:
    try:
        confined = Workspace(workspace)
        parts = confined.relative_parts(confined.resolve_inside(name))
    except WorkspaceEscape:
        return ProjectInstructions(name, problem="outside_workspace")
    except (ConfigError, OSError, ToolError):  # ToolError: a loop of links (`resolve_inside`)
        return ProjectInstructions(name, problem="unreadable")
    if parts != (name,) and _is_hidden(parts):
        return ProjectInstructions(name, problem="hidden_target")
    if parts != (name,) and not _is_markdown(parts[-1]):
        return ProjectInstructions(name, problem="not_markdown_target")
    # Enough for the cap in any UTF-8 text, plus room for a secret that starts before
    # the cap to be read whole, so that it is recognised and redacted, not cut in two.
    limit = (MAX_INSTRUCTION_CHARS + redactor.longest_match + 1) * 4
    try:
        # non-blocking, no link followed: a FIFO or link swapped in meanwhile is refused
        descriptor, info = nofollow_open.open_file_beneath(confined.root_fd, parts, os.O_RDONLY)
        with open(descriptor, "rb") as handle:
            data = handle.read(limit)
    except PathStepRefused as refusal:
        return ProjectInstructions(name, problem=_REFUSED_STEPS.get(refusal.reason, "unreadable"))
    except OSError:
        return ProjectInstructions(name, problem="unreadable")
    codec = text_codec(data)  # read_file's rule: a UTF-16 file's NULs are text
    if codec is None:
        return ProjectInstructions(name, problem="binary")
    try:
        # incremental: a character cut at the read limit is held back, not an error; a
        # byte-order mark is read as one, not as text
        decoder = codecs.getincrementaldecoder("utf-8-sig" if codec == UTF8 else "utf-16")()
        text = decoder.decode(data, final=info.st_size <= len(data))
    except UnicodeDecodeError:
        return ProjectInstructions(name, problem="not_utf8")
    return _build(name, text, data, info.st_size, redactor)


def _is_hidden(parts: tuple[str, ...]) -> bool:
    """True when a component of a workspace-relative path is hidden (starts with a dot):
    `.env`, `.git/config`, `.aws/credentials`."""
    return any(part.startswith(".") for part in parts)


def _is_markdown(file_name: str) -> bool:
    """True when `file_name` is a Markdown file's (`MARKDOWN_SUFFIXES`, any case)."""
    return file_name.lower().endswith(MARKDOWN_SUFFIXES)


def _build(
    name: str, text: str, data: bytes, size: int, redactor: SecretRedactor
) -> ProjectInstructions:
    text = text.strip()
    truncated = size > len(data) or len(text) > MAX_INSTRUCTION_CHARS
    # the cut moves back before a secret that crosses it, so no part of one is sent
    kept = text[: min(MAX_INSTRUCTION_CHARS, redactor.safe_cut(text, MAX_INSTRUCTION_CHARS))]
    redaction = redactor.redact(kept)
    found = ProjectInstructions(
        source=name,
        size_bytes=size,
        truncated=truncated,
        sha256=hashlib.sha256(data).hexdigest(),
    )
    return _carrying(found, redaction.text, redaction.count)


def redact_instructions(found: ProjectInstructions, learned: SecretRedactor) -> ProjectInstructions:
    """`found` with the secrets `learned` knows (values learned mid-session) redacted from
    the text requests carry, and counted with those redacted before (module contract);
    `found` itself when its text holds none of them."""
    body = found.body
    if found.source is None or not body or not learned.forms:
        return found
    if found.truncated:  # the kept head may end inside a value: the rest is not read
        open_at = stopped_secret_start(body, learned.forms)
        body = body if open_at is None else body[:open_at]
    redaction = learned.redact(body)
    if redaction.text == found.body:
        return found
    return _carrying(found, redaction.text, found.redacted + redaction.count)


def _carrying(found: ProjectInstructions, body: str, redacted: int) -> ProjectInstructions:
    """`found` carrying `body` (the file's kept head, redacted of `redacted` secret values),
    with the notes the model reads of the redaction and the cut after it."""
    from agent_cli.prompts import load_prompt

    name = found.source
    notes = ""
    if redacted:
        noun = "value" if redacted == 1 else "values"
        notes += (
            f"\n\n[{redacted} secret {noun} held by agent-cli (an API key or token) "
            f"replaced with {REDACTED_MARK} in the text of {name}]"
        )
    if found.truncated:
        notes += (
            f"\n\n[{name} is {found.size_bytes:,} bytes, longer than the "
            f"{MAX_INSTRUCTION_CHARS:,} characters carried here; the rest is left out. Read "
            "the file for it.]"
        )
    header = load_prompt("project_instructions").replace("{source}", str(name))
    text = f"{header}\n{body}{notes}" if body or notes else ""
    return dataclasses.replace(found, text=text, body=body, redacted=redacted)


def instructions_record(found: ProjectInstructions) -> dict[str, Any] | None:
    """The payload of the transcript record noting which file (by digest and size) the
    requests carry; None when there is no file."""
    if found.source is None:
        return None
    return {
        "source": found.source,
        "sha256": found.sha256,
        "size_bytes": found.size_bytes,
        "truncated": found.truncated,
        "problem": found.problem,
    }
