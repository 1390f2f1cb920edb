"""Durable state: facts, pending items and retrieval evidence that no lossy layer touches.

The whole package is pure (no I/O, no clock; timestamps are passed in):
- `model`: the frozen value types; `text`: the value checks they share;
- `state`: the transitions (add, close, bind), the public face re-exported here;
- `codec`: to and from JSON-safe dicts; `render`: the delimited block sent with a request.
`from agent_cli.durable import ...` is the supported way in.
"""

from __future__ import annotations

from agent_cli.durable.state import *  # noqa: F403 - the public face, named by its __all__
from agent_cli.durable.state import __all__ as _public_names

__all__ = list(_public_names)
