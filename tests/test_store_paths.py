"""State paths: AGENT_CLI_HOME overrides everything, platformdirs otherwise, private dirs."""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

import pytest

from agent_cli.errors import StateDirUnavailable
from agent_cli.store.fsutil import FileOps, ensure_private_dir
from agent_cli.store.paths import StatePaths, resolve_state_paths


def mode_of(path: Path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def test_agent_cli_home_places_every_path_under_it(tmp_path: Path) -> None:
    home = tmp_path / "home"
    paths = resolve_state_paths({"AGENT_CLI_HOME": str(home)})
    assert paths == StatePaths(
        home=home,
        transcripts=home / "transcripts",
        artifacts_root=home,
        memory=home / "memory",
        history_file=home / "history",
        config_file=home / "config.toml",
    )


def test_default_env_is_the_process_environment(isolated_home: Path) -> None:
    assert resolve_state_paths().home == isolated_home


def test_resolving_creates_the_store_directories_private(tmp_path: Path) -> None:
    paths = resolve_state_paths({"AGENT_CLI_HOME": str(tmp_path / "home")})
    for directory in (paths.home, paths.transcripts, paths.memory):
        assert directory.is_dir()
        assert mode_of(directory) == 0o700
    assert not paths.config_file.exists()


def test_create_false_only_computes_paths(tmp_path: Path) -> None:
    paths = resolve_state_paths({"AGENT_CLI_HOME": str(tmp_path / "home")}, create=False)
    assert not paths.home.exists()


def test_relative_and_tilde_homes_become_absolute(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    paths = resolve_state_paths({"AGENT_CLI_HOME": "~/state"}, create=False)
    assert paths.home == tmp_path / "state"
    monkeypatch.chdir(tmp_path)
    assert resolve_state_paths({"AGENT_CLI_HOME": "rel"}, create=False).home == tmp_path / "rel"


def test_without_agent_cli_home_platform_dirs_are_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    paths = resolve_state_paths({"AGENT_CLI_HOME": "  "})
    assert paths.home == tmp_path / "data" / "agent-cli"
    assert paths.transcripts == tmp_path / "data" / "agent-cli" / "transcripts"
    assert paths.history_file == tmp_path / "state" / "agent-cli" / "history"
    assert paths.config_file == tmp_path / "config" / "agent-cli" / "config.toml"
    assert mode_of(paths.history_file.parent) == 0o700


def test_every_level_created_is_0700_whatever_the_umask(tmp_path: Path) -> None:
    previous = os.umask(0)
    try:
        ensure_private_dir(tmp_path / "a" / "b" / "c")
    finally:
        os.umask(previous)
    for level in (tmp_path / "a", tmp_path / "a" / "b", tmp_path / "a" / "b" / "c"):
        assert mode_of(level) == 0o700


def test_existing_parents_are_not_ours_to_chmod(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o755)
    ensure_private_dir(shared / "mine")
    assert mode_of(shared) == 0o755
    assert mode_of(shared / "mine") == 0o700


def test_a_home_under_a_regular_file_is_unavailable(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(StateDirUnavailable) as caught:
        resolve_state_paths({"AGENT_CLI_HOME": str(blocker / "home")})
    assert caught.value.reason == "ENOTDIR"


def test_a_home_that_is_a_regular_file_is_unavailable(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(StateDirUnavailable) as caught:
        ensure_private_dir(blocker)
    assert caught.value.reason == "not_a_directory"


@pytest.mark.skipif(os.geteuid() == 0, reason="root can write anywhere")
def test_a_read_only_parent_makes_the_home_unavailable(tmp_path: Path) -> None:
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    try:
        with pytest.raises(StateDirUnavailable) as caught:
            ensure_private_dir(locked / "home")
        assert caught.value.reason == "EACCES"
    finally:
        locked.chmod(0o700)


class RefusingMkdirOps(FileOps):
    """Creating a folder refused (EACCES), as a read-only parent does for a user not root."""

    def mkdir(self, path: Path, mode: int) -> None:
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(path))


def test_a_parent_that_refuses_new_folders_makes_the_home_unavailable(tmp_path: Path) -> None:
    with pytest.raises(StateDirUnavailable) as caught:
        ensure_private_dir(tmp_path / "locked" / "home", fs=RefusingMkdirOps())
    assert caught.value.reason == "EACCES"
    assert not (tmp_path / "locked").exists()
