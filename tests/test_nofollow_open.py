"""One no-follow walker (`agent_cli.nofollow_open`) serves the file tools and the sources.

The hostile suites (tests/test_*hostile*) hold both callers to their refusals; these
tests pin that there is only one walk, and that the source resolver now gets the
walker's care too (plain names only), which its own copy lacked.
"""

from __future__ import annotations

import ast
import os
from pathlib import Path

import pytest

from agent_cli.errors import PathStepRefused, SourceUnavailable, WorkspaceEscape
from agent_cli.nofollow_open import open_directory_beneath, open_file_beneath
from agent_cli.sources.files import open_beneath
from agent_cli.tools import safe_open

PACKAGE = Path(__file__).resolve().parent.parent / "agent_cli"


def _builds_directory_walk_flags(path: Path) -> bool:
    """Whether the module combines O_DIRECTORY and O_NOFOLLOW in one expression: the
    mark of a component-by-component directory walk."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.BinOp):
            names = {leaf.attr for leaf in ast.walk(node) if isinstance(leaf, ast.Attribute)}
            if {"O_DIRECTORY", "O_NOFOLLOW"} <= names:
                return True
    return False


def test_only_one_module_walks_directories_without_following_links():
    walkers = sorted(
        str(path.relative_to(PACKAGE))
        for path in PACKAGE.rglob("*.py")
        if _builds_directory_walk_flags(path)
    )
    assert walkers == ["nofollow_open.py"]


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    (tmp_path / "secret.txt").write_text("outside\n")
    (tmp_path / "root" / "sub").mkdir(parents=True)
    (tmp_path / "root" / "sub" / "a.txt").write_text("inside\n")
    return tmp_path


def test_the_source_opener_refuses_a_dot_dot_instead_of_climbing_out(tree: Path):
    with pytest.raises(SourceUnavailable) as caught:
        open_beneath(str(tree / "root"), ["..", "secret.txt"])
    assert (caught.value.status, caught.value.reason) == ("denied", "not_a_plain_name")


def test_the_source_opener_and_the_tools_refuse_the_same_link(tree: Path):
    os.symlink(tree / "root" / "sub", tree / "root" / "link")
    with pytest.raises(SourceUnavailable) as caught:
        open_beneath(str(tree / "root"), ["link", "a.txt"])
    assert (caught.value.status, caught.value.reason) == ("denied", "symlink")
    root_fd = os.open(tree / "root", os.O_RDONLY | os.O_DIRECTORY)
    try:
        with pytest.raises(WorkspaceEscape, match="'link' on the way is a symbolic link"):
            safe_open.open_file_beneath(root_fd, ["link", "a.txt"], "link/a.txt", os.O_RDONLY)
        with pytest.raises(PathStepRefused) as refused:
            open_file_beneath(root_fd, ["link", "a.txt"], os.O_RDONLY)
        assert (refused.value.reason, refused.value.component) == ("symlink", "link")
    finally:
        os.close(root_fd)


def test_the_walker_reads_a_file_and_names_what_it_refused(tree: Path):
    root_fd = os.open(tree / "root", os.O_RDONLY | os.O_DIRECTORY)
    try:
        fd, info = open_file_beneath(root_fd, ["sub", "a.txt"], os.O_RDONLY)
        with os.fdopen(fd, "rb") as handle:
            assert handle.read() == b"inside\n" and info.st_size == 7
        with pytest.raises(PathStepRefused) as refused:
            open_file_beneath(root_fd, ["sub"], os.O_RDONLY)
        assert (refused.value.reason, refused.value.last) == ("is_a_directory", True)
        with pytest.raises(PathStepRefused) as refused:
            open_directory_beneath(root_fd, ["nope", "deeper"])
        assert (refused.value.reason, refused.value.component) == ("not_found", "nope")
        made = open_directory_beneath(root_fd, ["new", "deeper"], create_missing=True)
        os.close(made)
        assert (tree / "root" / "new" / "deeper").is_dir()
    finally:
        os.close(root_fd)
