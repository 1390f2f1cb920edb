"""Building the package is quiet: no screens of setuptools warnings (issue 12.19).

Builds the wheel the way pip does for `make install` (build isolation, the pinned
setuptools), and reads what it said and the metadata it wrote. It builds a copy of the
project: setuptools writes `build/` and the egg-info into the tree it builds, and the
tests running beside it (pytest-xdist) import from the real one.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

PROJECT = Path(__file__).resolve().parent.parent


# what a fresh clone does not have: made by installs, builds, tests and linters
NOT_IN_A_CLONE = shutil.ignore_patterns(
    ".git", ".venv", "build", "*.egg-info", "__pycache__", ".*_cache", ".hypothesis"
)


def test_the_wheel_builds_without_warnings_and_declares_its_license(tmp_path: Path) -> None:
    project = tmp_path / "project"
    shutil.copytree(PROJECT, project, ignore=NOT_IN_A_CLONE)
    wheels = tmp_path / "wheels"
    done = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", str(project), "--no-deps", "-w", str(wheels)],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    said = done.stdout + done.stderr
    if done.returncode != 0 and "from versions: none" in said:
        pytest.skip("no package index reachable for the isolated build's setuptools")
    assert done.returncode == 0, said
    project_lines = [
        line for line in said.splitlines() if "Warning" in line or "deprecated" in line.lower()
    ]
    assert project_lines == [], said
    (wheel,) = wheels.glob("agent_cli-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        metadata = next(name for name in archive.namelist() if name.endswith("/METADATA"))
        text = archive.read(metadata).decode("utf-8")
    assert "License-Expression: MIT" in text
