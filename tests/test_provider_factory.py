"""Choosing the provider and reading its settings from the environment."""

from __future__ import annotations

import pytest

from agent_cli.errors import ConfigError, MissingApiKey
from agent_cli.models import DEFAULT_MODEL
from agent_cli.provider.anthropic_provider import AnthropicProvider
from agent_cli.provider.anthropic_settings import load_provider_settings
from agent_cli.provider.factory import create_provider, resolve_provider_name

KEY_ENV = {"ANTHROPIC_API_KEY": "sk-ant-test"}


def test_settings_default_the_model_and_leave_the_base_url_unset():
    assert load_provider_settings(KEY_ENV) == ("sk-ant-test", None, DEFAULT_MODEL)


def test_settings_read_base_url_and_model_from_the_environment():
    env = {**KEY_ENV, "ANTHROPIC_BASE_URL": "http://127.0.0.1:9/", "ANTHROPIC_MODEL": "claude-test"}
    assert load_provider_settings(env) == ("sk-ant-test", "http://127.0.0.1:9/", "claude-test")


@pytest.mark.parametrize("env", [{}, {"ANTHROPIC_API_KEY": ""}, {"ANTHROPIC_API_KEY": "  "}])
def test_a_missing_key_says_how_to_fix_it(env):
    with pytest.raises(MissingApiKey) as caught:
        load_provider_settings(env)
    assert "set ANTHROPIC_API_KEY or use --provider offline" in str(caught.value)


def test_with_no_name_a_key_chooses_anthropic_and_no_key_chooses_offline():
    assert resolve_provider_name(None, KEY_ENV) == "anthropic"
    assert resolve_provider_name(None, {}) == "offline"
    assert resolve_provider_name("Offline", KEY_ENV) == "offline"


def test_the_anthropic_provider_takes_the_model_argument_over_the_environment():
    env = {**KEY_ENV, "ANTHROPIC_MODEL": "from-env", "ANTHROPIC_BASE_URL": "http://127.0.0.1:9"}
    provider = create_provider(None, "from-flag", env)
    assert isinstance(provider, AnthropicProvider)
    assert (provider.name, provider.model, provider.base_url) == (
        "anthropic",
        "from-flag",
        "http://127.0.0.1:9",
    )
    assert create_provider("anthropic", None, env).model == "from-env"


def test_without_a_key_the_default_is_the_offline_model():
    assert create_provider(None, None, {}).name == "offline"


def test_asking_for_anthropic_without_a_key_fails_before_any_request():
    with pytest.raises(MissingApiKey):
        create_provider("anthropic", None, {})


def test_an_unknown_provider_name_is_a_config_error():
    with pytest.raises(ConfigError) as caught:
        create_provider("openai", None, KEY_ENV)
    assert caught.value.key == "provider"
