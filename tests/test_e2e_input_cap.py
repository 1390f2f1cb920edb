"""One input over the 10 MB cap is refused at once, in words, with nothing recorded.

`-p -` and piped lines run the installed `agent-cli` on pipes; a typed or pasted line
reaches the same check in `Session.run_turn`, tested here on a real session on disk.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from compaction_support import make_counter
from e2e_support import build_env, run_piped
from session_support import ScriptedProvider, make_session

from agent_cli.errors import InputTooLarge
from agent_cli.session.input_limit import MAX_INPUT_BYTES

OVERSIZED = "word " * (MAX_INPUT_BYTES // 5 + 1000)  # just over 10 MB, one line


def recorded_user_texts(home: Path) -> list[str]:
    texts = []
    for transcript in (home / "transcripts").glob("*.jsonl"):
        for line in transcript.read_text().splitlines():
            record = json.loads(line)
            message = (record.get("payload") or {}).get("message") or {}
            if message.get("role") == "user" and isinstance(message.get("content"), str):
                texts.append(message["content"])
    return texts


@pytest.mark.e2e
def test_print_mode_refuses_an_oversized_prompt_from_stdin_before_opening_a_session(
    home: Path, workspace: Path
) -> None:
    done = run_piped(["-p", "-"], cwd=workspace, env=build_env(home), stdin_text=OVERSIZED)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert "over the 10 MB one message may be; nothing was sent or recorded" in done.stderr
    assert not list((home / "transcripts").glob("*.jsonl"))


@pytest.mark.e2e
def test_an_oversized_piped_line_is_refused_and_the_next_line_still_runs(
    home: Path, workspace: Path
) -> None:
    stdin_text = OVERSIZED + "\nread README.md\n"
    done = run_piped([], cwd=workspace, env=build_env(home), stdin_text=stdin_text)
    assert done.returncode == 0, done.stderr
    assert "that input (stdin line) is 10.0 MB" in done.stdout
    assert "Demo Project" in done.stdout
    assert recorded_user_texts(home) == ["read README.md"]


def test_a_typed_message_over_the_cap_is_refused_before_anything_is_recorded(
    tmp_path: Path,
) -> None:
    session = make_session(tmp_path, ScriptedProvider(), counter=make_counter()[0])
    try:
        records_before = len(session.log.writer.path.read_text().splitlines())
        with pytest.raises(InputTooLarge) as raised:
            session.run_turn("é" * (MAX_INPUT_BYTES // 2 + 1))
        assert raised.value.size_bytes == MAX_INPUT_BYTES + 2
        assert len(session.log.writer.path.read_text().splitlines()) == records_before
        assert session.view == []
    finally:
        session.close()


@pytest.mark.e2e
def test_a_prompt_too_big_for_the_hard_limit_is_stored_and_answered_not_blocked(
    home: Path, workspace: Path
) -> None:
    prompt = "word " * 200_000  # 1 MB: under the input cap, far over a 60,000 hard limit
    done = run_piped(
        ["-p", "-", "--hard-limit", "60000", "--soft-threshold", "2500"],
        cwd=workspace,
        env=build_env(home),
        stdin_text=prompt,
    )
    assert done.returncode == 0, done.stderr  # issue 10 item 7: it no longer blocks
    assert "[compact] blocked" not in done.stderr
    assert done.stdout.strip()
