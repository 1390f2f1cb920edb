"""`/model`: list the models, switch for the rest of the session, keep it on resume.

A real session on the real SDK against the strict fake Messages API (which also serves
GET /v1/models), driven through the REPL's command table.
"""

from __future__ import annotations

import io
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from fake_anthropic import RawAnswer, Reply, text_block
from repl_fakes import make_console
from rich.console import Console
from session_support import ScriptedProvider, drain, make_session, transcript_records

from agent_cli.errors import ModelSwitchRefused
from agent_cli.models import DEFAULT_MODEL, MODEL_TABLE
from agent_cli.provider.anthropic_provider import AnthropicProvider
from agent_cli.provider.offline import OfflineProvider
from agent_cli.repl.commands import run_command, split_command
from agent_cli.repl.render import EventRenderer
from agent_cli.repl.turns import drive_events
from agent_cli.tokens import TokenCounter

API_KEY = "sk-ant-test-MODEL-COMMAND"


@dataclass
class Context:
    session: Any
    console: Console = field(default_factory=lambda: make_console(width=140))
    plain: io.StringIO = field(default_factory=io.StringIO)

    def render_events(self, events: Any) -> None:
        drive_events(events, EventRenderer(self.console, live=False).render)

    def run(self, line: str) -> str:
        run_command(self, *split_command(line))
        return " ".join(self.console.export_text(clear=True).split())


def _provider(server) -> AnthropicProvider:
    return AnthropicProvider(API_KEY, DEFAULT_MODEL, base_url=server.base_url, sleep=lambda _: 0)


def test_model_with_an_id_makes_the_next_request_carry_it_and_resume_keeps_it(server, tmp_path):
    session = make_session(tmp_path, _provider(server))
    drain(session.run_turn("before"))
    shown = Context(session).run("/model claude-opus-5-5")
    assert "model is now claude-opus-5-5 (Claude Opus 5.5)" in shown
    assert "context window 1,000,000" in shown
    drain(session.run_turn("after"))
    session_id = session.session_id
    changes = [r for r in transcript_records(session) if r["kind"] == "model_changed"]
    session.close()
    assert [body["model"] for body in server.accepted] == [DEFAULT_MODEL, "claude-opus-5-5"]
    assert changes[0]["payload"] == {"model": "claude-opus-5-5", "previous": DEFAULT_MODEL}

    resumed = make_session(tmp_path, _provider(server), resume=session_id)
    assert resumed.provider.model == "claude-opus-5-5"
    assert [n.code for n in resumed.startup_notices] == ["model_restored"]
    drain(resumed.run_turn("after resume"))
    resumed.close()
    assert server.accepted[-1]["model"] == "claude-opus-5-5"


def test_model_alone_lists_the_models_api_and_marks_the_current_and_deprecated(server, tmp_path):
    session = make_session(tmp_path, _provider(server))
    shown = Context(session).run("/model")
    session.close()
    assert f"model {DEFAULT_MODEL} (Claude Sonnet 5.5)" in shown
    assert "from the Models API" in shown
    assert f"* {DEFAULT_MODEL}" in shown
    assert "claude-opus-4-5 Claude Opus 4.5 deprecated" in shown
    assert server.requests[-1].path.startswith("/v1/models")


def test_without_a_models_api_the_list_comes_from_the_table_and_says_why(server, tmp_path):
    server.models = None
    session = make_session(tmp_path, _provider(server))
    shown = Context(session).run("/model")
    session.close()
    assert "from agent-cli's model table" in shown and "does not offer the Models API" in shown
    assert "claude-haiku-4-5" in shown and "claude-opus-5-5" in shown


def test_an_unknown_model_is_accepted_and_said_to_have_no_prices(server, tmp_path):
    server.enqueue(Reply([text_block("hi")]))
    session = make_session(tmp_path, _provider(server))
    shown = Context(session).run("/model claude-future-9")
    assert "not in agent-cli's model table" in shown and "assumed 200,000" in shown
    assert session.provider.context_window == 200_000
    drain(session.run_turn("hello"))
    session.close()
    assert server.accepted[-1]["model"] == "claude-future-9"


@pytest.mark.parametrize("bad", ["bad id with spaces", "-leading-dash", "x" * 300])
def test_something_that_is_not_a_model_id_is_refused_and_nothing_is_recorded(tmp_path, bad):
    session = make_session(tmp_path, _anthropic_without_server())
    with pytest.raises(ModelSwitchRefused):
        session.switch_model(bad)
    assert session.provider.model == DEFAULT_MODEL
    assert "model_changed" not in [r["kind"] for r in transcript_records(session)]
    session.close()


def test_the_offline_model_cannot_switch_and_says_how_to_use_claude(tmp_path):
    session = make_session(tmp_path, OfflineProvider())
    with pytest.raises(ModelSwitchRefused):
        session.switch_model("claude-opus-5-5")
    shown = Context(session).run("/model")
    session.close()
    assert "offline demo model" in shown and "ANTHROPIC_API_KEY" in shown


def test_a_scripted_provider_without_a_models_api_falls_back_to_the_table(tmp_path):
    session = make_session(tmp_path, ScriptedProvider())
    listing = session.list_models()
    session.close()
    assert listing.source == "table" and listing.problem == "not_offered"
    assert DEFAULT_MODEL in [model.model_id for model in listing.models]


def _anthropic_without_server() -> AnthropicProvider:
    return AnthropicProvider(API_KEY, DEFAULT_MODEL, base_url="http://127.0.0.1:9")


def test_reload_says_what_it_read(tmp_path: Path):
    session = make_session(tmp_path, ScriptedProvider())
    assert "no AGENTS.md or CLAUDE.md" in Context(session).run("/reload")
    (tmp_path / "AGENTS.md").write_text("be brief\n")
    assert "reloaded AGENTS.md (9 bytes)" in Context(session).run("/reload")
    session.close()


def test_context_shows_the_project_instructions_and_the_free_window(tmp_path: Path):
    (tmp_path / "AGENTS.md").write_text("be brief\n")
    session = make_session(tmp_path, ScriptedProvider())
    shown = Context(session).run("/context")
    gauge = session.gauge()
    session.close()
    assert "project instructions AGENTS.md, 9 bytes" in shown
    free = 200_000 - gauge.tokens
    assert f"context window 200,000 tokens · the next request about {gauge.tokens:,}" in shown
    assert f"free {free:,}" in shown


def test_a_switch_the_disk_refuses_to_record_leaves_the_model_as_it_was(tmp_path: Path):
    from faults_support import FillableDisk

    from agent_cli.errors import TranscriptWriteFailed

    disk = FillableDisk()
    session = make_session(tmp_path, _anthropic_without_server(), transcript_fs=disk)
    disk.fill(when=b"model_changed")
    with pytest.raises(TranscriptWriteFailed):
        session.switch_model("claude-opus-5-5")
    assert session.provider.model == DEFAULT_MODEL and session.log.model == DEFAULT_MODEL
    disk.free()
    session.close()


# --- a Models API answer that is no model list ------------------------------------------------

HOSTILE_PAGES = {
    "data is a string": (RawAnswer(b'{"data": "abc"}'), "was not a list of models"),
    "data is null": (RawAnswer(b'{"data": null}'), "was not a list of models"),
    "a bare list": (RawAnswer(b"[1, 2]"), "was not a list of models"),
    "an HTML page": (
        RawAnswer(b"<html><body>Gateway says hi</body></html>", "text/html"),
        "was not a list of models",
    ),
    "no data at all": (RawAnswer(b'{"has_more": false}'), "was not a list of models"),
    "JSON null": (RawAnswer(b"null"), "was not a list of models"),
    "an empty body": (RawAnswer(b""), "was not a list of models"),
    "cut mid-entry": (RawAnswer(b'{"data": [{"id": "claude-x", "disp'), "was not a list of"),
    "not UTF-8": (RawAnswer(b'{"data": [{"id": "\xff\xfe"}]}'), "was not a list of models"),
    "entries that are numbers": (RawAnswer(b'{"data": [1, 2]}'), "was not a list of models"),
    "ids that are not model ids": (
        RawAnswer(b'{"data": [{"id": 5}, {"id": "bad id"}, {"id": ""}, {}]}'),
        "was not a list of models",
    ),
    "an empty list": (RawAnswer(b'{"data": []}'), "listed no models"),
    "a 200 with a JSON error": (
        RawAnswer(b'{"type": "error", "error": {"type": "api_error"}}'),
        "was not a list of models",
    ),
}


@pytest.mark.parametrize("name", HOSTILE_PAGES)
def test_an_answer_that_is_no_model_list_falls_back_to_the_table_in_one_line(
    server, tmp_path, name
):
    server.models_answer, why = HOSTILE_PAGES[name]
    session = make_session(tmp_path, _provider(server))
    listing = session.list_models()
    shown = Context(session).run("/model")
    session.close()
    assert listing.source == "table"
    assert [m.model_id for m in listing.models] == [info.model_id for info in MODEL_TABLE]
    assert "models (from agent-cli's model table; the Models API" in shown and why in shown
    assert "claude-haiku-4-5" in shown and "claude-opus-5-5" in shown


def test_of_a_page_of_100000_entries_only_the_first_100_are_read(server, tmp_path):
    server.models = tuple(
        (f"claude-test-{index}", f"Test model {index}", "active") for index in range(100_000)
    )
    session = make_session(tmp_path, _provider(server))
    listing = session.list_models()
    session.close()
    assert listing.source == "api"
    assert [m.model_id for m in listing.models] == [f"claude-test-{i}" for i in range(100)]


def test_of_a_page_of_huge_entries_the_whole_ones_that_fit_the_bound_are_listed(server, tmp_path):
    names = "x" * 200_000  # five entries pass the reader's byte bound
    server.models = tuple((f"claude-big-{index}", names, "active") for index in range(50))
    session = make_session(tmp_path, _provider(server))
    listing = session.list_models()
    session.close()
    assert listing.source == "api"
    assert 1 <= len(listing.models) < 50
    assert [m.model_id for m in listing.models] == [
        f"claude-big-{i}" for i in range(len(listing.models))
    ]
    assert all(len(m.display_name) <= 200 for m in listing.models)


def test_a_single_entry_bigger_than_the_bound_falls_back_to_the_table(server, tmp_path):
    server.models = (("claude-huge", "y" * 3_000_000, "active"),)
    session = make_session(tmp_path, _provider(server))
    shown = Context(session).run("/model")
    session.close()
    assert "the Models API's answer was too large to read" in shown


def test_entries_without_a_model_id_are_left_out_and_the_others_listed(server, tmp_path):
    page = {
        "data": [
            {"id": "claude-opus-5-5", "display_name": ["not", "text"], "lifecycle": 7},
            5,
            {"id": "has spaces"},
            {"display_name": "no id"},
            {"id": "claude-haiku-5-5", "display_name": "Claude Haiku 5.5", "lifecycle": "active"},
        ]
    }
    server.models_answer = RawAnswer(json.dumps(page).encode())
    session = make_session(tmp_path, _provider(server))
    listing = session.list_models()
    session.close()
    assert listing.source == "api"
    assert [(m.model_id, m.display_name, m.lifecycle) for m in listing.models] == [
        ("claude-opus-5-5", "Claude Opus 5.5", None),  # the table's name for a bad one
        ("claude-haiku-5-5", "Claude Haiku 5.5", "active"),
    ]


def test_a_smaller_window_after_model_lowers_the_thresholds_says_so_and_fits_requests(
    server, tmp_path
):
    """Seventh attack: thresholds set for a 1M-token model (soft 400,000 / hard 600,000)
    stayed after `/model claude-haiku-4-5` (200,000): a 253,929-token request was sent."""
    session = make_session(tmp_path, _provider(server), soft=400_000, hard=600_000)
    assert session.policy.hard_limit == 600_000  # Sonnet 5.5's window holds them
    shown = Context(session).run("/model claude-haiku-4-5")
    room = session.policy.hard_limit  # the window less the answer's max_tokens
    assert 150_000 < room <= 200_000 - 4_096 and session.policy.soft_threshold == room * 2 // 3
    assert session.policy_as_set.hard_limit == 600_000
    assert f"lowered to soft {room * 2 // 3:,} / hard {room:,}" in shown
    assert "claude-haiku-4-5's 200,000-token window" in shown and "set: 400,000 / 600,000" in shown
    assert session.stats().thresholds_as_set == (400_000, 600_000)
    assert "lowered" not in Context(session).run("/model claude-opus-5-5")
    assert session.policy.hard_limit == 600_000  # back to what was set, on a 1M window
    session.close()


def test_every_request_fits_a_window_smaller_than_the_thresholds_set(tmp_path):
    """The thresholds fitted to the window are the ones compaction runs by."""

    class SmallWindow(ScriptedProvider):
        context_window = 20_000  # less the answer's 8,192: 11,808

    provider = SmallWindow()
    session = make_session(tmp_path, provider, soft=20_000, hard=30_000)
    for turn in range(30):
        events = drain(session.run_turn(f"turn {turn}: " + "notes about the design " * 100))
        assert events[-1].outcome == "ok", events[-3:]
    counter = TokenCounter()
    sizes = [counter.count_messages(list(request.messages)) for request in provider.requests]
    assert max(sizes) < 20_000 - 8_192 and len(sizes) == 30
    session.close()
