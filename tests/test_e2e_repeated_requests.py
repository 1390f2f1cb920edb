"""The outside tester's shape, piped through the real program: one request typed 100 times.

The session: a fact typed as plain text, `/remember` of it, "first unique request: plum", then
the same request 100 times with 5 unique ones among them, under a tiny soft threshold, so that
compaction runs nearly every turn. Before repeated requests shared a digest line, the last
digest held 45 identical lines and folded "plum" and the plain-text fact into the "older
requests" range. Now: the digest the last compaction left names every distinct request, one
line each, accounts for every ask once, and the shared line's pointers recall the request.
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

STATUS = "what is the status of the build?"
FACT = "remember: the deploy key id is K-4471"
PLUM = "first unique request: plum"
SHARED = re.compile(
    re.escape(f"- {STATUS} (asked ")
    + r"(\d+) times; last (transcript:\S+:\d+), first (transcript:\S+:\d+)\)"
)


def typed_lines() -> list[str]:
    lines = [FACT, "/remember the deploy key id is K-4471", PLUM]
    for number in range(100):
        lines.append(STATUS)
        if number in (10, 30, 50, 70, 90):
            lines.append(f"unique interjection {number} quince{number}")
    return [*lines, "last unique request: fig"]


def last_compaction(records: list[dict[str, Any]]) -> tuple[int, list[dict[str, Any]]]:
    found = [r for r in records if r["kind"] == "compaction"]
    assert len(found) > 20, "compaction ran nearly every turn"
    return found[-1]["sequence"], found[-1]["payload"]["view"]


def test_a_request_typed_100_times_leaves_the_unique_ones_named_and_each_ask_recallable(
    home: Path, workspace: Path
) -> None:
    flags = ["--yes", "--soft-threshold", "3200", "--hard-limit", "60000"]
    done = run_piped(
        flags, cwd=workspace, env=build_env(home), stdin_text="\n".join(typed_lines()) + "\n"
    )
    assert done.returncode == 0, done.stderr
    session_id = session_id_on(done.stdout)
    transcript = home / "transcripts" / f"{session_id}.jsonl"
    records = [json.loads(line) for line in transcript.read_text().splitlines()]
    at, view = last_compaction(records)
    [digest] = [m for m in view if DIGEST_KEY in m]
    lines = digest["content"].splitlines()

    for named in (FACT, PLUM, *(f"unique interjection {n} quince{n}" for n in (10, 30, 50, 70))):
        assert f"- {named}" in lines, named  # named whole, none folded
    assert not any("older request" in line for line in lines)
    parts = digest["content"].split("[Compaction digest, continued")
    for part in parts:  # one line per distinct request within each part
        requests = [line for line in part.splitlines() if line.startswith("- ")]
        assert len(requests) == len(set(requests)), part
    shared = [SHARED.fullmatch(line) for line in lines if line.startswith(f"- {STATUS}")]
    assert shared and all(shared), lines
    assert max(int(found.group(1)) for found in shared if found) > 50

    # every ask typed before that compaction is named once: in the view, or by the digest
    typed = [
        text
        for r in records
        if r["kind"] == "message" and r["sequence"] < at
        for text in user_texts(r["payload"]["message"])
    ]
    stored = digest[DIGEST_KEY]
    asked = sum(item.get("asked", 1) for item in stored["requests"])
    in_view = [text for m in view if DIGEST_KEY not in m for text in user_texts(m)]
    assert asked + len(in_view) == len(typed) and len(typed) > 100

    # the shared line's pointers are this session's and recall the request itself
    paths = resolve_state_paths({"AGENT_CLI_HOME": str(home)}, create=False)
    recall = Recall(session_id, paths.transcripts, paths.artifacts_root)
    for found in shared:
        assert found is not None
        for pointer in (found.group(2), found.group(3)):
            assert pointer.startswith(f"transcript:{session_id}:")
            assert STATUS in recall.answer(pointer).text
    # a request named whole is one recall away: its own words find its pointer
    page = recall.search(PLUM)
    [pointer] = re.findall(rf"transcript:{re.escape(session_id)}:\d+", page)
    assert PLUM in recall.answer(pointer).text
    # and each of the shared line's asks: the same words list them all, in pages
    assert "more matches" in recall.search(STATUS)
