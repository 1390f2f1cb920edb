"""Usage as the API reports it, through the real SDK and the fake's prompt-cache model:
`stats` adds up exactly what was reported and shows the session's cache-read share; and
a stored view holding an error result without content is still sent and accepted."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fake_anthropic import Reply, start_fake_server, text_block, tool_use_block
from session_support import drain, make_session

from agent_cli.events import Usage
from agent_cli.provider.anthropic_provider import AnthropicProvider
from agent_cli.repl.stats_panel import build_stats_rows, render_stats_json

API_KEY = "sk-ant-test-FAKEKEY-cache"


@pytest.fixture()
def server():
    with start_fake_server(api_key=API_KEY) as fake:
        yield fake


@pytest.fixture()
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    for name in ("a.py", "b.py", "c.py"):
        (root / name).write_text(f"def {name[0]}():\n    return 1\n" * 40)
    return root


def _provider(server) -> AnthropicProvider:
    return AnthropicProvider(
        API_KEY, "claude-test", base_url=server.base_url, sleep=lambda _: None, timeout_seconds=30
    )


def _record_reported_usage(server) -> list[dict[str, int]]:
    """Wrap the fake's usage hook so the test sees every figure the API reported."""
    reported: list[dict[str, int]] = []
    answer = server.usage_for

    def recording(body: dict) -> dict[str, int]:
        usage = answer(body)
        reported.append(usage)
        return usage

    server.usage_for = recording
    return reported


def test_stats_add_up_the_reported_cache_figures_and_show_the_read_share(server, workspace):
    reported = _record_reported_usage(server)
    session = make_session(workspace, _provider(server))
    for turn, name in enumerate(("a.py", "b.py", "c.py")):
        server.enqueue(
            Reply([tool_use_block(f"toolu_{turn}", "read_file", {"path": name})], "tool_use"),
            Reply([text_block(f"{name} defines 40 functions.")]),
        )
        assert drain(session.run_turn(f"count the functions in {name}"))[-1].outcome == "ok"
    stats = session.stats()
    total = Usage(
        input_tokens=sum(u["input_tokens"] for u in reported),
        cache_creation_input_tokens=sum(u["cache_creation_input_tokens"] for u in reported),
        cache_read_input_tokens=sum(u["cache_read_input_tokens"] for u in reported),
    )
    assert len(reported) == 6 == stats.requests
    assert (
        stats.total_usage.input_tokens,
        stats.total_usage.cache_creation_input_tokens,
        stats.total_usage.cache_read_input_tokens,
    ) == (
        total.input_tokens,
        total.cache_creation_input_tokens,
        total.cache_read_input_tokens,
    )
    # The system prompt and tools (about 1,400 tokens) are written once and read after.
    assert reported[0]["cache_read_input_tokens"] == 0
    assert all(u["cache_read_input_tokens"] > 1_024 for u in reported[1:])
    assert stats.cache_read_share == pytest.approx(
        total.cache_read_input_tokens / total.prompt_tokens
    )
    assert 0.5 < stats.cache_read_share < 1
    assert json.loads(render_stats_json(stats))["cache_read_share"] == stats.cache_read_share
    shown = dict(build_stats_rows(stats))["cache reads"]
    assert f"{100 * stats.cache_read_share:.0f}%" in str(shown)
    session.close()


def test_a_stored_error_result_without_content_is_sent_with_text_and_accepted(server, workspace):
    first = make_session(workspace, _provider(server))
    first.append_message({"role": "user", "content": [{"type": "text", "text": "read a.py"}]})
    first.append_message(
        {"role": "assistant", "content": [tool_use_block("toolu_x", "read_file", {"path": "a"})]}
    )
    first.append_message(
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "toolu_x", "is_error": True}],
        }
    )
    session_id = first.session_id
    first.close()
    resumed = make_session(workspace, _provider(server), resume=session_id)
    assert drain(resumed.run_turn("what went wrong?"))[-1].outcome == "ok"
    (request,) = server.requests
    assert request.rejection is None
    sent = request.body["messages"][2]["content"][0]
    assert sent["is_error"] is True and sent["content"].strip()
    resumed.close()
