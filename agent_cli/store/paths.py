"""Where agent-cli keeps its state on disk.

One variable, `AGENT_CLI_HOME`, moves everything (tests always set it to a temp dir):
transcripts, artifacts, memory, prompt history and the config file all live under it.
Without it the platform's conventional places are used (platformdirs, app "agent-cli"):
the user data dir is the home of transcripts, artifacts and memory, the user state dir
holds the prompt history, and the user config dir holds `config.toml`.

Directories created here are private to the user (0700); see `fsutil.ensure_private_dir, ensure_private_file`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from agent_cli.store.fsutil import ensure_private_dir, ensure_private_file
from agent_cli.store.home_layout import (
    CONFIG_FILE_NAME,
    HISTORY_FILE_NAME,
    MEMORY_FOLDER,
    TRANSCRIPTS_FOLDER,
)

APP_NAME = "agent-cli"
HOME_VARIABLE = "AGENT_CLI_HOME"

__all__ = ["StatePaths", "resolve_state_paths", "prepare_state_dirs"]


@dataclass(frozen=True)
class StatePaths:
    """Absolute locations of every piece of on-disk state.

    `artifacts_root` is `home` itself: artifacts live at `home/<session_id>/tool-results/`.
    """

    home: Path
    transcripts: Path
    artifacts_root: Path
    memory: Path
    history_file: Path
    config_file: Path

    def own_folders(self) -> tuple[Path, ...]:
        """The folders agent-cli keeps for itself, which the file tools never touch
        (`tools.state_folders`): the home, and the folders of the prompt history and the
        config file (the same folder under `AGENT_CLI_HOME`), each named once."""
        found: list[Path] = []
        for folder in (self.home, self.history_file.parent, self.config_file.parent):
            if folder not in found:
                found.append(folder)
        return tuple(found)


def resolve_state_paths(env: Mapping[str, str] | None = None, *, create: bool = True) -> StatePaths:
    """Work out the state locations from `env` (default: `os.environ`).

    A non-empty `AGENT_CLI_HOME` overrides everything (`~` is expanded, relative paths are
    made absolute). With `create=True` (the default) the directories the stores write into
    are created 0700 and checked for writability, raising `StateDirUnavailable` otherwise;
    `create=False` only computes the paths. The config file is never created here.
    """
    env = os.environ if env is None else env
    override = env.get(HOME_VARIABLE, "").strip()
    paths = _paths_under_home(override) if override else _platform_paths()
    if create:
        prepare_state_dirs(paths)
    return paths


def prepare_state_dirs(paths: StatePaths) -> None:
    """Create the home, transcript, memory and history directories (0700) if missing, and
    the prompt history file (0600): what was typed can hold secrets, and the line editor
    would otherwise create it with the umask's mode (often 0644)."""
    for directory in (paths.home, paths.transcripts, paths.memory, paths.history_file.parent):
        ensure_private_dir(directory)
    ensure_private_file(paths.history_file)


def _paths_under_home(raw_home: str) -> StatePaths:
    home = Path(raw_home).expanduser().absolute()
    return StatePaths(
        home=home,
        transcripts=home / TRANSCRIPTS_FOLDER,
        artifacts_root=home,
        memory=home / MEMORY_FOLDER,
        history_file=home / HISTORY_FILE_NAME,
        config_file=home / CONFIG_FILE_NAME,
    )


def _platform_paths() -> StatePaths:
    import platformdirs  # lazily: only needed when AGENT_CLI_HOME is not set

    home = Path(platformdirs.user_data_dir(APP_NAME, appauthor=False)).absolute()
    state = Path(platformdirs.user_state_dir(APP_NAME, appauthor=False)).absolute()
    config = Path(platformdirs.user_config_dir(APP_NAME, appauthor=False)).absolute()
    return StatePaths(
        home=home,
        transcripts=home / TRANSCRIPTS_FOLDER,
        artifacts_root=home,
        memory=home / MEMORY_FOLDER,
        history_file=state / HISTORY_FILE_NAME,
        config_file=config / CONFIG_FILE_NAME,
    )
