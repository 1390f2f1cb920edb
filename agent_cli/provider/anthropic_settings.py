"""Provider settings from the environment: the API key, base URL and model.

Contract: `load_provider_settings(env)` reads ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL and
ANTHROPIC_MODEL from the mapping it is given (it never reads `os.environ` itself). It
raises `MissingApiKey` when no key is set, before any request is attempted, and
`ConfigError` naming ANTHROPIC_BASE_URL when that is set but is not a usable URL, or
ANTHROPIC_MODEL when that is not a model id.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NoReturn
from urllib.parse import urlsplit

from agent_cli.errors import ConfigError, MissingApiKey
from agent_cli.models import DEFAULT_MODEL, MODEL_ID_WORDS, is_model_id

MISSING_KEY_HINT = "set ANTHROPIC_API_KEY or use --provider offline"


def load_provider_settings(env: Mapping[str, str]) -> tuple[str, str | None, str]:
    """(api_key, base_url, model) from ANTHROPIC_API_KEY, _BASE_URL and _MODEL.

    Raises `MissingApiKey` when no key is set, before any request is attempted, and
    `ConfigError` naming ANTHROPIC_BASE_URL when it is set but is not a usable URL (the
    HTTP client would otherwise fail on the first request with a traceback).
    """
    api_key = (env.get("ANTHROPIC_API_KEY") or "").strip()
    if not api_key:
        raise MissingApiKey(MISSING_KEY_HINT)
    base_url = check_base_url((env.get("ANTHROPIC_BASE_URL") or "").strip() or None)
    model = (env.get("ANTHROPIC_MODEL") or "").strip() or DEFAULT_MODEL
    if not is_model_id(model):  # a line feed or an escape would draw on the banner
        raise ConfigError(
            "ANTHROPIC_MODEL",
            f"it is not a model id ({MODEL_ID_WORDS}); set it to one, or unset it",
            source="environment",
        )
    return api_key, base_url, model


def check_base_url(url: str | None) -> str | None:
    """`url` unchanged when it is an http(s) URL with a host and a numeric port (if any);
    otherwise `ConfigError("ANTHROPIC_BASE_URL", ...)` saying what is wrong."""
    if url is None:
        return None
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 -- reading it validates it (ValueError when not a number)
    except ValueError as error:
        return _bad_base_url(f"it is not a valid URL ({error})")
    if parts.scheme not in ("http", "https"):
        return _bad_base_url("it must start with http:// or https://")
    if not parts.hostname or any(ch.isspace() or ord(ch) < 32 for ch in url):
        return _bad_base_url("it has no host name, or holds spaces or control characters")
    return url


def _bad_base_url(reason: str) -> NoReturn:
    raise ConfigError(
        "ANTHROPIC_BASE_URL",
        f"{reason}; set it to a URL such as https://api.anthropic.com, or unset it",
        source="environment",
    )
