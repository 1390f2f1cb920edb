"""Replaying a transcript gives back the last main request's calibration sample."""

from __future__ import annotations

from typing import Any

from agent_cli.session.log import USAGE, rebuild_from_records


def usage(sequence: int, input_tokens: int, estimated: Any) -> dict[str, Any]:
    payload = {"input_tokens": input_tokens, "output_tokens": 5}
    payload["estimated_prompt_tokens"] = estimated
    return {"session_id": "s", "sequence": sequence, "kind": USAGE, "payload": payload}


def test_the_last_main_request_gives_the_sample_and_summaries_do_not_replace_it() -> None:
    records = [usage(1, 900, 1000), usage(2, 1800, 1500), usage(3, 400, 0)]  # 3: a summary
    assert rebuild_from_records(records).calibration_sample == (1800, 1500)


def test_records_without_a_usable_estimate_give_no_sample() -> None:
    records = [usage(1, 900, "many"), usage(2, 900, -4), usage(3, 0, 1000), usage(4, 9, True)]
    assert rebuild_from_records(records).calibration_sample is None
    assert rebuild_from_records([]).calibration_sample is None
