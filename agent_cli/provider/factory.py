"""Choose and build the provider the user asked for.

Contract: `create_provider(name, model, env)` returns a `Provider`. With no name, the
Anthropic provider is chosen when `ANTHROPIC_API_KEY` is set and the offline model
otherwise (the REPL announces which). Asking for "anthropic" without a key raises
`MissingApiKey` before any request; an unknown name raises `ConfigError`. Nothing here
imports the SDK: the Anthropic provider does that lazily on its first request.
"""

from __future__ import annotations

from collections.abc import Mapping

from agent_cli.errors import ConfigError
from agent_cli.provider.anthropic_provider import AnthropicProvider
from agent_cli.provider.anthropic_settings import load_provider_settings
from agent_cli.provider.base import Provider

PROVIDER_NAMES = ("anthropic", "offline")


def resolve_provider_name(name: str | None, env: Mapping[str, str]) -> str:
    """The provider to use: the one named, else anthropic if a key is set, else offline."""
    if name:
        return name.strip().lower()
    return "anthropic" if (env.get("ANTHROPIC_API_KEY") or "").strip() else "offline"


def create_provider(name: str | None, model: str | None, env: Mapping[str, str]) -> Provider:
    """Build the named provider; `model` overrides ANTHROPIC_MODEL for the Anthropic one."""
    chosen = resolve_provider_name(name, env)
    if chosen == "offline":
        from agent_cli.provider.offline import OfflineProvider

        return OfflineProvider()
    if chosen == "anthropic":
        api_key, base_url, env_model = load_provider_settings(env)
        return AnthropicProvider(api_key, model or env_model, base_url=base_url)
    raise ConfigError(
        "provider", f"unknown provider {chosen!r}; choose one of {', '.join(PROVIDER_NAMES)}"
    )
