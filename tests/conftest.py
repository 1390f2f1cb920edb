"""Shared test set-up: every test gets its own AGENT_CLI_HOME, never the user's.

Also the fixtures several modules share (a module may define its own of the same name,
which then wins): for end-to-end tests `terminals` (a tmux pool), `home` (a state folder
path, not created) and `workspace` (the demo workspace); for prompt tests `pipe_reader`
(a `PromptReader` on a pipe, with a dummy output); for tests of the real SDK `server`
(the fake Messages API, accepting the key the test module names as `API_KEY`).
"""

from __future__ import annotations

import os
from pathlib import Path

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


@pytest.fixture(scope="session", autouse=True)
def no_tmux_socket_left_behind():
    """Once every test has run, no tmux socket a test terminal made is left in the
    user's tmux folder (they piled up by the hundred before issue 23)."""
    yield
    from e2e_support import sockets_left_behind

    left = sockets_left_behind()
    assert not left, f"tmux sockets left behind: {[str(path) for path in left]}"


@pytest.fixture()
def terminals(tmp_path: Path):
    from e2e_support import TerminalPool, require_tmux

    pool = TerminalPool(require_tmux(), tmp_path)
    try:
        yield pool
    finally:
        pool.kill_all()  # also after a failed test: the servers and their sockets go


@pytest.fixture()
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A state folder path (not created) whose length does not grow with the test's name
    or the run's folder: the goodbye's `transcript: <path>` stays one line at 120 columns
    under pytest-xdist (whose workers add `popen-gwN/`) and past pytest-999."""
    return tmp_path_factory.mktemp("e2e") / "home"


@pytest.fixture()
def workspace(tmp_path: Path) -> Path:
    from e2e_support import write_demo_workspace

    return write_demo_workspace(tmp_path / "ws")


@pytest.fixture()
def server(request: pytest.FixtureRequest):
    from fake_anthropic import start_fake_server

    with start_fake_server(api_key=request.module.API_KEY) as fake:
        yield fake


@pytest.fixture()
def pipe_reader(tmp_path: Path):
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput

    from agent_cli.repl.commands import command_summaries
    from agent_cli.repl.prompt import PromptReader

    with create_pipe_input() as pipe:
        reader = PromptReader(
            tmp_path / "history",
            command_summaries,
            terminal_input=pipe,
            terminal_output=DummyOutput(),
        )
        yield pipe, reader


# The global per-test timeout (pyproject, 120 s) guards against hangs. A property test
# runs many examples, and those that build secret patterns (the percent, encoded-stream and
# prefixed multi-line families) take 8-17 s alone but passed 120 s on a loaded 2-core host,
# where hypothesis reported the timeout as a flaky failure. Such tests get a hang guard of
# their own; an explicit `timeout` mark still wins.
PROPERTY_TEST_TIMEOUT_SECONDS = 600


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        function = getattr(item, "function", None)
        is_property = getattr(function, "is_hypothesis_test", False)
        if is_property and item.get_closest_marker("timeout") is None:
            item.add_marker(pytest.mark.timeout(PROPERTY_TEST_TIMEOUT_SECONDS))
