"""The per-turn check below the soft threshold, against the seed's approach.

Run with `python -m bench bench_turn_check` (or `make bench`). Prints figures only and
asserts nothing. Target from issue 2: on a 1,500-turn history (about 3,000 messages with
2 KB tool results) the check costs at most 1 ms median and follows the new content, not
the history's length. Each sample appends one prepared turn (an assistant tool call and
its 2 KB result) to a history that was checked the turn before, then checks it.

Three callers are measured:
- plain dicts, as outside callers pass them: `compact_context` with the caller's
  `ViewIndex` proves the history
  unchanged by comparing it with structural snapshots (exact, in C, but it walks every
  message);
- frozen messages (`agent_cli.frozen`), as the session keeps its view: a read-only
  message is its own snapshot, so the proof is one identity check per message;
- the session itself: `Session.prepare_request` on the offline provider with an empty
  durable state (budget, compaction check, durable rendering, request building), with
  the turn appended to the view directly, so the transcript's fsync is not in the figure.
"""

from __future__ import annotations

import statistics
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from typing import Any

from agent_cli.compaction import ViewIndex, compact_context
from agent_cli.frozen import freeze
from agent_cli.tokens import TokenCounter
from bench.bench_compaction import NO_COMPACTION, build_history, build_turn, check_like_the_seed
from bench.uncompacted_session import open_uncompacted_session

Message = dict[str, Any]
CHECK_TURNS = 200
SEED_CHECK_TURNS = 15
HISTORY_TURNS = (300, 1_500, 3_000)
Check = Callable[[list[Message]], Any]


def median_turn_check(
    history: list[Message], turns: list[list[Message]], check: Check, extend: Callable[..., Any]
) -> float:
    """Median seconds of `check` after `extend` added one prepared turn to the history (the
    adding is not timed: a session's append costs what the message does, while the bench's
    way into a session's view, `Conversation.restore`, rebuilds it)."""
    check(history)  # the history was checked the turn before
    durations = []
    for turn in turns:
        extend(turn)
        started = time.perf_counter()
        check(history)
        durations.append(time.perf_counter() - started)
    return statistics.median(durations)


def _prepared_turns(first: int, count: int, frozen: bool) -> list[list[Message]]:
    turns = [build_turn(number) for number in range(first, first + count)]
    return [[freeze(m) for m in turn] for turn in turns] if frozen else turns


def time_core_check(turns: int, frozen: bool) -> float:
    history = build_history(turns)
    history = [freeze(m) for m in history] if frozen else history
    index = ViewIndex(TokenCounter())  # fresh, so no turn is already in its text memo
    return median_turn_check(
        history,
        _prepared_turns(turns, CHECK_TURNS, frozen),
        lambda view: compact_context(view, policy=NO_COMPACTION, index=index),
        history.extend,
    )


def time_seed_check(turns: int) -> float:
    history = build_history(turns)
    prepared = _prepared_turns(turns, SEED_CHECK_TURNS, frozen=False)
    return median_turn_check(history, prepared, check_like_the_seed, history.extend)


def time_session_check(turns: int) -> float:
    """Median seconds of `prepare_request` on an offline session holding the history."""
    with tempfile.TemporaryDirectory() as home:
        session = open_uncompacted_session(home)
        try:
            # the view only changes through its conversation: the bench adopts its history
            # as a resume would (nothing written), and each turn likewise
            session.conversation.restore(build_history(turns))

            def prepare(_: list[Message]) -> None:
                for _event in session.prepare_request():
                    pass

            return median_turn_check(
                session.view,
                _prepared_turns(turns, CHECK_TURNS, frozen=True),
                prepare,
                lambda turn: session.conversation.restore([*session.view, *turn]),
            )
        finally:
            session.close()


def _report_row(label: str, figures: dict[int, float], seed: dict[int, float]) -> None:
    for turns, seconds in figures.items():
        print(
            f"{label}, {turns:>5,} turns ({2 * turns + 1:,} msgs): {seconds * 1e3:.3f} ms median"
            f" (target <= 1 ms at 1,500 turns); seed-style {seed[turns] * 1e3:.1f} ms"
            f" ({seed[turns] / seconds:.0f}x)"
        )
    first, last = HISTORY_TURNS[0], HISTORY_TURNS[-1]
    growth = last // first
    print(
        f"  {label} at {last:,} vs {first:,} turns: {figures[last] / figures[first]:.2f}x for {growth}x the history"
    )


def report_tokenizing_alone() -> None:
    counter = TokenCounter()
    counter.count_text("load the encoding")
    turns = _prepared_turns(10**6, CHECK_TURNS, frozen=False)
    durations = []
    for turn in turns:
        started = time.perf_counter()
        counter.count_messages(turn)
        durations.append(time.perf_counter() - started)
    only_new = statistics.median(durations)
    print(f"of which tokenizing the new turn alone (its 2 KB result): {only_new * 1e3:.3f} ms")


def report_index_memory(turns: int = HISTORY_TURNS[-1]) -> None:
    """What an index that followed a long view holds, its counter's memos included (the
    history itself is built before tracing starts)."""
    history = [freeze(message) for message in build_history(turns)]
    counter = TokenCounter()
    counter.count_text("load the encoding")
    tracemalloc.start()
    index = ViewIndex(counter)
    index.measure(history[: len(history) // 2 | 1])  # ends after a turn's results
    index.measure(history)
    held, _ = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(
        f"index of {turns:,} turns ({len(history):,} msgs) with its counter's memos: "
        f"{held / 1e6:.1f} MB (target: no more than the memos before it, about 11 MB)"
    )


def main() -> None:
    print(f"estimator: {TokenCounter().estimator}")
    seed = {turns: time_seed_check(turns) for turns in HISTORY_TURNS}
    _report_row("plain dicts", {t: time_core_check(t, frozen=False) for t in HISTORY_TURNS}, seed)
    _report_row(
        "frozen messages", {t: time_core_check(t, frozen=True) for t in HISTORY_TURNS}, seed
    )
    _report_row("session prepare_request", {t: time_session_check(t) for t in HISTORY_TURNS}, seed)
    report_tokenizing_alone()
    report_index_memory()


if __name__ == "__main__":
    main()
