"""Shared test set-up: every test gets its own AGENT_CLI_HOME, never the user's."""

from __future__ import annotations

import os

import pytest


@pytest.fixture(autouse=True)
def isolated_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch):
    """Point AGENT_CLI_HOME at a fresh temp folder and drop any real API settings."""
    home = tmp_path_factory.mktemp("agent-cli-home")
    monkeypatch.setenv("AGENT_CLI_HOME", str(home))
    for name in (
        "ANTHROPIC_API_KEY",
        "ANTHROPIC_BASE_URL",
        "ANTHROPIC_MODEL",
        "ANTHROPIC_AUTH_TOKEN",
    ):
        monkeypatch.delenv(name, raising=False)
    assert os.environ["AGENT_CLI_HOME"] == str(home)
    return home
