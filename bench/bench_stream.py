"""Receiving a large tool input: is it linear in its size?

Run with `python -m bench bench_stream` (or `make bench`). Prints figures only. One
answer, a `write_file` call whose input is about `INPUT_BYTES` of JSON, streamed by the
fake Messages API (`tests/fake_anthropic.py`, on 127.0.0.1) in `PIECE_CHARS`-character
`input_json_delta` pieces, the size of the pieces the API sends:

- `provider`: `AnthropicProvider.stream`, the raw event stream assembled by
  `stream_assembly` (each piece kept, the whole input parsed once), median of `REPEATS`;
- `sdk helper`: the same answer read through the SDK's `client.messages.stream(...)` to
  its final message, what the provider did before fix22f: its accumulator re-parses the
  whole partial input at every piece (quadratic; 20-60 s on the build box), once.

The two run in the same process against the same server, so the server's own time is in
both.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path
from typing import Any

INPUT_BYTES = 750_000
PIECE_CHARS = 7
REPEATS = 3
API_KEY = "sk-ant-bench-FAKEKEY-stream"


def build_reply() -> Any:
    from fake_anthropic import Reply, tool_use_block

    content = ("x" * 60 + "\n") * (INPUT_BYTES // 61)
    call = tool_use_block("toolu_big", "write_file", {"path": "big.txt", "content": content})
    return Reply([call], stop_reason="tool_use", chunk_size=PIECE_CHARS)


def time_provider(base_url: str) -> float:
    from agent_cli.events import ModelRequest, ModelResponse
    from agent_cli.provider.anthropic_provider import AnthropicProvider

    provider = AnthropicProvider(API_KEY, "claude-bench", base_url=base_url)
    provider.prepare()
    request = ModelRequest("s", "", ({"role": "user", "content": "write it"},), ())
    started = time.perf_counter()
    events = list(provider.stream(request))
    seconds = time.perf_counter() - started
    assert isinstance(events[-1], ModelResponse), events[-1]
    return seconds


def time_sdk_helper(base_url: str) -> float:
    import anthropic
    from anthropic.types import MessageParam

    client = anthropic.Anthropic(api_key=API_KEY, base_url=base_url, max_retries=0)
    messages: list[MessageParam] = [{"role": "user", "content": "write it"}]
    started = time.perf_counter()
    with client.messages.stream(model="claude-bench", max_tokens=64, messages=messages) as s:
        final = s.get_final_message()
    seconds = time.perf_counter() - started
    assert final.content[0].type == "tool_use"
    return seconds


def main() -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
    from fake_anthropic import start_fake_server

    from bench.bench_startup import describe_load

    reply = build_reply()
    print(f"{describe_load()} · {INPUT_BYTES:,} bytes of tool input in {PIECE_CHARS}-char pieces")
    with start_fake_server(api_key=API_KEY, responder=lambda _body: reply) as server:
        ours = statistics.median(time_provider(server.base_url) for _ in range(REPEATS))
        print(f"provider (raw events)  median {ours:.2f} s (n={REPEATS})")
        helper = time_sdk_helper(server.base_url)
        print(f"sdk helper (before)    {helper:.2f} s (n=1)")
    print(f"sdk helper / provider = {helper / ours:.0f}x")


if __name__ == "__main__":
    main()
