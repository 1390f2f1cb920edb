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
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

DEFAULT_FUZZ_EXAMPLES = 500
FUZZ_EXAMPLES = int(os.environ.get("AGENT_CLI_FUZZ_EXAMPLES", DEFAULT_FUZZ_EXAMPLES))


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


# --- a link swapped in and out by another process ---------------------------------------

_SWAP_SCRIPT = r"""
import ctypes, os, sys
target, outside = os.fsencode(sys.argv[1]), os.fsencode(sys.argv[2])
link = target + b".swap-link"
os.symlink(outside, link)
libc = ctypes.CDLL(None, use_errno=True)
RENAME_EXCHANGE, AT_FDCWD = 2, -100
exchange = getattr(libc, "renameat2", None)
if exchange is None or exchange(AT_FDCWD, target, AT_FDCWD, link, RENAME_EXCHANGE) != 0:
    print("unsupported", flush=True)
    sys.exit(0)
print("ready", flush=True)
while exchange(AT_FDCWD, target, AT_FDCWD, link, RENAME_EXCHANGE) == 0:
    pass
"""


class LinkSwapper:
    """Another process that atomically exchanges `target` with a symlink to `outside`,
    over and over (renameat2 RENAME_EXCHANGE), so the name is always there: half the
    time the real file or folder, half the time a link out. A real second process, not a
    thread, so the swaps interleave with the code under test at any instruction.
    `is_supported` is False where the kernel or libc cannot exchange names."""

    def __init__(self, target: Path, outside: Path) -> None:
        self.target, self.outside = target, outside
        self.is_supported = False
        self._process: subprocess.Popen[str] | None = None

    def __enter__(self) -> LinkSwapper:
        self._process = subprocess.Popen(
            [sys.executable, "-c", _SWAP_SCRIPT, str(self.target), str(self.outside)],
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self._process.stdout is not None
        self.is_supported = self._process.stdout.readline().strip() == "ready"
        return self

    def __exit__(self, *exc_info: object) -> None:
        assert self._process is not None
        self._process.kill()
        self._process.wait()
        link = self.target.with_name(self.target.name + ".swap-link")
        if os.path.islink(self.target):  # stopped with the link in place: swap back
            os.unlink(self.target)
            os.rename(link, self.target)
        with contextlib.suppress(FileNotFoundError):
            os.unlink(link)
