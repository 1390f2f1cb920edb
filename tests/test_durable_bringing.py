"""The rule that brings one folder's durable state into another's (`durable.bringing`).

An id names one item for good: brought items keep their ids, the next id goes on after
the highest either folder ever gave, and two states whose ids would come to name two items
are not made one (`DurableIdsClash`, nothing changed). `items_elsewhere` is what a bring
would add: what `/facts` and a resume name.
"""

from __future__ import annotations

import pytest

from agent_cli.durable import (
    DurableContextState,
    DurableFact,
    PendingItem,
    bring_state,
    clashing_ids,
    forget_item,
    has_anything,
    issue_id,
    items_elsewhere,
)
from agent_cli.errors import DurableIdsClash

AT = "2026-12-07T10:00:00+00:00"


def fact(fact_id: str, text: str = "a fact", session: str = "s1") -> DurableFact:
    return DurableFact(fact_id, text, f"transcript:{session}:2", AT)


def todo(item_id: str, text: str = "a todo") -> PendingItem:
    return PendingItem(item_id, text, "transcript:s1:4", AT)


EARLIER = DurableContextState(facts=(fact("F1"), fact("F2", "b")), pending_items=(todo("T1"),))


def test_a_state_brought_into_an_empty_one_keeps_its_ids_and_the_next_goes_on_after_them():
    brought = bring_state(EARLIER, DurableContextState())
    assert brought == EARLIER
    assert issue_id(brought, "F") == "F3"
    assert issue_id(brought, "T") == "T2"


def test_an_id_forgotten_in_either_folder_is_never_given_again_after_bringing():
    earlier = forget_item(
        DurableContextState(facts=(fact("F1"), fact("F2"), fact("F3"))), "F3"
    )  # F1, F2, and F3 given then forgotten
    brought = bring_state(earlier, DurableContextState())
    assert [f.fact_id for f in brought.facts] == ["F1", "F2"]
    assert issue_id(brought, "F") == "F4"
    kept_counter = DurableContextState(highest_forgotten=(("T", 5),))
    assert issue_id(bring_state(kept_counter, DurableContextState()), "T") == "T6"


def test_an_id_both_folders_gave_to_different_items_is_a_clash_and_nothing_is_made():
    here = DurableContextState(facts=(fact("F1", "this folder's own"),))
    with pytest.raises(DurableIdsClash) as caught:
        bring_state(EARLIER, here)
    assert caught.value.ids == ("F1",)


def test_an_id_this_folder_forgot_is_not_given_to_a_brought_item():
    here = forget_item(DurableContextState(pending_items=(todo("T1", "done here"),)), "T1")
    assert clashing_ids(EARLIER, here) == ("T1",)
    earlier_forgot = forget_item(EARLIER, "F2")  # F2 named an item there once
    assert clashing_ids(earlier_forgot, DurableContextState(facts=(fact("F2", "mine"),))) == ("F2",)


def test_items_both_folders_hold_alike_are_one_item_so_a_bring_done_twice_changes_nothing():
    assert bring_state(EARLIER, EARLIER) == EARLIER
    grown = DurableContextState(facts=(*EARLIER.facts, fact("F3", "later")))
    assert bring_state(EARLIER, grown).facts == grown.facts


def test_ids_of_a_kind_only_one_folder_gave_are_joined_in_order():
    here = DurableContextState(pending_items=(todo("T1", "this folder's"),))
    earlier = DurableContextState(facts=EARLIER.facts)
    brought = bring_state(earlier, here)
    assert [f.fact_id for f in brought.facts] == ["F1", "F2"]
    assert [i.item_id for i in brought.pending_items] == ["T1"]


def test_a_new_id_goes_past_the_ids_of_every_state_whose_items_were_not_brought():
    assert issue_id(DurableContextState(), "F", (EARLIER,)) == "F3"
    assert issue_id(DurableContextState(facts=(fact("F7"),)), "F", (EARLIER,)) == "F8"
    forgot = DurableContextState(highest_forgotten=(("F", 9),))
    assert issue_id(DurableContextState(), "F", (EARLIER, forgot)) == "F10"
    assert issue_id(DurableContextState(), "T", ()) == "T1"


def test_what_waits_elsewhere_is_what_this_folder_does_not_hold_alike():
    here = DurableContextState(facts=(EARLIER.facts[0],))  # F1 brought before
    found = items_elsewhere("/p", EARLIER, here)
    assert found.folder == "/p" and found.clashes == ()
    assert [f.fact_id for f in found.waiting.facts] == ["F2"]
    assert [i.item_id for i in found.waiting.pending_items] == ["T1"]
    assert items_elsewhere("/p", EARLIER, EARLIER).waiting.is_empty
    own = DurableContextState(facts=(fact("F2", "this folder's own"),))
    assert items_elsewhere("/p", EARLIER, own).clashes == ("F2",)


def test_a_state_that_only_forgot_still_has_something_to_bring():
    assert not has_anything(DurableContextState())
    assert has_anything(DurableContextState(highest_forgotten=(("F", 2),)))
    assert has_anything(EARLIER)
