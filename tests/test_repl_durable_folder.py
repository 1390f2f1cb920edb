"""What the REPL says of a resumed session's items kept for another folder, and `/facts bring`.

The session decides (`session.durable_folder`); the REPL words its notices on one line
each (where the items are, and what brings them here or why nothing can), ends `/facts`
with a line while they wait, and runs `/facts bring`.
"""

from __future__ import annotations

import pytest
from repl_fakes import CONFIRMED_AT, FakeSession
from test_repl_commands import FakeContext, run

from agent_cli.durable import DurableContextState, DurableFact, PendingItem
from agent_cli.errors import CommandUsageError, DurableIdsClash
from agent_cli.events import Notice
from agent_cli.repl.error_text import describe_error, notice_text

FOLDER = "/home/me/proj"
FILE = "/state/memory/0123456789abcdef.json"
EARLIER = DurableContextState(
    facts=(DurableFact("F1", "port 5433", "transcript:s-0:2", CONFIRMED_AT),),
    pending_items=(PendingItem("T1", "migrate users", "transcript:s-0:4", CONFIRMED_AT),),
)
FIELDS = {"folder": FOLDER, "file": FILE, "facts": 1, "pending": 1}


def words(code: str, level: str = "warning", one_shot: bool = False, **more: object) -> str:
    notice = Notice(level, code, {**FIELDS, **more})
    return notice_text(notice, one_shot=one_shot, session_id="s-0")


def test_each_notice_says_where_the_items_are_and_what_to_do():
    assert words("durable_followed", "info") == (
        f"This session's folder was {FOLDER} (moved or renamed since): its facts and pending "
        "items (1 fact, 1 pending item) came with it, under the same ids."
    )
    elsewhere = words("durable_elsewhere")
    assert f"were kept for {FOLDER} (not known to be this folder), in {FILE}" in elsewhere
    assert elsewhere.endswith("/facts bring copies them here, under the same ids.")
    one_shot = words("durable_elsewhere", one_shot=True)
    assert "run agent-cli --resume s-0 here and type /facts bring" in one_shot
    clash = words("durable_clash", ids=["F1", "T1"])
    assert f"in {FILE}; they were not brought: this folder gave F1, T1 to items of its own" in clash
    assert "/facts bring" not in clash
    not_brought = words("durable_not_brought", reason="ENOSPC")
    assert f"kept for {FOLDER} in {FILE}; they could not be brought here (ENOSPC)" in not_brought


def test_facts_ends_with_a_line_naming_the_items_kept_for_another_folder():
    context = FakeContext(session=FakeSession(earlier_items=(FOLDER, EARLIER)))
    run(context, "/facts")
    shown = " ".join(context.shown.split())
    assert (
        f"not here: facts and pending items (1 fact, 1 pending item) of this session, kept for "
        f"{FOLDER}: /facts bring copies them here" in shown
    )


def test_facts_says_when_their_ids_name_items_of_this_folder():
    own = DurableContextState(facts=(DurableFact("F1", "own", "transcript:s-1:2", CONFIRMED_AT),))
    session = FakeSession(earlier_items=(FOLDER, EARLIER), durable_state=own)
    context = FakeContext(session=session)
    run(context, "/facts")
    shown = " ".join(context.shown.split())
    assert "not brought: this folder gave F1 to items of its own" in shown
    assert "/facts bring copies" not in shown


def test_facts_bring_names_what_it_brought_and_then_that_nothing_is_left():
    context = FakeContext(session=FakeSession(earlier_items=(FOLDER, EARLIER)))
    run(context, "/facts bring")
    run(context, "/facts bring")
    shown = " ".join(context.shown.split())
    assert f"brought F1, T1 from {FOLDER} (/facts lists them)" in shown
    assert "nothing to bring: this session's facts and pending items are all here" in shown
    assert "not here:" not in shown


def test_facts_with_another_argument_is_refused_and_a_clash_is_worded():
    with pytest.raises(CommandUsageError) as caught:
        run(FakeContext(), "/facts x")
    assert caught.value.reason == "unknown_argument"
    assert describe_error(DurableIdsClash(("F1",))).startswith(
        "not brought: this folder gave F1 to items of its own"
    )
