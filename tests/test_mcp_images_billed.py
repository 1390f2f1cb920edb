"""Images from an MCP server as the API bills them. The fake API (the oracle) bills every
format by the pixels a decoder (Pillow) finds, as the real API does; when an image is
billed far above agent-cli's estimate (an API that bills images by another rule), the
refusal that follows
says so and what helps, not that the fixed part of every request fills the limit. Real
processes: the installed CLI, the image server over stdio, the real SDK against the
strict fake."""

from __future__ import annotations

import base64
import io
import json
import os
import sys
from pathlib import Path

import pytest
from e2e_support import build_env, run_piped
from fake_anthropic import Reply, start_fake_server, text_block, tool_use_block
from PIL import Image

from bench.prompt_cache import PromptCacheModel, count_block_tokens
from bench.prompt_cache import image_tokens as billed_by_the_fake

API_KEY = "sk-ant-images-billed-FAKE-5"
PICS = Path(__file__).parent / "mcp_fixtures" / "image_server.py"


def _encoded(width: int, height: int, form: str) -> str:
    out = io.BytesIO()
    Image.new("RGB", (width, height), (9, 99, 199)).save(out, format=form)
    return base64.b64encode(out.getvalue()).decode()


@pytest.mark.parametrize("form", ["PNG", "GIF", "JPEG", "WEBP"])
def test_the_fake_api_bills_every_format_by_its_pixels(form: str) -> None:
    for (width, height), tokens in [((1, 1), 1), ((300, 200), 80), ((3000, 1500), 1_600)]:
        source = {"type": "base64", "media_type": "image/x", "data": _encoded(width, height, form)}
        assert billed_by_the_fake(source) == tokens, (form, width, height)


def test_the_fake_api_bills_a_gif_by_its_frame_when_its_screen_says_less() -> None:
    screen_1x1 = b"GIF89a\x01\x00\x01\x00\x80\x00\x00\x00\x00\x00\xff\xff\xff"
    frame_1000 = b",\x00\x00\x00\x00\xe8\x03\xe8\x03\x00\x02\x02D\x01\x00;"
    data = base64.b64encode(screen_1x1 + frame_1000).decode()
    assert billed_by_the_fake({"type": "base64", "data": data}) == 1_334  # 1000 x 1000 / 750


def _images_billed_as_1000_square(label: str, block: dict) -> int:
    """The fake's count, each image in `block` billed as a 1000 x 1000 one (1,334 tokens)
    whatever its size (a 1 x 1 image's own token is replaced)."""
    images = json.dumps(block).count('"type": "image"')
    return count_block_tokens(label, block) + images * (1_334 - 1)


def _run(workspace: Path, base_url: str, lines: list[str], *flags: str):
    home = Path(os.environ["AGENT_CLI_HOME"])
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(
        f'[mcp_servers.pics]\ncommand = "{sys.executable}"\nargs = ["{PICS}"]\n'
        "startup_timeout = 60\n",
        encoding="utf-8",
    )
    env = build_env(home, {"ANTHROPIC_API_KEY": API_KEY, "ANTHROPIC_BASE_URL": base_url})
    return run_piped(["--yes", *flags], cwd=workspace, env=env, stdin_text="\n".join(lines) + "\n")


def _calls_pictures(arguments: dict[str, object]):
    def respond(body: dict) -> Reply:
        last = body["messages"][-1]["content"]
        if isinstance(last, list) and last and last[0].get("type") == "tool_result":
            return Reply([text_block("Seen.")])
        if "show me" in json.dumps(last):
            return Reply([tool_use_block("toolu_p", "mcp__pics__pictures", arguments)], "tool_use")
        return Reply([text_block("Noted.")])

    return respond


def test_images_billed_above_their_estimate_do_not_make_the_fixed_part_look_full(
    tmp_path,
) -> None:
    """Three 1 x 1 PNGs billed as 1000 x 1000 images each (an API whose rule for images is
    not the one agent-cli knows) are billed 4,002 tokens the estimate puts at 3. The next
    message is refused (the request would weigh the same), in words that say an image was
    billed above its estimate and /new helps, not that the fixed part fills the limit so
    neither compacting nor /new can help: the fixed part is some 2,200 tokens, and /new
    then works."""
    pictures = {"kind": "png", "count": 3, "width": 1, "height": 1}
    with start_fake_server(
        api_key=API_KEY,
        responder=_calls_pictures(pictures),
        prompt_cache=PromptCacheModel(count=_images_billed_as_1000_square),
    ) as server:
        lines = ["hello", "show me the pictures", "after", "/new", "fresh start"]
        done = _run(
            tmp_path, server.base_url, lines, "--hard-limit", "4000", "--soft-threshold", "2000"
        )
        bodies = list(server.accepted)
    assert done.returncode == 0, done.stderr
    out = " ".join(done.stdout.split())
    assert "neither compacting nor /new can help" not in out
    assert "billed above its estimate" in out and "/new starts a session without it" in out
    assert json.dumps(bodies[-1]["messages"]).count("fresh start") == 1  # /new worked


def test_images_past_the_per_call_cap_are_named_as_not_sent(tmp_path) -> None:
    """Ten PNGs in one result: eight are sent, and the text of the ninth and tenth says
    they were not (the per-call cap), where it was the same as that of the sent ones."""
    pictures = {"kind": "png", "count": 10, "width": 2, "height": 2}
    with start_fake_server(api_key=API_KEY, responder=_calls_pictures(pictures)) as server:
        done = _run(tmp_path, server.base_url, ["show me the pictures"])
        result = server.accepted[-1]["messages"][-1]["content"][0]
    assert done.returncode == 0, done.stderr
    texts = [b["text"] for b in result["content"] if b["type"] == "text"]
    images = [b for b in result["content"] if b["type"] == "image"]
    named = [line for text in texts for line in text.splitlines() if "[image image/png" in line]
    assert len(images) == 8 and len(named) == 10
    assert not any("not sent" in line for line in named[:8])
    for line in named[8:]:
        assert "not sent to the model: one call sends at most 8 images" in line
