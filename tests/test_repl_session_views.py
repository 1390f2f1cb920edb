"""`/sessions delete`'s report: every id's outcome in a few plain words."""

from __future__ import annotations

from repl_fakes import make_console

from agent_cli.errors import TranscriptLocked
from agent_cli.repl.session_views import build_deletion_report
from agent_cli.session.catalog import (
    ARTIFACTS_LEFT,
    DELETED,
    FAILED,
    NOT_FOUND,
    SessionDeletion,
)


def shown(outcomes: list[SessionDeletion]) -> list[str]:
    console = make_console(width=200)
    console.print(build_deletion_report(outcomes))
    return console.export_text().splitlines()


def test_a_half_deleted_session_is_named_with_the_reason_its_artifacts_stayed():
    refused = PermissionError(13, "Permission denied", "/home/x/artifacts/b")
    lines = shown(
        [
            SessionDeletion("a", DELETED),
            SessionDeletion("b", ARTIFACTS_LEFT, refused),
            SessionDeletion("c", FAILED, TranscriptLocked("c")),
            SessionDeletion("d", NOT_FOUND),
        ]
    )
    assert lines == [
        "deleted 1 session (transcript and artifacts): a",
        "no such session: d",
        "transcript deleted, artifacts left: b: permission denied",
        "not deleted: c: session c is open in another agent-cli process; quit it there first",
    ]


def test_nothing_deleted_says_so_without_claiming_a_deletion():
    assert shown([]) == ["no session to delete"]
    assert shown([SessionDeletion("x", NOT_FOUND)]) == ["no such session: x"]


def test_a_folder_with_foreign_files_and_an_id_that_is_no_session_are_each_said_plainly():
    from agent_cli.errors import InvalidStoreInput, SessionFolderKept, StoreFileNotRegular
    from agent_cli.session.catalog import NOT_A_SESSION

    kept = SessionFolderKept("b", "/home/x/b", 2)
    pipe = StoreFileNotRegular("/home/x/transcripts/c.jsonl", "fifo")
    lines = shown(
        [
            SessionDeletion("b", ARTIFACTS_LEFT, kept),
            SessionDeletion("c", FAILED, pipe),
            SessionDeletion("memory", NOT_A_SESSION, InvalidStoreInput("session_id", "x")),
        ]
    )
    assert lines[0].startswith("not session ids, nothing deleted for them: memory (ids look")
    assert lines[1] == (
        "transcript deleted, artifacts left: b: /home/x/b still holds 2 entries agent-cli did "
        "not write there; they were left as they were (remove them yourself if they are not "
        "needed)"
    )
    assert lines[2] == (
        "not deleted: c: /home/x/transcripts/c.jsonl is a FIFO (named pipe), not a regular "
        "file; agent-cli did not open it. Move it out of the way and try again"
    )
