"""What write_file and edit_file do to a file they replace beyond its content, and that
the question and the result say it (fifteenth outside attack): setuid and setgid are
cleared, owner, group, mode and extended attributes kept where allowed, a read-only file
and a file with other hard links named as such.

Real files in a temporary workspace; the tests that give a file to another user need
root (`os.chown`), and the wording is also tested from plain facts without root."""

from __future__ import annotations

import os
import shutil
import stat
import struct
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from tools_support import RecordingAsker, make_toolbox

from agent_cli.tools import PermissionDecision
from agent_cli.tools.file_replace import (
    NAME_MAX_BYTES,
    Effects,
    FileFacts,
    Writer,
    describe_effects,
    predict_effects,
    temp_name_for,
)

NOBODY, NOGROUP = 65534, 65534
needs_root = pytest.mark.skipif(
    os.geteuid() != 0, reason="giving a file to another user needs root"
)
ROOT = Writer(0, 0, frozenset({0}))
ALICE = Writer(1000, 1000, frozenset({1000, 100}))


def user(number: int) -> str:
    return {0: "root", 1000: "alice", NOBODY: "nobody"}.get(number, str(number))


def group(number: int) -> str:
    return {0: "root", 1000: "alice", 100: "users", NOGROUP: "nogroup"}.get(number, str(number))


def predicted_words(facts: FileFacts, writer: Writer) -> list[str]:
    return describe_effects(predict_effects(facts, writer, user, group))


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    return root


def asked(workspace: Path, tool: str, arguments: dict[str, str]) -> tuple[str, str]:
    """The question's description, and the result, when the user says yes."""
    asker = RecordingAsker(PermissionDecision.ALLOW_ONCE)
    outcome = make_toolbox(workspace, auto_approve=False, ask_permission=asker).run(tool, arguments)
    assert not outcome.is_error, outcome.content
    (request,) = asker.requests
    return request.description, str(outcome.content)


# --- the words, from facts alone ----------------------------------------------------------


def test_an_ordinary_file_of_the_writer_is_replaced_without_a_word():
    assert predicted_words(FileFacts(0o644, 1000, 1000), ALICE) == []
    assert predicted_words(FileFacts(0o640, NOBODY, NOGROUP), ROOT) == []


def test_setuid_and_setgid_are_said_to_be_cleared():
    assert predicted_words(FileFacts(0o6755, 0, 0), ROOT) == ["clears its setuid and setgid bits"]
    assert predicted_words(FileFacts(0o2755, 1000, 1000), ALICE) == ["clears its setgid bit"]
    assert describe_effects(Effects(cleared=("setuid",)), done=True) == ["cleared its setuid bit"]


def test_another_users_file_changes_owner_when_the_writer_is_not_root():
    words = predicted_words(FileFacts(0o666, NOBODY, NOGROUP), ALICE)
    assert words == ["its owner and group become alice:alice (was nobody:nogroup)"]
    in_a_shared_group = predicted_words(FileFacts(0o664, NOBODY, 100), ALICE)
    assert in_a_shared_group == ["its owner becomes alice (was nobody)"]


def test_a_group_the_owner_is_not_in_is_said_to_change():
    assert predicted_words(FileFacts(0o644, 1000, NOGROUP), ALICE) == [
        "its group becomes alice (was nogroup)"
    ]


def test_in_a_setgid_folder_the_group_is_the_folders():
    # a file made in a setgid folder takes the folder's group, not the writer's
    assert predicted_words(FileFacts(0o644, 1000, NOGROUP, folder_gid=NOGROUP), ALICE) == []
    assert predicted_words(FileFacts(0o644, 1000, NOGROUP, folder_gid=100), ALICE) == [
        "its group becomes users (was nogroup)"
    ]


def test_a_read_only_file_is_named_read_only():
    assert predicted_words(FileFacts(0o444, 0, 0), ROOT) == [
        "it is read-only (r--r--r--) and stays so"
    ]
    assert predicted_words(FileFacts(0o444, 1000, 1000), ALICE) == [
        "it is read-only (r--r--r--) and stays so"
    ]
    # root may write to a file only its owner may: not read-only to root
    assert predicted_words(FileFacts(0o644, NOBODY, NOGROUP), ROOT) == []


def test_a_file_read_only_to_the_writer_alone_says_whose_it_is():
    words = predicted_words(FileFacts(0o644, NOBODY, NOGROUP), ALICE)
    assert words == [
        "its owner and group become alice:alice (was nobody:nogroup)",
        "it is not writable by alice (rw-r--r--), only replaceable",
    ]


def test_other_hard_links_are_said_to_keep_the_old_content():
    assert predicted_words(FileFacts(0o644, 0, 0, links=2), ROOT) == [
        "its other hard link keeps the old content"
    ]
    assert predicted_words(FileFacts(0o644, 0, 0, links=3), ROOT) == [
        "its 2 other hard links keep the old content"
    ]


def test_attributes_that_are_not_kept_are_named():
    facts = FileFacts(
        0o755, 0, 0, attributes=("security.capability", "security.selinux", "user.origin")
    )
    assert predicted_words(facts, ROOT) == [
        "does not keep its extended attribute security.capability"
    ]


# --- real files -----------------------------------------------------------------------------


def test_a_setuid_file_is_rewritten_without_its_special_bits_and_both_say_so(workspace: Path):
    target = workspace / "suid.sh"
    target.write_text("#!/bin/sh\necho hi\n")
    target.chmod(0o6755)
    question, result = asked(
        workspace, "write_file", {"path": "suid.sh", "content": "#!/bin/sh\necho pwned\n"}
    )
    assert question == "overwrite suid.sh with 2 lines; clears its setuid and setgid bits"
    assert result == (
        "Wrote 2 lines (21 B) to suid.sh (replaced the old content); "
        "cleared its setuid and setgid bits."
    )
    assert stat.S_IMODE(target.stat().st_mode) == 0o755
    assert target.read_text() == "#!/bin/sh\necho pwned\n"


def test_an_edit_keeps_the_sticky_bit_and_clears_setgid(workspace: Path):
    target = workspace / "tool"
    target.write_text("one\n")
    target.chmod(0o3750)
    question, result = asked(
        workspace, "edit_file", {"path": "tool", "old_string": "one", "new_string": "two"}
    )
    assert question.endswith("; clears its setgid bit")
    assert result.endswith("; cleared its setgid bit.")
    assert stat.S_IMODE(target.stat().st_mode) == 0o1750


@needs_root
def test_root_keeps_another_users_owner_and_group(workspace: Path):
    target = workspace / "owned.txt"
    target.write_text("old\n")
    os.chown(target, NOBODY, NOGROUP)
    target.chmod(0o640)
    question, result = asked(
        workspace, "edit_file", {"path": "owned.txt", "old_string": "old", "new_string": "new"}
    )
    assert question == "edit owned.txt: replace 1 line with 1 line"
    assert result == "Edited owned.txt: replaced 1 line with 1 line at line 1."
    info = target.stat()
    assert (info.st_uid, info.st_gid, stat.S_IMODE(info.st_mode)) == (NOBODY, NOGROUP, 0o640)
    assert target.read_text() == "new\n"


@needs_root
def test_root_keeps_owner_and_group_through_write_file_too(workspace: Path):
    target = workspace / "owned.txt"
    target.write_text("old\n")
    os.chown(target, NOBODY, NOGROUP)
    asked(workspace, "write_file", {"path": "owned.txt", "content": "new\n"})
    assert (target.stat().st_uid, target.stat().st_gid) == (NOBODY, NOGROUP)


def test_a_read_only_file_is_named_so_and_keeps_its_mode(workspace: Path):
    target = workspace / "ro.txt"
    target.write_text("old\n")
    target.chmod(0o444)
    question, result = asked(workspace, "write_file", {"path": "ro.txt", "content": "new ro\n"})
    assert question == "overwrite ro.txt with 1 line; it is read-only (r--r--r--) and stays so"
    assert result.endswith("; it was read-only (r--r--r--) and stays so.")
    assert stat.S_IMODE(target.stat().st_mode) == 0o444


def test_a_hard_linked_file_says_its_other_names_keep_the_old_content(
    workspace: Path, tmp_path: Path
):
    outside = tmp_path / "outside.txt"
    outside.write_text("outside original\n")
    os.link(outside, workspace / "hl.txt")
    question, result = asked(
        workspace, "edit_file", {"path": "hl.txt", "old_string": "outside", "new_string": "EDIT"}
    )
    assert question == (
        "edit hl.txt: replace 1 line with 1 line; its other hard link keeps the old content"
    )
    assert result.endswith("; its other hard link kept the old content.")
    assert outside.read_text() == "outside original\n"  # the link is broken, not written through
    assert (workspace / "hl.txt").read_text() == "EDIT original\n"


def test_user_attributes_are_kept_and_capabilities_are_not(workspace: Path):
    target = workspace / "tagged.txt"
    target.write_text("old\n")
    try:
        os.setxattr(target, "user.origin", b"downloaded")
    except OSError as error:
        pytest.skip(f"no user extended attributes here: {error}")
    question, result = asked(workspace, "write_file", {"path": "tagged.txt", "content": "new\n"})
    assert question == "overwrite tagged.txt with 1 line"
    assert os.getxattr(target, "user.origin") == b"downloaded"


@needs_root
def test_file_capabilities_are_dropped_like_setuid_and_both_say_so(workspace: Path):
    target = workspace / "capable"
    target.write_text("old\n")
    # VFS_CAP_REVISION_2: cap_net_raw (13) permitted and effective
    value = struct.pack("<IIIII", 0x02000001, 1 << 13, 0, 0, 0)
    try:
        os.setxattr(target, "security.capability", value)
    except OSError as error:
        pytest.skip(f"file capabilities cannot be set here: {error}")
    question, result = asked(workspace, "write_file", {"path": "capable", "content": "new\n"})
    assert question.endswith("; does not keep its extended attribute security.capability")
    assert result.endswith("; did not keep its extended attribute security.capability.")
    assert "security.capability" not in os.listxattr(target)


@needs_root
def test_an_access_acl_is_kept(workspace: Path):
    target = workspace / "shared.txt"
    target.write_text("old\n")
    target.chmod(0o640)
    acl = struct.pack(
        "<I" + "HHI" * 5,
        2,
        *(0x01, 6, 0xFFFFFFFF),  # owner rw-
        *(0x02, 6, NOBODY),  # user nobody rw-
        *(0x04, 4, 0xFFFFFFFF),  # group r--
        *(0x10, 6, 0xFFFFFFFF),  # mask rw-
        *(0x20, 0, 0xFFFFFFFF),  # other ---
    )
    try:
        os.setxattr(target, "system.posix_acl_access", acl)
    except OSError as error:
        pytest.skip(f"no POSIX ACLs here: {error}")
    before = os.getxattr(target, "system.posix_acl_access")
    mode = stat.S_IMODE(target.stat().st_mode)
    question, _ = asked(workspace, "write_file", {"path": "shared.txt", "content": "new\n"})
    assert question == "overwrite shared.txt with 1 line"
    assert os.getxattr(target, "system.posix_acl_access") == before
    assert stat.S_IMODE(target.stat().st_mode) == mode


def test_a_new_file_is_created_without_a_word(workspace: Path):
    question, result = asked(workspace, "write_file", {"path": "new.txt", "content": "x\n"})
    assert question == "create new.txt with 1 line"
    assert result == "Wrote 1 line (2 B) to new.txt (new file)."


def ask_as_nobody(folder: Path, tool: str, arguments: dict[str, str]) -> tuple[str, str]:
    """`asked` in a child process that runs as nobody:nogroup (root forks it)."""
    reader, writer = os.pipe()
    child = os.fork()
    if child == 0:  # pragma: no cover - the child reports through the pipe
        status = 1
        try:
            os.close(reader)
            os.setgroups([])
            os.setgid(NOGROUP)
            os.setuid(NOBODY)
            question, result = asked(folder, tool, arguments)
            os.write(writer, f"{question}\n{result}".encode())
            status = 0
        finally:
            os._exit(status)
    os.close(writer)
    with os.fdopen(reader, "rb") as pipe:
        said = pipe.read().decode()
    assert os.waitpid(child, 0)[1] == 0, said
    question, result = said.split("\n", 1)
    return question, result


@pytest.fixture
def open_folder() -> Iterator[Path]:
    """A folder everyone may write to (not sticky), outside root's private temp folders."""
    folder = Path(tempfile.mkdtemp(prefix="agent-cli-replace-"))
    folder.chmod(0o777)
    try:
        yield folder
    finally:
        shutil.rmtree(folder)


@needs_root
def test_a_user_who_cannot_keep_the_owner_is_told_before_and_after(open_folder: Path):
    target = open_folder / "shared.txt"
    target.write_text("old\n")
    target.chmod(0o666)
    question, result = ask_as_nobody(
        open_folder, "edit_file", {"path": "shared.txt", "old_string": "old", "new_string": "new"}
    )
    assert question == (
        "edit shared.txt: replace 1 line with 1 line; "
        "its owner and group become nobody:nogroup (was root:root)"
    )
    assert result.endswith("; its owner and group became nobody:nogroup (was root:root).")
    assert (target.stat().st_uid, target.stat().st_gid) == (NOBODY, NOGROUP)


@needs_root
def test_a_file_a_user_may_not_write_but_may_replace_is_named_so(open_folder: Path):
    target = open_folder / "roots.txt"
    target.write_text("old\n")
    target.chmod(0o644)
    question, result = ask_as_nobody(
        open_folder, "write_file", {"path": "roots.txt", "content": "new\n"}
    )
    assert question == (
        "overwrite roots.txt with 1 line; its owner and group become nobody:nogroup "
        "(was root:root); it is not writable by nobody (rw-r--r--), only replaceable"
    )
    assert result.endswith("; it was not writable by nobody (rw-r--r--), only replaceable.")
    assert stat.S_IMODE(target.stat().st_mode) == 0o644


@needs_root
def test_in_a_setgid_folder_the_question_names_the_group_the_file_keeps(open_folder: Path):
    open_folder.chmod(0o2777)  # root's group, setgid: a file made here is root's group too
    target = open_folder / "shared.txt"
    target.write_text("old\n")
    target.chmod(0o666)
    question, result = ask_as_nobody(
        open_folder, "edit_file", {"path": "shared.txt", "old_string": "old", "new_string": "new"}
    )
    assert question == (
        "edit shared.txt: replace 1 line with 1 line; its owner becomes nobody (was root)"
    )
    assert result.endswith("; its owner became nobody (was root).")
    assert (target.stat().st_uid, target.stat().st_gid) == (NOBODY, 0)


# A name of 228-255 bytes: the temp file beside it (28 bytes more) was too long to make,
# so such a file could be neither written nor edited (session 26's outside test).
LONG_NAMES = ["n" * 255, "长" * 85, "ab" * 114 + ".md"]


@pytest.mark.parametrize("name", LONG_NAMES, ids=["ascii-255", "cjk-255", "ascii-231"])
def test_a_file_whose_name_is_at_the_length_limit_is_written_and_edited(workspace: Path, name: str):
    target = workspace / name
    target.write_text("old line\n")
    toolbox = make_toolbox(workspace)
    written = toolbox.run("write_file", {"path": name, "content": "new line\n"})
    assert not written.is_error, written.content
    edited = toolbox.run(
        "edit_file", {"path": name, "old_string": "new line", "new_string": "edited line"}
    )
    assert not edited.is_error, edited.content
    assert target.read_text() == "edited line\n"
    assert sorted(os.listdir(workspace)) == [name]  # no temp file left


@pytest.mark.parametrize("name", [*LONG_NAMES, "a.md", "é" * 127 + "x"])
def test_the_temp_name_fits_a_file_name_and_stays_hidden(name: str):
    temp = temp_name_for(name, "0123456789ab")
    assert len(os.fsencode(temp)) <= NAME_MAX_BYTES
    assert temp.startswith(".") and temp.endswith(".agent-cli-0123456789ab.tmp")
    assert temp.encode("utf-8")  # whole characters only: no half of one
