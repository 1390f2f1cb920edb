"""First turn against second turn on the Anthropic provider: is the SDK ready in time?

Run with `python -m bench bench_first_turn` (or `make bench`). Prints figures only. The
real `agent-cli` runs in tmux against the fake Messages API (`tests/fake_anthropic.py`,
on 127.0.0.1) with the real SDK. The clock starts when Enter is pressed and stops when
the echoed answer is on screen. Before the first message the bench waits for the banner
plus `TYPING_SECONDS`, the time a person takes to type a request: the provider's client
is built (and the SDK's stream models and the Markdown renderer warmed up) on a worker
thread in that time (issue 12.7), so the first turn should take about as long as the
second (ratio near 1). Without it the first turn also pays the SDK import: about 1 s on
an idle machine, 5 s and more on a busy one, which is also why the pause is that long.
"""

from __future__ import annotations

import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

from bench.bench_startup import agent_cli_argv, clean_env, describe_load

REPEATS = 5
TYPING_SECONDS = 8.0
POLL_SECONDS = 0.01
GIVE_UP_SECONDS = 30.0
API_KEY = "sk-ant-bench-FAKEKEY-0123456789"


class Pane:
    def __init__(self, tmux: str, env: dict[str, str]) -> None:
        self._base = [tmux, "-u", "-L", f"bench-{uuid.uuid4().hex[:10]}", "-f", "/dev/null"]
        self._env = env

    def start(self, argv: list[str], cwd: Path) -> None:
        self.tmux("new-session", "-d", "-s", "b", "-x", "120", "-y", "40", "-c", str(cwd),
                  shlex.join(argv))  # fmt: skip

    def wait_for(self, text: str) -> float:
        start = time.perf_counter()
        while time.perf_counter() - start < GIVE_UP_SECONDS:
            if text in self.tmux("capture-pane", "-p", "-J", "-S", "-", "-t", "b"):
                return time.perf_counter() - start
            time.sleep(POLL_SECONDS)
        raise RuntimeError(f"{text!r} never appeared")

    def send_and_time(self, line: str) -> float:
        self.tmux("send-keys", "-t", "b", "-l", line)
        start = time.perf_counter()
        self.tmux("send-keys", "-t", "b", "Enter")
        self.wait_for(f"echo: {line}")
        return time.perf_counter() - start

    def close(self) -> None:
        """End the server and remove its socket file, which tmux's kill-server leaves."""
        where = [*self._base, "display-message", "-p", "#{socket_path}"]
        socket = subprocess.run(where, env=self._env, capture_output=True, text=True)
        subprocess.run([*self._base, "kill-server"], env=self._env, capture_output=True)
        if socket.returncode == 0 and socket.stdout.strip():
            Path(socket.stdout.strip()).unlink(missing_ok=True)

    def tmux(self, *args: str) -> str:
        done = subprocess.run(
            [*self._base, *args], env=self._env, capture_output=True, text=True, check=True
        )
        return done.stdout


def measure_once(tmux: str, scratch: Path, base_url: str, n: int) -> tuple[float, float]:
    env = clean_env(scratch / f"home-{n}")
    env.update({"ANTHROPIC_API_KEY": API_KEY, "ANTHROPIC_BASE_URL": base_url})
    pane = Pane(tmux, env)
    try:
        pane.start(agent_cli_argv(), scratch)
        pane.wait_for("/help for commands")
        time.sleep(TYPING_SECONDS)
        return pane.send_and_time(f"first-{n}"), pane.send_and_time(f"second-{n}")
    finally:
        pane.close()


def main() -> None:
    tmux = shutil.which("tmux")
    if tmux is None:
        print("first turn: skipped (tmux is not installed)")
        return
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
    from fake_anthropic import start_fake_server

    print(f"{describe_load()} · {TYPING_SECONDS:g} s of typing before the first message")
    firsts, seconds = [], []
    with (
        tempfile.TemporaryDirectory(prefix="bench-first-turn-") as raw,
        start_fake_server(api_key=API_KEY) as server,
    ):
        for n in range(REPEATS):
            first, second = measure_once(tmux, Path(raw), server.base_url, n)
            firsts.append(first)
            seconds.append(second)
    first, second = statistics.median(firsts), statistics.median(seconds)
    print(f"first turn  median {first:.3f} s (n={len(firsts)})")
    print(f"second turn median {second:.3f} s (n={len(seconds)})")
    print(f"first / second = {first / second:.2f}")


if __name__ == "__main__":
    main()
