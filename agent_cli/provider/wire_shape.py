"""The shape the Messages API demands of a conversation, checked on the merged turns
`wire.build_wire_request` builds (its module doc has the whole contract).

Contract: `merge_turns` joins consecutive same-role turns so roles alternate;
`check_conversation_shape` wants a first user turn; `trim_final_assistant_text`
right-trims a paused answer sent back; `check_tool_pairing` wants each turn's
tool_results to answer exactly the previous turn's tool_uses, first. Every refusal is a
`WireFormatError` naming the index of the offending message in the request.

A turn carries its messages' tool ids (from `wire_message.WireMessage`, held by a frozen
message), so the pairing of a valid view is checked turn by turn on those ids; only a view
that fails is walked block by block, to name the first offending message.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from agent_cli.errors import WireFormatError
from agent_cli.provider.wire_images import WireImage


@dataclass
class WireTurn:
    """One merged message under construction; `origins` maps each block to its source index.

    `tool_use_ids` and `tool_result_ids` are its blocks' ids in order; `results_lead` is
    true when no tool_result follows a block of another type; `images` its images."""

    role: str
    blocks: list[dict[str, Any]] = field(default_factory=list)
    origins: list[int] = field(default_factory=list)
    tool_use_ids: list[str] = field(default_factory=list)
    tool_result_ids: list[str] = field(default_factory=list)
    results_lead: bool = True
    images: list[WireImage] = field(default_factory=list)

    def absorb(self, later: WireTurn) -> None:
        """Append a later turn of the same role, keeping block order."""
        all_results = len(self.tool_result_ids) == len(self.blocks)
        self.results_lead = self.results_lead and (
            not later.tool_result_ids or (all_results and later.results_lead)
        )
        self.images.extend(image.moved(len(self.blocks)) for image in later.images)
        self.blocks.extend(later.blocks)
        self.origins.extend(later.origins)
        self.tool_use_ids.extend(later.tool_use_ids)
        self.tool_result_ids.extend(later.tool_result_ids)


def merge_turns(turns: list[WireTurn]) -> list[WireTurn]:
    """Merge consecutive same-role turns, keeping block order, so roles alternate."""
    merged: list[WireTurn] = []
    for turn in turns:
        if merged and merged[-1].role == turn.role:
            merged[-1].absorb(turn)
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
        final = last.blocks[-1]  # may be a frozen block shared with its message: replace it
        last.blocks[-1] = {**final, "text": final["text"].rstrip()}


@dataclass(frozen=True)
class PairingState:
    """Where the pairing rule stands after some turns: every call id met so far, and the
    calls of the last turn if it was an assistant turn (still to be answered)."""

    seen_ids: frozenset[str] = frozenset()
    asked: tuple[str, ...] = ()

    def after(self, turns: list[WireTurn]) -> PairingState:
        """The state after `turns`, which follow this state and were found valid."""
        if not turns:
            return self
        new_ids = [tool_id for turn in turns for tool_id in turn.tool_use_ids]
        last = turns[-1]
        asked = tuple(last.tool_use_ids) if last.role == "assistant" else ()
        return PairingState(self.seen_ids.union(new_ids), asked)


NOTHING_PAIRED = PairingState()


def check_tool_pairing(turns: list[WireTurn]) -> None:
    """Each turn's tool_results must answer exactly the previous turn's tool_uses, first;
    a call in a trailing assistant turn has no answer at all."""
    if not is_pairing_valid(turns, NOTHING_PAIRED):
        _refuse_pairing(turns)


def is_pairing_valid(turns: list[WireTurn], before: PairingState) -> bool:
    """The pairing rule on the turns' ids alone, for turns that follow `before`: exactly
    what `_refuse_pairing` enforces on a whole view.

    A user turn must answer the previous turn's calls (each once, all first, and no
    other), no call id may repeat anywhere in the view, and the last turn leaves no call
    unanswered."""
    seen_ids: set[str] = set()
    asked: list[str] | tuple[str, ...] = before.asked
    for turn in turns:
        if turn.role == "assistant":
            asked = turn.tool_use_ids
            if asked:
                count = len(seen_ids)
                seen_ids.update(asked)
                if len(seen_ids) != count + len(asked) or not before.seen_ids.isdisjoint(asked):
                    return False
        elif asked or turn.tool_result_ids:
            results = turn.tool_result_ids
            if not turn.results_lead or len(results) != len(asked):
                return False
            if set(results) != set(asked):
                return False
            asked = []
    return not asked


def _refuse_pairing(turns: list[WireTurn]) -> None:
    """Walk the blocks and raise for the first one that breaks the pairing rule."""
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
