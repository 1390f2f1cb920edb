"""Running ripgrep (`rg`, from the `ripgrep` wheel) for grep and list_dir.

Why rg: its regex engine runs in linear time (a pattern such as `(a+)+$` cannot hang a
search), it honours `.gitignore`, `.ignore` and `.git/info/exclude` (also outside a git
repository, `--no-require-git`), and it is fast. It never follows symbolic links unless
told to (we never tell it), so a walk stays where it starts.

Contract: `find_rg()` is the path of the binary that came with the installed wheel (next
to the interpreter, in the environment's scripts folder, or named in the wheel's file
list), PATH only as a last resort. `run_rg(args, cwd, ...)` starts rg with our fixed
options first, yields its stdout line by line, stops it when the caller stops reading
or when `timeout` seconds pass, and leaves what it said on stderr and whether it timed out
in the returned `RgRun`. Nothing here decides what a result says: that is search_tools.
`rg_refusal_reason(stderr, given)` is what rg said was wrong with a search it refused, in
its own fixed words, without the pattern or glob it quotes (`tools.echo`).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import threading
from collections.abc import Generator, Iterator, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import IO

from agent_cli.errors import ToolError
from agent_cli.tools.echo import free_of_input
from agent_cli.tools.workspace import SKIPPED_DIRECTORY_NAMES, Workspace

# Options every run gets: no user config file, dotfiles searched (but see the globs),
# ignore files honoured even without a .git folder, and the folders no search enters.
BASE_OPTIONS = (
    "--no-config",
    "--hidden",
    "--no-require-git",
    "--color=never",
    *(f"--glob=!{name}" for name in sorted(SKIPPED_DIRECTORY_NAMES)),
)


@cache
def find_rg() -> str:
    """The `rg` executable of the installed `ripgrep` wheel (see the module contract)."""
    name = "rg.exe" if os.name == "nt" else "rg"
    candidates = [Path(sys.executable).with_name(name), Path(sysconfig.get_path("scripts"), name)]
    candidates.extend(_rg_files_of_the_wheel(name))
    for candidate in candidates:
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    on_path = shutil.which(name)
    if on_path:
        return on_path
    raise ToolError(
        "Search needs the `rg` program from the `ripgrep` package, and it is not installed; "
        "reinstall agent-cli (`make install` or `pip install ripgrep`)."
    )


def rg_refusal_reason(stderr: str, given: Sequence[str]) -> str:
    """What rg said was wrong, in its words for the kind of error: the `error:` line of a
    regex it cannot parse (the lines above it quote the pattern), what follows the quoted
    glob of `error parsing glob '...': <kind>`, else its first `rg:` line (or its last);
    never words that repeat any of `given` (the model's input: `tools.echo`)."""
    said = [line.strip() for line in stderr.splitlines() if line.strip()]
    kinds = [line.removeprefix("error:").strip() for line in said if line.startswith("error:")]
    first = next((line.removeprefix("rg:").strip() for line in said if line.startswith("rg:")), "")
    if kinds:
        reason = kinds[-1]
    elif first.startswith("error parsing glob '"):
        reason = first.rsplit("': ", 1)[-1]
    else:
        reason = first or (said[-1] if said else "no reason given")
    return free_of_input(reason, given, "ripgrep's message repeats the input, so it is not shown")


def _rg_files_of_the_wheel(name: str) -> list[Path]:
    from importlib import metadata

    try:
        files = metadata.distribution("ripgrep").files or []
    except metadata.PackageNotFoundError:
        return []
    return [Path(str(entry.locate())) for entry in files if entry.name == name]


@dataclass
class RgRun:
    """What a finished (or stopped) rg run left besides its stdout."""

    returncode: int | None = None
    stderr: str = ""
    timed_out: bool = False
    stopped_early: bool = False


def run_rg(
    args: Sequence[str], workspace: Workspace, run: RgRun, *, timeout: float
) -> Generator[bytes, None, None]:
    """Yield rg's stdout lines (newline kept), rg working in the held workspace root;
    fill `run` when rg has ended.

    If the caller stops iterating, rg is killed and `run.stopped_early` is set. After
    `timeout` seconds rg is killed and `run.timed_out` is set; lines read so far stand.
    """
    process = subprocess.Popen(
        [find_rg(), *BASE_OPTIONS, *args],
        cwd=_held_root(workspace),
        pass_fds=(workspace.root_fd,),
        stdin=subprocess.PIPE,  # a pipe, not /dev/null: this process opens no path for rg
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdin is not None
    process.stdin.close()  # rg always gets a path, so it never reads stdin
    said: list[bytes] = []  # drained on a thread so a chatty stderr cannot block rg
    drain = threading.Thread(target=lambda: said.append(_read_all(process.stderr)), daemon=True)
    drain.start()
    timer = threading.Timer(timeout, _expire, (process, run))
    timer.start()
    try:
        yield from _lines_of(process, run)
    finally:
        timer.cancel()
        _stop(process, run)
        drain.join()
        if process.stderr is not None:
            process.stderr.close()
        run.stderr = b"".join(said).decode("utf-8", errors="replace")


def _held_root(workspace: Workspace) -> str:
    """A name for the very folder whose descriptor the workspace holds: `/proc/self/fd/N`
    is resolved by the kernel to the open folder, not by its path, so a swap of the root's
    name cannot move rg elsewhere (the descriptor is passed to rg, so N means the same
    there). Without /proc, the root's path; rg's findings are read back anyway."""
    held = f"/proc/self/fd/{workspace.root_fd}"
    return held if os.path.isdir(held) else str(workspace.root)


def _read_all(stream: IO[bytes] | None) -> bytes:
    return stream.read() if stream is not None else b""


def _lines_of(process: subprocess.Popen[bytes], run: RgRun) -> Iterator[bytes]:
    assert process.stdout is not None
    completed = False
    try:
        yield from process.stdout
        completed = True
    finally:
        run.stopped_early = not completed


def _expire(process: subprocess.Popen[bytes], run: RgRun) -> None:
    run.timed_out = True
    process.kill()


def _stop(process: subprocess.Popen[bytes], run: RgRun) -> None:
    if process.poll() is None:
        process.kill()
    if process.stdout is not None:
        process.stdout.close()
    run.returncode = process.wait()
