"""What the session took in before a secret was learned mid-session has it redacted.

The parts, each on its own (the whole, through the real SDK and the fake API, is in
`test_e2e_learned_midsession.py`): the view and the results of the calls that ran before
the learning in the same answer; the project instructions (counted, said, their
transcript record unchanged); recall's notion of which records came before; the MCP
hub's offer made again from what each server listed (a real server process).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from session_support import ScriptedProvider, drain, make_session, tool_use, transcript_records

from agent_cli.events import Notice
from agent_cli.learned_secrets import LearnedSecrets
from agent_cli.mcp_servers.hub import McpHub
from agent_cli.mcp_servers.settings import McpServerSettings
from agent_cli.secret_forms import NO_SECRETS, REDACTED_MARK, SecretForms
from agent_cli.session.instructions import (
    MAX_INSTRUCTION_CHARS,
    load_project_instructions,
    redact_instructions,
)
from agent_cli.tools.redaction import SecretRedactor

TOKEN = "ghp_LearnedLater0123456789abcdefABCDEF01"
OTHER = "sk_live_51HotherKEYq8Zr2mXv9LpW4tYc8NbH3s"
WRITE_ENV = "sed -n 's/api_token: /GITHUB_TOKEN=/p' notes/creds.yml > .env"
LEAKY = Path(__file__).parent / "mcp_fixtures" / "leaky_server.py"


def creds_workspace(tmp_path: Path, files: dict[str, str] | None = None) -> Path:
    workspace = tmp_path / "ws"
    (workspace / "notes").mkdir(parents=True)
    (workspace / "notes" / "creds.yml").write_text(f"api_token: {TOKEN}\n")
    for name, text in (files or {}).items():
        (workspace / name).write_text(text)
    return workspace


def test_a_result_made_before_the_learning_in_the_same_answer_is_redacted_before_it_is_recorded(
    tmp_path: Path,
) -> None:
    """Both calls of one answer: the first prints the token, the second writes it to
    `.env`. Their results are recorded together, after both: the first is redacted then."""
    provider = ScriptedProvider(
        [
            [
                tool_use("t1", "bash", command="cat notes/creds.yml"),
                tool_use("t2", "bash", command=WRITE_ENV),
            ],
            [{"type": "text", "text": "done"}],
        ]
    )
    session = make_session(creds_workspace(tmp_path), provider)
    drain(session.run_turn("look"))
    assert TOKEN not in json.dumps(provider.requests[1].messages)
    assert f"api_token: {REDACTED_MARK}" in json.dumps(provider.requests[1].messages)
    assert TOKEN not in json.dumps(list(session.view))
    session.close()


def test_the_view_is_redacted_at_once_and_the_transcript_keeps_what_it_wrote(
    tmp_path: Path,
) -> None:
    provider = ScriptedProvider(
        [
            [tool_use("t1", "bash", command="cat notes/creds.yml")],
            [tool_use("t2", "bash", command=WRITE_ENV)],
            [{"type": "text", "text": "done"}],
        ]
    )
    session = make_session(creds_workspace(tmp_path), provider)
    events = drain(session.run_turn("look"))
    assert TOKEN in json.dumps(provider.requests[1].messages)  # nothing knew it yet
    assert TOKEN not in json.dumps(provider.requests[2].messages)
    assert TOKEN not in json.dumps(list(session.view))
    assert TOKEN in json.dumps(transcript_records(session))  # append-only, as written
    codes = [event.code for event in events if isinstance(event, Notice)]
    assert codes.count("dotenv_learned") == 1
    session.close()


def test_project_instructions_are_redacted_counted_and_said_and_their_record_stays(
    tmp_path: Path,
) -> None:
    agents = f"# Rules\nDeploy with {TOKEN}; never print {TOKEN}.\n"
    provider = ScriptedProvider(
        [[tool_use("t1", "bash", command=WRITE_ENV)], [{"type": "text", "text": "done"}]]
    )
    session = make_session(creds_workspace(tmp_path, {"AGENTS.md": agents}), provider)
    assert session.project_instructions.redacted == 0
    events = drain(session.run_turn("deploy"))
    assert TOKEN in provider.requests[0].project_instructions
    carried = provider.requests[1].project_instructions
    assert TOKEN not in carried and f"Deploy with {REDACTED_MARK}; never print" in carried
    assert "[2 secret values held by agent-cli" in carried
    found = session.project_instructions
    assert found.redacted == 2 and found.text == carried
    said = [e.fields for e in events if isinstance(e, Notice) and e.code.startswith("project")]
    assert said == [{"source": "AGENTS.md", "redacted": 2}]
    counted = session.stats().tokens_by_category["project_instructions"]
    assert counted == session.counter.count_text(carried)
    records = [r for r in transcript_records(session) if r["kind"] == "project_instructions"]
    assert len(records) == 1  # the same file: its record (digest, size) is still true
    assert records[0]["payload"]["sha256"] == found.sha256
    session.close()


def test_a_head_cut_at_the_cap_inside_a_learned_value_loses_that_ending(tmp_path: Path) -> None:
    """Not read again: what followed the cut is not there to tell a value's start from
    text, so an ending that may begin the value is left out, as a stopped stream's is."""
    start = f"Keys: {OTHER} and "
    filler = "word " * ((MAX_INSTRUCTION_CHARS - 15 - len(start)) // 5)
    (tmp_path / "AGENTS.md").write_text(f"{start}{filler}{TOKEN} then more text\n")
    found = load_project_instructions(tmp_path, SecretRedactor([OTHER]))
    assert found.truncated and found.redacted == 1 and TOKEN[:12] in found.text
    again = redact_instructions(found, SecretRedactor([TOKEN]))
    assert TOKEN[:6] not in again.text and again.body.endswith("word ")
    assert again.body.startswith(f"Keys: {REDACTED_MARK} and word")
    assert again.redacted == 1 and "[1 secret value held" in again.text  # none whole
    assert "longer than the" in again.text  # the cut is still said
    assert redact_instructions(again, SecretRedactor([TOKEN])) is again


def test_a_record_is_redacted_of_the_values_learned_after_it_was_written() -> None:
    learned = LearnedSecrets().with_learned((TOKEN,), 10).with_learned((OTHER,), 20)
    assert set(learned.forms_before(9).values) == {TOKEN, OTHER}
    assert set(learned.forms_before(10).values) == {OTHER}
    assert set(learned.forms_before(19).values) == {OTHER}
    assert learned.forms_before(20) is NO_SECRETS  # written knowing both: as recorded
    assert LearnedSecrets().with_learned((), 5) == LearnedSecrets()


def test_the_hub_offers_its_tools_again_when_secrets_grow_and_withdraws_a_name_holding_one(
    tmp_path: Path,
) -> None:
    (tmp_path / "secret.txt").write_text(TOKEN + "\n")
    settings = McpServerSettings(
        "described", command=sys.executable, args=(str(LEAKY), "described"), startup_timeout=30
    )
    hub = McpHub([settings], tmp_path)
    hub.start()
    try:
        assert hub.wait_for_start(40) == []
        names = {tool.tool for tool in hub.offered_tools()}
        assert names == {"deploy", "ping", TOKEN}  # nothing knew it yet
        version = hub.version
        hub.use_secrets(SecretForms.from_values([TOKEN]))
        offered = {tool.tool: tool.definition for tool in hub.offered_tools()}
        assert set(offered) == {"deploy", "ping"} and hub.version > version
        assert TOKEN not in json.dumps(offered)
        assert json.dumps(offered["deploy"]).count(REDACTED_MARK) == 4
        [state] = hub.states()
        assert [(s.tool, s.problem) for s in state.skipped] == [
            (REDACTED_MARK, "its name holds a secret agent-cli keeps (an API key or token)")
        ]
        version = hub.version
        hub.use_secrets(SecretForms.from_values([TOKEN, OTHER]))  # nothing more to change
        assert hub.version == version and {tool.tool for tool in hub.offered_tools()} == {
            "deploy",
            "ping",
        }
    finally:
        hub.close()
