"""The hard limit holds for content the API has not counted yet (seventh outside attack,
C7-8).

The calibration ratio is measured on requests the API counted: eight turns of prose.
Then one turn reads five padded Markdown tables, which our tokenizer counts at about half
of what the strict fake (characters / 4, as the API's rough rule) does. Before, the
compactor put that request at 19,135 tokens under a 20,000 hard limit and the API
counted 21,578. The session goes through the real SDK to the strict fake, and every
request it sends is counted the way the fake bills it.
"""

from __future__ import annotations

from typing import Any

from fake_anthropic import Reply, start_fake_server, text_block, tool_use_block
from session_support import drain, make_session, workspace_with
from test_compaction_e2e_anthropic import is_summary_request

from agent_cli.events import Notice
from agent_cli.provider.anthropic_provider import AnthropicProvider
from bench.prompt_cache import build_prompt_blocks, count_block_tokens

API_KEY = "sk-ant-test-UNCOUNTED"
SOFT, HARD = 15_000, 20_000
TABLE = "".join(f"| {'row' + str(i):<40} | {i:<20} |\n" for i in range(150))
TABLES = {f"t{i}.md": TABLE for i in range(5)}
PROSE = "Some design notes about the queue and the tenants. " * 60


def billed_tokens(body: dict[str, Any]) -> int:
    """The prompt tokens the fake reports for `body`."""
    return sum(block.tokens for block in build_prompt_blocks(body, count_block_tokens))


def model(body: dict[str, Any]) -> Reply:
    """Summaries get a summary; "read the tables" gets five reads, then a short answer."""
    if is_summary_request(body):
        return Reply([text_block("SUMMARY: prose turns about queues, then the tables.")])
    last = body["messages"][-1]["content"]
    if isinstance(last, list) and last[0].get("type") == "tool_result":
        return Reply([text_block("The tables list 150 rows each.")])
    text = last if isinstance(last, str) else last[0].get("text", "")
    if "read the tables" in text:
        calls = [
            tool_use_block(f"toolu_t{i}", "read_file", {"path": name})
            for i, name in enumerate(TABLES)
        ]
        return Reply(calls, stop_reason="tool_use")
    return Reply([text_block("Noted.")])


def test_denser_content_than_calibrated_is_not_sent_over_the_hard_limit(tmp_path):
    workspace = workspace_with(tmp_path, TABLES)
    with start_fake_server(api_key=API_KEY, responder=model) as server:
        provider = AnthropicProvider(API_KEY, base_url=server.base_url)
        session = make_session(workspace, provider, soft=SOFT, hard=HARD)
        prose_events = [
            event for turn in range(8) for event in session.run_turn(f"Turn {turn}: {PROSE}")
        ]
        events = drain(session.run_turn("read the tables t0-t4"))
        session.close()
        bodies = [body for body in server.accepted if not is_summary_request(body)]

    sent = [billed_tokens(body) for body in bodies]
    assert max(sent) <= HARD, sent
    # content no denser than what was counted makes no second run
    assert not [e for e in prose_events if isinstance(e, Notice) and e.code == "uncounted_denser"]
    said = [e for e in events if isinstance(e, Notice) and e.code == "uncounted_denser"]
    assert said and said[0].fields["bound"] > HARD  # the room was made, and said why
    # the request after the reads still holds every table's result
    results = [b for b in bodies[-1]["messages"][-1]["content"] if b["type"] == "tool_result"]
    assert [r["tool_use_id"] for r in results] == [f"toolu_t{i}" for i in range(5)]
