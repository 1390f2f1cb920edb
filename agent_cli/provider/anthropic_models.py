"""The Models API through the SDK, read as raw bytes with a bound in size and in time.

Contract: `fetch_models_page(client, timeout_seconds)` asks for the first page (GET
/v1/models, `limit=100`) and returns its body and whether it arrived whole: it stops
reading at `MAX_PAGE_BYTES` (the body is then cut there and `complete` is False) and
raises `StreamFault("timeout")` once `timeout_seconds` have passed in all, so a server
that trickles a huge page cannot hold `/model` up. An error status raises the SDK's own
error, for the provider to classify. The body is read by `models_page`, not by the SDK.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from agent_cli.provider.models_page import MAX_LISTED_MODELS
from agent_cli.provider.stream_assembly import StreamFault

# 100 entries of the real API are about 20 KB; 1 MiB leaves room for any compatible
# endpoint's longer entries, and parsing it takes milliseconds.
MAX_PAGE_BYTES = 1 << 20
CHUNK_BYTES = 64 * 1024


def fetch_models_page(
    client: Any, timeout_seconds: float, clock: Callable[[], float] = time.monotonic
) -> tuple[bytes, bool]:
    """(body, complete) of the first page of the Models API; see the module contract."""
    deadline = clock() + timeout_seconds
    chunks: list[bytes] = []
    size = 0
    with client.models.with_streaming_response.list(
        limit=MAX_LISTED_MODELS, timeout=timeout_seconds
    ) as response:
        for chunk in response.iter_bytes(CHUNK_BYTES):
            chunks.append(chunk)
            size += len(chunk)
            if size >= MAX_PAGE_BYTES:
                return b"".join(chunks)[:MAX_PAGE_BYTES], False
            if clock() > deadline:
                raise StreamFault("timeout")
    return b"".join(chunks), True
