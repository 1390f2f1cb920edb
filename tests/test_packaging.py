"""Building the package is quiet: no screens of setuptools warnings (issue 12.19).

Builds the wheel the way pip does for `make install` (build isolation, the pinned
setuptools), and reads what it said and the metadata it wrote.
"""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

PROJECT = Path(__file__).resolve().parent.parent


def test_the_wheel_builds_without_warnings_and_declares_its_license(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", str(PROJECT), "--no-deps", "-w", str(tmp_path)],
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
    (wheel,) = tmp_path.glob("agent_cli-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        metadata = next(name for name in archive.namelist() if name.endswith("/METADATA"))
        text = archive.read(metadata).decode("utf-8")
    assert "License-Expression: MIT" in text
