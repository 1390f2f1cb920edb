"""The REPL's prompt fed keys in a test, as the reader feeds typed-ahead keys to it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from prompt_toolkit import PromptSession
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from agent_cli.repl.paste import PastedText
from agent_cli.repl.prompt import build_key_bindings


def prompt_returns(keys: Sequence[Any], then: str = "\r", pastes: PastedText | None = None) -> str:
    """What a prompt with the agent's key bindings (`pastes`: its placeholders, when given)
    returns when `keys` are fed to it first, then `then` is typed."""
    with create_pipe_input() as pipe:
        session: PromptSession[str] = PromptSession(
            input=pipe, output=DummyOutput(), key_bindings=build_key_bindings(pastes)
        )
        processor = session.app.key_processor

        def feed() -> None:
            processor.feed_multiple(list(keys))
            processor.process_keys()

        pipe.send_text(then)
        return session.prompt("› ", pre_run=feed)
