"""Durable state: facts, pending items and retrieval evidence that no lossy layer touches.

The whole package is pure (no I/O, no clock; timestamps are passed in):
- `model`: the frozen value types; `text`: the value checks they share;
- `state`: the transitions (add, close, bind), the public face re-exported here;
- `codec`: to and from JSON-safe dicts; `render`: the delimited block sent with a request.
`from agent_cli.durable import ...` is the supported way in.
"""

from __future__ import annotations

from agent_cli.durable.state import (
    ALLOWED_TRANSITIONS,
    BEGIN_MARKER,
    END_MARKER,
    DurableContextState,
    DurableFact,
    PendingItem,
    PendingStatus,
    PendingTransition,
    RetrievalEvidence,
    add_fact,
    add_pending,
    bind_resolutions,
    capture_retrieval_evidence,
    distinct_source_pointers,
    forget_item,
    normalize_text,
    render_durable_context,
    state_from_dict,
    state_to_dict,
    transition_pending,
)

__all__ = [
    "ALLOWED_TRANSITIONS",
    "BEGIN_MARKER",
    "END_MARKER",
    "DurableContextState",
    "DurableFact",
    "PendingItem",
    "PendingStatus",
    "PendingTransition",
    "RetrievalEvidence",
    "add_fact",
    "add_pending",
    "bind_resolutions",
    "capture_retrieval_evidence",
    "distinct_source_pointers",
    "normalize_text",
    "render_durable_context",
    "state_from_dict",
    "state_to_dict",
    "transition_pending",
    "forget_item",
]
