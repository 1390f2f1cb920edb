"""A state folder on a read-only file system is named as one (an outside attack: a home
on a tmpfs remounted `ro` was reported as "you have no permission to write there", which
sends the user to chmod, which cannot help), and every write the disk refuses says what
makes it work again from one table of errno words (`repl/error_text._FOLDER_PROBLEMS`):
a full disk says free disk space, a read-only one does not."""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from e2e_support import build_env, run_piped

from agent_cli.errors import HeldResultsLost, StateDirUnavailable, TranscriptWriteFailed
from agent_cli.events import Notice
from agent_cli.repl.error_text import describe_error, describe_folder_fix, notice_text
from agent_cli.store.fsutil import ensure_private_dir, errno_name

READ_ONLY = (
    "it is on a read-only file system. Changing permissions will not help: set "
    "AGENT_CLI_HOME to a folder on a writable file system (or remount this one read-write)"
)


def test_a_state_folder_refused_with_erofs_is_named_a_read_only_file_system():
    code = errno_name(OSError(errno.EROFS, os.strerror(errno.EROFS)))
    said = describe_error(StateDirUnavailable("/srv/home", code))
    assert said == f"cannot use the state folder /srv/home: {READ_ONLY}"
    assert "permission to write" not in said


@pytest.mark.parametrize(
    ("code", "words", "fix"),
    [
        ("ENOSPC", "the disk is full, ENOSPC", "free disk space"),
        ("EDQUOT", "your disk quota is used up, EDQUOT", "free space within your disk quota"),
        ("EROFS", "it is on a read-only file system, EROFS", "remount that file system read-write"),
        ("EACCES", "no permission to create or open it, EACCES", "get write permission there"),
        ("EIO", "EIO", "free disk space or fix the state folder"),
    ],
)
def test_a_refused_transcript_write_says_what_makes_it_work_again(code, words, fix):
    said = describe_error(TranscriptWriteFailed("s1", code))
    assert words in said and f"; {fix}, then /resume s1" in said, said
    notice = notice_text(
        Notice("error", "transcript_write_failed", error=TranscriptWriteFailed("s1", code))
    )
    assert words in notice and fix.capitalize() in notice, notice
    lost = describe_error(HeldResultsLost("s1", 2, code))
    assert words in lost and fix.capitalize() in lost, lost
    stored = notice_text(Notice("error", "message_not_stored", {"characters": 9, "reason": code}))
    assert words in stored and fix.capitalize() in stored, stored


def test_only_a_full_disk_is_told_to_free_disk_space():
    assert describe_folder_fix("ENOSPC") == "free disk space"
    for code in ("EROFS", "EACCES", "EDQUOT", "not_writable"):
        assert "free disk space" not in describe_folder_fix(code), code


# --- a real read-only mount (root only) --------------------------------------------------


@pytest.fixture
def read_only_home(tmp_path: Path) -> Iterator[Path]:
    """A folder on a tmpfs mounted read-only; skipped where mounting is not allowed."""
    home = tmp_path / "home"
    home.mkdir()
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("mounting a tmpfs needs root")
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=1m,ro", "tmpfs", str(home)],
        capture_output=True,
        check=False,
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.decode(errors='replace')}")
    try:
        yield home
    finally:
        with contextlib.suppress(OSError):
            subprocess.run(["umount", str(home)], capture_output=True, check=False)


def test_an_existing_folder_on_a_read_only_mount_is_erofs_even_for_root(read_only_home):
    with pytest.raises(StateDirUnavailable) as caught:
        ensure_private_dir(read_only_home)
    assert caught.value.reason == "EROFS"
    with pytest.raises(StateDirUnavailable) as missing:
        ensure_private_dir(read_only_home / "transcripts")
    assert missing.value.reason == "EROFS"


@pytest.mark.e2e
@pytest.mark.parametrize("args", [["-p", "hello"], [], ["--continue", "-p", "hello"]])
def test_agent_cli_names_a_read_only_home_and_exits_2(read_only_home, tmp_path, args):
    workspace = tmp_path / "ws"
    workspace.mkdir()
    done = run_piped(args, cwd=workspace, env=build_env(read_only_home), stdin_text="hi\n")
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert READ_ONLY in done.stderr and "permission to write" not in done.stderr
    assert "Traceback" not in done.stderr
