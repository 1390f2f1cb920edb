"""Shared tools for the hostile-input tests: fuzz sizing, hostile strings, an open audit.

Fuzz sizing: every `@pytest.mark.fuzz` property runs `fuzz_settings(share)` examples, a
share of `AGENT_CLI_FUZZ_EXAMPLES` (default `DEFAULT_FUZZ_EXAMPLES`, modest enough for
`make test`; `make fuzz` raises it to 20,000). Hypothesis keeps its random seed and prints
how to reproduce a failure.

The open audit proves that a piece of code opened no file outside the folders it may
touch. `sys.addaudithook` is process-wide and cannot be removed, so one hook is
installed once per process; it records the path of every `open` event (builtins `open`,
`io.open` and `os.open` all raise it) only while `recording_opens()` is active, so the
rest of the test run pays a flag check and nothing else.

The canary world (`build_world`) is a resolver's two roots with good evidence inside,
planted links leading out, and canary files outside whose names are reachable by `..`.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import hashlib
import json
import os
import re
import string
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from agent_cli.sources import SourcePointerResolver
from agent_cli.tools.credentials import holds_no_secret, is_ordinary_word

DEFAULT_FUZZ_EXAMPLES = 500

SECRET_CHARS = string.ascii_letters + string.digits + "_-"


# Two secrets and the characters a probe of one position tries (`first`, `second`, cut to
# one length by `same_length`; `chars`, made a regex class by `probe_class`): what the
# oracle properties draw (a tool's answer must not tell the two apart).
def secret_like(value: str) -> str:
    """`value`, unless redaction leaves it visible on purpose: one ordinary word
    (`AAAAAAAAAAAA`, `password`: `credentials.is_ordinary_word`) or, under a password's
    name, what holds no secret (an SSH key's file name, `id_ed25519_sk`, which Hypothesis
    drew once: `credentials.holds_no_secret`); then with its last character made a digit,
    so that every value the properties draw is one to hide."""
    visible = is_ordinary_word(value) or holds_no_secret("DB_PASSWORD", value)
    return value[:-1] + "0" if visible else value


SECRET_PAIR = {
    "first": st.text(SECRET_CHARS, min_size=12, max_size=24).map(secret_like),
    "second": st.text(SECRET_CHARS, min_size=12, max_size=24).map(secret_like),
    "chars": st.text(SECRET_CHARS, min_size=1, max_size=6),
}
PROBE_AT = st.integers(0, 11)  # how many characters of the secret a probe skips


def same_length(first: str, second: str) -> str:
    """`second` made as long as `first`: only the value differs (never an ordinary
    word: `secret_like`)."""
    return secret_like((second * 2)[: len(first)])


def probe_class(chars: str) -> str:
    """The regex class of the characters a probe tries (never empty)."""
    return "".join(dict.fromkeys(c for c in chars if c not in "-")) or "a"


FUZZ_EXAMPLES = int(os.environ.get("AGENT_CLI_FUZZ_EXAMPLES", DEFAULT_FUZZ_EXAMPLES))
BASE64_RUN = re.compile(r"[A-Za-z0-9+/_\-=]{12,}")
HEX_RUN = re.compile(r"[0-9a-fA-F]{16,}")
BASE32_RUN = re.compile(r"[A-Z2-7=]{12,}")
BASE32HEX_RUN = re.compile(r"[0-9A-V=]{12,}")


def recoverable_secrets(text: str, secrets: tuple[str, ...]) -> set[str]:
    """The secrets that can be read back from `text` as they are, or by decoding any run
    of base64 (at every offset, both alphabets), base32 (at every offset, standard and
    `base32hex` alphabets) or hex found in it, line breaks removed."""
    flat = re.sub(r"\r?\n", "", text)
    found = {secret for secret in secrets if secret in text or secret in flat}
    for run in BASE64_RUN.findall(flat):
        for offset in range(4):
            piece = run[offset:].rstrip("=")
            piece = piece[: len(piece) - len(piece) % 4]
            for decode in (base64.b64decode, base64.urlsafe_b64decode):
                try:
                    data = decode(piece)
                except (binascii.Error, ValueError):
                    continue
                found |= {s for s in secrets if s.encode() in data}
    for pattern, decode32 in ((BASE32_RUN, base64.b32decode), (BASE32HEX_RUN, base64.b32hexdecode)):
        for run in pattern.findall(flat):
            for offset in range(8):
                piece = run[offset:].rstrip("=")
                piece = piece[: len(piece) - len(piece) % 8]
                try:
                    data = decode32(piece)
                except (binascii.Error, ValueError):
                    continue
                found |= {s for s in secrets if s.encode() in data}
    for run in HEX_RUN.findall(flat):
        for offset in range(2):
            piece = run[offset:]
            data = bytes.fromhex(piece[: len(piece) - len(piece) % 2])
            found |= {s for s in secrets if s.encode() in data}
    return found


def fuzz_settings(share: float = 1.0) -> settings:
    """Hypothesis settings for `share` of the configured example count (at least 10)."""
    return settings(
        max_examples=max(10, int(FUZZ_EXAMPLES * share)),
        deadline=None,
        print_blob=True,
        suppress_health_check=[
            HealthCheck.too_slow,
            HealthCheck.data_too_large,
            HealthCheck.filter_too_much,
            HealthCheck.function_scoped_fixture,
        ],
    )


# --- hostile strings -------------------------------------------------------------------

HOSTILE_PARTS = (
    "..",
    ".",
    "/",
    "\\",
    "\x00",
    "١",  # ARABIC-INDIC DIGIT ONE: isdigit() but not ASCII
    "٣",
    "．",  # FULLWIDTH FULL STOP
    "．．",
    "∕",  # DIVISION SLASH
    "⁄",  # FRACTION SLASH
    "／",  # FULLWIDTH SOLIDUS
    "ｓ1",  # fullwidth letter
    "s\u0131",  # dotless i
    "s1\u200b",  # zero-width space
    "%2e%2e",
    "..%2f",
    "../",
    "/..",
    "~",
    " ",
    "\t",
    "\n",
    "\r",
    ":",
    "::",
    "",
    "0",
    "00",
    "01",
    "1",
    "3",
    "-1",
    "1e3",
    "9" * 19,
    "a" * 200,
    "a" * 201,
    "A" * 4000,
)

EVIL_ESCAPES = (
    "\x1b[2J",  # clear the screen
    "\x1b[H",  # cursor home
    "\x1b[6n",  # ask the terminal to report the cursor (it answers on stdin)
    "\x1b[?1049h",  # switch to the alternate screen
    "\x1b[31;4m",
    "\x1b]0;pwned title\x07",
    "\x1b]52;c;ZWNobyBwd25lZA==\x07",  # OSC 52: write the clipboard
    "\x1b]8;;http://evil.example\x1b\\click\x1b]8;;\x1b\\",  # OSC 8 hyperlink
    "\x1bP+q544e\x1b\\",  # DCS
    "\x1b_apc\x1b\\",
    "\x9b2J",  # 8-bit CSI
    "\x07",
    "\x08\x08\x08",
    "\r",
    "\x1b",
    "\u202e",  # right-to-left override
    "\u061c",  # Arabic letter mark
    "\u200b",  # zero-width space
    "\U000e0041",  # tag A: invisible
    "&#x202E;",  # the override again, once Markdown reads the reference
    "&#x2066;",
    "&rlm;",
    "<http://evil.example/%E2%80%AE>",  # an autolink decodes its escapes for its text
)

MARKUP_PIECES = (
    "[bold red]",
    "[/]",
    "[/bold red]",
    "[link=http://evil.example]",
    "[/link]",
    "[blink]",
    "[@click=app.quit]",
    "\\[compact]",
    "[compact]",
    "[compact] total: 91,204 -> 41,000 tokens (-50,204) in 3 layers",
    "`[compact]` L1",
    "*[compact]*",
    "&#91;compact]",
    "> [compact]",
    "[click](http://evil.example)",
    "<http://evil.example>",
)


def hostile_text(max_pieces: int = 12) -> st.SearchStrategy[str]:
    """Text stitched from escapes, markup, fake `[compact]` lines, long runs and noise."""
    piece = st.one_of(
        st.sampled_from(EVIL_ESCAPES),
        st.sampled_from(MARKUP_PIECES),
        st.sampled_from(("\n", " ", "\t", "  ", "word ", "x" * 150, "y " * 60)),
        st.text(max_size=30),
    )
    return st.lists(piece, max_size=max_pieces).map("".join)


# --- the open audit --------------------------------------------------------------------


@dataclass
class _OpenAudit:
    recording: bool = False
    opened: list[tuple[str, int]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)


_AUDIT = _OpenAudit()
_INSTALLED = False


def _audit_hook(event: str, args: tuple) -> None:
    if not _AUDIT.recording or event != "open":
        return
    path, flags = args[0], args[2] if len(args) > 2 else 0
    if isinstance(path, int):
        return  # open(fd): no new file
    with _AUDIT.lock:
        _AUDIT.opened.append((os.fsdecode(path), flags if isinstance(flags, int) else 0))


def install_open_audit() -> None:
    """Install the process-wide hook once; later calls do nothing."""
    global _INSTALLED
    if not _INSTALLED:
        sys.addaudithook(_audit_hook)
        _INSTALLED = True


@contextlib.contextmanager
def recording_opens() -> Iterator[list[tuple[str, int]]]:
    """Record `(path, flags)` of every open in this process while the block runs.

    Paths are as the caller passed them: an `os.open(name, dir_fd=...)` shows only
    `name`, which `check_opens_stay_under` accepts only as one plain path component.
    """
    install_open_audit()
    opened: list[tuple[str, int]] = []
    with _AUDIT.lock:
        _AUDIT.opened = opened
        _AUDIT.recording = True
    try:
        yield opened
    finally:
        with _AUDIT.lock:
            _AUDIT.recording = False
            _AUDIT.opened = []


def is_under(path: str | Path, roots: tuple[Path, ...]) -> bool:
    """True when `path` (made absolute, not resolved) lies in one of `roots`."""
    candidate = Path(os.path.abspath(path))
    return any(candidate == root or candidate.is_relative_to(root) for root in roots)


def check_opens_stay_under(opened: list[tuple[str, int]], roots: tuple[Path, ...]) -> None:
    """Every recorded open is an absolute path under `roots`, or one plain component
    opened relative to a directory descriptor (with O_NOFOLLOW, so no link is crossed)."""
    for path, flags in opened:
        if os.path.isabs(path):
            assert is_under(path, roots), f"opened outside the roots: {path!r}"
            continue
        assert "/" not in path and path not in ("", ".", ".."), f"relative open {path!r}"
        assert flags & os.O_NOFOLLOW, f"relative open without O_NOFOLLOW: {path!r}"


def fd_path(fd: int) -> str:
    """The file a descriptor is open on, as the kernel names it (Linux /proc)."""
    return os.readlink(f"/proc/self/fd/{fd}")


HAS_PROC_FD = os.path.isdir("/proc/self/fd")


# --- the canary world around a resolver's roots -------------------------------------------

T0 = "2024-05-01T10:00:00+00:00"
CANARY = b"CANARY-outside-the-roots"
CANARY_DIGEST = hashlib.sha256(CANARY).hexdigest()
INSIDE_ARTIFACT = b"inside artifact"


def record_line(session: str, sequence: int, payload: dict) -> bytes:
    return json.dumps(
        {
            "schema_version": 1,
            "session_id": session,
            "sequence": sequence,
            "event_id": f"transcript:{session}:{sequence}",
            "recorded_at": T0,
            "kind": "message",
            "payload": payload,
        }
    ).encode()


def write_transcript(path: Path, session: str, count: int, payload: dict) -> list[bytes]:
    lines = [record_line(session, n, {**payload, "n": n}) for n in range(1, count + 1)]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"".join(line + b"\n" for line in lines))
    return lines


def write_file(path: Path, data: bytes) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return hashlib.sha256(data).hexdigest()


@dataclass
class World:
    """The trusted home, the canary world around it, and what each may legitimately hold."""

    home: Path
    outside: Path
    inside_digests: set[str]
    canary_digest: str
    inside_artifact_digest: str

    @property
    def roots(self) -> tuple[Path, ...]:
        return (Path(os.path.abspath(self.home)),)

    def resolver(self, read_at=os.pread) -> SourcePointerResolver:
        return SourcePointerResolver(self.home / "transcripts", self.home, read_at=read_at)


def build_world(base: Path) -> World:
    """home/ (both roots) with good files and planted links; outside/ full of canaries."""
    home, outside = base / "home", base / "outside"
    canary = {"secret": CANARY.decode()}
    for session in ("s1", "link", "canary", "evil"):
        write_transcript(outside / f"{session}.jsonl", session, 5, canary)
    canary_digest = write_file(outside / "canary.txt", CANARY)
    for session in ("s1", "evil", "outside"):
        write_file(outside / session / "tool-results" / "a.txt", CANARY)
        write_file(outside / session / "tool-results" / "canary.txt", CANARY)
    write_file(outside / "tool-results" / "canary.txt", CANARY)
    lines = write_transcript(home / "transcripts" / "s1.jsonl", "s1", 3, {"inside": True})
    inside_artifact = write_file(home / "s1" / "tool-results" / "a.txt", INSIDE_ARTIFACT)
    (home / "transcripts" / "link.jsonl").symlink_to(outside / "link.jsonl")
    (home / "s1" / "tool-results" / "canary.txt").symlink_to(outside / "canary.txt")
    (home / "evil").symlink_to(outside)
    (home / "transcripts" / "evil.jsonl").symlink_to(outside / "evil.jsonl")
    digests = {hashlib.sha256(line).hexdigest() for line in lines} | {inside_artifact}
    return World(home, outside, digests, canary_digest, inside_artifact)


@dataclass(frozen=True)
class McpServer:
    """An MCP server's settings as config.toml gives them (`ConfiguredServer`)."""

    env: dict[str, str] = field(default_factory=dict)
    headers: dict[str, str] = field(default_factory=dict)
    url: str | None = None
    args: tuple[str, ...] = ()
    command: str | None = None


def found_by_every_reader(value: str) -> list[set[str]]:
    """What the environment, a dotenv file, an MCP server's `env` and its `args` each
    take as secret of `value` held under a name that is no credential's."""
    from agent_cli.tools.dotenv_syntax import parse_dotenv
    from agent_cli.tools.redaction import collect_mcp_secret_values, collect_secret_values
    from agent_cli.tools.workspace_secrets import (
        DotenvFile,
        WorkspaceDotenv,
        find_dotenv_secrets,
    )

    quote = '"' if "'" in value else "'"
    dotenv = WorkspaceDotenv((DotenvFile(".env", parse_dotenv(f"CONN={quote}{value}{quote}\n")),))
    return [
        set(collect_secret_values({"CONN": value})),
        set(find_dotenv_secrets(dotenv, "").values),
        set(collect_mcp_secret_values([McpServer(env={"CONN": value})], {})),
        set(collect_mcp_secret_values([McpServer(args=("--conn", value))], {})),
    ]


def secrets_left_anywhere(
    bodies: list[dict], home: Path, printed: str, secrets: tuple[str, ...]
) -> list[str]:
    """Where any of `secrets` (or a form a model could decode) is left: each request body,
    each file under `home` but the user's own `config.toml`, what was printed. Empty when
    none is."""
    found = [
        f"request {n}"
        for n, body in enumerate(bodies)
        if recoverable_secrets(json.dumps(body), secrets)
    ]
    for path in sorted(home.rglob("*")):
        if not path.is_file() or path == home / "config.toml":
            continue
        if recoverable_secrets(path.read_bytes().decode("utf-8", "replace"), secrets):
            found.append(str(path))
    if recoverable_secrets(printed, secrets):
        found.append("the terminal")
    return found


def openssl_listing_sections(text: str) -> dict[str, str]:
    """`openssl -text`'s hex listings by label (`prime1`: its hex octets, joined)."""
    sections: dict[str, str] = {}
    label = None
    for line in text.splitlines():
        heading = re.fullmatch(r"([A-Za-z0-9]+):\s*", line)
        if heading:
            label = heading.group(1)
            sections[label] = ""
        elif label and re.fullmatch(r"\s+[0-9a-f:]+", line):
            sections[label] += line.strip().replace(":", "")
        else:
            label = None
    return sections
