"""Compaction cuts split no secret and no pointer (issue 21, items 2 and 11).

L1 keeps a head and a tail of a big result; the digest cuts each call's key input at 120
characters and shortens old requests; an oversized user message stands in the view as
its head and tail. A key split by any of these cuts is no longer recognised by
redaction, and an `artifact:` pointer (about 150 characters) cut at 120 leads nowhere:
in a long session 20 of 21 `read_artifact` lines carried a broken pointer.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

import pytest
from compaction_support import assistant, call_pair, make_counter, tool_result, tool_use, user
from cuts_support import (
    PADDING,
    assert_no_piece_leaks,
    leaked_piece,
    padded_secrets,
    secret_occurrences,
)
from hostile_support import fuzz_settings
from hypothesis import given
from hypothesis import strategies as st
from session_support import ScriptedProvider, drain, make_session

from agent_cli.compaction import CompactionPolicy, compact_context, truncate_tool_results
from agent_cli.compaction.digest.merge import _fit_requests
from agent_cli.compaction.digest.removed_items import (
    MAX_KEY_INPUT_CHARS,
    RequestEntry,
    describe_key_input,
    request_line,
)
from agent_cli.compaction.layers.truncate import build_truncated_blocks, build_truncated_text
from agent_cli.compaction.markers import SOURCE_KEY, is_digest_message
from agent_cli.events import ModelResponse, Usage
from agent_cli.provider.summary_input import render_summary_input
from agent_cli.secret_forms import SecretForms
from agent_cli.session.oversized import build_preview
from agent_cli.sources.pointers import parse_source_pointer

KEY = "sk-ant-FAKE-Zq9w8e7r6t5y4u3i2o1pLmNb"
SECRETS = SecretForms.from_values([KEY])
SESSION = "s-20261203-101500-abcdef"
POINTER_TEXT = re.compile(r"(?:artifact|transcript):[A-Za-z0-9._:-]+")


def artifact_pointer(number: int) -> str:
    """A pointer shaped like the store's: session, a 40-character file name, 64 hex."""
    digest = f"{number:064x}"
    return f"artifact:{SESSION}:{digest[:32]}-bash-output.txt:{digest}"


def repeated_keys(count: int) -> str:
    """The key again and again: wherever a cut falls, it is almost surely inside one."""
    return " ".join([KEY] * count)


def content_text(message: dict[str, Any]) -> str:
    return "".join(
        block["content"] if isinstance(block["content"], str) else str(block["content"])
        for block in message["content"]
    )


def test_the_leak_check_does_not_take_the_redaction_mark_for_a_piece_of_the_secret():
    """A secret that shares a piece with `[REDACTED]` ("00EDACTE") is not leaked by the
    mark that replaced it; the same piece outside a mark is."""
    assert leaked_piece("[REDACTED]", "00EDACTE") is None
    assert leaked_piece("[REDACTED] EDACTE", "00EDACTE") == "EDACTE"


def test_l1_cuts_a_result_full_of_keys_only_between_them():
    policy = CompactionPolicy(max_tool_result_tokens=300, secret_forms=SECRETS)
    history = [user("go"), *call_pair("t1", repeated_keys(400)), assistant("ok"), user("next")]
    counter, _ = make_counter()
    view, saved = truncate_tool_results(history, policy, counter)
    cut = content_text(view[2])
    assert saved > 0 and "cut by context compaction" in cut
    assert leaked_piece(SECRETS.redact(cut), KEY) is None, cut


def test_l1_cuts_a_list_result_full_of_keys_only_between_them():
    blocks = [{"type": "text", "text": repeated_keys(150)} for _ in range(3)]
    policy = CompactionPolicy(max_tool_result_tokens=300, secret_forms=SECRETS)
    history = [user("go"), *call_pair("t1", blocks), assistant("ok"), user("next")]
    counter, _ = make_counter()
    view, saved = truncate_tool_results(history, policy, counter)
    shown = " ".join(b["text"] for b in view[2]["content"][0]["content"])
    assert saved > 0 and leaked_piece(SECRETS.redact(shown), KEY) is None, shown


@fuzz_settings(0.1)
@given(
    case=padded_secrets(),
    budget=st.integers(45, 200),
    as_blocks=st.booleans(),
    repeats=st.integers(1, 40),
)
def test_l1_cut_anywhere_leaves_no_piece_of_a_secret(case, budget, as_blocks, repeats):
    secret, form, before, after = case
    secrets = SecretForms.from_values([secret])
    counter, _ = make_counter()

    def shown(text: str) -> str:
        if as_blocks:
            cut = build_truncated_blocks([{"type": "text", "text": text}], budget, counter, secrets)
            out = " ".join(block["text"] for block in cut[0]) if cut else text
        else:
            out = (build_truncated_text(text, budget, counter, secrets) or (text, 0))[0]
        return secrets.redact(out)

    # repeated, so that a cut is likely inside
    assert_no_piece_leaks(shown, secret, form, lambda f: (before + f) * repeats + after)


@fuzz_settings(0.1)
@given(case=padded_secrets())
def test_a_digest_line_shows_the_models_input_as_it_wrote_it(case):
    """A digest line is the model's own input: redacted, or cut shorter around a secret,
    it told the model which of its words is one (a seventh outside attack). It is cut
    at the limit wherever that falls (never inside a pointer: below)."""
    _, form, before, after = case
    flat = " ".join((before + form + after).split())
    line = describe_key_input({"command": before + form + after})
    limit = MAX_KEY_INPUT_CHARS
    assert line == "command=" + (flat if len(flat) <= limit else flat[: limit - 1] + "…")


def test_a_digest_line_keeps_a_long_pointer_whole():
    pointer = artifact_pointer(7)
    assert len(pointer) > 140
    line = describe_key_input({"pointer": pointer})
    assert line == f"pointer={pointer}"
    command = describe_key_input({"command": "x" * 100 + f" {pointer} and more words after it"})
    assert pointer in command and command.endswith("…")


def read_artifact_history(calls: int) -> list[dict[str, Any]]:
    history = [user("Read the big output in pages and tell me what failed.")]
    for number in range(calls):
        use = tool_use(
            f"toolu_{number}", "read_artifact", {"pointer": artifact_pointer(number), "offset": 0}
        )
        history += [assistant([use]), user([tool_result(f"toolu_{number}", "page " * 80)])]
    history += [assistant("The build failed in step 3."), user("Thanks. Fix it.")]
    return [{**m, SOURCE_KEY: f"transcript:{SESSION}:{i + 1}"} for i, m in enumerate(history)]


def test_every_read_artifact_line_of_the_digest_carries_a_whole_pointer():
    """The session of the issue: 21 `read_artifact` calls leave the view; each line the
    digest keeps names the pointer it read, whole, so the request still holds a way
    back to the output."""
    history = read_artifact_history(21)
    policy = CompactionPolicy(soft_threshold=2_000, hard_limit=40_000, keep_recent_messages=2)
    counter, _ = make_counter()
    view = compact_context(history, policy=policy, counter=counter).messages
    digest = next(m["content"] for m in view if is_digest_message(m))
    lines = [line for line in digest.splitlines() if line.startswith("- read_artifact")]
    assert len(lines) >= 3
    for line in lines:
        named = POINTER_TEXT.findall(line)
        artifacts = [p for p in named if p.startswith("artifact:")]
        assert len(artifacts) == 1, line
        assert parse_source_pointer(artifacts[0]).is_artifact
        assert artifacts[0] in {artifact_pointer(n) for n in range(21)}


def test_a_shortened_request_in_the_digest_keeps_a_pointer_whole():
    pointer = artifact_pointer(3)
    request = "x" * 40 + f" {pointer} please " + "y" * 400  # a cut at 60 or 200 chars
    history = [user("first"), assistant("ok")]
    for number in range(40):
        history += [user(request if number == 25 else f"request {number} " + "z" * 300)]
        history += [assistant("done " * 30)]
    history.append(user("last"))
    history = [{**m, SOURCE_KEY: f"transcript:{SESSION}:{i + 1}"} for i, m in enumerate(history)]
    policy = CompactionPolicy(
        soft_threshold=3_000, hard_limit=90_000, keep_recent_messages=2, digest_tokens=600
    )
    counter, _ = make_counter()
    view = compact_context(history, policy=policy, counter=counter).messages
    digest = next(m["content"] for m in view if is_digest_message(m))
    shortened = [line for line in digest.splitlines() if "x" * 40 in line]
    assert shortened and "shortened from" in shortened[0]
    for found in POINTER_TEXT.findall(shortened[0]):
        parse_source_pointer(found.rstrip(";)"))
    assert pointer in shortened[0]


def test_an_oversized_message_preview_splits_no_key_the_session_redacts(tmp_path):
    """The session gives compaction the secrets its tools redact: a huge pasted text full
    of the key stands in the request as a head and a tail with no key cut in half."""
    provider = ScriptedProvider()
    session = make_session(
        tmp_path,
        provider,
        message_limit=400,
        environment={"ANTHROPIC_API_KEY": KEY, "PATH": "/usr/bin:/bin"},
    )
    try:
        assert session.policy.secret_forms == SECRETS
        assert dataclasses.replace(session.policy).secret_forms == SECRETS
        drain(session.run_turn(repeated_keys(3000)))
        sent = provider.requests[-1].messages[0]["content"]
        text = sent if isinstance(sent, str) else " ".join(b["text"] for b in sent)
        assert "stored whole as artifact:" in text
        assert leaked_piece(SECRETS.redact(text), KEY) is None, text[:600]
    finally:
        session.close()


@pytest.mark.parametrize("resumed", [False, True], ids=["this-run", "earlier-run"])
def test_recall_pages_split_no_key_wherever_the_model_starts_them(tmp_path, resumed):
    """The model chooses the offset of a recall page, so it would choose where a key the
    user pasted is cut; a page begins after and ends before any key it would split. A
    record this run wrote has the user's words redacted before it is cut; one of an
    earlier run (`--continue`) is cut around the keys and redacted after."""
    environment = {"ANTHROPIC_API_KEY": KEY, "PATH": "/usr/bin:/bin"}
    session = make_session(tmp_path, ScriptedProvider(), environment=environment)
    try:
        drain(session.run_turn("please store these: " + repeated_keys(1000)))
        pointer = session.view[0][SOURCE_KEY]
        if resumed:
            session.close()
            session = make_session(
                tmp_path, ScriptedProvider(), environment=environment, resume=session.session_id
            )
        for offset in [0, 1, 17, 5_555, 9_876] + ([12_345] if resumed else []):
            page = session.toolbox.run("recall", {"pointer": pointer, "offset": offset})
            assert not page.is_error and "[REDACTED]" in page.content
            assert leaked_piece(page.content, KEY) is None, (offset, page.content[-300:])
            if page.content.endswith("\n[end]") and not resumed:
                continue  # (redacted first, this run's record is shorter)
            following = re.search(r"offset=(\d+)\]", page.content)
            assert following is not None and int(following.group(1)) > offset
    finally:
        session.close()


@fuzz_settings(0.1)
@given(
    case=padded_secrets(),
    budget=st.integers(1, 400),
    repeats=st.integers(1, 30),
)
def test_an_oversized_message_preview_cut_anywhere_leaves_no_piece_of_a_secret(
    case, budget, repeats
):
    secret, form, before, after = case
    secrets = SecretForms.from_values([secret])
    pointer = artifact_pointer(1)

    def shown(text: str) -> str:
        return secrets.redact(build_preview(text, pointer, budget, len, secrets))

    assert_no_piece_leaks(shown, secret, form, lambda f: (before + f) * repeats + after)


@fuzz_settings(0.1)
@given(
    occurrence=secret_occurrences(),
    lead=st.integers(0, 210),
    after=PADDING,
    budget=st.integers(0, 80),
)
def test_a_shortened_request_leaves_no_piece_of_a_secret(occurrence, lead, after, budget):
    """A request is shortened to 200 or 60 characters: the secret starts near either."""
    secret, form = occurrence
    before = "·" * lead
    secrets = SecretForms.from_values([secret])
    counter, _ = make_counter()

    def shown(text: str) -> str:
        fitted, _, _ = _fit_requests([RequestEntry(text, None)] * 3, budget, counter, secrets)
        return secrets.redact("\n".join(request_line(entry) for entry in fitted))

    # "z" * 300: long enough to be shortened
    assert_no_piece_leaks(shown, secret, form, lambda f: before + f + after + "z" * 300)


def test_the_summary_input_keeps_pointers_whole_at_its_cuts():
    """L4's bounded input cuts result heads at 800 and arguments at 300 characters; a
    pointer at either cut reaches the summary whole, or the summary cannot point back."""
    pointer = artifact_pointer(9)
    result = "r" * 700 + f" saved as {pointer} " + "r" * 2000
    use = tool_use("t1", "recall", {"pointer": "x" * 200 + " " + pointer, "offset": 0})
    history = [user("go"), assistant([use]), user([tool_result("t1", result)])]
    rendered = "\n".join(render_summary_input(history).splitlines())
    assert rendered.count(pointer) == 2, rendered


def test_a_long_paging_session_keeps_a_usable_pointer_to_the_big_output(tmp_path):
    """The session of issue 21 item 11 with the real toolbox and store: a 2 MB output is
    spilled, read back in 21 `read_artifact` pages, and compaction prunes the older
    pages; the last request's digest still names the artifact in full, and that pointer
    reads the output back."""
    (tmp_path / "make.sh").write_text('for i in $(seq 1 120000); do echo "step $i ok"; done\n')
    holder: dict[str, str] = {}

    def run_it(request: Any) -> Any:
        use = tool_use("b1", "bash", {"command": "sh make.sh"})
        yield ModelResponse({"role": "assistant", "content": [use]}, "tool_use", Usage(0, 0))

    def page(number: int) -> Any:
        def step(request: Any) -> Any:
            if "pointer" not in holder:
                holder["pointer"] = POINTER_TEXT.findall(str(request.messages[-1]["content"]))[0]
            arguments = {"pointer": holder["pointer"], "offset": number * 4096}
            use = tool_use(f"r{number}", "read_artifact", arguments)
            yield ModelResponse({"role": "assistant", "content": [use]}, "tool_use", Usage(0, 0))

        return step

    steps = [run_it, *(page(n) for n in range(21)), [{"type": "text", "text": "done"}]]
    provider = ScriptedProvider(steps)
    session = make_session(tmp_path, provider, soft=6_000, hard=200_000, keep_recent=4)
    try:
        assert drain(session.run_turn("build it and read the log"))[-1].outcome == "ok"
        digest = next(m["content"] for m in provider.requests[-1].messages if is_digest_message(m))
        named = [p for p in POINTER_TEXT.findall(digest) if p.startswith("artifact:")]
        assert named and set(named) == {holder["pointer"]}, digest
        read_back = session.toolbox.run("read_artifact", {"pointer": named[0], "offset": 0})
        assert not read_back.is_error and "step 1 ok" in read_back.content
    finally:
        session.close()


def test_search_excerpts_split_no_key_wherever_the_match_sits(tmp_path):
    """A search excerpt is a cut the model steers (it picks the words, so where the
    excerpt's edges fall): an edge inside a key the user pasted takes the key whole,
    redacted, never a piece of it."""
    provider = ScriptedProvider()
    session = make_session(
        tmp_path, provider, environment={"ANTHROPIC_API_KEY": KEY, "PATH": "/usr/bin:/bin"}
    )
    try:
        for gap in range(0, 90, 7):  # moves the excerpt's edges across the key
            words = " ".join(f"w{gap}x{index}" for index in range(3))
            filler = "." * gap
            drain(session.run_turn(f"{KEY}{filler} marker{gap} {filler}{KEY} {words}"))
            page = session.toolbox.run("recall", {"search": f"marker{gap}"})
            assert not page.is_error and f"marker{gap}" in page.content
            assert leaked_piece(page.content, KEY) is None, (gap, page.content)
    finally:
        session.close()
