"""docs/architecture.md's "One turn, followed" stays true: a newcomer follows one turn in
at most eight files (issue 22), every function the table names is defined in its row's
files, every detail it points to exists, and a real turn runs through each function it
names: the REPL's loop and renderer, a real `Session` on the real SDK against the fake
Messages API on loopback, a tool call in the middle."""

from __future__ import annotations

import ast
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Any

import pytest
from fake_anthropic import Reply, text_block, tool_use_block
from repl_fakes import make_console
from session_support import make_session, workspace_with

from agent_cli.provider.anthropic_provider import AnthropicProvider
from agent_cli.repl.loop import Repl
from agent_cli.repl.wiring import SessionBackend

API_KEY = "sk-ant-test-FAKEKEY-0123456789"
ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "agent_cli"
ARCHITECTURE = ROOT / "docs" / "architecture.md"
MAX_FILES = 8
TICKED = re.compile(r"`([^`]+)`")
DETAIL = re.compile(r"`([\w.]+)` \(`([\w/]+\.py)`\)")


@dataclass(frozen=True)
class Row:
    functions: tuple[str, ...]
    files: tuple[str, ...]
    details: str


def read_turn_table(text: str) -> list[Row]:
    """The rows of the first table under '## One turn, followed'."""
    section = text.split("## One turn, followed", 1)[1]
    rows = []
    for line in section.splitlines():
        if rows and not line.startswith("|"):
            break
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) != 5 or not cells[0].isdigit():
            continue
        rows.append(Row(tuple(TICKED.findall(cells[2])), tuple(TICKED.findall(cells[3])), cells[4]))
    return rows


def defines(path: Path, name: str) -> bool:
    """Whether `path` defines `name` at its top level, or `Class.method`."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    owner, _, member = name.rpartition(".")
    for node in tree.body:
        if not owner and isinstance(node, ast.FunctionDef | ast.ClassDef) and node.name == name:
            return True
        if owner and isinstance(node, ast.ClassDef) and node.name == owner:
            return any(
                isinstance(item, ast.FunctionDef) and item.name == member for item in node.body
            )
    return False


ROWS = read_turn_table(ARCHITECTURE.read_text(encoding="utf-8"))


def test_the_table_is_read_whole():
    assert len(ROWS) >= 8
    assert all(row.functions and row.files for row in ROWS)


def test_one_turn_is_followed_in_at_most_eight_files_that_exist():
    files = {name for row in ROWS for name in row.files}
    assert 1 < len(files) <= MAX_FILES, sorted(files)
    assert all((PACKAGE / name).is_file() for name in files), sorted(files)


@pytest.mark.parametrize("row", ROWS, ids=lambda row: row.functions[0])
def test_each_function_is_defined_in_its_rows_files(row):
    for name in row.functions:
        assert any(defines(PACKAGE / path, name) for path in row.files), (name, row.files)


@pytest.mark.parametrize("row", ROWS, ids=lambda row: row.functions[0])
def test_each_detail_names_a_function_its_file_defines(row):
    pairs = DETAIL.findall(row.details)
    assert pairs, row.details
    for name, path in pairs:
        assert defines(PACKAGE / path, name), (name, path)


@contextmanager
def calls_into_agent_cli() -> Iterator[set[tuple[str, str]]]:
    """(file under agent_cli/, qualified name) of every Python function called meanwhile
    on this thread."""
    seen: set[tuple[str, str]] = set()
    prefix = str(PACKAGE) + "/"

    def profile(frame: FrameType, event: str, _: Any) -> None:
        if event == "call" and frame.f_code.co_filename.startswith(prefix):
            code = frame.f_code
            seen.add((code.co_filename.removeprefix(prefix), code.co_qualname))

    previous = sys.getprofile()
    sys.setprofile(profile)
    try:
        yield seen
    finally:
        sys.setprofile(previous)


class OneLine:
    shows_gauge = False

    def read_line(self, gauge_source=None) -> str:
        raise EOFError

    def refresh(self) -> None:
        pass


def test_a_real_turn_runs_through_every_function_the_table_names(server, tmp_path):
    server.enqueue(
        Reply([tool_use_block("toolu_1", "read_file", {"path": "README.md"})], "tool_use"),
        Reply([text_block("The title is Hello.")]),
    )
    workspace = workspace_with(tmp_path, {"README.md": "# Hello\n"})
    provider = AnthropicProvider(API_KEY, "claude-test", base_url=server.base_url)
    session = make_session(workspace, provider)
    backend = SessionBackend(
        open_session=lambda resume: session,
        list_sessions=lambda this_workspace_only: [],
        latest_session_id=lambda: None,
    )
    console = make_console()
    repl = Repl(
        session=session,
        backend=backend,
        reader=OneLine(),
        console=console,
        live=False,
        offline_fallback=False,
    )
    try:
        with calls_into_agent_cli() as seen:
            repl.handle_line("what is the title of README.md?")
    finally:
        session.close()
    assert "The title is Hello." in console.export_text()
    assert len(server.accepted) == 2
    missing = {
        name
        for row in ROWS
        for name in row.functions
        if not any((path, name) in seen for path in row.files)
    }
    assert not missing, sorted(missing)
