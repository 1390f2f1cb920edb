"""measure_savings: what a layer saved, from the messages that changed, by the same counter."""

from __future__ import annotations

from compaction_support import assistant, make_counter, user

from agent_cli.compaction.results import measure_savings


def test_savings_count_what_left_minus_what_came():
    counter, _ = make_counter()
    kept, dropped, replaced = user("a" * 40), assistant("b" * 400), user("c" * 400)
    smaller = user("c" * 40)
    before, after = [kept, dropped, replaced], [kept, smaller]
    expected = counter.count_messages(before) - counter.count_messages(after)
    assert measure_savings(before, after, counter) == expected


def test_a_dict_listed_twice_is_counted_twice():
    counter, _ = make_counter()
    repeated = assistant("r" * 400)
    before, after = [user("go"), repeated, repeated], [user("go"), repeated]
    assert measure_savings(before, after, counter) == counter.count_message(repeated)


def test_a_known_count_of_the_view_gives_the_same_answer():
    counter, _ = make_counter()
    before = [user("go")] + [assistant("x" * 100) for _ in range(12)]
    after = before[:1] + before[-2:]
    known = counter.count_messages(before)
    assert measure_savings(before, after, counter, known) == measure_savings(before, after, counter)
