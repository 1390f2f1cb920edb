"""The second tester's shape, piped through the real program: a 1,038-character request typed
100 times, the session resumed halfway.

Each refit of the digest cut the long request to its head, and a shortened entry was never
merged again (its whole text was gone), so each refit cycle added one more line for it: at
`--soft-threshold 3200` the last digest held 4 lines for the one request (`asked 8`, then
`asked 20` three times), and "plum", the typed fact and two interjections were folded into
`34 older requests`. A shortened entry now keeps a hash of its whole text (`whole_key`, in the
digest's private data): the last digest names every distinct request, with one line for the
long one that counts the asks of both runs, its first ask in the run before `--resume`. At
3200 the merged line fits whole again at the end of each compaction; at 2800 it stays
shortened, so the digest the first run stored holds the key and the resumed run reads it back.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from e2e_support import build_env, run_piped, session_id_on

from agent_cli.compaction.markers import DIGEST_KEY
from agent_cli.compaction.message_facts import user_texts
from agent_cli.recall import Recall
from agent_cli.store.paths import resolve_state_paths

pytestmark = pytest.mark.e2e

LONG = (
    "please check the status of the nightly build on the main branch and tell me whether the "
    "integration tests in the payments module passed, and if not which ones failed and why"
) * 6
FACT = "remember: the deploy key id is K-4471"
PLUM = "first unique request: plum"
ASKS = r"asked (\d+) times; last (transcript:\S+:\d+), first (transcript:\S+:\d+)"
SHARED = re.compile(  # whole, or shortened
    rf"- {re.escape(LONG)} \({ASKS}\)"
    rf"|- \({ASKS}; shortened from 1,038 chars\) please check the status of the nightly .*…"
)


def typed_lines(asks: range) -> list[str]:
    """The long request at each of `asks`, an interjection after asks 10, 30, 50, 70 and 90."""
    lines = []
    for number in asks:
        lines.append(LONG)
        if number in (10, 30, 50, 70, 90):
            lines.append(f"unique interjection {number} quince{number}")
    return lines


def read_records(home: Path, session_id: str) -> list[dict[str, Any]]:
    transcript = home / "transcripts" / f"{session_id}.jsonl"
    return [json.loads(line) for line in transcript.read_text().splitlines()]


def last_digest(records: list[dict[str, Any]]) -> tuple[int, list[dict[str, Any]], dict[str, Any]]:
    """The last compaction's record number, view and digest message."""
    last = [r for r in records if r["kind"] == "compaction"][-1]
    view = last["payload"]["view"]
    [digest] = [m for m in view if DIGEST_KEY in m]
    return last["sequence"], view, digest


@pytest.mark.parametrize(("soft_threshold", "stored_shortened"), [("3200", False), ("2800", True)])
def test_a_long_request_typed_100_times_across_a_resume_is_one_line_and_none_is_folded(
    home: Path, workspace: Path, soft_threshold: str, stored_shortened: bool
) -> None:
    env = build_env(home)
    flags = ["--yes", "--soft-threshold", soft_threshold, "--hard-limit", "60000"]
    first_half = [FACT, "/remember the deploy key id is K-4471", PLUM, *typed_lines(range(50))]
    done = run_piped(flags, cwd=workspace, env=env, stdin_text="\n".join(first_half) + "\n")
    assert done.returncode == 0, done.stderr
    session_id = session_id_on(done.stdout)
    records = read_records(home, session_id)
    resumed_at = len(records)
    stored_long = [
        item
        for item in last_digest(records)[2][DIGEST_KEY]["requests"]
        if item["text"].startswith("please check the status")
    ]
    assert [bool(item["shortened_from"]) for item in stored_long] == [stored_shortened]
    if stored_shortened:  # the key the resumed run reads back: a hash, not in the text sent
        key = stored_long[0]["whole_key"]
        assert re.fullmatch(r"[0-9a-f]{16}", key)
        assert key not in last_digest(records)[2]["content"]
    second_half = [*typed_lines(range(50, 100)), "last unique request: fig"]
    done = run_piped(
        [*flags, "--resume", session_id],
        cwd=workspace,
        env=env,
        stdin_text="\n".join(second_half) + "\n",
    )
    assert done.returncode == 0, done.stderr
    records = read_records(home, session_id)
    compactions = [r for r in records if r["kind"] == "compaction"]
    # a compaction at least every fourth of the 54 turns (a summary waits until it would
    # replace a quarter of the room once a compaction made none: `session.compactor`)
    assert sum(r["sequence"] > resumed_at for r in compactions) > 13, "compaction often"
    at, view, digest = last_digest(records)
    lines = digest["content"].splitlines()

    distinct = [FACT, PLUM, *(f"unique interjection {n} quince{n}" for n in (10, 30, 50, 70, 90))]
    for named in distinct:
        assert f"- {named}" in lines, named  # named whole, none folded
    assert not any("older request" in line for line in lines), lines
    # the long request: one line, and it spans the resume (its first ask before it)
    long_lines = [line for line in lines if "please check the status" in line]
    assert len(long_lines) == 1, long_lines
    found = SHARED.fullmatch(long_lines[0])
    assert found is not None, long_lines
    asked, last, first = [group for group in found.groups() if group is not None]
    assert int(first.rsplit(":", 1)[1]) < resumed_at < int(last.rsplit(":", 1)[1])

    # every ask typed before that compaction is named once: in the view, or by the digest
    typed = [
        text
        for r in records
        if r["kind"] == "message" and r["sequence"] < at
        for text in user_texts(r["payload"]["message"])
    ]
    stored = digest[DIGEST_KEY]
    in_view = [text for m in view if DIGEST_KEY not in m for text in user_texts(m)]
    named = sum(item.get("asked", 1) for item in stored["requests"])
    assert named + len(in_view) == len(typed) and len(typed) > 100
    assert int(asked) == typed.count(LONG) - in_view.count(LONG)

    # both pointers recall the request itself
    paths = resolve_state_paths({"AGENT_CLI_HOME": str(home)}, create=False)
    recall = Recall(session_id, paths.transcripts, paths.artifacts_root)
    for pointer in (last, first):
        assert pointer.startswith(f"transcript:{session_id}:")
        assert LONG[:200] in recall.answer(pointer).text
