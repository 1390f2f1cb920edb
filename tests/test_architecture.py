"""Dependency rules, checked by parsing every module's imports and calls with ast.

- The core (tokens, frozen values, protocol, compaction, durable state, pointer parsing and resolution
  values) is pure: it imports no SDK, rich or prompt_toolkit, nothing that touches files,
  processes, sockets or the environment, no agent_cli module outside the core (but
  errors and events), and calls no open/print/input or clock.
- Only the Anthropic adapter (agent_cli/provider/anthropic_*.py) imports anthropic.
- Only agent_cli/repl/ imports rich or prompt_toolkit.
The rules apply to whichever of these files exist, so the test grows with the package.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "agent_cli"
CORE_PATTERNS = (
    "tokens.py",
    "token_estimation.py",
    "token_memo.py",
    "image_size.py",
    "image_completeness.py",
    "image_limits.py",
    "image_notes.py",
    "frozen.py",
    "protocol.py",
    "compaction/**/*.py",
    "compaction_layers.py",
    "durable/**/*.py",
    "sources/pointers.py",
    "sources/resolution.py",
    "secret_forms.py",
    "secret_encodings.py",
    "percent_forms.py",
    "character_escapes.py",
    "literal_trie.py",
    "terminal_escapes.py",
    "secret_lines.py",
    "secret_pieces.py",
    "secret_runs.py",
    "key_number_forms.py",
    "public_key_lines.py",
    "private_key_numbers.py",
    "openssh_key_numbers.py",
    "der_reader.py",
    "secret_dumps.py",
    "dump_anchors.py",
    "secret_spacing.py",
    "secret_escapes.py",
    "escaped_text.py",
    "safe_cuts.py",
    "cut_pieces.py",
    "models.py",
    "usage_cost.py",
)
CORE_FILES = sorted({path for pattern in CORE_PATTERNS for path in PACKAGE.glob(pattern)})
ALL_FILES = sorted(PACKAGE.rglob("*.py"))

UI_AND_SDK = {"anthropic", "rich", "prompt_toolkit", "httpx", "httpx2", "requests"}
IO_MODULES = {
    "os",
    "pathlib",
    "io",
    "socket",
    "subprocess",
    "shutil",
    "tempfile",
    "glob",
    "urllib",
    "http",
    "fcntl",
    "mmap",
    "time",
    "sqlite3",
    "platformdirs",
    "sys",
}
FORBIDDEN_CALLS = {"open", "print", "input", "exec", "eval"}
CLOCK_ATTRIBUTES = {"now", "utcnow", "today", "time", "monotonic", "perf_counter"}
SHARED_VALUES = {"agent_cli.errors", "agent_cli.events"}


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


CORE_MODULES = {_module_name(path) for path in CORE_FILES}


def _imported_modules(path: Path) -> set[str]:
    """Every module a file imports, at any depth (lazy imports included)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def _roots(modules: set[str]) -> set[str]:
    return {module.split(".")[0] for module in modules}


def _forbidden_calls(path: Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Call):
            continue
        if isinstance(node.func, ast.Name) and node.func.id in FORBIDDEN_CALLS:
            found.append(f"{node.func.id}() at line {node.lineno}")
        elif isinstance(node.func, ast.Attribute) and node.func.attr in CLOCK_ATTRIBUTES:
            found.append(f".{node.func.attr}() at line {node.lineno}")
    return found


def _relative(path: Path) -> str:
    return str(path.relative_to(PACKAGE.parent))


MAX_COMPACTION_IMPORT_CHAIN = 7  # modules, issue 22 (it was 13 in a flat package)


def _longest_import_chain(package: str) -> list[str]:
    """The longest chain of modules inside `package` each importing the next (any import,
    lazy and TYPE_CHECKING ones included), the package's own __init__ left out."""
    files = {
        _module_name(path): path
        for path in (PACKAGE.parent / package.replace(".", "/")).rglob("*.py")
    }
    imports = {
        name: {module for module in _imported_modules(path) if module in files and module != name}
        for name, path in files.items()
    }
    longest: dict[str, list[str]] = {}

    def chain_from(name: str, seen: frozenset[str]) -> list[str]:
        if name not in longest:
            below = [chain_from(n, seen | {name}) for n in imports[name] if n not in seen]
            longest[name] = [name, *max(below, key=len, default=[])]
        return longest[name]

    return max((chain_from(name, frozenset()) for name in files if name != package), key=len)


def test_no_import_chain_inside_compaction_is_longer_than_the_limit():
    chain = _longest_import_chain("agent_cli.compaction")
    assert len(chain) > 3  # the walk follows imports at all
    assert len(chain) <= MAX_COMPACTION_IMPORT_CHAIN, " -> ".join(chain)


def test_the_core_files_exist_where_the_rules_expect_them():
    names = {_relative(path) for path in CORE_FILES}
    assert {
        "agent_cli/tokens.py",
        "agent_cli/protocol.py",
        "agent_cli/token_estimation.py",
        "agent_cli/token_memo.py",
        "agent_cli/image_size.py",
        "agent_cli/compaction/pipeline.py",
        "agent_cli/compaction/layers/truncate.py",
        "agent_cli/compaction/digest/merge.py",
        "agent_cli/compaction/view_index.py",
        "agent_cli/durable/model.py",
        "agent_cli/durable/codec.py",
        "agent_cli/sources/pointers.py",
    } <= names


@pytest.mark.parametrize("package", ["compaction", "durable"])
def test_every_module_of_a_core_package_is_checked_at_any_depth(package):
    modules = set((PACKAGE / package).rglob("*.py"))
    assert len(modules) > 1
    assert modules <= set(CORE_FILES)


def test_durable_state_and_sources_live_in_their_packages_not_loose_at_the_top():
    loose = sorted(
        path.name
        for pattern in ("durable*.py", "source*.py", "pointers.py")
        for path in PACKAGE.glob(pattern)
    )
    assert loose == []
    assert (PACKAGE / "durable" / "__init__.py").is_file()
    assert (PACKAGE / "sources" / "__init__.py").is_file()


def test_the_io_half_of_sources_is_outside_the_pure_core():
    io_half = {"resolver.py", "files.py", "index.py", "transcript_check.py", "artifact_check.py"}
    assert {path.name for path in (PACKAGE / "sources").glob("*.py")} >= io_half
    assert not {path.name for path in CORE_FILES if path.parent.name == "sources"} & io_half


@pytest.mark.parametrize("path", CORE_FILES, ids=_relative)
def test_a_core_module_imports_no_ui_sdk_or_io_module(path):
    roots = _roots(_imported_modules(path))
    assert not roots & (UI_AND_SDK | IO_MODULES)


@pytest.mark.parametrize("path", CORE_FILES, ids=_relative)
def test_a_core_module_imports_only_core_modules_of_the_package(path):
    internal = {module for module in _imported_modules(path) if module.startswith("agent_cli.")}
    outside = {
        module
        for module in internal
        if module not in CORE_MODULES | SHARED_VALUES
        and module.rsplit(".", 1)[0] not in CORE_MODULES | SHARED_VALUES
    }
    assert not outside


@pytest.mark.parametrize("path", CORE_FILES, ids=_relative)
def test_a_core_module_opens_no_file_prints_nothing_and_reads_no_clock(path):
    assert _forbidden_calls(path) == []


def test_only_the_anthropic_adapter_imports_anthropic():
    importers = {
        _relative(path) for path in ALL_FILES if "anthropic" in _roots(_imported_modules(path))
    }
    assert importers <= {
        "agent_cli/provider/anthropic_provider.py",
        "agent_cli/provider/anthropic_errors.py",
        "agent_cli/provider/anthropic_stream.py",
    }


def test_only_the_repl_imports_rich_or_prompt_toolkit():
    importers = {
        _relative(path)
        for path in ALL_FILES
        if _roots(_imported_modules(path)) & {"rich", "prompt_toolkit"}
    }
    assert all(name.startswith("agent_cli/repl/") for name in importers)


def test_the_rules_catch_a_violation(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text(
        "import os\nfrom rich.console import Console\n"
        "def f():\n    import anthropic\n    return open('x'), datetime.now()\n"
    )
    assert _roots(_imported_modules(sample)) >= {"os", "rich", "anthropic"}
    assert _forbidden_calls(sample) == ["open() at line 5", ".now() at line 5"]


SESSION_PACKAGE = "agent_cli.session"


def _session_imports(path: Path, modules: set[str]) -> set[str]:
    """The session modules `path` imports, at any depth, those under `if TYPE_CHECKING:`
    included. `from agent_cli.session import describe` names the module `describe`, not
    the package (whose `__init__` is the public face, imported by no session module)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            submodules = {f"{node.module}.{alias.name}" for alias in node.names}
            named = submodules & modules
            found.update(named or {node.module})
    return found & modules


def _session_import_graph(root: Path, package: str) -> dict[str, set[str]]:
    files = {f"{package}.{path.stem}": path for path in root.glob("*.py")}
    files[package] = files.pop(f"{package}.__init__")
    modules = set(files)
    return {name: _session_imports(path, modules) - {name} for name, path in files.items()}


def _find_import_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of the graph as the modules along it (first repeated at the end)."""
    done: set[str] = set()

    def visit(module: str, path: list[str]) -> list[str] | None:
        if module in path:
            return path[path.index(module) :] + [module]
        if module in done:
            return None
        for imported in sorted(graph.get(module, ())):
            cycle = visit(imported, [*path, module])
            if cycle:
                return cycle
        done.add(module)
        return None

    for module in sorted(graph):
        cycle = visit(module, [])
        if cycle:
            return cycle
    return None


def test_the_session_package_has_no_import_cycle_not_even_for_type_checking():
    graph = _session_import_graph(PACKAGE / "session", SESSION_PACKAGE)
    assert f"{SESSION_PACKAGE}.turn" in graph[f"{SESSION_PACKAGE}.core"]  # the graph is real
    assert _find_import_cycle(graph) is None, " -> ".join(_find_import_cycle(graph) or ())


def test_the_cycle_check_catches_one_hidden_under_type_checking(tmp_path):
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("from pkg.first import First\n")
    (package / "first.py").write_text("from pkg import second\n")
    (package / "second.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg.first import First\n"
    )
    graph = _session_import_graph(package, "pkg")
    assert _find_import_cycle(graph) == ["pkg.first", "pkg.second", "pkg.first"]


_MUTABLE_MAKERS = {"dict", "list", "set", "WeakKeyDictionary", "WeakValueDictionary", "defaultdict"}


def _module_level_mutables(path: Path) -> list[str]:
    """Names a module binds at its top level to a mutable container (a memo kept beside
    the data): `{}`, `[]`, `set()`, `dict()`, weak dictionaries. Constants are tuples,
    frozensets or read-only mappings."""
    found = []
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        value = node.value if isinstance(node, ast.Assign | ast.AnnAssign) else None
        targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
        if value is None or [getattr(target, "id", None) for target in targets] == ["__all__"]:
            continue
        maker = value.func if isinstance(value, ast.Call) else None
        name = getattr(maker, "id", getattr(maker, "attr", None))
        if isinstance(value, ast.Dict | ast.List | ast.Set) or name in _MUTABLE_MAKERS:
            found.append(f"{_relative(path)}:{node.lineno}")
    return found


def test_compaction_keeps_no_state_at_module_level():
    """What compaction knows of a view lives in the view's index (`ViewIndex`), owned by
    whoever owns the view: no module keeps a memo of its own."""
    modules = sorted((PACKAGE / "compaction").rglob("*.py"))
    assert len(modules) > 10
    assert [where for path in modules for where in _module_level_mutables(path)] == []


# Re-exports that wait for their last caller to move, each with that caller. Issue 22
# withdrew shims: a name is imported from the module that defines it, and only a
# package's `__init__` (its public face) offers names defined elsewhere.
PENDING_RE_EXPORTS: set[tuple[str, str]] = set()
PLAIN_MODULES = {_module_name(path): path for path in ALL_FILES if path.name != "__init__.py"}


class _TopLevelNames:
    """What a module defines, imports for its own use, passes on (`from m import x as x`,
    Python's spelling of an export) and lists in `__all__`."""

    def __init__(self, path: Path) -> None:
        self.defined: set[str] = set()
        self.imported: set[str] = set()
        self.passed_on: set[str] = set()
        self.public: set[str] = set()
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                self.defined.add(node.name)
            elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                self._note_assignment(node)
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                for alias in node.names:
                    if alias.asname == alias.name:
                        self.passed_on.add(alias.name)
                    else:
                        self.imported.add(alias.asname or alias.name.split(".")[0])

    def _note_assignment(self, node: ast.Assign | ast.AnnAssign) -> None:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        names = {target.id for target in targets if isinstance(target, ast.Name)}
        self.defined |= names
        if "__all__" in names and isinstance(node.value, (ast.List, ast.Tuple)):
            self.public = {elt.value for elt in node.value.elts if isinstance(elt, ast.Constant)}


def test_a_plain_module_offers_only_names_it_defines():
    offered_from_elsewhere = set()
    for module, path in PLAIN_MODULES.items():
        names = _TopLevelNames(path)
        offered = (names.public - names.defined) | names.passed_on
        offered_from_elsewhere |= {(module, name) for name in offered}
    assert offered_from_elsewhere == PENDING_RE_EXPORTS


def test_every_name_is_imported_from_the_module_that_defines_it():
    root = PACKAGE.parent
    callers = [*ALL_FILES, *(root / "tests").rglob("*.py"), *(root / "bench").rglob("*.py")]
    names_of = {module: _TopLevelNames(path) for module, path in PLAIN_MODULES.items()}
    taken_second_hand = {
        (_relative(path), node.module, alias.name)
        for path in callers
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.ImportFrom) and node.module in names_of
        for alias in node.names
        if alias.name in names_of[node.module].imported - names_of[node.module].defined
    }
    assert not taken_second_hand


def _callers(path: Path, called: str) -> set[str]:
    """The functions of `path` (`function` or `Class.method`) whose own body calls something
    spelt `called` or ending in `.called` (`self.compactor.compact` ends in `compactor.compact`)."""
    found: set[str] = set()

    def visit(node: ast.AST, owner: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef):
                visit(child, f"{owner}{child.name}.")
            elif isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                name = f"{owner}{child.name}"
                for inner in ast.walk(child):
                    if isinstance(inner, ast.Call):
                        spelt = ast.unparse(inner.func)
                        if spelt == called or spelt.endswith(f".{called}"):
                            found.add(name)
            else:
                visit(child, owner)

    visit(ast.parse(path.read_text(encoding="utf-8")), "")
    return found


def test_compact_and_every_request_compact_through_the_one_compactor_method():
    """Issue 22: `/compact` and the automatic path call the same method."""

    def callers_everywhere(called: str, files: list[Path]) -> set[tuple[str, str]]:
        return {(_relative(path), name) for path in files for name in _callers(path, called)}

    outside_compaction = [path for path in ALL_FILES if "compaction" not in path.parts]
    assert callers_everywhere("compact_context", outside_compaction) == {
        ("agent_cli/session/compactor.py", "Compactor.compact")
    }
    assert callers_everywhere("compactor.compact", ALL_FILES) == {
        ("agent_cli/session/turn.py", "TurnRunner.prepare_request"),  # before every request
        ("agent_cli/session/turn.py", "TurnRunner.compact_now"),  # /compact
    }
    assert ("agent_cli/session/core.py", "Session.compact_now") in callers_everywhere(
        "_runner.compact_now", ALL_FILES
    )
