"""The L4 summarizers: extractive (no model) and model-backed (through a fake provider).

The fake provider is a small object passed in: it records each request and streams a
scripted answer, or fails, or hangs, so every failure path of the model summarizer is
exercised without a network.
"""

from __future__ import annotations

import inspect
import json
import re
import threading
from datetime import timedelta
from typing import Any

import pytest
from test_image_limits import _png

from agent_cli.compaction.markers import (
    SOURCE_KEY,
    SUMMARY_HEADER,
    is_summary_message,
    mark_summary,
)
from agent_cli.errors import PromptNotFound, ProviderRequestFailed, SummarizerFailed
from agent_cli.events import ModelRequest, ModelResponse, TextDelta, Usage
from agent_cli.models import ModelPrices
from agent_cli.prompts import load_prompt
from agent_cli.provider.extractive_summary import build_extractive_summarizer
from agent_cli.provider.summarizers import build_model_summarizer, build_summary_request
from agent_cli.provider.summary_input import LEFT_OUT_HEAD
from agent_cli.provider.summary_reuse import (
    INSTRUCTIONS_HEADER,
    CachedPrefix,
    build_reusing_request,
    choose_summary_request,
    count_recent,
    is_still_cached,
)
from agent_cli.provider.wire import build_wire_request
from bench.prompt_cache import PromptCacheModel


def user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": text}


def assistant(text: str) -> dict[str, Any]:
    return {"role": "assistant", "content": [{"type": "text", "text": text}]}


def tool_step(
    tool_id: str, name: str, tool_input: dict[str, Any], result: str, is_error: bool = False
) -> list[dict[str, Any]]:
    """An assistant tool call and the user message answering it."""
    call = {"type": "tool_use", "id": tool_id, "name": name, "input": tool_input}
    answer = {
        "type": "tool_result",
        "tool_use_id": tool_id,
        "content": result,
        "is_error": is_error,
    }
    return [{"role": "assistant", "content": [call]}, {"role": "user", "content": [answer]}]


def summary_message(body: str) -> dict[str, Any]:
    message = mark_summary(user(f"{SUMMARY_HEADER}\n{body}"))
    assert is_summary_message(message)
    return message


def session_part_one() -> list[dict[str, Any]]:
    return [
        user("Please make the CSV importer accept semicolons"),
        *tool_step("t1", "read_file", {"path": "importer.py"}, "File: importer.py ..."),
        *tool_step("t2", "bash", {"command": "pytest -q"}, "Exit code: 1\n1 failed"),
        assistant("The importer hard-codes commas; I will add a delimiter option."),
    ]


def session_part_two() -> list[dict[str, Any]]:
    return [
        user("also update the docs"),
        *tool_step("t3", "write_file", {"path": "docs/import.md", "content": "x"}, "Wrote 1 lines"),
        *tool_step("t4", "read_file", {"path": "importer.py"}, "File: importer.py ..."),
        assistant("Docs updated; the delimiter option is documented."),
    ]


# --- extractive summarizer ----------------------------------------------------------------


def test_extractive_summary_keeps_requests_tools_files_and_the_last_outcome():
    summary = build_extractive_summarizer()(session_part_one() + session_part_two())
    assert summary.splitlines() == [
        "First user request: Please make the CSV importer accept semicolons",
        "Later user requests (oldest first):",
        "- also update the docs",
        "Tools used: read_file (2), bash (1), write_file (1)",
        "Files touched: importer.py, docs/import.md",
        "Last outcome: Docs updated; the delimiter option is documented.",
    ]


def test_extractive_summary_is_deterministic():
    messages = session_part_one() + session_part_two()
    assert build_extractive_summarizer("docs")(messages) == build_extractive_summarizer("docs")(
        messages
    )


def test_tool_results_are_not_taken_for_user_requests():
    summary = build_extractive_summarizer()(session_part_one())
    assert "Later user requests" not in summary
    assert "1 failed" not in summary


def test_a_previous_summary_is_merged_not_rederived():
    summarize = build_extractive_summarizer()
    first = summarize(session_part_one())
    merged = summarize([summary_message(first), *session_part_two()])
    assert merged == summarize(session_part_one() + session_part_two())


def test_a_merged_summary_carries_what_only_the_previous_summary_knew():
    previous = (
        "First user request: port the app to Rust\nTools used: bash (7)\nFiles touched: main.rs"
    )
    merged = build_extractive_summarizer()([summary_message(previous), *session_part_two()])
    assert "First user request: port the app to Rust" in merged
    assert "- also update the docs" in merged
    assert "bash (7)" in merged and "write_file (1)" in merged
    assert "Files touched: main.rs, docs/import.md, importer.py" in merged


def test_a_previous_summary_in_another_format_is_kept_as_earlier_summary():
    previous = "Goal: the user wants semicolon support.\nDecisions: add a delimiter option."
    merged = build_extractive_summarizer()([summary_message(previous), *session_part_two()])
    assert "Earlier summary: Goal: the user wants semicolon support. Decisions: add a" in merged
    assert "First user request: also update the docs" in merged


def test_a_focus_is_recorded_and_the_requests_naming_it_are_kept_first():
    messages = [user("start here")]
    messages += [user("tweak the colour theme") for _ in range(3)]
    messages += [user("fix the database migration"), assistant("noted")]
    messages += [user(f"small request {n}") for n in range(12)]
    plain = build_extractive_summarizer()(messages)
    focused = build_extractive_summarizer("the database")(messages)
    assert "Focus requested: the database" in focused
    assert "- fix the database migration" in focused
    assert "- fix the database migration" not in plain
    assert "- small request 11" in focused and "- small request 11" in plain


def test_a_focus_keeps_the_tool_output_lines_that_mention_it():
    messages = session_part_one() + [
        *tool_step("t9", "grep", {"pattern": "delim"}, "a.py:1: x\nimporter.py:40: DELIM = ','")
    ]
    summary = build_extractive_summarizer("delim")(messages)
    assert "Notes on the focus:" in summary
    assert "importer.py:40: DELIM = ','" in summary


def test_an_extractive_summary_of_a_huge_history_stays_under_two_thousand_characters():
    messages: list[dict[str, Any]] = [user("goal: " + "g" * 5000)]
    for n in range(200):
        messages += [user(f"request {n} " + "r" * 900)]
        messages += tool_step(f"t{n}", "read_file", {"path": f"dir/file_{n}.py"}, "z" * 20_000)
        messages += [assistant(f"answer {n} " + "a" * 900)]
    summary = build_extractive_summarizer("file_3")(messages)
    assert len(summary) <= 2_000
    assert summary.startswith("Focus requested: file_3\nFirst user request: goal: ggg")
    assert "Last outcome: answer 199" in summary


# --- model summarizer ---------------------------------------------------------------------


class ScriptedProvider:
    """Records requests; answers with `answer`, or raises `error`, after `delay` seconds.
    `replies` (content blocks, stop reason), if given, answer the first requests instead."""

    name = "scripted"
    model = "scripted-1"
    context_window = 100_000

    def __init__(
        self,
        answer: str = "Goal: semicolons.",
        error: Exception | None = None,
        delay: float = 0.0,
        final: bool = True,
        replies: list[tuple[list[dict[str, Any]], str]] | None = None,
    ) -> None:
        self.answer, self.error, self.delay, self.final = answer, error, delay, final
        self.replies = list(replies or [])
        self.requests: list[ModelRequest] = []
        self.released = threading.Event()  # set it to end a delay early

    def stream(self, request: ModelRequest):
        self.requests.append(request)
        if self.delay:
            self.released.wait(self.delay)
        if self.error is not None:
            raise self.error
        if self.replies:
            blocks, stop_reason = self.replies.pop(0)
            yield ModelResponse({"role": "assistant", "content": blocks}, stop_reason, Usage(10, 5))
            return
        yield TextDelta(self.answer)
        if self.final:
            message = {"role": "assistant", "content": [{"type": "text", "text": self.answer}]}
            yield ModelResponse(message, "end_turn", Usage(10, 5))

    def build_summarizer(self, focus=None):
        raise AssertionError("not used by these tests")


def sent_text(provider: ScriptedProvider) -> str:
    (request,) = provider.requests
    (message,) = request.messages
    return message["content"]


def test_the_model_summary_is_the_final_answer_text_stripped():
    provider = ScriptedProvider(answer="  Goal: semicolons.\n")
    assert build_model_summarizer(provider)(session_part_one()) == "Goal: semicolons."


def test_the_request_is_the_summary_prompt_with_the_focus_and_no_tools_or_durable_state():
    provider = ScriptedProvider()
    build_model_summarizer(provider, focus="the failing test")(session_part_one())
    (request,) = provider.requests
    assert request.system.startswith(load_prompt("summary"))
    assert "Focus requested by the user for this summary: the failing test" in request.system
    assert request.tools == () and request.durable_context == ""
    assert [m["role"] for m in request.messages] == ["user"]


def test_without_a_focus_the_system_prompt_is_the_shipped_prompt():
    provider = ScriptedProvider()
    build_model_summarizer(provider)(session_part_one())
    assert provider.requests[0].system == load_prompt("summary")


def test_the_transcript_shows_text_tool_calls_and_results():
    provider = ScriptedProvider()
    build_model_summarizer(provider)(session_part_one())
    text = sent_text(provider)
    assert "User: Please make the CSV importer accept semicolons" in text
    assert 'Assistant called bash({"command": "pytest -q"})' in text
    assert "Result of bash: Exit code: 1\n1 failed" in text


def test_the_previous_summary_is_sent_and_what_it_covers_is_not_sent_again():
    provider = ScriptedProvider(answer="Goal: semicolon support (summary one).")
    summarize = build_model_summarizer(provider)
    first = summarize(session_part_one())
    summarize([summary_message(first), *session_part_two()])
    second = provider.requests[1].messages[0]["content"]
    assert "Previous summary" in second and "Goal: semicolon support (summary one)." in second
    assert "Transcript since the previous summary:\nUser: also update the docs" in second
    assert "CSV importer" not in second and "pytest -q" not in second
    assert SUMMARY_HEADER not in second


def test_huge_tool_results_reach_the_summarizer_only_as_a_bounded_head():
    """Forty 2 MB results in a 20,000-character input: each keeps a shorter head rather
    than any of them being left out (their records hold them whole)."""
    messages = [user("analyse the logs")]
    for n in range(40):
        messages += tool_step(f"t{n}", "read_file", {"path": f"log{n}.txt"}, "L" * 2_000_000)
    messages.append(assistant("Latest: the logs show a timeout."))
    provider = ScriptedProvider()
    build_model_summarizer(provider, max_input_chars=20_000)(messages)
    text = sent_text(provider)
    assert len(text) <= 20_000
    assert "more characters not shown" in text
    assert text.startswith("Transcript:\nUser: analyse the logs")
    assert text.endswith("Assistant: Latest: the logs show a timeout.")
    assert all(f"log{n}.txt" in text for n in range(40))
    assert "left out" not in text


def findings_session(steps: int) -> list[dict[str, Any]]:
    """`steps` file reads, each followed by the assistant's finding on it; every message
    carries its transcript pointer, as the session's view does."""
    messages = [user("find the bug in every file")]
    for n in range(steps):
        read = tool_step(f"t{n}", "read_file", {"path": f"f{n}.py"}, "x = 1\n" * 400)
        finding = assistant(f"FINDING-{n}: the bug in f{n}.py is on line {n + 7}. " + "ok " * 300)
        messages += [*read, finding]
    return [{**m, SOURCE_KEY: f"transcript:s1:{i + 1}"} for i, m in enumerate(messages)]


def test_the_assistants_findings_reach_the_summary_whole_within_the_models_window():
    """The default input bound is a quarter of the window (100,000 tokens here): sixty
    turns of findings, over 60,000 characters even with no result shown, all go to the
    summarizer, where the old 48,000-character bound kept the oldest 30% and the newest
    and dropped the middle."""
    messages = findings_session(60)
    provider = ScriptedProvider()
    summary = build_model_summarizer(provider)(messages)
    text = sent_text(provider)
    assert all(f"FINDING-{n}:" in text for n in range(60))
    assert "left out" not in text and "left out" not in summary


def test_a_long_answer_keeps_its_end_where_its_conclusion_is():
    answer = "Looking at the parser. " + "step " * 5_000 + "CONCLUSION: the lexer drops tabs."
    provider = ScriptedProvider()
    build_model_summarizer(provider, max_input_chars=6_000)(
        [user("why do tabs vanish?"), assistant(answer), user("ok")]
    )
    text = sent_text(provider)
    assert "Looking at the parser." in text and "CONCLUSION: the lexer drops tabs." in text
    assert "characters left out" in text


def test_what_the_bounded_input_leaves_out_is_named_by_pointer_in_the_summary():
    """Even at the least detail the transcript is over the bound: the middle is left out,
    the input says so, and the summary ends with a note naming those messages' range, so
    `recall` reaches the findings in them; the next summary carries the note on."""
    messages = findings_session(300)
    provider = ScriptedProvider()
    summary = build_model_summarizer(provider, max_input_chars=20_000)(messages)
    text = sent_text(provider)
    assert len(text) <= 20_000 and "FINDING-0:" in text and "FINDING-299:" in text
    missing = [n for n in range(300) if f"FINDING-{n}:" not in text]
    marker = re.search(r"\[\.\.\. \d+ transcript entries left out[^\]]*\]", text)
    assert missing and marker
    first, last = re.findall(r"transcript:s1:(\d+)", marker.group(0))
    finding_records = [3 + 3 * n + 1 for n in missing]  # call, result, finding per step
    assert int(first) <= min(finding_records) and max(finding_records) <= int(last)
    assert summary.startswith("Goal: semicolons.")
    (note,) = [line for line in summary.splitlines() if line.startswith(LEFT_OUT_HEAD)]
    assert f"from transcript:s1:{first} to transcript:s1:{last}" in note
    later = [summary_message(summary), user("and now?"), assistant("Still on it.")]
    again = ScriptedProvider(answer=f"Goal: bugs.\n{note}")  # a model that copied it
    merged = build_model_summarizer(again)(later)
    assert merged.splitlines().count(note) == 1 and merged.startswith("Goal: bugs.")
    third = build_model_summarizer(ScriptedProvider(answer="Goal: bugs, briefly."))(later)
    assert note in third.splitlines()  # dropped by the model, carried all the same


def test_a_provider_that_hangs_times_out_on_a_daemon_thread():
    provider = ScriptedProvider(delay=5.0)
    with pytest.raises(SummarizerFailed) as failure:
        build_model_summarizer(provider, timeout_seconds=0.2)(session_part_one())
    assert failure.value.reason == "timeout"
    workers = [t for t in threading.enumerate() if t.name == "summarizer-request" and t.is_alive()]
    assert workers and all(t.daemon for t in workers)
    # The abandoned worker must not outlive the test: let the hung provider return.
    provider.released.set()
    for worker in workers:
        worker.join(timeout=30)
    assert not any(worker.is_alive() for worker in workers)


def test_a_provider_error_becomes_summarizer_failed():
    cause = ProviderRequestFailed("overloaded", status=529, attempts=3)
    with pytest.raises(SummarizerFailed) as failure:
        build_model_summarizer(ScriptedProvider(error=cause))(session_part_one())
    assert failure.value.reason == "provider_error"
    assert failure.value.__cause__ is cause


def test_a_stream_that_ends_without_a_response_fails():
    with pytest.raises(SummarizerFailed) as failure:
        build_model_summarizer(ScriptedProvider(final=False))(session_part_one())
    assert failure.value.reason == "no_response"


@pytest.mark.parametrize("answer", ["", "  \n ", "OK.", "Done!", "...", "- - -", "好的。"])
def test_an_answer_without_substance_is_a_failed_summary(answer):
    with pytest.raises(SummarizerFailed) as failure:
        build_model_summarizer(ScriptedProvider(answer=answer))(session_part_one())
    assert failure.value.reason == "no_text"


def test_a_short_summary_in_chinese_is_a_summary():
    answer = "目标：让导入器接受分号分隔的文件。"
    assert build_model_summarizer(ScriptedProvider(answer=answer))(session_part_one()) == answer


def test_the_summarizers_take_no_durable_state():
    parameters = set(inspect.signature(build_model_summarizer).parameters)
    assert parameters == {"provider", "focus", "timeout_seconds", "max_input_chars", "max_tokens"}
    summarize = build_model_summarizer(ScriptedProvider())
    assert list(inspect.signature(summarize).parameters) == ["messages"]
    assert list(inspect.signature(build_extractive_summarizer()).parameters) == ["messages"]


# --- prompts ------------------------------------------------------------------------------


def test_the_shipped_prompts_load_by_name_with_or_without_the_suffix():
    assert load_prompt("summary") == load_prompt("summary.md")
    assert "Goal" in load_prompt("summary") and "In progress" in load_prompt("summary")
    assert "read_file" in load_prompt("system")


@pytest.mark.parametrize("name", ["nonexistent", "../errors", "Summary", ""])
def test_an_unknown_or_unsafe_prompt_name_raises_prompt_not_found(name):
    with pytest.raises(PromptNotFound):
        load_prompt(name)


# --- reusing the cached prefix ---------------------------------------------------------------

SCHEMA = {"name": "read_file", "description": "Read.", "input_schema": {"type": "object"}}


def long_view(messages: int, chars: int = 2_000) -> list[dict[str, Any]]:
    view = []
    for number in range(messages):
        speaker = user if number % 2 == 0 else assistant
        view.append(speaker(f"message {number}: " + "lorem ipsum " * (chars // 12)))
    return view


def offered(view, cached: int) -> CachedPrefix:
    return CachedPrefix("You are agent-cli.", (SCHEMA,), tuple(view), cached)


def test_the_reused_prefix_keeps_the_project_instructions_block_the_session_sent():
    provider = ScriptedProvider()
    summarize = build_model_summarizer(provider)
    view = long_view(31)
    rules = "Project rules: tabs, not spaces."
    summarize.use_cached_prefix(
        CachedPrefix("You are agent-cli.", (SCHEMA,), tuple(view), 30, rules)
    )
    summarize(view[:-2])
    (request,) = provider.requests
    sent = ModelRequest("You are agent-cli.", "", tuple(view), (SCHEMA,), 1_000, rules)
    assert request.messages[:-1] == tuple(view)  # the reuse, not the bounded rendering
    reused_system = build_wire_request(request, "m")["system"]
    assert reused_system == build_wire_request(sent, "m")["system"]  # same cached prefix


def test_the_reuse_is_weighed_at_the_models_own_cache_prices():
    view = long_view(31)
    bounded = build_summary_request(view[:-2], "Summarize.")
    prefix = offered(view, cached=30)

    def chosen(cache_read: float) -> ModelRequest:
        prices = ModelPrices(input=1.0, output=5.0, cache_write=1.25, cache_read=cache_read)
        return choose_summary_request(bounded, prefix, view[:-2], 1_000_000, prices)

    assert chosen(0.0) is not bounded  # free reads: reusing the cache is cheaper
    assert chosen(1.0) is bounded  # reads as dear as input: the shorter rendering wins


def test_a_large_cached_view_is_summarized_by_reusing_it_with_the_instructions_last():
    provider = ScriptedProvider()
    summarize = build_model_summarizer(provider, focus="the parser")
    view = long_view(31)
    summarize.use_cached_prefix(offered(view, cached=30))
    assert summarize(view[:-2]) == "Goal: semicolons."
    (request,) = provider.requests
    assert (request.system, request.tools) == ("You are agent-cli.", (SCHEMA,))
    assert request.messages[:-1] == tuple(view) and request.durable_context == ""
    last = request.messages[-1]
    assert last["role"] == "user" and last["content"].startswith(INSTRUCTIONS_HEADER)
    assert "except its last 2 messages" in last["content"]
    assert "Focus requested by the user for this summary: the parser" in last["content"]
    assert load_prompt("summary") in last["content"]


def test_the_bounded_request_is_sent_where_little_of_the_view_is_cached():
    provider = ScriptedProvider()
    summarize = build_model_summarizer(provider)
    view = long_view(31)
    summarize.use_cached_prefix(offered(view, cached=1))  # most of it would be written anew
    summarize(view[:-2])
    (request,) = provider.requests
    assert request.tools == () and len(request.messages) == 1


def test_the_bounded_request_is_sent_where_the_reused_view_would_not_fit_the_window():
    provider = ScriptedProvider()
    provider.context_window = 10_000
    summarize = build_model_summarizer(provider)
    view = long_view(31)
    summarize.use_cached_prefix(offered(view, cached=30))
    summarize(view[:-2])
    assert provider.requests[0].tools == ()


def test_the_bounded_request_is_sent_where_the_reused_view_would_pass_the_hard_limit():
    """A summary request is a request: the reuse sends the whole view and the instructions,
    which may pass the session's hard limit where the view alone did not (eighteenth
    outside attack: summary requests billed 3,201 under `--hard-limit 3000`)."""
    view = long_view(31)
    bounded = build_summary_request(view[:-2], "Summarize.")

    def chosen(hard_limit: int | None) -> ModelRequest:
        prefix = CachedPrefix("You are agent-cli.", (SCHEMA,), tuple(view), 30, "", hard_limit)
        return choose_summary_request(bounded, prefix, view[:-2], 1_000_000)

    whole = sum(len(str(message["content"])) for message in view) // 4
    assert chosen(None) is not bounded and chosen(whole * 2) is not bounded
    assert chosen(whole) is bounded  # the view and the instructions pass it: not reused


def test_images_in_the_reused_view_are_weighed_as_billed_not_by_their_characters():
    """A 1500x1500 image is billed 1,600 tokens whatever the length of its data; a view
    holding two was reused at 10,218 tokens under `--hard-limit 8000` (eighteenth
    outside attack), its images weighed by their 135 characters."""
    source = {"type": "base64", "media_type": "image/png", "data": _png(1500, 1500)}
    image = {"type": "image", "source": source}
    view = long_view(31)
    view[20] = user([{"type": "text", "text": "two screenshots"}, image, image])
    bounded = build_summary_request(view[:-2], "Summarize.")
    whole = sum(len(str(message["content"])) for message in view) // 4

    def chosen(hard_limit: int) -> ModelRequest:
        prefix = CachedPrefix("You are agent-cli.", (SCHEMA,), tuple(view), 30, "", hard_limit)
        return choose_summary_request(bounded, prefix, view[:-2], 1_000_000)

    assert chosen(whole + 4_000) is not bounded  # its two images, 3,200, fit beside it
    assert chosen(whole + 2_500) is bounded  # by characters alone it would have fit


def test_the_reused_prefix_is_read_and_only_the_instructions_are_sent_plain():
    """Priced by the tests' prompt-cache model: the session's last request wrote the view;
    the summary request reusing it reads all of it and writes nothing (its instructions
    are a one-off, after the breakpoint), where before they were written at 1.25x."""
    view = long_view(31)
    cache = PromptCacheModel(clock=lambda: 0.0)
    cache.usage(
        build_wire_request(ModelRequest("You are agent-cli.", "", tuple(view), (SCHEMA,)), "m")
    )
    reusing = build_reusing_request(offered(view, cached=31), 2, "Summarize.", 1_000)
    usage = cache.usage(build_wire_request(reusing, "m"))
    assert usage["cache_creation_input_tokens"] == 0
    assert usage["cache_read_input_tokens"] > 10 * usage["input_tokens"] > 0


def test_the_bounded_request_writes_nothing_to_the_cache():
    """A bounded summary request is never sent again: it carries no breakpoint, so all of
    it is plain input (1x), none of it a cache write (1.25x)."""
    bounded = build_summary_request(long_view(31)[:-2], "Summarize.")
    wire = build_wire_request(bounded, "m")
    assert "cache_control" not in json.dumps(wire)
    usage = PromptCacheModel(clock=lambda: 0.0).usage(wire)
    assert usage["cache_creation_input_tokens"] == usage["cache_read_input_tokens"] == 0
    assert usage["input_tokens"] > 1_000


def test_the_reuse_names_the_messages_l4_keeps_when_the_view_holds_a_digest():
    """The digest is in the cached prefix but never among the messages L4 summarizes: the
    count of messages left out is taken without it."""
    digest = {"role": "user", "content": "[digest]", "_digest": {"format": 1}}
    view = [long_view(1)[0], digest, *long_view(30)[1:]]
    old = [view[0], *view[2:-4]]
    assert count_recent(offered(view, cached=len(view)), old) == 4
    request = choose_summary_request(
        build_summary_request(old, "Summarize."), offered(view, cached=len(view)), old, 10**6
    )
    assert "except its last 4 messages" in request.messages[-1]["content"]


def test_the_bounded_request_is_sent_when_a_layer_changed_the_messages_to_summarize():
    """L1 or L2 ran before L4 in the same run: the prefix no longer starts with what L4
    summarizes, so "all but the last N" would name the wrong messages."""
    view = long_view(31)
    changed = [*view[:5], user("a result cut by L1"), *view[6:-2]]
    bounded = build_summary_request(changed, "Summarize.")
    assert count_recent(offered(view, cached=31), changed) is None
    assert choose_summary_request(bounded, offered(view, cached=31), changed, 10**6) is bounded


def test_large_project_instructions_are_weighed_as_cached_not_sent_again():
    """Everything cached: reading a 40,000-character AGENTS.md at 0.1x is no reason to send
    the bounded rendering instead."""
    view = long_view(31, chars=300)
    prefix = CachedPrefix("You are agent-cli.", (SCHEMA,), tuple(view), 31, "rules " * 6_700)
    bounded = build_summary_request(view[:-2], "Summarize.")
    assert choose_summary_request(bounded, prefix, view[:-2], 10**6) is not bounded


# --- replies that are not a summary ----------------------------------------------------------

SUMMARY_TEXT = "Goal: semicolon support; importer.py needs a delimiter option."


def text_block(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def read_call(tool_id: str = "toolu_1") -> dict[str, Any]:
    return {"type": "tool_use", "id": tool_id, "name": "read_file", "input": {"path": "a.py"}}


NOT_SUMMARIES = {
    "a sentence and a tool call": ([text_block("Using read_file."), read_call()], "tool_use"),
    "a long text and a tool call": ([text_block(SUMMARY_TEXT), read_call()], "tool_use"),
    "a tool call that claims end_turn": ([text_block(SUMMARY_TEXT), read_call()], "end_turn"),
    "a tool call alone": ([read_call()], "tool_use"),
    "a summary cut at max_tokens": ([text_block(SUMMARY_TEXT)], "max_tokens"),
    "a paused answer": ([text_block(SUMMARY_TEXT)], "pause_turn"),
    "a refusal": ([text_block(SUMMARY_TEXT)], "refusal"),
    "no content": ([], "end_turn"),
    "a few words": ([text_block("Sure, OK.")], "end_turn"),
}
REASONS = {
    "a sentence and a tool call": "called_tool",
    "a long text and a tool call": "called_tool",
    "a tool call that claims end_turn": "called_tool",
    "a tool call alone": "called_tool",
    "a summary cut at max_tokens": "stopped_early",
    "a paused answer": "stopped_early",
    "a refusal": "stopped_early",
    "no content": "no_text",
    "a few words": "no_text",
}


def reusing_summarizer(provider: ScriptedProvider):
    summarize = build_model_summarizer(provider)
    view = long_view(31)
    summarize.use_cached_prefix(offered(view, cached=30))
    return summarize, view[:-2]


@pytest.mark.parametrize("name", NOT_SUMMARIES)
def test_a_reply_to_the_reusing_request_that_is_no_summary_falls_back_to_the_bounded_one(name):
    good = ([text_block(f"  {SUMMARY_TEXT}\n")], "end_turn")
    provider = ScriptedProvider(replies=[NOT_SUMMARIES[name], good])
    summarize, old = reusing_summarizer(provider)
    assert summarize(old) == SUMMARY_TEXT
    reusing, bounded = provider.requests
    assert reusing.tools == (SCHEMA,)  # the reuse keeps the cached tools ...
    assert bounded.tools == () and len(bounded.messages) == 1  # ... the fallback has none
    assert len(summarize.reported_usage) == 2  # both were paid for


@pytest.mark.parametrize("name", NOT_SUMMARIES)
def test_when_the_fallback_is_no_summary_either_the_summary_fails(name):
    provider = ScriptedProvider(replies=[NOT_SUMMARIES[name], NOT_SUMMARIES[name]])
    summarize, old = reusing_summarizer(provider)
    with pytest.raises(SummarizerFailed) as failure:
        summarize(old)
    assert failure.value.reason == REASONS[name]
    assert len(provider.requests) == 2


@pytest.mark.parametrize("name", NOT_SUMMARIES)
def test_a_bounded_request_answered_by_no_summary_fails_without_asking_again(name):
    provider = ScriptedProvider(replies=[NOT_SUMMARIES[name]])
    with pytest.raises(SummarizerFailed) as failure:
        build_model_summarizer(provider)(session_part_one())
    assert failure.value.reason == REASONS[name]
    assert len(provider.requests) == 1


def test_a_reusing_request_that_errs_or_hangs_is_not_sent_again_as_the_bounded_one():
    cause = ProviderRequestFailed("overloaded", status=529, attempts=3)
    provider = ScriptedProvider(error=cause)
    summarize, old = reusing_summarizer(provider)
    with pytest.raises(SummarizerFailed) as failure:
        summarize(old)
    assert failure.value.reason == "provider_error" and len(provider.requests) == 1


@pytest.mark.parametrize(
    ("seconds", "cached"),
    [(0, True), (269, True), (271, False), (300, False), (3_600, False), (-5, False)],
)
def test_a_prefix_counts_as_cached_only_well_within_the_five_minute_lifetime(seconds, cached):
    assert is_still_cached(timedelta(seconds=seconds)) is cached
