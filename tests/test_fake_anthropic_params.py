"""The fake refuses what the real API refuses in the request's parameters and headers,
and counts every cache breakpoint, wherever it sits, toward the limit of four."""

from __future__ import annotations

import copy

import pytest
from fake_anthropic import start_fake_server
from test_fake_anthropic import API_KEY, GOOD_HEADERS, VALID, post, rejected

EPHEMERAL = {"type": "ephemeral"}
OLD_VERSION = {**GOOD_HEADERS, "anthropic-version": "2023-06-01"}


@pytest.fixture(scope="module")
def server():
    fake = start_fake_server(api_key=API_KEY)
    yield fake
    fake.stop()


def body_with(**fields) -> dict:
    return {**copy.deepcopy(VALID), **fields}


def with_breakpoints(system: int, nested: int, tool: int = 1) -> dict:
    """VALID with `system` marked system blocks, `nested` marked blocks inside the tool
    result and the tool marked `tool` times (0 or 1)."""
    body = copy.deepcopy(VALID)
    body["system"] = [
        {"type": "text", "text": f"part {i}", "cache_control": EPHEMERAL} for i in range(system)
    ] or [{"type": "text", "text": "Be terse."}]
    body["messages"][2]["content"][0]["content"] = [
        {"type": "text", "text": f"line {i}", "cache_control": EPHEMERAL} for i in range(nested)
    ] or "body of a"
    if tool:
        body["tools"][0]["cache_control"] = EPHEMERAL
    return body


def test_breakpoints_inside_a_tool_result_count_toward_the_four(server):
    assert post(server, with_breakpoints(system=2, nested=1))[0] == 200
    message = rejected(server, with_breakpoints(system=2, nested=2))
    assert "A maximum of 4 blocks with cache_control" in message and "Found 5" in message


def test_the_top_level_cache_control_takes_one_of_the_four(server):
    assert post(server, {**with_breakpoints(2, 0), "cache_control": EPHEMERAL})[0] == 200
    message = rejected(server, {**with_breakpoints(3, 0), "cache_control": EPHEMERAL})
    assert "Found 5" in message


def test_a_one_hour_breakpoint_may_not_follow_a_five_minute_one(server):
    body = with_breakpoints(system=1, nested=0)
    body["tools"][0]["cache_control"] = {"type": "ephemeral", "ttl": "1h"}
    assert post(server, body)[0] == 200  # tools come first: 1h, then 5m
    body["tools"][0]["cache_control"] = EPHEMERAL
    body["system"][0]["cache_control"] = {"type": "ephemeral", "ttl": "1h"}
    assert "must come before" in rejected(server, body)


@pytest.mark.parametrize(
    "choice",
    [
        {"type": "auto"},
        {"type": "auto", "disable_parallel_tool_use": True},
        {"type": "any"},
        {"type": "tool", "name": "read_file"},
        {"type": "none"},
    ],
)
def test_every_documented_tool_choice_is_accepted(server, choice):
    assert post(server, body_with(tool_choice=choice))[0] == 200


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({"tool_choice": "auto"}, "tool_choice.type"),
        ({"tool_choice": {"type": "required"}}, "tool_choice.type"),
        ({"tool_choice": {"type": "none", "name": "read_file"}}, "Extra inputs"),
        ({"tool_choice": {"type": "tool", "name": "write_file"}}, "no tool named"),
        ({"tool_choice": {"type": "tool"}}, "no tool named"),
        ({"tool_choice": {"type": "auto", "disable_parallel_tool_use": 1}}, "valid boolean"),
        ({"tool_choice": {"type": "any"}, "tools": []}, "while providing tools"),
        (
            {
                "tool_choice": {"type": "any"},
                "thinking": {"type": "enabled", "budget_tokens": 1024},
                "max_tokens": 2048,
            },
            "forces tool use",
        ),
        ({"stop_sequences": "END"}, "stop_sequences"),
        ({"stop_sequences": [" "]}, "non-whitespace"),
        ({"metadata": {"user": "x"}}, "user_id"),
        ({"metadata": {"user_id": 7}}, "user_id"),
        ({"service_tier": "priority"}, "service_tier"),
        ({"thinking": {"type": "enabled"}}, "thinking"),
        ({"thinking": {"type": "enabled", "budget_tokens": 512}}, "at least 1024"),
        ({"thinking": {"type": "enabled", "budget_tokens": 1024}}, "greater than"),
        ({"max_tokens": 0}, "max_tokens"),
        ({"stream": "yes"}, "stream"),
        ({"cache_control": {"type": "ephemeral", "ttl": "2h"}}, "cache_control"),
        ({"container": "c1"}, "Extra inputs"),
    ],
)
def test_parameters_out_of_their_documented_range_are_rejected(server, fields, expected):
    assert expected in rejected(server, body_with(**fields))


@pytest.mark.parametrize(
    "fields",
    [
        {"stop_sequences": ["END"], "metadata": {"user_id": "u-1"}},
        {"service_tier": "standard_only"},
        {"thinking": {"type": "enabled", "budget_tokens": 1024}, "max_tokens": 2048},
        {"thinking": {"type": "disabled"}},
    ],
)
def test_parameters_within_their_range_are_accepted(server, fields):
    assert post(server, body_with(**fields))[0] == 200


@pytest.mark.parametrize(
    "fields", [{"temperature": 1.0}, {"temperature": 0}, {"top_p": 0.9}, {"top_k": 40}]
)
def test_the_latest_api_version_refuses_sampling_parameters_even_at_their_defaults(server, fields):
    assert "Extra inputs are not permitted" in rejected(server, body_with(**fields))


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({"temperature": 1.5}, "temperature"),
        ({"temperature": -0.1}, "temperature"),
        ({"temperature": "0.5"}, "temperature"),
        ({"temperature": True}, "temperature"),
        ({"temperature": 0.5, "top_p": 0.9}, "cannot both be specified"),
        ({"top_p": 1.01}, "top_p"),
        ({"top_k": -1}, "top_k"),
        ({"top_k": 2.5}, "top_k"),
    ],
)
def test_version_2023_06_01_checks_the_range_of_sampling_parameters(server, fields, expected):
    assert expected in rejected(server, body_with(**fields), headers=OLD_VERSION)


@pytest.mark.parametrize(
    "fields", [{"temperature": 0}, {"temperature": 1}, {"top_p": 0.5, "top_k": 40}]
)
def test_version_2023_06_01_accepts_sampling_parameters_in_range(server, fields):
    assert post(server, body_with(**fields), headers=OLD_VERSION)[0] == 200


def test_the_latest_api_version_refuses_citations_on_user_text(server):
    def cite(body):
        body["messages"][0]["content"][0]["citations"] = [{"type": "char_location"}]
        return body

    assert "citations" in rejected(server, cite(body_with()))
    assert post(server, cite(body_with()), headers=OLD_VERSION)[0] == 200


def test_an_unknown_api_version_is_rejected(server):
    status, answer = post(
        server, VALID, headers={**GOOD_HEADERS, "anthropic-version": "2099-01-01"}
    )
    assert status == 400 and "anthropic-version" in answer["error"]["message"]
    assert post(server, VALID, headers=GOOD_HEADERS)[0] == 200
