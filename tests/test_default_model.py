"""The default model is one the installed SDK lists and has not deprecated.

This test reads the SDK's own model list (`anthropic.types.ModelParam`) and deprecation
table (`anthropic._data.DEPRECATED_MODELS`). It fails when an SDK update retires the
default, which is the moment to pick a new one in `agent_cli/models.py`.
"""

from __future__ import annotations

import typing

from agent_cli.models import DEFAULT_MODEL, lookup_model
from agent_cli.provider.anthropic_settings import load_provider_settings


def _sdk_model_ids() -> set[str]:
    from anthropic.types import ModelParam

    literal = next(arg for arg in typing.get_args(ModelParam) if typing.get_args(arg))
    return set(typing.get_args(literal))


def test_the_default_model_is_listed_by_the_installed_sdk():
    assert DEFAULT_MODEL in _sdk_model_ids()


def test_the_default_model_is_not_on_the_sdks_deprecated_list():
    from anthropic._data import DEPRECATED_MODELS

    assert DEFAULT_MODEL not in DEPRECATED_MODELS


def test_the_default_model_is_a_sonnet_the_table_can_price():
    info = lookup_model(DEFAULT_MODEL)
    assert info.known and info.family == "sonnet" and info.prices is not None


def test_no_api_model_setting_means_the_default_model():
    assert load_provider_settings({"ANTHROPIC_API_KEY": "sk-test"})[2] == DEFAULT_MODEL
