"""Durable state: facts, pending items and retrieval evidence that no lossy layer touches.

The whole package is pure (no I/O, no clock; timestamps are passed in):
- `model`: the frozen value types; `text`: the value checks they share;
- `state`: the transitions (add, close, forget, bind) and the ids new items get;
- `bringing`: one folder's state brought into another's on request, ids kept;
- `codec`: to and from JSON-safe dicts; `render`: the delimited block sent with a request;
- `verification`: whether an item's source still has the digest it had when it was made.
This `__init__` is the package's public face: `from agent_cli.durable import ...` is the
supported way in, and each name below is imported from the module that defines it.
"""

from __future__ import annotations

from agent_cli.durable.bringing import (
    ItemsElsewhere,
    bring_state,
    clashing_ids,
    has_anything,
    items_elsewhere,
)
from agent_cli.durable.codec import state_from_dict, state_to_dict
from agent_cli.durable.model import (
    ALLOWED_TRANSITIONS,
    DurableContextState,
    DurableFact,
    PendingItem,
    PendingStatus,
    PendingTransition,
    RetrievalEvidence,
    cited_pointers,
    distinct_source_pointers,
)
from agent_cli.durable.render import (
    BEGIN_MARKER,
    END_MARKER,
    bind_resolutions,
    render_durable_context,
)
from agent_cli.durable.state import (
    add_fact,
    add_pending,
    capture_retrieval_evidence,
    forget_item,
    issue_id,
    transition_pending,
)
from agent_cli.durable.text import normalize_text

__all__ = [
    "ALLOWED_TRANSITIONS",
    "BEGIN_MARKER",
    "END_MARKER",
    "DurableContextState",
    "DurableFact",
    "ItemsElsewhere",
    "PendingItem",
    "PendingStatus",
    "PendingTransition",
    "RetrievalEvidence",
    "add_fact",
    "add_pending",
    "bind_resolutions",
    "bring_state",
    "capture_retrieval_evidence",
    "cited_pointers",
    "clashing_ids",
    "distinct_source_pointers",
    "forget_item",
    "has_anything",
    "issue_id",
    "items_elsewhere",
    "normalize_text",
    "render_durable_context",
    "state_from_dict",
    "state_to_dict",
    "transition_pending",
]
