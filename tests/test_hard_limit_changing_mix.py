"""The hard limit holds when a request's mix of content changes from turn to turn
(eighteenth outside attack).

The tester's long session at `--hard-limit 3000 --soft-threshold 2000`: each turn reads
a file of hex rows, prints numbers, asks a question, makes four calls at once, fails a
command that prints 9,000 `E`s, or greps; a fact every 25 turns. Our tokenizer counts
each kind at its own ratio to the API's count (numbers above it, runs of one letter far
under it), so the ratio measured on one request went 0.95, 1.02, 0.95... in a six-turn
cycle, and the request after the failing command, estimated at 2,908 by the ratio of the
request before it, was billed 3,052: four such requests in 80 turns, 31 in 300. The
installed program runs piped against the strict fake, which bills every request at its
characters / 4; every request it sends, summaries included, is checked.
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any

from e2e_support import build_env, run_piped
from fake_anthropic import Reply, start_fake_server, text_block, tool_use_block

from agent_cli.provider.summary_reuse import INSTRUCTIONS_HEADER
from bench.prompt_cache import build_prompt_blocks, count_block_tokens

API_KEY = "sk-ant-changing-mix-FAKE"
HARD, SOFT = 3_000, 2_000
TURNS = 62  # the first request over the limit was the 58th turn's
ACTS = [" read ", " seq ", " question ", " parallel ", " failing ", " grep "]


def billed(body: dict[str, Any]) -> int:
    return sum(block.tokens for block in build_prompt_blocks(body, count_block_tokens))


def is_summary_request(body: dict[str, Any]) -> bool:
    last = body["messages"][-1]["content"]
    return "handoff summar" in str(body.get("system", "")).lower() or INSTRUCTIONS_HEADER in str(
        last
    )


class Model:
    """Answers each act as the tester's scripted model did."""

    def __init__(self) -> None:
        self.calls = 0

    def call(self, name: str, tool_input: dict[str, Any]) -> dict[str, Any]:
        self.calls += 1
        return tool_use_block(f"toolu_m{self.calls:05d}", name, tool_input)

    def __call__(self, body: dict[str, Any]) -> Reply:
        if is_summary_request(body):
            return Reply([text_block("Summary: numbered requests (REQ-...), reads, commands.")])
        last = body["messages"][-1]["content"]
        if isinstance(last, list) and any(b.get("type") == "tool_result" for b in last):
            return Reply([text_block("Done with that.")])
        texts = [last] if isinstance(last, str) else [b.get("text", "") for b in last]
        said = " ".join(t for t in texts if "REQ-" in t)
        number = int(re.search(r"REQ-(\d+)", said).group(1)) if "REQ-" in said else 0
        calls = {
            " read ": [self.call("read_file", {"path": f"data{number % 4}.txt"})],
            " seq ": [self.call("bash", {"command": "seq 1 6000"})],
            " parallel ": [
                self.call("read_file", {"path": "small.txt"}),
                self.call("bash", {"command": "echo hi; echo err >&2"}),
                self.call("read_file", {"path": "missing.txt"}),
                self.call("read_file", {"path": "data1.txt"}),
            ],
            " failing ": [self.call("bash", {"command": "python3 -c \"print('E'*9000)\"; exit 3"})],
            " grep ": [self.call("grep", {"pattern": "row 1"})],
        }
        for act, made in calls.items():
            if act in said:
                return Reply([text_block("On it."), *made], stop_reason="tool_use")
        return Reply([text_block(f"Answer to REQ-{number:04d}: fine.")])


def write_workspace(root: Path) -> Path:
    root.mkdir()
    rng = random.Random(7)
    for k in range(4):
        rows = (f"row {i} {rng.getrandbits(32):08x} {'q' * 40}\n" for i in range(3000))
        (root / f"data{k}.txt").write_text("".join(rows))
    (root / "small.txt").write_text("small file\n")
    return root


def typed_lines() -> list[str]:
    lines = []
    for turn in range(TURNS):
        lines.append(f"REQ-{turn:04d} please{ACTS[turn % len(ACTS)]}thing number {turn}")
        if turn % 25 == 3:
            lines.append(
                f"/remember FACT-{turn:04d} the code word for batch {turn} is CW{turn * 7}"
            )
    return lines


def test_no_request_passes_the_hard_limit_as_the_mix_of_content_changes(tmp_path):
    workspace = write_workspace(tmp_path / "ws")
    with start_fake_server(api_key=API_KEY, responder=Model()) as server:
        env = build_env(
            tmp_path / "home",
            {"ANTHROPIC_API_KEY": API_KEY, "ANTHROPIC_BASE_URL": server.base_url},
        )
        flags = ["--yes", "--hard-limit", str(HARD), "--soft-threshold", str(SOFT)]
        done = run_piped(flags, cwd=workspace, env=env, stdin_text="\n".join(typed_lines()) + "\n")
        bodies = list(server.accepted)
        refused = [request.rejection for request in server.requests if request.rejection]

    assert done.returncode == 0, done.stderr[-2000:]
    assert refused == []
    turns = [body for body in bodies if not is_summary_request(body)]
    with_calls = sum(ACTS[turn % len(ACTS)] != " question " for turn in range(TURNS))
    assert len(turns) == TURNS + with_calls  # every turn was answered, its calls too
    over = [(at, billed(body)) for at, body in enumerate(bodies) if billed(body) > HARD]
    assert over == [], over  # before: one request at 3,052, the 58th turn's


def write_dense_files(root: Path, rng: random.Random) -> None:
    """The second tester's files: long numbers, Chinese, JSON, a padded table."""
    digits = "".join(f"{rng.getrandbits(60)}{rng.getrandbits(60)}\n" for _ in range(800))
    (root / "digits.txt").write_text(digits)
    chinese = ("".join(chr(rng.randint(0x4E00, 0x9FA5)) for _ in range(60)) for _ in range(300))
    (root / "cjk.txt").write_text("\n".join(chinese) + "\n")
    records = [{"id": i, "v": rng.random(), "k": f"{rng.getrandbits(40):x}"} for i in range(600)]
    (root / "data.json").write_text(json.dumps(records, indent=2))
    rows = (f"|{i:>6}|{'':>40}|{rng.randint(0, 9):>30}|{'':<50}|\n" for i in range(800))
    (root / "table.txt").write_text("".join(rows))


DENSE_CALLS = {
    "digits": ("read_file", {"path": "digits.txt"}),
    "cjk": ("read_file", {"path": "cjk.txt"}),
    "json": ("read_file", {"path": "data.json"}),
    "table": ("read_file", {"path": "table.txt"}),
    "bashtable": ("bash", {"command": "cat table.txt | head -300"}),
}


def test_a_step_too_dense_for_the_room_asked_is_still_cut_as_far_as_it_can_be(tmp_path):
    """Eighteenth outside attack, second round: a padded table read at `--hard-limit 3000
    --soft-threshold 2200` was weighed at 3,677 against an estimate of 2,920; the run that
    was to make room asked for more than the step in progress could give, raised, and the
    request went out uncut at 3,406 (7 of 94 requests over in 40 turns, 18 in 120). A run
    that cannot make all the room is followed by one asking for half as much."""
    rng = random.Random(5)
    workspace = tmp_path / "ws"
    workspace.mkdir()
    write_dense_files(workspace, rng)
    calls = Model()

    def model(body: dict[str, Any]) -> Reply:
        if is_summary_request(body):
            return Reply([text_block("Summary: reads of " + "various files. " * 12)])
        last = body["messages"][-1]["content"]
        if isinstance(last, list) and any(b.get("type") == "tool_result" for b in last):
            return Reply([text_block("Done with that. " + "0123456789" * 20)])
        act = re.search(r"ACT:(\w+)", json.dumps(last))
        if act is None:
            return Reply([text_block("Plain answer " + "中文回答" * 40)])
        name, tool_input = DENSE_CALLS[act.group(1)]
        made = [calls.call(name, tool_input), calls.call(name, tool_input)]
        return Reply([text_block("Working."), *made], stop_reason="tool_use")

    lines = [f"REQ-{turn:04d} ACT:{rng.choice(sorted(DENSE_CALLS))} please" for turn in range(24)]
    with start_fake_server(api_key=API_KEY, responder=model) as server:
        env = build_env(
            tmp_path / "home",
            {"ANTHROPIC_API_KEY": API_KEY, "ANTHROPIC_BASE_URL": server.base_url},
        )
        flags = ["--yes", "--hard-limit", str(HARD), "--soft-threshold", "2200"]
        done = run_piped(flags, cwd=workspace, env=env, stdin_text="\n".join(lines) + "\n")
        bodies = list(server.accepted)

    assert done.returncode == 0, done.stderr[-2000:]
    assert len([b for b in bodies if not is_summary_request(b)]) == 2 * len(lines)
    over = [(at, billed(body)) for at, body in enumerate(bodies) if billed(body) > HARD]
    assert over == [], over
