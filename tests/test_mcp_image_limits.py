"""Images the API refuses never wedge a session: one over 8,000 px on a side is never sent,
and a request never carries more than 100 images, nor more than 20 when one is over
2,000 px (the oldest are left out of that request, named with their pointers). Real
processes: the installed CLI, the image server over stdio, the real SDK against the fake
API, which refuses such requests as the real API does (`fake_anthropic_images`)."""

from __future__ import annotations

import base64
import json
import os
import re
import sys
from pathlib import Path
from typing import Any

import pytest
from e2e_support import build_env, run_piped
from fake_anthropic import Reply, start_fake_server, text_block, tool_use_block

from bench.prompt_cache import billed_size

API_KEY = "sk-ant-image-limits-FAKE-6"
PICS = Path(__file__).parent / "mcp_fixtures" / "image_server.py"


def _env(base_url: str) -> dict[str, str]:
    home = Path(os.environ["AGENT_CLI_HOME"])
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(
        f'[mcp_servers.pics]\ncommand = "{sys.executable}"\nargs = ["{PICS}"]\n'
        "startup_timeout = 60\n",
        encoding="utf-8",
    )
    return build_env(home, {"ANTHROPIC_API_KEY": API_KEY, "ANTHROPIC_BASE_URL": base_url})


def _calls(count: int, pictures: dict[str, Any], prefix: str) -> Reply:
    """One model step calling the picture tool `count` times in parallel."""
    blocks = [
        tool_use_block(f"toolu_{prefix}{at}", "mcp__pics__pictures", pictures)
        for at in range(count)
    ]
    return Reply(blocks, "tool_use")


def _images(body: dict[str, Any]) -> list[tuple[int, int]]:
    """The sizes of a request's images, oldest first, as a decoder reads them."""
    found = []
    for message in body["messages"]:
        for block in message["content"] if isinstance(message["content"], list) else []:
            parts = block.get("content") if block["type"] == "tool_result" else [block]
            for part in parts if isinstance(parts, list) else []:
                if part["type"] == "image":
                    found.append(billed_size(base64.b64decode(part["source"]["data"])))
    return found


def _calling(count: int, pictures: dict[str, Any]) -> Any:
    """A responder calling the picture tool `count` times for a user line starting "show",
    and answering text to anything else (tool results, other lines)."""
    asked = [0]

    def respond(body: dict[str, Any]) -> Reply:
        last = body["messages"][-1]["content"]
        texts = [b.get("text", "") for b in last] if isinstance(last, list) else [last]
        if any(text.startswith("show") for text in texts):
            asked[0] += 1
            return _calls(count, pictures, f"c{asked[0]}_")
        return Reply([text_block("Seen.")])

    return respond


def _messages_posts(server: Any) -> list[dict[str, Any]]:
    return [r.body for r in server.requests if r.path.startswith("/v1/messages")]


@pytest.mark.parametrize(
    ("kind", "why"),
    [
        ("png", "9,000 px on its long side, over the 8,000 px the API takes"),
        ("lying_gif", "9,000 px on its long side, over the 8,000 px the API takes"),
        ("unread_png", "its size could not be read, and the API refuses an image over 8,000 px"),
    ],
)
def test_an_image_over_8000_px_is_never_sent_and_later_turns_still_work(
    kind: str, why: str, tmp_path
) -> None:
    """A 9000 x 2 image from an MCP tool (a true PNG; a GIF whose screen says 1 x 1; a PNG
    whose IHDR is not its first chunk, so its size is not read): the result's text says it
    was not sent and why; the next -p turn (--continue) and /compact in the REPL are not
    refused."""
    pictures = {"kind": kind, "count": 1, "width": 9000, "height": 2}
    with start_fake_server(api_key=API_KEY, responder=_calling(1, pictures)) as server:
        env = _env(server.base_url)
        first = run_piped(["--yes", "-p", "show me"], cwd=tmp_path, env=env)
        later = run_piped(["--yes", "--continue", "-p", "plain"], cwd=tmp_path, env=env)
        repl = run_piped(
            ["--yes", "--continue"], cwd=tmp_path, env=env, stdin_text="/compact\nafter\n"
        )
        bodies = _messages_posts(server)
        refused = [r for r in server.requests if r.rejection is not None]
    assert first.returncode == 0 and later.returncode == 0 and repl.returncode == 0, (
        first.stderr + later.stderr + repl.stderr
    )
    assert not refused and all(_images(body) == [] for body in bodies)
    text = json.dumps(bodies[-1])
    assert why in text
    assert "saved as artifact:" in text and json.dumps(bodies[-1]["messages"]).count("after") >= 1


@pytest.mark.parametrize("kind", ["ihdr_only_png", "half_png"])
def test_an_incomplete_png_is_never_sent_and_later_turns_still_work(kind: str, tmp_path) -> None:
    """An outside tester's case: an MCP tool returns a PNG of its signature and IHDR alone,
    or a real 100 x 100 PNG cut in half (Pillow: "image file is truncated"; the API refuses
    an image it cannot decode, in every later request). No request of the turn or of the
    next -p turn (--continue) carries an image; the result's text says why."""
    pictures = {"kind": kind, "count": 1, "width": 100, "height": 100}
    with start_fake_server(api_key=API_KEY, responder=_calling(1, pictures)) as server:
        env = _env(server.base_url)
        first = run_piped(["--yes", "-p", "show me"], cwd=tmp_path, env=env)
        later = run_piped(["--yes", "--continue", "-p", "plain"], cwd=tmp_path, env=env)
        bodies = _messages_posts(server)
    assert first.returncode == 0 and later.returncode == 0, first.stderr + later.stderr
    assert len(bodies) == 3 and all(_images(body) == [] for body in bodies)
    for body in bodies[1:]:
        text = json.dumps(body["messages"])
        assert "saved as artifact:" in text
        assert "not sent to the model: its file is incomplete or damaged" in text


def test_104_images_in_one_step_send_the_newest_100_and_name_the_rest(tmp_path) -> None:
    """13 parallel calls of 8 small PNGs: past 100, the request leaves out a step of the
    oldest (25) and carries the newest 79; each left out is replaced, in the request only,
    by a text naming it and its pointer; the next turn is sent too."""
    pictures = {"kind": "png", "count": 8, "width": 1, "height": 1}
    with start_fake_server(api_key=API_KEY, responder=_calling(13, pictures)) as server:
        env = _env(server.base_url)
        first = run_piped(["--yes", "-p", "show me"], cwd=tmp_path, env=env)
        later = run_piped(["--yes", "--continue", "-p", "plain"], cwd=tmp_path, env=env)
        bodies = _messages_posts(server)
    assert first.returncode == 0 and later.returncode == 0, first.stderr + later.stderr
    assert [len(_images(body)) for body in bodies] == [0, 79, 79]
    results = bodies[1]["messages"][-1]["content"]
    first_result = json.dumps(results[0])
    assert first_result.count("not sent in this request") == 8
    assert json.dumps(results[3]).count("not sent in this request") == 1
    assert "at most 100 images a request" in first_result and "stored as artifact:" in first_result
    assert "not sent in this request" not in json.dumps(results[4:])  # the newest stay


def _screenshots(
    lines_after: list[str] | None, tmp_path: Path, kind: str = "png"
) -> list[dict[str, Any]]:
    """Three turns of 7 screenshots (2560 x 4 images of `kind`): -p turns, or one piped
    REPL."""
    pictures = {"kind": kind, "count": 1, "width": 2560, "height": 4}
    with start_fake_server(api_key=API_KEY, responder=_calling(7, pictures)) as server:
        env = _env(server.base_url)
        if lines_after is None:
            for turn in range(3):
                flags = ["--continue"] if turn else []
                done = run_piped(
                    ["--yes", *flags, "-p", f"show shot {turn}"], cwd=tmp_path, env=env
                )
                assert done.returncode == 0, done.stderr
        else:
            lines = ["show 0", "show 1", "show 2", *lines_after]
            done = run_piped(["--yes"], cwd=tmp_path, env=env, stdin_text="\n".join(lines) + "\n")
            assert done.returncode == 0 and "400" not in done.stdout, done.stdout + done.stderr
        assert not [r for r in server.requests if r.rejection is not None]
        return _messages_posts(server)


@pytest.mark.parametrize("kind", ["png", "lying_gif"])
def test_21_screenshots_over_2000_px_send_the_newest_11_with_p(kind: str, tmp_path) -> None:
    """The third -p turn's tool results bring the view to 21 screenshots: the request
    leaves out a step of the oldest (10), sends the newest 11 (the latest screenshot among
    them) and names the others. GIFs whose screens say 1 x 1 are sized by their 2560 px
    frames, as the API sizes them."""
    bodies = _screenshots(None, tmp_path, kind)
    counts = [len(_images(body)) for body in bodies]
    assert counts == [0, 7, 7, 14, 14, 11]
    last = json.dumps(bodies[-1]["messages"])
    assert last.count("not sent in this request") == 10
    assert "at most 20 images a request when one is over 2,000 px" in last
    newest = [b for b in bodies[-1]["messages"][-1]["content"] if b["type"] == "tool_result"]
    assert len(newest) == 7
    assert all(any(p["type"] == "image" for p in block["content"]) for block in newest)


def test_21_screenshots_over_2000_px_keep_a_repl_session_going(tmp_path) -> None:
    """The same in one piped REPL, and the turns after it are answered too."""
    bodies = _screenshots(["plain question", "another"], tmp_path)
    assert [len(_images(body)) for body in bodies][-3:] == [11, 11, 11]
    assert all(max(max(size) for size in _images(body)) == 2560 for body in bodies[-3:])


def test_hundreds_of_small_images_never_send_a_request_over_a_tight_hard_limit(tmp_path) -> None:
    """75 parallel calls of 8 1x1 PNGs at --hard-limit 50,000: the request would carry 525
    notes (~60 tokens each, where each image weighs 1); no request the fake counts goes over
    the limit, the step that does not fit is refused before it is sent, and the next turn
    (--continue) prunes it and is answered."""
    pictures = {"kind": "png", "count": 8, "width": 1, "height": 1}
    limits = ["--soft-threshold", "40000", "--hard-limit", "50000"]
    steps = iter([_calls(75, pictures, "c")])
    with start_fake_server(
        api_key=API_KEY, responder=lambda _: next(steps, Reply([text_block("Seen.")]))
    ) as server:
        env = _env(server.base_url)
        run_piped(["--yes", *limits, "-p", "show me"], cwd=tmp_path, env=env)
        later = run_piped(["--yes", *limits, "--continue", "-p", "plain"], cwd=tmp_path, env=env)
        counted = [server.usage_for(body) for body in _messages_posts(server)]
    assert later.returncode == 0, later.stderr
    kinds = ("input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")
    sizes = [sum(usage[kind] for kind in kinds) for usage in counted]
    assert len(sizes) >= 2 and max(sizes) <= 50_000, sizes


def test_an_image_of_unread_size_leaves_no_older_image_out(tmp_path) -> None:
    """80 small PNGs, then one 10 x 10 PNG whose size is not read (Pillow reads it): that
    one is not sent, and it does not count as over 2,000 px, so the 80 older ones are all
    sent (none named under a rule that does not apply)."""
    small = {"kind": "png", "count": 8, "width": 1, "height": 1}
    odd = {"kind": "unread_png", "count": 1, "width": 10, "height": 10}

    def respond(body: dict[str, Any]) -> Reply:
        last = body["messages"][-1]["content"]
        texts = [b.get("text", "") for b in last] if isinstance(last, list) else [last]
        if any(text.startswith("show") for text in texts):
            return _calls(10, small, "s")
        if any(text.startswith("one more") for text in texts):
            return _calls(1, odd, "o")
        return Reply([text_block("Seen.")])

    with start_fake_server(api_key=API_KEY, responder=respond) as server:
        env = _env(server.base_url)
        first = run_piped(["--yes", "-p", "show me"], cwd=tmp_path, env=env)
        later = run_piped(["--yes", "--continue", "-p", "one more"], cwd=tmp_path, env=env)
        bodies = _messages_posts(server)
        refused = [r for r in server.requests if r.rejection is not None]
    assert first.returncode == 0 and later.returncode == 0, first.stderr + later.stderr
    assert not refused
    assert len(_images(bodies[-1])) == 80
    last = json.dumps(bodies[-1]["messages"])
    assert "not sent in this request" not in last
    assert last.count("not sent to the model: its size could not be read") == 1


def test_recall_of_a_left_out_image_says_it_is_a_stored_image(tmp_path) -> None:
    """104 images in one step: the text in place of the oldest names its pointer; the model
    recalls it and is told what it is (a stored PNG, its pixels and bytes), not that it is
    corrupt."""
    pictures = {"kind": "png", "count": 8, "width": 3, "height": 3}
    seen: dict[str, Any] = {}

    def respond(body: dict[str, Any]) -> Reply:
        last = json.dumps(body["messages"][-1]["content"])
        if "toolu_r" in last:
            seen["recalled"] = last
            return Reply([text_block("done")])
        pointers = re.findall(r"it is stored as (artifact:[^\]\s]+)\]", last)
        if pointers:
            return Reply(
                [tool_use_block("toolu_r", "recall", {"pointer": pointers[0]})], "tool_use"
            )
        return _calls(13, pictures, "p")

    with start_fake_server(api_key=API_KEY, responder=respond) as server:
        done = run_piped(["--yes", "-p", "show me"], cwd=tmp_path, env=_env(server.base_url))
    assert done.returncode == 0, done.stderr
    recalled = seen["recalled"]
    assert "a stored PNG image, 3 x 3 px" in recalled and "an image, not text" in recalled
    assert "corrupt" not in recalled and "available, sha256" in recalled
