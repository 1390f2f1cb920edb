"""The REPL's port: the real session and the REPL tests' fake both offer all of it.

mypy checks the real `Session` against `SessionPort` where `wiring.build_backend` returns
one; these tests hold the fake (which mypy does not see) to the same port, name by name
and parameter by parameter, and check that the REPL no longer probes a session.
"""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import pytest
from repl_fakes import FakeSession
from session_support import ScriptedProvider, make_session

from agent_cli.repl.port import SessionPort
from agent_cli.session import Session

REPL_DIR = Path(__file__).resolve().parents[1] / "agent_cli" / "repl"


def port_members() -> dict[str, object]:
    return {
        name: value
        for name, value in vars(SessionPort).items()
        if not name.startswith("_") and (callable(value) or isinstance(value, property))
    }


def parameters(function: object) -> list[tuple[str, object]]:
    signature = inspect.signature(function)  # type: ignore[arg-type]
    return [(p.name, p.default) for p in signature.parameters.values() if p.name != "self"]


def test_the_port_names_what_the_repl_uses_of_a_session():
    names = set(port_members())
    assert {"run_turn", "compact_now", "stats", "gauge", "context_preview", "close"} <= names
    assert {"session_id", "transcript_path", "provider", "startup_notices"} <= names


@pytest.mark.parametrize("implementation", [Session, FakeSession], ids=lambda c: c.__name__)
def test_every_method_of_the_port_is_there_with_the_same_parameters(implementation):
    for name, member in port_members().items():
        if isinstance(member, property):
            continue
        found = getattr(implementation, name, None)
        assert callable(found), f"{implementation.__name__} lacks {name}"
        assert parameters(found) == parameters(member), name


def test_a_real_session_and_the_fake_both_answer_every_property_of_the_port(tmp_path):
    real = make_session(tmp_path, ScriptedProvider())
    try:
        for session in (real, FakeSession()):
            for name, member in port_members().items():
                if isinstance(member, property):
                    assert getattr(session, name) is not None, (type(session).__name__, name)
            assert session.provider.name and session.provider.model
            session.provider.prepare()
    finally:
        real.close()


def test_no_module_of_the_repl_probes_a_session_with_getattr():
    probes = []
    for path in sorted(REPL_DIR.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in ("getattr", "hasattr")
                and "session" in ast.unparse(node.args[0])
            ):
                probes.append(f"{path.name}:{node.lineno}")
    assert probes == []


def test_the_fake_keeps_what_its_turns_asked_and_got_for_the_resume_view():
    session = FakeSession()
    list(session.run_turn("first"))
    list(session.run_turn("second"))
    assert [(e.request, e.answer) for e in session.recent_exchanges(1)] == [
        ("second", "echo: second")
    ]
