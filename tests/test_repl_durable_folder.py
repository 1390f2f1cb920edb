"""What the REPL says of a resumed session's items kept for another folder, and `/facts bring`.

The session decides (`session.durable_folder`): nothing is moved on its own. The REPL words
its notices on one line each (where the items are kept, and that `/facts bring` copies
them here, or which ids keep them apart), ends `/facts` with a line per folder while they
wait, and runs `/facts bring`.
"""

from __future__ import annotations

import pytest
from repl_fakes import CONFIRMED_AT, FakeSession
from test_repl_commands import FakeContext, run

from agent_cli.durable import DurableContextState, DurableFact, ItemsElsewhere, PendingItem
from agent_cli.errors import CommandUsageError
from agent_cli.events import Notice
from agent_cli.repl.error_text import notice_text

FOLDER = "/home/me/proj"
FILE = "/state/memory/0123456789abcdef.json"
EARLIER = DurableContextState(
    facts=(DurableFact("F1", "port 5433", "transcript:s-0:2", CONFIRMED_AT),),
    pending_items=(PendingItem("T1", "migrate users", "transcript:s-0:4", CONFIRMED_AT),),
)
FIELDS = {"folder": FOLDER, "file": FILE, "facts": 1, "pending": 1}


def words(code: str, one_shot: bool = False, **more: object) -> str:
    notice = Notice("warning", code, {**FIELDS, **more})
    return notice_text(notice, one_shot=one_shot, session_id="s-0")


def test_each_notice_says_where_the_items_are_kept_and_what_to_do():
    elsewhere = words("durable_elsewhere")
    assert elsewhere == (
        f"This session kept facts and pending items (1 fact, 1 pending item) for {FOLDER}, in "
        f"{FILE}; they are not this folder's: /facts bring copies them here, under the same ids."
    )
    one_shot = words("durable_elsewhere", one_shot=True)
    assert "run agent-cli --resume s-0 here and type /facts bring" in one_shot
    clash = words("durable_clash", ids=["F1", "T1"])
    assert f"in {FILE}; /facts bring cannot copy them: this folder gave F1, T1 to items" in clash
    assert "retype what still holds with /remember or /todo" in clash
    unreadable = words("durable_not_brought", reason="EACCES")
    assert f"for {FOLDER}, in {FILE}, which cannot be read (EACCES)" in unreadable
    assert "moved or renamed" not in " ".join((elsewhere, clash, unreadable))


def test_facts_ends_with_a_line_for_each_folder_keeping_items_of_this_session():
    other = ItemsElsewhere("/home/me/copy", DurableContextState(facts=EARLIER.facts), ("F1",))
    earlier = (ItemsElsewhere(FOLDER, EARLIER), other)
    context = FakeContext(session=FakeSession(earlier_items=earlier))
    run(context, "/facts")
    shown = " ".join(context.shown.split())
    assert (
        f"not here: facts and pending items (1 fact, 1 pending item) of this session, kept for "
        f"{FOLDER}: /facts bring copies them here, under the same ids" in shown
    )
    assert (
        "not here: facts and pending items (1 fact, 0 pending items) of this session, kept for "
        "/home/me/copy; /facts bring cannot copy them: this folder gave F1 to items" in shown
    )


def test_facts_bring_names_what_it_copied_and_what_was_kept_apart_then_that_nothing_is_left():
    apart = ItemsElsewhere("/home/me/copy", DurableContextState(facts=EARLIER.facts), ("F1",))
    session = FakeSession(earlier_items=(ItemsElsewhere(FOLDER, EARLIER), apart))
    context = FakeContext(session=session)
    run(context, "/facts bring")
    shown = " ".join(context.shown.split())
    assert f"brought F1, T1 from {FOLDER} (/facts lists them)" in shown
    assert "not brought from /home/me/copy: this folder gave F1 to items of its own" in shown
    session.earlier_items = ()
    run(context, "/facts bring")
    shown = " ".join(context.shown.split())
    assert "nothing to bring: this session's facts and pending items are all here" in shown


def test_facts_with_another_argument_is_refused():
    with pytest.raises(CommandUsageError) as caught:
        run(FakeContext(), "/facts x")
    assert caught.value.reason == "unknown_argument"
