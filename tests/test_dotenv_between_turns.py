"""A dotenv file the user edits between turns is learned before the next request (29th round, T3).

The attack: turn 1 ran `cat notes.txt`, which printed a token nothing knew as secret yet;
then the user wrote it into `.env` as `GITHUB_TOKEN`, in another window. Turns 2 and 3
were plain chat, with no tool call: the dotenv files were checked only around calls, so
both requests still carried the token and nothing was said. Now the session checks them
before every request it sends (a turn's first, each follow-up, a summary, `/compact`),
hides what they gained from the view and the project instructions and says so, at once.
The session's parts here (a real toolbox, real files); the whole, through the real CLI,
the real SDK and the fake API, is in `test_e2e_dotenv_between_turns.py`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from session_support import ScriptedProvider, drain, make_session, tool_use, transcript_records

from agent_cli.events import Notice
from agent_cli.secret_forms import REDACTED_MARK

TOKEN = "ghp_UsErEdIt8Wv2Xy4Za6Bc8De0Fg2Hi4Jk6Lm8"
STRIPE = "sk_live_51HbetweenTURNSq8Zr2mXv9LpW4tYc8Nb"


def notes_workspace(tmp_path: Path, files: dict[str, str] | None = None) -> Path:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "notes.txt").write_text(f"temp token {TOKEN}\nstripe {STRIPE}\n")
    for name, text in (files or {}).items():
        (workspace / name).write_text(text)
    return workspace


def codes(events: list[Any]) -> list[str]:
    return [event.code for event in events if isinstance(event, Notice)]


def test_a_value_written_to_dotenv_between_turns_is_hidden_from_the_next_turns_first_request(
    tmp_path: Path,
) -> None:
    agents = f"# Rules\nUse the token {TOKEN} for the staging API.\n"
    provider = ScriptedProvider(
        [
            [tool_use("t1", "bash", command="cat notes.txt")],
            [{"type": "text", "text": "notes.txt holds a temporary token."}],
            [{"type": "text", "text": "answer"}],
        ]
    )
    session = make_session(notes_workspace(tmp_path, {"AGENTS.md": agents}), provider)
    drain(session.run_turn("show notes"))
    assert TOKEN in json.dumps(provider.requests[1].messages)  # nothing knew it yet
    (session.workspace / ".env").write_text(f"GITHUB_TOKEN={TOKEN}\n")  # another window
    events = drain(session.run_turn("thanks, anything else?"))
    assert len(provider.requests) == 3
    third = provider.requests[2]
    assert TOKEN not in json.dumps(third.messages)
    assert f"temp token {REDACTED_MARK}" in json.dumps(third.messages)
    assert TOKEN not in third.project_instructions
    assert TOKEN not in json.dumps(list(session.view))
    assert TOKEN in json.dumps(transcript_records(session))  # append-only, as written
    said = codes(events)
    assert said[:2] == ["dotenv_learned", "project_instructions_redacted"]  # before the answer
    learned = next(e for e in events if isinstance(e, Notice) and e.code == "dotenv_learned")
    assert learned.fields == {"files": ".env", "names": "GITHUB_TOKEN", "count": 1}
    assert TOKEN in session.compactor.policy.secret_forms.values
    assert session.recall is not None and TOKEN in session.recall.secrets.values
    again = drain(session.run_turn("and now?"))  # learned once, said once
    assert "dotenv_learned" not in codes(again)
    assert TOKEN not in json.dumps(provider.requests[3].messages)
    session.close()


def test_a_value_written_to_dotenv_before_a_compaction_never_reaches_its_summary(
    tmp_path: Path,
) -> None:
    """`/compact` sends a summary request with no turn around it: it checks first."""
    summarized: list[str] = []

    def summarize(messages: list[dict[str, Any]]) -> str:
        summarized.append(json.dumps(messages))
        return "The user looked at notes.txt."

    provider = ScriptedProvider(
        [
            [tool_use("t1", "bash", command="cat notes.txt")],
            [{"type": "text", "text": "notes.txt holds two keys."}],
        ],
        summarizer=summarize,
    )
    session = make_session(notes_workspace(tmp_path), provider, keep_recent=2)
    drain(session.run_turn("show notes"))
    drain(session.run_turn("and the other one?"))
    (session.workspace / ".env.local").write_text(f"STRIPE_SECRET_KEY={STRIPE}\n")
    events = drain(session.compact_now())
    assert summarized, codes(events)
    assert all(STRIPE not in text for text in summarized)
    assert codes(events)[0] == "dotenv_learned"
    assert STRIPE not in json.dumps(list(session.view))
    session.close()


def test_a_value_written_to_dotenv_before_a_context_preview_is_checked_hidden_and_said_once(
    tmp_path: Path,
) -> None:
    """`/context` shows what the next request carries and `/last` what a call returned,
    sending nothing: each checks first (`learn_dotenv_changes`), so a value written to
    `.env` since the last request is hidden in what they show, said before it, and said
    only once (the next request learns nothing new and carries none of it)."""
    agents = f"# Rules\nUse the token {TOKEN} for the staging API.\n"
    provider = ScriptedProvider(
        [
            [tool_use("t1", "bash", command="cat notes.txt")],
            [{"type": "text", "text": f"notes.txt holds {TOKEN}."}],
            [{"type": "text", "text": "answer"}],
        ]
    )
    session = make_session(notes_workspace(tmp_path, {"AGENTS.md": agents}), provider)
    drain(session.run_turn("show notes"))
    (session.workspace / ".env").write_text(f"GITHUB_TOKEN={TOKEN}\n")  # another window
    assert session.redact_known_secrets(f"temp token {TOKEN}") == f"temp token {TOKEN}"

    events = drain(session.learn_dotenv_changes())

    assert codes(events) == ["dotenv_learned", "project_instructions_redacted"]
    preview = session.context_preview()
    shown = json.dumps([preview.message_lines, preview.project_instructions])
    assert TOKEN not in shown and f"notes.txt holds {REDACTED_MARK}" in shown
    assert session.last_summary() is None and TOKEN not in json.dumps(list(session.view))
    assert session.redact_known_secrets(f"temp token {TOKEN}") == f"temp token {REDACTED_MARK}"
    assert provider.requests and len(provider.requests) == 2  # the check sent nothing
    later = drain(session.run_turn("thanks"))
    assert "dotenv_learned" not in codes(later)  # learned once, said once
    assert TOKEN not in json.dumps(provider.requests[2].messages)
    session.close()


def test_a_value_learned_while_tool_results_are_held_leaves_them_before_they_are_sent(
    tmp_path: Path,
) -> None:
    """A full disk holds a call's results out of the view until they can be recorded; a
    check between turns (`/context`) learns a value they hold: they rejoin the view, and
    the next request, without it."""
    from faults_support import FillableDisk

    disk = FillableDisk()
    provider = ScriptedProvider(
        [
            [tool_use("t1", "read_file", path="notes.txt")],
            [{"type": "text", "text": "answer"}],
        ]
    )
    session = make_session(notes_workspace(tmp_path), provider, transcript_fs=disk)
    disk.fill(when=b'"tool_result"')
    drain(session.run_turn("read notes.txt"))
    assert session.held_results is not None
    (session.workspace / ".env").write_text(f"GITHUB_TOKEN={TOKEN}\n")

    assert codes(drain(session.learn_dotenv_changes())) == ["dotenv_learned"]
    disk.free()
    events = drain(session.run_turn("and now?"))

    assert "results_recorded" in codes(events)
    sent = json.dumps(provider.requests[-1].messages)
    assert TOKEN not in sent and f"temp token {REDACTED_MARK}" in sent
    assert TOKEN not in json.dumps(list(session.view))
    session.close()
