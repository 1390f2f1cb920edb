"""One dense tool result neither sends a request over the hard limit nor blocks the
session for good (twenty-fourth outside attack).

The tester's session at `--soft-threshold 2000 --hard-limit 4000`: two chat turns, one
read of a file of three lines of `id` + 3,000 spaces + `x`, more chat, `/compact`, then
`--continue`. cl100k counted the 8.9 KB result at 81 tokens and the API (the strict fake,
characters / 4) at about 2,250: L1 left it whole (under its per-result budget by that
estimate) and the request went out at 4,361; its ratio, 2.15, then put the system prompt
and tools alone over the limit, so every later turn, `/compact` and `--continue` were
blocked with no layer run and nothing sent, and no ratio was measured again.
"""

from __future__ import annotations

from typing import Any

from e2e_support import build_env, run_piped
from fake_anthropic import Reply, start_fake_server, text_block, tool_use_block
from session_support import drain, make_session, workspace_with
from test_hard_limit_changing_mix import billed, is_summary_request

from agent_cli.events import RequestBlocked
from agent_cli.provider.anthropic_provider import AnthropicProvider

API_KEY = "sk-ant-dense-read-FAKE"
SOFT, HARD = 2_000, 4_000
PADDED = ("id" + " " * 3_000 + "x\n") * 3


def model(body: dict[str, Any]) -> Reply:
    """A summary for summaries; "read padded.txt" gets a read; anything else "ok"."""
    if is_summary_request(body):
        return Reply([text_block("SUMMARY short.")])
    last = body["messages"][-1]["content"]
    blocks = [{"type": "text", "text": last}] if isinstance(last, str) else last
    if any(b.get("type") == "tool_result" for b in blocks):
        return Reply([text_block("ok")])
    if any("read padded.txt" in b.get("text", "") for b in blocks):
        call = tool_use_block("toolu_pad1", "read_file", {"path": "padded.txt"})
        return Reply([call], stop_reason="tool_use")
    return Reply([text_block("ok")])


def test_a_dense_read_is_cut_to_fit_and_the_session_answers_after_it(tmp_path):
    workspace = workspace_with(tmp_path, {"padded.txt": PADDED})
    lines = ["hello there", "hello there", "please read padded.txt now"]
    lines += [f"plain question {i}" for i in range(4)] + ["/compact", "plain after compact"]
    flags = ["--yes", "--soft-threshold", str(SOFT), "--hard-limit", str(HARD)]
    with start_fake_server(api_key=API_KEY, responder=model) as server:
        env = build_env(
            tmp_path / "home",
            {"ANTHROPIC_API_KEY": API_KEY, "ANTHROPIC_BASE_URL": server.base_url},
        )
        first = run_piped(flags, cwd=workspace, env=env, stdin_text="\n".join(lines) + "\n")
        sent_first = len(server.accepted)
        again = run_piped(
            [*flags, "--continue"], cwd=workspace, env=env, stdin_text="plain after restart\n"
        )
        bodies = list(server.accepted)
        refused = [request.rejection for request in server.requests if request.rejection]

    assert first.returncode == 0 and again.returncode == 0, first.stderr[-2000:]
    assert refused == []
    over = [(at, billed(body)) for at, body in enumerate(bodies) if billed(body) > HARD]
    assert over == [], over  # before: the read's request at 4,361
    assert "blocked" not in first.stdout + again.stdout  # before: 13 of 13 turns blocked
    turns = [body for body in bodies[:sent_first] if not is_summary_request(body)]
    assert len(turns) == len(lines) - 1 + 1  # every typed turn but /compact, and the read's
    asked = [str(body["messages"][-1]["content"]) for body in bodies[sent_first:]]
    assert any("plain after restart" in text for text in asked)  # --continue answers too


def test_a_ratio_the_frame_never_showed_does_not_block_every_later_turn(tmp_path):
    """The API counted one request far above its estimate (content no bound foresaw):
    its ratio put the system prompt and tools alone over the hard limit. The frame is held
    to its characters then, so the layers run, the next request is sent and a ratio is
    measured again; `/compact` works too."""
    workspace = workspace_with(tmp_path)
    with start_fake_server(api_key=API_KEY, responder=model) as server:
        honest = server.usage_for

        def usage_for(body: dict[str, Any]) -> dict[str, int]:
            usage = dict(honest(body))
            if "counted far above" in str(body["messages"][-1]["content"]):
                usage["input_tokens"] += 3 * billed(body)  # once, as the API reported it
            return usage

        server.usage_for = usage_for  # type: ignore[method-assign]
        provider = AnthropicProvider(API_KEY, base_url=server.base_url)
        session = make_session(workspace, provider, soft=SOFT, hard=HARD)
        drain(session.run_turn("hello there"))
        drain(session.run_turn("this one is counted far above its estimate"))
        events = [e for text in ("plain one", "plain two") for e in session.run_turn(text)]
        events += drain(session.compact_now())
        events += drain(session.run_turn("plain three"))
        session.close()
        bodies = list(server.accepted)

    assert [e for e in events if isinstance(e, RequestBlocked)] == []  # before: all blocked
    asked = [str(body["messages"][-1]["content"]) for body in bodies]
    for text in ("plain one", "plain two", "plain three"):
        assert any(text in said for said in asked), text
    later = bodies[2:]
    assert max(billed(body) for body in later) <= HARD
