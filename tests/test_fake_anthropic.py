"""The fake Messages API is strict: raw requests the real API rejects get a 400 here too."""

from __future__ import annotations

import copy
import json
import threading
import time
import urllib.error
import urllib.request

import pytest
from fake_anthropic import Reply, start_fake_server, text_block, tool_use_block

API_KEY = "sk-ant-fake-test"
GOOD_HEADERS = {
    "x-api-key": API_KEY,
    "anthropic-version": "2026-10-21",
    "content-type": "application/json",
}
TOOL = {
    "name": "read_file",
    "description": "Read a file.",
    "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}},
}
VALID = {
    "model": "claude-test",
    "max_tokens": 100,
    "system": [{"type": "text", "text": "Be terse."}],
    "tools": [TOOL],
    "messages": [
        {"role": "user", "content": [{"type": "text", "text": "read a"}]},
        {
            "role": "assistant",
            "content": [
                {"type": "tool_use", "id": "toolu_1", "name": "read_file", "input": {"path": "a"}}
            ],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "toolu_1", "content": "body of a"},
                {"type": "text", "text": "and now?"},
            ],
        },
    ],
}


@pytest.fixture(scope="module")
def server():
    fake = start_fake_server(api_key=API_KEY)
    yield fake
    fake.stop()


def post(server, body, headers=GOOD_HEADERS, raw: bytes | None = None) -> tuple[int, dict | str]:
    data = raw if raw is not None else json.dumps(body).encode()
    request = urllib.request.Request(
        server.base_url + "/v1/messages", data=data, headers=headers, method="POST"
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            text = response.read().decode()
            is_json = response.headers.get("content-type") == "application/json"
            return response.status, json.loads(text) if is_json else text
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def rejected(server, body, **options) -> str:
    status, answer = post(server, body, **options)
    assert status == 400, answer
    assert answer["type"] == "error" and answer["error"]["type"] == "invalid_request_error"
    assert server.requests[-1].rejection == answer["error"]["message"]
    return answer["error"]["message"]


def variant(change) -> dict:
    body = copy.deepcopy(VALID)
    change(body)
    return body


def test_a_valid_request_gets_a_message_and_is_recorded(server):
    status, answer = post(server, VALID)
    assert status == 200
    assert answer["role"] == "assistant" and answer["stop_reason"] == "end_turn"
    assert answer["content"] == [{"type": "text", "text": "echo: and now?"}]
    assert server.requests[-1].body == VALID and server.requests[-1].rejection is None


def test_a_streamed_reply_carries_event_lines_as_well_as_data_lines(server):
    server.enqueue(
        Reply(
            [text_block("hi"), tool_use_block("toolu_9", "read_file", {"p": 1})],
            stop_reason="tool_use",
        )
    )
    status, text = post(server, {**VALID, "stream": True})
    assert status == 200
    names = [line[len("event: ") :] for line in text.splitlines() if line.startswith("event: ")]
    datas = [
        json.loads(line[len("data: ") :]) for line in text.splitlines() if line.startswith("data: ")
    ]
    assert names[:2] == ["message_start", "ping"] and names[-2:] == [
        "message_delta",
        "message_stop",
    ]
    assert [data["type"] for data in datas] == names
    deltas = [data["delta"] for data in datas if data["type"] == "content_block_delta"]
    assert {delta["type"] for delta in deltas} == {"text_delta", "input_json_delta"}
    assert datas[-2]["delta"]["stop_reason"] == "tool_use"


def test_a_held_reply_sends_its_content_only_once_the_test_sets_the_event(server):
    held = threading.Event()
    server.enqueue(Reply([text_block("after the hold")], held_until=held))
    before = len(server.requests)
    answers: list[tuple[int, dict | str]] = []
    poster = threading.Thread(
        target=lambda: answers.append(post(server, {**VALID, "stream": True}))
    )
    poster.start()
    deadline = time.monotonic() + 10
    while len(server.requests) == before:  # the request has arrived and is being answered
        assert time.monotonic() < deadline
        time.sleep(0.01)
    poster.join(0.5)  # a pause that proves nothing came: the reply is still held
    assert poster.is_alive() and not answers
    held.set()
    poster.join(10)
    [(status, text)] = answers
    datas = [json.loads(line[6:]) for line in str(text).splitlines() if line.startswith("data: ")]
    deltas = [data["delta"] for data in datas if data["type"] == "content_block_delta"]
    assert status == 200 and "".join(delta["text"] for delta in deltas) == "after the hold"


def test_a_repeated_prefix_is_reported_as_a_cache_read():
    long_rules = "Answer in one short paragraph. " * 200  # over the 1,024-token minimum
    body = variant(
        lambda b: b["system"][0].update(text=long_rules, cache_control={"type": "ephemeral"})
    )
    with start_fake_server(api_key=API_KEY) as fresh:
        first = post(fresh, body)[1]["usage"]
        second = post(fresh, body)[1]["usage"]
    assert first["cache_creation_input_tokens"] > 1_024 and first["cache_read_input_tokens"] == 0
    assert second["cache_read_input_tokens"] == first["cache_creation_input_tokens"]
    assert second["cache_creation_input_tokens"] == 0
    assert first["input_tokens"] == second["input_tokens"] > 0  # the messages after it


def test_a_short_prefix_is_not_cached_as_the_api_does_not_cache_it(server):
    body = variant(lambda b: b["system"][0].update(cache_control={"type": "ephemeral"}))
    for _ in range(2):
        usage = post(server, body)[1]["usage"]
        assert usage["cache_creation_input_tokens"] == usage["cache_read_input_tokens"] == 0
        assert usage["input_tokens"] > 0


def test_a_custom_responder_answers_when_the_queue_is_empty():
    with start_fake_server(responder=lambda body: Reply([text_block(body["model"])])) as fresh:
        status, answer = post(fresh, VALID)
    assert (status, answer["content"][0]["text"]) == (200, "claude-test")


def test_a_body_that_is_not_json_is_rejected(server):
    assert "not valid JSON" in rejected(server, None, raw=b"{'model': nope")


@pytest.mark.parametrize(
    "headers, status",
    [
        ({"anthropic-version": "2023-06-01"}, 401),
        ({"x-api-key": "sk-other", "anthropic-version": "2023-06-01"}, 401),
        ({"x-api-key": API_KEY}, 400),
    ],
)
def test_requests_without_the_right_headers_are_refused(server, headers, status):
    assert post(server, VALID, headers=headers)[0] == status


def test_a_bearer_token_is_accepted_as_the_key(server):
    headers = {"authorization": f"Bearer {API_KEY}", "anthropic-version": "2023-06-01"}
    assert post(server, VALID, headers=headers)[0] == 200


def _set(path, value):
    def change(body):
        target = body
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value

    return change


def _delete(key):
    return lambda body: body.pop(key)


@pytest.mark.parametrize(
    "change, expected",
    [
        (_set(["temperature_boost"], 1), "temperature_boost: Extra inputs are not permitted"),
        (_delete("max_tokens"), "max_tokens"),
        (_delete("model"), "model"),
        (_set(["messages"], []), "messages"),
        (_set(["messages", 0, "content", 0, "_id"], "u1"), "_id: Extra inputs are not permitted"),
        (_set(["messages", 0, "seq"], 1), "seq: Extra inputs are not permitted"),
        (_set(["messages", 1, "content", 0, "cache_hint"], 1), "Extra inputs are not permitted"),
        (_set(["messages", 0, "role"], "system"), "role"),
        (_set(["messages", 0, "content"], []), "non-empty content"),
        (_set(["messages", 0, "content"], ""), "non-empty content"),
        (_set(["messages", 0, "content", 0, "text"], ""), "must be non-empty"),
        (_set(["messages", 0, "content", 0, "text"], " \n"), "non-whitespace"),
        (_set(["messages", 0, "content", 0, "type"], "thinking_note"), "not allowed"),
        (_set(["system", 0, "text"], ""), "must be non-empty"),
        (_set(["tools", 0, "name"], "read file!"), "name"),
        (_set(["tools"], [{"name": "x", "description": "d"}]), "input_schema"),
        (_set(["tools"], [TOOL, TOOL]), "unique"),
        (
            _set(["tools", 0, "input_schema", "anyOf"], [{"required": ["path"]}]),
            "tools.0.custom.input_schema: input_schema does not support oneOf, allOf, or anyOf",
        ),
        (_set(["tools", 0, "input_schema", "oneOf"], [{"required": ["path"]}]), "at the top level"),
        (
            _set(["tools", 0, "input_schema", "properties", "path", "type"], "notatype"),
            "tools.0.custom.input_schema: JSON schema is invalid. It must match JSON Schema draft",
        ),
        (_set(["system", 0, "cache_control"], {"type": "persistent"}), "cache_control"),
        (_set(["system", 0, "cache_control"], {"type": "ephemeral", "ttl": "1d"}), "cache_control"),
    ],
)
def test_malformed_fields_are_rejected(server, change, expected):
    assert expected in rejected(server, variant(change))


PROPERTY_KEYS_REFUSED = (
    "tools.1.custom.input_schema.properties: Property keys should match pattern "
    "'^[a-zA-Z0-9_.-]{1,64}$'"
)


@pytest.mark.parametrize(
    "key", ["filter[id]", "$top", "Account Number", "", "k" * 65, "naïve", "a\n"]
)
def test_a_top_level_property_name_outside_the_apis_grammar_refuses_the_request(server, key):
    """As the real API: the whole request, naming the tool's place (here the second)."""
    odd = {**TOOL, "name": "odd", "input_schema": {"type": "object", "properties": {key: {}}}}
    assert rejected(server, variant(lambda b: b["tools"].append(odd))) == PROPERTY_KEYS_REFUSED


def test_property_names_nested_deeper_and_64_safe_characters_pass(server):
    nested = {"type": "object", "properties": {"$inner": {"type": "string"}}}
    schema = {"type": "object", "properties": {"q": nested, "a.B-c_9" + "k" * 57: {}}}
    odd = {**TOOL, "name": "odd", "input_schema": schema}
    assert post(server, variant(lambda b: b["tools"].append(odd)))[0] == 200


def test_more_than_four_cache_breakpoints_are_rejected(server):
    mark = {"type": "ephemeral"}

    def change(body):
        body["system"] = [
            {"type": "text", "text": f"part {i}", "cache_control": mark} for i in range(4)
        ]
        body["tools"][0]["cache_control"] = mark

    assert "A maximum of 4 blocks with cache_control" in rejected(server, variant(change))


def test_the_conversation_must_start_with_the_user(server):
    body = variant(lambda b: b["messages"].insert(0, {"role": "assistant", "content": "hi"}))
    assert "first message" in rejected(server, body)


def test_consecutive_messages_of_one_role_are_rejected(server):
    body = variant(lambda b: b["messages"].append({"role": "user", "content": "more"}))
    assert "alternate" in rejected(server, body)


def test_an_unanswered_tool_use_is_rejected(server):
    body = variant(lambda b: b["messages"][2].update(content=[{"type": "text", "text": "hm"}]))
    assert "without `tool_result` blocks" in rejected(server, body)


def test_a_final_assistant_tool_use_is_rejected_as_unanswered(server):
    body = variant(lambda b: b["messages"].pop())
    assert "without `tool_result` blocks" in rejected(server, body)


def test_a_tool_result_after_text_is_rejected(server):
    body = variant(lambda b: b["messages"][2]["content"].reverse())
    assert "must come before any other content" in rejected(server, body)


def test_an_orphan_tool_result_is_rejected(server):
    body = variant(lambda b: b["messages"][2]["content"][0].update(tool_use_id="toolu_zz"))
    assert "unexpected `tool_use_id`" in rejected(server, body)


def test_a_tool_result_in_the_first_message_is_rejected(server):
    body = variant(
        lambda b: b.update(
            messages=[
                {
                    "role": "user",
                    "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "x"}],
                }
            ]
        )
    )
    assert "unexpected `tool_use_id`" in rejected(server, body)


def test_a_duplicate_tool_use_id_is_rejected(server):
    def change(body):
        body["messages"] += [
            {"role": "assistant", "content": [dict(body["messages"][1]["content"][0])]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1"}]},
        ]

    assert "unique" in rejected(server, variant(change))


def test_a_tool_use_in_a_user_message_is_rejected(server):
    body = variant(
        lambda b: b["messages"][0]["content"].append(
            {"type": "tool_use", "id": "toolu_u", "name": "x", "input": {}}
        )
    )
    assert "not allowed" in rejected(server, body)


@pytest.mark.parametrize("content", ["", [], None])
def test_an_error_result_without_content_is_rejected(server, content):
    def change(body):
        result = body["messages"][2]["content"][0]
        result["is_error"] = True
        if content is None:
            del result["content"]
        else:
            result["content"] = content

    assert "content cannot be empty if `is_error` is true" in rejected(server, variant(change))


def test_an_error_result_with_content_and_a_plain_result_without_are_accepted(server):
    with_text = variant(lambda b: b["messages"][2]["content"][0].update(is_error=True))
    assert post(server, with_text)[0] == 200
    assert post(server, variant(lambda b: b["messages"][2]["content"][0].pop("content")))[0] == 200


def test_a_final_assistant_prefill_may_not_end_in_whitespace(server):
    body = variant(lambda b: b["messages"].append({"role": "assistant", "content": "Sure "}))
    assert "trailing whitespace" in rejected(server, body)
