"""The scene of the e2e tests where the fake Messages API plays the model: agent-cli's REPL
on a real terminal (tmux, 120x40 unless a test asks for another size), talking to the
fake API through the real SDK, in a workspace holding the files a test names."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from e2e_support import ReplDriver, agent_cli_argv, build_env
from fake_anthropic import start_fake_server


@dataclass(frozen=True)
class Scene:
    """The REPL on a real terminal, the fake API playing the model, the workspace."""

    repl: ReplDriver
    server: Any
    workspace: Path


@contextmanager
def open_scene(
    tmp_path: Path,
    terminals: Any,
    api_key: str,
    files: Mapping[str, str],
    *,
    width: int = 120,
    height: int = 40,
    flags: Sequence[str] = (),
) -> Iterator[Scene]:
    """The REPL started in `tmp_path/ws` (holding `files`, name -> text; a name may hold
    folders, made on the way) with its state in `tmp_path/home` on a `width` x `height`
    terminal, with `flags` (`--yes`), once its prompt is shown; the fake API accepts
    only `api_key`."""
    folder = tmp_path / "ws"
    folder.mkdir()
    for name, text in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)
    with start_fake_server(api_key=api_key) as fake:
        env = build_env(
            tmp_path / "home", {"ANTHROPIC_API_KEY": api_key, "ANTHROPIC_BASE_URL": fake.base_url}
        )
        terminal = terminals.open(env)
        terminal.start([*agent_cli_argv(), *flags], cwd=folder, width=width, height=height)
        driver = ReplDriver(terminal)
        driver.wait_for_prompt(timeout=60)
        yield Scene(driver, fake, folder)
