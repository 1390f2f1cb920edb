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

from agent_cli.events import CompactionFired, Notice, RequestBlocked
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


RULES = [
    "提交前必须运行全部测试并确认通过。",
    "所有公共函数都需要中文文档字符串。",
    "不要在代码中硬编码密钥或密码。",
]


def test_a_first_request_whose_instructions_may_pass_the_hard_limit_is_not_sent(tmp_path):
    """Eighth outside attack: an AGENTS.md of about 10,000 characters of Chinese went out
    billed 13,296 with `--hard-limit 12000` on the first request (no calibration yet, and
    the frame was weighed at its estimate, 9,121); the next turn was blocked anyway. The
    frame is weighed at its characters too while no counted request carried it: the turn
    is blocked before anything is sent, and says what fills the room."""
    agents = "# 项目规则\n\n" + "".join(
        f"{i + 1}. {RULES[i % len(RULES)]}（第{i + 1}条）\n" for i in range(360)
    )
    workspace = workspace_with(tmp_path, {"AGENTS.md": agents})
    with start_fake_server(api_key=API_KEY, responder=model) as server:
        provider = AnthropicProvider(API_KEY, base_url=server.base_url)
        session = make_session(workspace, provider, soft=10_000, hard=12_000)
        events = drain(session.run_turn("hello"))
        session.close()
        sent = [billed_tokens(body) for body in server.accepted]

    assert sent == [], sent  # before: one request billed 13,296
    blocked = [e for e in events if isinstance(e, RequestBlocked)]
    assert blocked and blocked[0].reserved_tokens >= blocked[0].hard_limit


def padded_records(k: int) -> str:
    """A fixed-width export: short values padded to wide columns (about 15 KB), which the
    fake bills at six and more times its cl100k estimate."""
    return "".join(
        f"{k:03d}{i:05d}" + " " * 700 + f"{i * 7 % 1000:>10}" + " " * 200 + "EOR\n"
        for i in range(16)
    )


def test_content_denser_than_the_calibration_clamp_is_not_sent_over_the_hard_limit(tmp_path):
    """Eighth outside attack: the calibration the thresholds use is clamped at 3.0; reads
    of fixed-width records bill six times their estimate once counted, so requests the
    session put at 13,965 went out billed 28,671 under `--hard-limit 20000`. The hard
    limit now holds by the ratio the last request measured."""
    files = {f"rec{k}.dat": padded_records(k) for k in range(8)}
    workspace = workspace_with(tmp_path, files)

    def reader(body: dict[str, Any]) -> Reply:
        if is_summary_request(body):
            return Reply([text_block("SUMMARY: records loaded one file at a time.")])
        last = body["messages"][-1]["content"]
        if isinstance(last, list) and last[0].get("type") == "tool_result":
            return Reply([text_block("Loaded.")])
        text = last if isinstance(last, str) else last[0].get("text", "")
        name = text.split()[-1]
        call = tool_use_block(f"toolu_{name[3]}", "read_file", {"path": name})
        return Reply([call], stop_reason="tool_use")

    with start_fake_server(api_key=API_KEY, responder=reader) as server:
        provider = AnthropicProvider(API_KEY, base_url=server.base_url)
        session = make_session(workspace, provider, soft=15_000, hard=20_000)
        for k in range(8):
            drain(session.run_turn(f"load the records of rec{k}.dat"))
        session.close()
        sent = [billed_tokens(b) for b in server.accepted if not is_summary_request(b)]

    assert len(sent) == 16 and max(sent) <= HARD, sent  # before: up to 28,671


def test_one_step_of_dense_results_is_cut_to_fit_not_sent_over_the_hard_limit(tmp_path):
    """Review: six fixed-width record files read in one step weigh more, by their
    characters, than the whole room under the hard limit. The first version reserved
    that excess beside the frame, so the run refused at once and the request went out
    billed 24,861 under `--hard-limit 20000`. The runs now scale the calibration by the
    bound's density, so L1 cuts the dense results: the request fits, with all six
    results answered. (Since the twenty-fourth attack the estimate itself weighs such runs
    of spaces near what the API counts, `token_estimation.at_least_the_run_floor`, so the
    first compaction's L1 cuts them and no second run is needed.)"""
    files = {f"rec{k}.dat": padded_records(k) for k in range(6)}
    workspace = workspace_with(tmp_path, files)
    calls = [
        tool_use_block(f"toolu_{k}", "read_file", {"path": name}) for k, name in enumerate(files)
    ]

    def loader(body: dict[str, Any]) -> Reply:
        if is_summary_request(body):
            return Reply([text_block("SUMMARY: prose, then six record files loaded.")])
        last = body["messages"][-1]["content"]
        if isinstance(last, list) and last[0].get("type") == "tool_result":
            return Reply([text_block("Loaded.")])
        text = last if isinstance(last, str) else last[0].get("text", "")
        return Reply(calls, stop_reason="tool_use") if "load" in text else model(body)

    with start_fake_server(api_key=API_KEY, responder=loader) as server:
        provider = AnthropicProvider(API_KEY, base_url=server.base_url)
        session = make_session(workspace, provider, soft=15_000, hard=20_000)
        drain(session.run_turn("hello there, some prose to calibrate " * 20))
        events = drain(session.run_turn("load the records"))
        session.close()
        bodies = [b for b in server.accepted if not is_summary_request(b)]

    sent = [billed_tokens(body) for body in bodies]
    assert max(sent) <= HARD, sent  # before: 24,861
    cut = [
        line.results_truncated
        for e in events
        if isinstance(e, CompactionFired)
        for line in e.layers
        if line.layer == "L1"
    ]
    assert sum(cut) >= 6, cut  # every dense result cut
    results = [b for b in bodies[-1]["messages"][-1]["content"] if b["type"] == "tool_result"]
    assert [r["tool_use_id"] for r in results] == [f"toolu_{k}" for k in range(6)]
