"""Driving the real `agent-cli` in a real terminal (tmux) for the end-to-end tests.

Why tmux: it is a complete terminal emulator. prompt_toolkit asks the terminal where the
cursor is before it draws the bottom toolbar; tmux answers, a bare pexpect pty does not,
so only under tmux does the screen look the way a user sees it.

Contract:
- `find_tmux()` is the tmux executable or None (tests then skip, saying so).
- `TmuxTerminal` owns one private tmux server (`tmux -L <unique socket>`, started from a
  config file of its own so no user config leaks in). `start(argv, cwd)` runs one program
  in a 120x40 pane that stays on screen after the program exits (`remain-on-exit`), so
  the goodbye text can still be read. `record_output(path)` appends the raw bytes the
  program writes from then on to `path`. `kill()` ends the server and removes its socket file
  (tmux leaves it behind); tests call it from a fixture finalizer, so it runs when a test
  fails too. `sockets_left_behind()` names every socket this process's terminals made that
  still exists: conftest checks it is empty once the session ends.
- Every wait is bounded and polls the screen every `POLL_SECONDS`: `wait_for(check)`
  returns the screen once `check(screen)` is true and fails the test with the screen
  otherwise. Nothing here sleeps for a fixed time to let something happen.
- `build_env(home)` is the environment the program runs with: the caller's minus every
  ANTHROPIC_* variable, with AGENT_CLI_HOME set and a UTF-8 locale.
"""

from __future__ import annotations

import contextlib
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

PROMPT_MARK = "›"
BANNER_END = "/help for commands"  # the banner's last line
POLL_SECONDS = 0.1
DEFAULT_WAIT_SECONDS = 20.0
PANE = "e2e"
TMUX_CONFIG = (
    "set -g status off\n"  # every row of the pane belongs to the program
    "set -g history-limit 20000\n"  # the whole session stays readable
    "set -g remain-on-exit on\n"  # the last screen survives the program
)
# Lines of a `[compact]` report, as the REPL prints them.
LAYER_LINE = re.compile(r"\[compact\] (L[1-4]) [^\n]*: [\d,]+ -> [\d,]+ tokens \(-[\d,]+")
TOTAL_LINE = re.compile(r"\[compact\] total: [\d,]+ -> [\d,]+ tokens \(-[\d,]+\) in \d+ layers?")
SESSION_LINE = re.compile(r"session (\S+) \((new|resumed)\)")
MEASURED_TOOLBAR = re.compile(r"ctx \d")  # the toolbar once its gauge is measured
QUESTION_MARK = "allow?"  # a permission question's first word


def find_tmux() -> str | None:
    return shutil.which("tmux") or next(
        (path for path in ("/usr/bin/tmux", "/usr/local/bin/tmux") if os.access(path, os.X_OK)),
        None,
    )


def require_tmux() -> str:
    """The tmux executable; skips the calling test, saying why, when there is none."""
    import pytest

    tmux = find_tmux()
    if tmux is None:
        pytest.skip("tmux is not installed (.ci/run installs it); these tests need a terminal")
    return tmux


def agent_cli_argv() -> list[str]:
    """How to start the installed program: the venv's `agent-cli` script, else `-m`."""
    script = Path(sys.executable).with_name("agent-cli")
    if script.is_file() and os.access(script, os.X_OK):
        return [str(script)]
    return [sys.executable, "-m", "agent_cli"]


def build_env(home: Path, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The program's environment; see the module contract."""
    env = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith(("ANTHROPIC_", "TMUX", "AGENT_CLI_"))
        and name not in ("COLUMNS", "LINES")
    }
    env.update({"AGENT_CLI_HOME": str(home), "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8"})
    env.update(extra or {})
    return env


def run_piped(
    args: Sequence[str], *, cwd: Path, env: Mapping[str, str], stdin_text: str = ""
) -> subprocess.CompletedProcess[str]:
    """Run `agent-cli args` with `stdin_text` on a pipe (no terminal anywhere)."""
    return subprocess.run(
        [*agent_cli_argv(), *args],
        cwd=cwd,
        env=dict(env),
        input=stdin_text,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )


def run_scripted(
    home: Path,
    workspace: Path,
    api_key: str,
    replies: Sequence[Any],
    *,
    environment: Mapping[str, str] | None = None,
    stdin_text: str = "go\n",
) -> tuple[subprocess.CompletedProcess[str], list[dict[str, Any]]]:
    """`agent-cli --yes` piped in `workspace` (its state in `home`, `environment` added to
    its own) against the fake API answering `replies` in order: the run, and the body of
    every request the fake received."""
    from fake_anthropic import start_fake_server

    with start_fake_server(api_key=api_key) as fake:
        fake.enqueue(*replies)
        extra = {"ANTHROPIC_API_KEY": api_key, "ANTHROPIC_BASE_URL": fake.base_url}
        env = build_env(home, {**extra, **(environment or {})})
        done = run_piped(["--yes"], cwd=workspace, env=env, stdin_text=stdin_text)
        return done, [request.body for request in fake.requests]


def count_prompts(screen: str) -> int:
    """How many prompt lines the screen shows (each line the user sent, plus the live one)."""
    return sum(1 for line in screen.splitlines() if line.startswith(PROMPT_MARK))


def shows_whole_question(screen: str) -> bool:
    """True when the visible rows `screen` end in a whole permission question: `allow?` is
    on them and the last row ends in the colon the answer is typed after (a question read
    while it is still being drawn has no colon yet)."""
    return QUESTION_MARK in screen and screen.rstrip().endswith(":")


def last_prompt_line(screen: str) -> str | None:
    lines = [line for line in screen.splitlines() if line.startswith(PROMPT_MARK)]
    return lines[-1].rstrip() if lines else None


def session_id_on(screen: str) -> str:
    match = SESSION_LINE.search(screen)
    if match is None:
        raise AssertionError(f"no session line on screen:\n{screen}")
    return match.group(1)


_SOCKETS_MADE: list[Path] = []  # every socket path a terminal of this process used


def tmux_socket_path(label: str, env: Mapping[str, str]) -> Path:
    """Where `tmux -L <label>` keeps its socket: <$TMUX_TMPDIR or /tmp>/tmux-<uid>/<label>."""
    return Path(env.get("TMUX_TMPDIR") or "/tmp") / f"tmux-{os.getuid()}" / label


def sockets_left_behind() -> list[Path]:
    """The sockets this process's terminals made that still exist (none, once every
    terminal was killed)."""
    return [path for path in _SOCKETS_MADE if path.exists() or path.is_symlink()]


def _is_tmux_process(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/comm").read_text().startswith("tmux")
    except OSError:
        return False


class TmuxTerminal:
    """One private tmux server with one pane; see the module contract."""

    def __init__(self, tmux: str, workdir: Path, env: Mapping[str, str]) -> None:
        self._tmux = tmux
        self._socket = f"agent-cli-e2e-{uuid.uuid4().hex[:12]}"
        self._env = dict(env)
        self.socket_path = tmux_socket_path(self._socket, self._env)
        self._server_pid: int | None = None
        _SOCKETS_MADE.append(self.socket_path)
        self._config = workdir / "tmux.conf"
        self._config.write_text(TMUX_CONFIG, encoding="utf-8")

    def start(self, argv: Sequence[str], *, cwd: Path, width: int = 120, height: int = 40) -> None:
        """Run `argv` in a fresh pane of `width` x `height` cells, working in `cwd`."""
        self._run(
            "new-session",
            "-d",
            "-s",
            PANE,
            "-x",
            str(width),
            "-y",
            str(height),
            "-c",
            str(cwd),
            shlex.join(argv),
        )
        self._server_pid = self.server_pid()

    def server_pid(self) -> int:
        """The pid of the tmux server itself."""
        return int(self._run("display-message", "-p", "#{pid}").strip())

    def program_pid(self) -> int:
        """The pid of the program in the pane (tmux execs it, so it is the pane's process)."""
        return int(self._run("display-message", "-p", "-t", PANE, "#{pane_pid}").strip())

    def kill(self) -> None:
        """End the server and everything running in it, and remove its socket file (safe to
        call twice). When tmux does not answer, the server's process is killed instead, so
        no server outlives its removed socket."""
        answered = False
        try:
            answered = self._run_quietly("kill-server").returncode == 0
        finally:
            if not answered:
                self._kill_server_process()
            self._server_pid = None
            self.socket_path.unlink(missing_ok=True)

    def _kill_server_process(self) -> None:
        pid = self._server_pid
        if pid is None or not _is_tmux_process(pid):  # gone already, or the pid reused
            return
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)

    def _run_quietly(self, *args: str) -> subprocess.CompletedProcess[bytes]:
        command = [self._tmux, "-L", self._socket, *args]
        return subprocess.run(command, env=self._env, capture_output=True, check=False, timeout=10)

    # --- input --------------------------------------------------------------------------

    def type_text(self, text: str) -> None:
        """Type `text` literally, without pressing Enter."""
        self._run("send-keys", "-t", PANE, "-l", text)

    def paste(self, text: str, *, raw: bool = False) -> None:
        """Paste `text` as a terminal does (bracketed, when the program asked for it): each
        line feed sent as CR; with `raw`, its bytes as they are (CRLF, CR or LF)."""
        source = self._config.parent / "paste.txt"  # a command line is too short for it
        source.write_bytes(text.encode("utf-8"))
        self._run("load-buffer", "-b", "e2e-paste", str(source))
        as_is = ["-r"] if raw else []
        self._run("paste-buffer", "-p", *as_is, "-d", "-b", "e2e-paste", "-t", PANE)

    def press(self, *keys: str) -> None:
        """Press named keys, e.g. `Enter`, `C-c`, `C-d`."""
        self._run("send-keys", "-t", PANE, *keys)

    # --- output -------------------------------------------------------------------------

    def record_output(self, path: Path) -> None:
        """From now on, append every byte the program writes to its terminal to `path`
        (tmux's `pipe-pane -O`): the raw output, before the terminal interprets it."""
        self._run("pipe-pane", "-O", "-t", PANE, f"cat >> {shlex.quote(str(path))}")

    def screen(self) -> str:
        """Everything the pane ever showed (scroll-back included), wrapped lines joined."""
        return self._run("capture-pane", "-p", "-J", "-S", "-", "-t", PANE)

    def visible(self) -> str:
        """Only the rows on screen now (the bottom toolbar is the last non-empty one)."""
        return self._run("capture-pane", "-p", "-t", PANE)

    def visible_with_colours(self) -> str:
        """The rows on screen now, with the SGR escapes that colour them."""
        return self._run("capture-pane", "-p", "-e", "-t", PANE)

    def screen_with_colours(self) -> str:
        """`screen` (the scrollback too) with the SGR escapes that colour it."""
        return self._run("capture-pane", "-p", "-e", "-S", "-", "-t", PANE)

    def terminal_modes(self) -> str:
        """The pane's terminal settings as `stty -a` lists them (`-echo`, `isig`, ...)."""
        tty = self._run("display-message", "-p", "-t", PANE, "#{pane_tty}").strip()
        done = subprocess.run(
            ["stty", "-F", tty, "-a"], capture_output=True, text=True, check=False, timeout=10
        )
        if done.returncode != 0:
            raise AssertionError(f"stty -F {tty} failed: {done.stderr.strip()}")
        return done.stdout

    def exit_status(self) -> int | None:
        """The program's exit status once it has ended, None while it runs."""
        state = self._run("display-message", "-p", "-t", PANE, "#{pane_dead} #{pane_dead_status}")
        dead, _, status = state.strip().partition(" ")
        return int(status) if dead == "1" and status else None

    def wait_for(
        self,
        check: Callable[[str], bool],
        what: str,
        *,
        timeout: float = DEFAULT_WAIT_SECONDS,
        source: Callable[[], str] | None = None,
    ) -> str:
        """Poll until `check(screen)`; return that screen, or fail naming `what`."""
        read = source or self.screen
        deadline = time.monotonic() + timeout
        while True:
            screen = read()
            if check(screen):
                return screen
            if time.monotonic() >= deadline:
                raise AssertionError(f"waited {timeout:g}s for {what}; the screen was:\n{screen}")
            time.sleep(POLL_SECONDS)

    def wait_for_text(self, text: str, *, timeout: float = DEFAULT_WAIT_SECONDS) -> str:
        return self.wait_for(lambda screen: text in screen, repr(text), timeout=timeout)

    def wait_for_exit(self, *, timeout: float = DEFAULT_WAIT_SECONDS) -> int:
        """The program's exit status, once tmux has seen it exit.

        tmux built with libutempter can miss a child's SIGCHLD: utempter installs its own
        handler for a moment when the pane's terminal closes, and a child that exits in
        that moment stays an unreaped zombie, so the pane never reads as dead (tmux issue
        #311). Sending our own server a SIGCHLD on each poll makes it reap and record the
        status; the signal is harmless when there is nothing to reap.
        """
        server_pid = self.server_pid()
        deadline = time.monotonic() + timeout
        while (status := self.exit_status()) is None:
            if time.monotonic() >= deadline:
                raise AssertionError(f"the program did not exit; the screen was:\n{self.screen()}")
            os.kill(server_pid, signal.SIGCHLD)
            time.sleep(POLL_SECONDS)
        return status

    def _run(self, *args: str) -> str:
        command = [self._tmux, "-u", "-L", self._socket, "-f", str(self._config), *args]
        done = subprocess.run(
            command, env=self._env, capture_output=True, text=True, check=False, timeout=10
        )
        if done.returncode != 0:
            raise AssertionError(f"tmux {args[0]} failed: {done.stderr.strip()}")
        return done.stdout


class TerminalPool:
    """Terminals for one test, each with its own server; `kill_all()` ends every one."""

    def __init__(self, tmux: str, workdir: Path) -> None:
        self._tmux = tmux
        self._workdir = workdir
        self._terminals: list[TmuxTerminal] = []

    def open(self, env: Mapping[str, str]) -> TmuxTerminal:
        folder = self._workdir / f"tmux-{len(self._terminals)}"
        folder.mkdir(parents=True, exist_ok=True)
        terminal = TmuxTerminal(self._tmux, folder, env)
        self._terminals.append(terminal)
        return terminal

    def kill_all(self) -> None:
        """Kill every terminal, even when killing one of them fails (that error is raised
        once all were tried)."""
        failures: list[Exception] = []
        for terminal in self._terminals:
            try:
                terminal.kill()
            except Exception as failure:  # the rest must still be killed
                failures.append(failure)
        if failures:
            raise failures[0]


class ReplDriver:
    """The REPL as a user meets it: wait for the prompt, send a line, wait for the next."""

    def __init__(self, terminal: TmuxTerminal) -> None:
        self.terminal = terminal

    def wait_for_prompt(self, *, timeout: float = DEFAULT_WAIT_SECONDS) -> str:
        """Wait until the REPL is ready: the banner on screen, and the prompt below it.

        The prompt alone is not enough: it is drawn first, while the session still opens,
        and the banner (which names the session) comes above it once the session is open.
        """
        return self.terminal.wait_for(
            lambda screen: BANNER_END in screen and count_prompts(screen) >= 1,
            "the banner and the first prompt",
            timeout=timeout,
        )

    def submit(self, line: str, *, timeout: float = DEFAULT_WAIT_SECONDS) -> str:
        """Send `line` and wait for the prompt after it; return what the line printed."""
        before = count_prompts(self.terminal.screen())
        self.send(line)
        screen = self.terminal.wait_for(
            lambda text: count_prompts(text) > before, f"the prompt after {line!r}", timeout=timeout
        )
        return output_after(screen, line)

    def send(self, line: str) -> None:
        """Type `line` and press Enter, without waiting for what it does."""
        self.terminal.type_text(line)
        self.terminal.press("Enter")

    def toolbar(self) -> str:
        """The bottom toolbar: the last non-empty row on screen, once the toolbar is drawn
        there with the context measured (right after a turn the prompt row may be on screen
        before it, and then the toolbar says `ctx … (measuring)` until the gauge is in)."""

        def last_row(screen: str) -> str:
            rows = [row for row in screen.splitlines() if row.strip()]
            return rows[-1] if rows else ""

        screen = self.terminal.wait_for(
            lambda seen: MEASURED_TOOLBAR.match(last_row(seen)) is not None,
            "the toolbar with the context measured",
            source=self.terminal.visible,
        )
        return last_row(screen)


def start_repl(
    terminals: TerminalPool,
    home: Path,
    workspace: Path,
    *flags: str,
    width: int = 120,
    extra_env: Mapping[str, str] | None = None,
) -> ReplDriver:
    """`agent-cli *flags` in a fresh terminal of `terminals`, ready at its first prompt
    (`extra_env` is added to its environment)."""
    terminal = terminals.open(build_env(home, extra_env))
    terminal.start([*agent_cli_argv(), *flags], cwd=workspace, width=width)
    driver = ReplDriver(terminal)
    driver.wait_for_prompt()
    return driver


def output_after(screen: str, line: str) -> str:
    """What the screen shows after the last prompt line that sent `line`."""
    marker = f"{PROMPT_MARK} {line}"
    index = screen.rfind(marker)
    if index < 0:
        raise AssertionError(f"{marker!r} is not on screen:\n{screen}")
    return screen[index + len(marker) :]


def write_demo_workspace(root: Path) -> Path:
    """A workspace with a README (heading `# Demo Project`) and a ~30 KB `big.txt`."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "README.md").write_text(
        "# Demo Project\n\nA small folder for trying agent-cli.\n", encoding="utf-8"
    )
    words = ("alpha", "beta", "gamma", "delta", "epsilon", "zeta")
    lines = [
        f"line {n:03d} " + " ".join(words[(n * 7 + k) % len(words)] for k in range(12))
        for n in range(400)
    ]
    (root / "big.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return root


SGR = re.compile(r"\x1b\[([0-9;]*)m")


def reversed_on_screen(coloured: str) -> str:
    """The characters `coloured` (text with SGR escapes) draws in reverse video."""
    found, reverse, position = [], False, 0
    for match in SGR.finditer(coloured):
        if reverse:
            found.append(coloured[position : match.start()])
        for code in match.group(1).split(";"):
            reverse = code == "7" or (reverse and code not in ("", "0", "27"))
        position = match.end()
    if reverse:
        found.append(coloured[position:])
    return "".join(found).replace("\n", "")
