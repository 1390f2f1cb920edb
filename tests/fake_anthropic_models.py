"""The fake's Models API (GET /v1/models): one page of model objects, as the real API
lists them (newest first), or a 404 when the test says the endpoint is not offered, or
any raw answer a test scripts (`RawAnswer`: a hostile body, an HTML page, ...)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class RawAnswer:
    """Sent as it is, instead of the listing: status, content type and body bytes."""

    body: bytes
    content_type: str = "application/json"
    status: int = 200


DEFAULT_MODELS = (
    ("claude-opus-5-5", "Claude Opus 5.5", "active"),
    ("claude-sonnet-5-5", "Claude Sonnet 5.5", "active"),
    ("claude-haiku-5-5", "Claude Haiku 5.5", "active"),
    ("claude-opus-4-5", "Claude Opus 4.5", "deprecated"),
)


def build_models_page(models: tuple[tuple[str, str, str], ...]) -> dict[str, Any]:
    """The JSON body of one page listing `models` (id, display name, lifecycle)."""
    data = [
        {
            "type": "model",
            "id": model_id,
            "display_name": name,
            "created_at": "2026-10-07T00:00:00Z",
            "lifecycle": lifecycle,
        }
        for model_id, name, lifecycle in models
    ]
    return {
        "data": data,
        "has_more": False,
        "first_id": data[0]["id"] if data else None,
        "last_id": data[-1]["id"] if data else None,
    }
