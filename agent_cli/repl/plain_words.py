"""Reason codes in plain words, for the lines a person reads.

Contract: `explain_resolution(status, reason)` says what a pointer's status means and
what to do, without the code (codes stay in `--json` output, the transcript and the
logs); `explain_pending_reason(reason, item_id)` does the same for a refused change to a
pending item. Unknown codes get a general sentence for their status, never the code.
"""

from __future__ import annotations

from agent_cli.repl.safe_text import clip_line

POINTER_FORMS = (
    "transcript:<session>:<sequence> or artifact:<session>:<file>:<sha256 prefix> "
    "(tool panels, /facts and /sources show them)"
)
# Reasons the pointer parser gives: the text is not a pointer at all.
_SYNTAX_REASONS = frozenset(
    {
        "backslash",
        "bad_character",
        "bad_first_character",
        "component_too_long",
        "control_character",
        "digest_length",
        "digest_not_hex",
        "dot_component",
        "empty",
        "empty_part",
        "missing_scheme",
        "non_ascii",
        "not_text",
        "sequence_not_digits",
        "slash",
        "too_long",
        "whitespace",
        "wrong_part_count",
    }
)
_MISSING = {
    "sequence_not_found": "that session has no record with that number",
    "not_found": "nothing is stored there: no such session or file",
    "root_not_found": "the folder that would hold it does not exist",
    "vanished": "it was deleted while being read",
}
_STATUS_WORDS = {
    "missing": "what it points at is gone or was never saved",
    "denied": "it leads to something agent-cli will not read (a link or a special file)",
    "corrupt": "what is stored there no longer matches the pointer (changed or damaged)",
    "unsupported": "agent-cli cannot expand this kind of pointer; use a transcript: or "
    "artifact: pointer",
}
_PENDING = {
    "unknown_item": "there is no pending item {item}; /facts lists them (T1, T2, ...)",
    "illegal_transition": "{item} cannot change that way from where it stands (a done "
    "item stays done); /facts shows each item's status",
    "required_when_blocked": "blocking {item} needs a reason: /block {item} <reason>",
    "not_later": "{item} was changed a moment ago; try again",
}


def explain_resolution(status: str, reason: str) -> str:
    """What a pointer's status means, for a person (see the module contract)."""
    if status == "available":
        return "found and verified"
    if status == "corrupt" and reason in _SYNTAX_REASONS:
        return f"that is not a pointer: a pointer looks like {POINTER_FORMS}"
    if status == "missing" and reason in _MISSING:
        return _MISSING[reason]
    return _STATUS_WORDS.get(status, "it cannot be shown")


def explain_pending_reason(reason: str, item_id: str | None) -> str:
    """Why a change to a pending item was refused, naming the item when known."""
    item = clip_line(item_id, 40) if item_id else "that item"
    template = _PENDING.get(reason, "that change to {item} is not possible; /facts shows it")
    return template.format(item=item)


def normalize_item_id(raw: str) -> str:
    """`3` means `T3`: the number alone is what people type after seeing "T3"; `t3`
    means `T3` and `f2` means `F2` (ids are upper case)."""
    if raw.isdigit():
        return f"T{raw}"
    if len(raw) > 1 and raw[0] in "tf" and raw[1:].isdigit():
        return raw.upper()
    return raw
