"""`agent_cli.sources` re-exports lazily: the pure half loads without the file-reading half.

Each check runs in a fresh interpreter, since this test process has long since imported
the resolver through other tests.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

IO_HALF = [
    "agent_cli.sources.resolver",
    "agent_cli.sources.files",
    "agent_cli.sources.index",
    "agent_cli.sources.transcript_check",
    "agent_cli.sources.artifact_check",
]
# the names the package re-exported eagerly, by the resolver's __all__, before it was lazy
PUBLIC_NAMES_BEFORE_THE_LAZY_FACE = [
    "ARTIFACT_SCHEME",
    "MAX_RECORD_BYTES",
    "TRANSCRIPT_SCHEME",
    "ParsedSourcePointer",
    "SourcePointerError",
    "SourcePointerResolver",
    "SourceResolution",
    "SourceResolutionStatus",
    "UnknownSourceSchemeError",
    "format_artifact_pointer",
    "format_transcript_pointer",
    "parse_source_pointer",
    "resolve_durable_sources",
]


def _run_python(program: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", program], capture_output=True, text=True)


def _loaded_io_modules_after(statements: str) -> list[str]:
    program = (
        f"import json, sys\n{statements}\n"
        f"print(json.dumps([name for name in {IO_HALF!r} if name in sys.modules]))"
    )
    done = _run_python(program)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.parametrize(
    "statements",
    [
        "import agent_cli.sources",
        "from agent_cli.sources import parse_source_pointer, format_transcript_pointer",
        "from agent_cli.sources import SourceResolution, SourceResolutionStatus",
        "from agent_cli.sources.pointers import parse_source_pointer",
        "import agent_cli.sources.resolution",
        "import agent_cli.durable",
    ],
)
def test_the_pure_half_imports_without_loading_the_file_reading_modules(statements):
    assert _loaded_io_modules_after(statements) == []


def test_asking_for_the_resolver_loads_it():
    assert "agent_cli.sources.resolver" in _loaded_io_modules_after(
        "from agent_cli.sources import SourcePointerResolver"
    )


def test_every_public_name_still_imports_from_the_package_and_by_star():
    names = ", ".join(PUBLIC_NAMES_BEFORE_THE_LAZY_FACE)
    program = (
        f"from agent_cli.sources import {names}\n"
        "import agent_cli.sources as face\n"
        "namespace = {}\n"
        "exec('from agent_cli.sources import *', namespace)\n"
        "print(sorted(face.__all__)); print(sorted(n for n in namespace if n[0] != '_'))"
    )
    done = _run_python(program)
    assert done.returncode == 0, done.stderr
    all_line, star_line = done.stdout.splitlines()
    assert all_line == repr(sorted(PUBLIC_NAMES_BEFORE_THE_LAZY_FACE))
    assert star_line == all_line


def test_an_unknown_name_is_an_attribute_error():
    import agent_cli.sources

    with pytest.raises(AttributeError, match="no_such_name"):
        _ = agent_cli.sources.no_such_name  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    "first", ["agent_cli.sources.resolution", "agent_cli.durable.text", "agent_cli.sources.files"]
)
def test_any_submodule_can_be_imported_first_without_a_circular_import(first):
    program = (
        f"import {first}\n"
        "from agent_cli.durable import render_durable_context\n"
        "from agent_cli.sources import SourceResolution\n"
        "print(render_durable_context.__module__, SourceResolution.__module__)"
    )
    done = _run_python(program)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["agent_cli.durable.render", "agent_cli.sources.resolution"]
