"""The shape the Messages API demands of a conversation, checked on the merged turns
`wire.build_wire_request` builds (its module doc has the whole contract).

Contract: `merge_turns` joins consecutive same-role turns so roles alternate;
`check_conversation_shape` wants a first user turn; `trim_final_assistant_text`
right-trims a paused answer sent back; `check_tool_pairing` wants each turn's
tool_results to answer exactly the previous turn's tool_uses, first. Every refusal is a
`WireFormatError` naming the index of the offending message in the request.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from agent_cli.errors import WireFormatError


@dataclass
class WireTurn:
    """One merged message under construction; `origins` maps each block to its source index."""

    role: str
    blocks: list[dict[str, Any]] = field(default_factory=list)
    origins: list[int] = field(default_factory=list)


def merge_turns(turns: list[WireTurn]) -> list[WireTurn]:
    """Merge consecutive same-role turns, keeping block order, so roles alternate."""
    merged: list[WireTurn] = []
    for turn in turns:
        if merged and merged[-1].role == turn.role:
            merged[-1].blocks.extend(turn.blocks)
            merged[-1].origins.extend(turn.origins)
        else:
            merged.append(turn)
    return merged


def check_conversation_shape(turns: list[WireTurn]) -> None:
    if not turns:
        raise WireFormatError("no_messages")
    if turns[0].role != "user":
        raise WireFormatError("starts_with_assistant", message_index=turns[0].origins[0])


def trim_final_assistant_text(turns: list[WireTurn]) -> None:
    """Right-trim the text that ends a trailing assistant turn (a paused answer sent back).

    Empty text blocks are already gone, so the trimmed text is never empty; a trailing
    `tool_use` is left for the pairing check, which refuses it as unanswered.
    """
    last = turns[-1]
    if last.role == "assistant" and last.blocks[-1]["type"] == "text":
        last.blocks[-1]["text"] = last.blocks[-1]["text"].rstrip()


def check_tool_pairing(turns: list[WireTurn]) -> None:
    """Each turn's tool_results must answer exactly the previous turn's tool_uses, first;
    a call in a trailing assistant turn has no answer at all."""
    seen_ids: set[str] = set()
    asked: dict[str, int] = {}
    for turn in turns:
        if turn.role == "assistant":
            asked = _collect_tool_use_ids(turn, seen_ids)
        else:
            _check_results_answer(turn, asked)
            asked = {}
    for origin in asked.values():
        raise WireFormatError("missing_tool_result", message_index=origin)


def _collect_tool_use_ids(turn: WireTurn, seen_ids: set[str]) -> dict[str, int]:
    """The turn's tool_use ids, each with the index of the message it came from."""
    asked: dict[str, int] = {}
    for block, origin in zip(turn.blocks, turn.origins, strict=True):
        if block["type"] != "tool_use":
            continue
        if block["id"] in seen_ids:
            raise WireFormatError("duplicate_tool_use_id", message_index=origin)
        seen_ids.add(block["id"])
        asked[block["id"]] = origin
    return asked


def _check_results_answer(turn: WireTurn, asked: dict[str, int]) -> None:
    answered: set[str] = set()
    in_leading_results = True
    for block, origin in zip(turn.blocks, turn.origins, strict=True):
        if block["type"] != "tool_result":
            in_leading_results = False
            continue
        tool_use_id = block["tool_use_id"]
        if tool_use_id not in asked:
            raise WireFormatError("orphan_tool_result", message_index=origin)
        if tool_use_id in answered:
            raise WireFormatError("duplicate_tool_result", message_index=origin)
        if not in_leading_results:
            raise WireFormatError("tool_result_not_first", message_index=origin)
        answered.add(tool_use_id)
    for tool_use_id, origin in asked.items():
        if tool_use_id not in answered:
            raise WireFormatError("missing_tool_result", message_index=origin)
