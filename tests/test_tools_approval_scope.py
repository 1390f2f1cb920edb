""" "Always" covers what was shown: the exact command, a prefix of plain words, or one file.

Approving `echo one` with "always" once let `echo two; rm -f tall.txt` run unasked,
because the answer was remembered for the whole tool. These tests run the real toolbox
and real bash in a temporary workspace; `tall.txt` must survive every command that was
not itself approved.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from tools_support import make_toolbox

from agent_cli.tools import PermissionDecision, PermissionRequest
from agent_cli.tools.approval_scope import (
    AlwaysScope,
    ScopeKind,
    command_prefix,
    command_target,
    offered_scopes,
)

ALWAYS = PermissionDecision.ALLOW_ALWAYS
PREFIX = PermissionDecision.ALLOW_PREFIX
DENY = PermissionDecision.DENY


class ScriptedAsker:
    """Gives the scripted answers in order (DENY once they run out); keeps the requests."""

    def __init__(self, *answers: PermissionDecision) -> None:
        self.answers = list(answers)
        self.requests: list[PermissionRequest] = []

    def __call__(self, request: PermissionRequest) -> PermissionDecision:
        self.requests.append(request)
        return self.answers.pop(0) if self.answers else DENY

    @property
    def asked(self) -> list[str]:
        return [request.description for request in self.requests]


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "tall.txt").write_text("keep me\n")
    (root / "notes.txt").write_text("draft\n")
    return root


def run(toolbox, command: str):
    return toolbox.run("bash", {"command": command})


def test_always_for_echo_one_does_not_let_echo_two_and_rm_run_unasked(workspace: Path):
    asker = ScriptedAsker(ALWAYS)
    toolbox = make_toolbox(workspace, auto_approve=False, ask_permission=asker)
    assert "one" in run(toolbox, "echo one").content
    outcome = run(toolbox, "echo two; rm -f tall.txt")
    assert outcome.is_error and "Permission denied" in outcome.content
    assert (workspace / "tall.txt").exists()
    assert "one" in run(toolbox, "echo one").content  # the exact command: not asked again
    assert asker.asked == ["echo one", "echo two; rm -f tall.txt"]


def test_always_for_an_exact_command_is_character_for_character(workspace: Path):
    asker = ScriptedAsker(ALWAYS)
    toolbox = make_toolbox(workspace, auto_approve=False, ask_permission=asker)
    run(toolbox, "echo one")
    for variant in ("echo one ", " echo one", "echo one two", "echo  one", "echo one\n"):
        assert run(toolbox, variant).is_error, repr(variant)
    assert len(asker.requests) == 6


HOSTILE_AFTER_PREFIX = [
    "printf hello; rm -f tall.txt",
    "printf hello;rm -f tall.txt",
    "printf hello && rm -f tall.txt",
    "printf hello || rm -f tall.txt",
    "printf hello | rm -f tall.txt",
    "printf hello & rm -f tall.txt",
    "printf hello `rm -f tall.txt`",
    "printf hello $(rm -f tall.txt)",
    "printf hello ${x:=$(rm -f tall.txt)}",
    "printf hello $[1+1]",
    "printf hello > tall.txt",
    "printf hello >> tall.txt",
    "printf hello < tall.txt > tall.txt",
    "printf hello <(rm -f tall.txt)",
    "printf hello\nrm -f tall.txt",
    "printf hello\rrm -f tall.txt",
    "printf hello \\\nrm -f tall.txt",
    "printf hello ';' ; rm -f tall.txt",
    "printf hellorm; rm -f tall.txt",
    "printf hellox",
    "printf  hello2>tall.txt",
    "rm -f tall.txt; printf hello",
    "FOO=1 printf hello",
]


@pytest.mark.parametrize("command", HOSTILE_AFTER_PREFIX)
def test_a_prefix_rule_never_covers_a_second_command_a_redirect_or_a_substitution(
    workspace: Path, command: str
):
    asker = ScriptedAsker(PREFIX)
    toolbox = make_toolbox(workspace, auto_approve=False, ask_permission=asker)
    assert not run(toolbox, "printf hello").is_error
    assert run(toolbox, command).is_error  # asked, and denied
    assert asker.asked == ["printf hello", command]
    assert (workspace / "tall.txt").read_text() == "keep me\n"


def test_a_prefix_rule_covers_the_prefix_with_plain_operands_and_the_approved_command(
    workspace: Path,
):
    asker = ScriptedAsker(PREFIX)
    toolbox = make_toolbox(workspace, auto_approve=False, ask_permission=asker)
    assert not run(toolbox, "printf hello -- x").is_error
    for command in (
        "printf hello",
        "printf hello world",
        "  printf\thello   -- x",
        "printf hello a/b.c",
    ):
        assert not run(toolbox, command).is_error, command
    assert asker.asked == ["printf hello -- x"]


def test_always_for_a_file_covers_writes_and_edits_of_that_file_only(workspace: Path):
    asker = ScriptedAsker(ALWAYS)
    toolbox = make_toolbox(workspace, auto_approve=False, ask_permission=asker)
    assert not toolbox.run("write_file", {"path": "notes.txt", "content": "v1\n"}).is_error
    edit = {"path": "./notes.txt", "old_string": "v1", "new_string": "v2"}
    assert not toolbox.run("edit_file", edit).is_error
    assert (workspace / "notes.txt").read_text() == "v2\n"
    assert toolbox.run("write_file", {"path": "tall.txt", "content": "gone\n"}).is_error
    assert run(toolbox, "rm -f notes.txt").is_error
    assert (workspace / "tall.txt").read_text() == "keep me\n"
    assert (workspace / "notes.txt").exists()
    assert asker.asked == [
        "overwrite notes.txt with 1 line",
        "overwrite tall.txt with 1 line",
        "rm -f notes.txt",
    ]


def test_a_file_rule_follows_the_file_not_its_name_when_a_link_is_retargeted(workspace: Path):
    (workspace / "link.txt").symlink_to("notes.txt")
    asker = ScriptedAsker(ALWAYS)
    toolbox = make_toolbox(workspace, auto_approve=False, ask_permission=asker)
    toolbox.run("write_file", {"path": "link.txt", "content": "v1\n"})
    (workspace / "link.txt").unlink()
    (workspace / "link.txt").symlink_to("tall.txt")
    # read through the retargeted name, so the stale-write guard (`seen_files`: the name now
    # leads to content the model has not seen) lets the write reach the question
    assert not toolbox.run("read_file", {"path": "link.txt"}).is_error
    assert toolbox.run("write_file", {"path": "link.txt", "content": "gone\n"}).is_error
    assert (workspace / "tall.txt").read_text() == "keep me\n"
    assert len(asker.requests) == 2  # asked again: the rule was for notes.txt


def test_a_prefix_answer_where_none_was_offered_allows_once_and_remembers_nothing(
    workspace: Path,
):
    asker = ScriptedAsker(PREFIX)
    toolbox = make_toolbox(workspace, auto_approve=False, ask_permission=asker)
    assert not run(toolbox, "echo a; echo b").is_error
    assert run(toolbox, "echo a; echo b").is_error
    assert len(asker.requests) == 2


def test_the_requests_offer_what_always_would_cover(workspace: Path):
    asker = ScriptedAsker()
    toolbox = make_toolbox(workspace, auto_approve=False, ask_permission=asker)
    run(toolbox, "npm test -- --watch")
    run(toolbox, "echo two; rm -f tall.txt")
    toolbox.run("write_file", {"path": "notes.txt", "content": "x"})
    plain, compound, write = (request.always_scopes() for request in asker.requests)
    assert [(s.kind, s.shown) for s in plain] == [
        (ScopeKind.EXACT_COMMAND, "npm test -- --watch"),
        (ScopeKind.COMMAND_PREFIX, "npm test"),
    ]
    assert [(s.kind, s.shown) for s in compound] == [
        (ScopeKind.EXACT_COMMAND, "echo two; rm -f tall.txt")
    ]
    assert [(s.kind, s.shown) for s in write] == [(ScopeKind.FILE, "notes.txt")]
    assert write[0].value == str(workspace / "notes.txt")


@pytest.mark.parametrize(
    ("command", "prefix"),
    [
        ("npm test", "npm test"),
        ("npm test -- --watch", "npm test"),
        ("git status --short", "git status"),
        ("npm run test:unit --bail", "npm run test:unit"),
        ("git diff --stat", "git diff"),
        ("find src -name '*.py'", "find src"),
        ("rm out", "rm out"),
        ("cargo test parser", "cargo test parser"),
        ("echo one", "echo one"),
        ("ls -la", None),  # an option is no subcommand
        ("pytest tests/test_x.py", None),  # nor is a path
        ("make", None),
        ("echo two; rm -f tall.txt", None),
        ("git status\nrm -rf ~", None),
        ("sudo rm -rf build", None),  # programs that run their arguments as a command
        ("/usr/bin/env python x", None),
        ("bash deploy", None),
        ("xargs rm", None),
        (". script", None),
        ("eval echo", None),
        ("timeout kill", None),
        ("coproc rm", None),
        ("cat " + "s" * 60, None),  # too long to show whole in the question
        # a program agent-cli does not know: what a further word does cannot be foreseen
        ("./run.sh check --fast", None),
        ("docker compose up -d web", None),
        ("./git diff", None),  # a program of the workspace's own under a known name
        ("/usr/bin/git diff", None),
        # installs, fetches, pushes, runs or configures: a further operand is new code
        ("npm install", None),
        ("npm install left-pad", None),
        ("npm ci", None),
        ("npm exec cowsay", None),
        ("npm run", None),  # which script is part of the prefix
        ("pnpm add react", None),
        ("yarn add react", None),
        ("pip install -r requirements.txt", None),
        ("pip3 install requests", None),
        ("python -m pip install x", None),
        ("uv run python -m pytest", None),
        ("uv pip install x", None),
        ("poetry run pytest", None),
        ("cargo install ripgrep", None),
        ("cargo run", None),
        ("go run main", None),
        ("go generate", None),
        ("go get example", None),
        ("git fetch origin", None),
        ("git pull origin main", None),
        ("git push origin main", None),
        ("git clone repo", None),
        ("git config user.name me", None),
        ("git checkout main", None),
        ("git reset HEAD", None),
        ("git clean -n", None),
        ("git stash list", None),
        ("git branch feature", None),
        ("git remote add x", None),
        ("git submodule update", None),
        ("git bisect run make", None),
        ("git difftool main", None),
        ("cp a b", None),
        ("mv a b", None),
        ("touch notes", None),
        ("mkdir build", None),
        ("chmod u+x run", None),
        ("tee out", None),
        ("curl example", None),
        ("wget example", None),
        ("rsync a b", None),
        ("tar xf a", None),
        ("sed e x", None),
        ("awk stuff", None),
        ("node server", None),
        ("python manage", None),
        ("npx cowsay", None),
        ("docker run ubuntu", None),
    ],
)
def test_the_prefix_offered_is_a_known_program_and_its_subcommand_words(command, prefix):
    assert command_prefix(command) == prefix
    scopes = offered_scopes(command_target(command))
    assert [s.shown for s in scopes if s.kind is ScopeKind.COMMAND_PREFIX] == (
        [prefix] if prefix else []
    )


def prefix_scope(approved: str) -> AlwaysScope:
    scopes = [
        s for s in offered_scopes(command_target(approved)) if s.kind is ScopeKind.COMMAND_PREFIX
    ]
    assert scopes, approved
    return scopes[0]


# (approved with [p], a later command that must be asked about): options that execute,
# delete or write elsewhere, paths out of the workspace or into .git, shell expansions.
NOT_COVERED_AFTER_PREFIX = [
    ("find src -name '*.py'", "find src -exec touch PWNED {} +"),
    ("find src -name '*.py'", "find src -execdir sh x {} +"),
    ("find src -name '*.py'", "find src -ok rm {} ;"),
    ("find src -name '*.py'", "find src -delete"),
    ("find src -name '*.py'", "find src -fprint /tmp/x"),
    ("find src -name '*.py'", "find src -name x -fls out"),
    ("find src -name '*.py'", "find src -name '*.sh'"),  # another option value
    ("find src -name '*.py'", "find src /"),
    ("find src -name '*.py'", "find src ~"),
    ("find src -name '*.py'", "find src .."),
    ("git diff --stat", "git diff --output=/tmp/victim"),
    ("git diff --stat", "git diff --ext-diff"),
    ("git diff --stat", "git diff --no-index /etc/passwd x"),
    ("git diff --stat", "git diff --stat --output=x"),
    ("git diff --stat", "git diff -- .git/config"),
    ("git log", "git log --output=x"),
    ("git log", "git log -p HEAD"),
    ("git grep TODO", "git grep -O TODO"),
    ("git grep TODO", "git grep --open-files-in-pager=sh TODO"),
    ("git show HEAD", "git show HEAD:secret"),
    ("rm out", "rm out -rf /precious"),
    ("rm out", "rm out -r src"),
    ("rm out", "rm out /precious"),
    ("rm out", "rm out ~"),
    ("rm out", "rm out ~root"),
    ("rm out", "rm out $HOME"),
    ("rm out", 'rm out "$HOME"'),
    ("rm out", "rm out ../sibling"),
    ("rm out", "rm out src/../../x"),
    ("rm out", "rm out docs/x"),  # a linked folder could lead elsewhere
    ("rm out", "rm out .git"),
    ("rm out", "rm out {/,}precious"),
    ("rm out", "rm out *"),
    ("rm out", "rm out ?"),
    ("rm out", "rm out [a-z]*"),
    ("rm out", "rm out 'x y'"),
    ("rm out", "rm out x=y"),
    ("rm out", "rm out host:x"),
    ("rm out", "rm out --no-preserve-root /"),
    ("rmdir build", "rmdir build /tmp/x"),
    ("rg TODO src", "rg TODO src --pre bash"),
    ("rg TODO src", "rg TODO src --pre=bash"),
    ("rg TODO src", "rg TODO src -z"),
    ("grep TODO", "grep TODO -r /"),
    ("grep TODO", "grep TODO /etc/shadow"),
    ("cat notes", "cat notes ~/.ssh/id_rsa"),
    ("cat notes", "cat notes .git/config"),
    ("cat notes", "cat notes .GIT/config"),
    ("npm test", "npm test -- --config=evil.js"),
    ("npm test", "npm test --ignore-scripts=false"),
    ("npm run build", "npm run build -- --exec x"),
    ("npm run build", "npm run deploy"),
    ("cargo test", "cargo test --config x"),
    ("cargo test", "cargo test +nightly"),
    ("go test ./...", "go test -exec evil ./..."),
    ("go test ./...", "go test -toolexec=x ./..."),
    ("echo one", "echo one > x"),
    ("echo one", "echo one $(id)"),
    ("echo one", "echo one `id`"),
    ("echo one", "echo one ${x}"),
    ("echo one", "echo one $x"),
    ("echo one", "echo one\nrm x"),
    ("echo one", "FOO=1 echo one"),
    ("echo one", "echo two"),
]


@pytest.mark.parametrize(("approved", "later"), NOT_COVERED_AFTER_PREFIX)
def test_a_prefix_never_covers_an_option_a_path_elsewhere_or_an_expansion(approved, later):
    scope = prefix_scope(approved)
    assert scope.covers(command_target(approved))
    assert not scope.covers(command_target(later))


@pytest.mark.parametrize(
    ("approved", "later"),
    [
        ("find src -name '*.py'", "find src -name '*.py'"),  # the approved one, options and all
        ("find src -name '*.py'", "find  src\t-name '*.py' "),
        ("find src -name '*.py'", "find src tests"),
        ("git diff --stat", "git diff HEAD~1 src/app.py"),
        ("git log --oneline", "git log main"),
        ("rm out", "rm out build tmp.txt"),
        ("npm test", "npm test parser"),
        ("npm run test:unit", "npm run test:unit src/parser.test.ts"),
        ("rg TODO src", "rg TODO src tests"),
    ],
)
def test_a_prefix_covers_the_approved_command_and_plain_operands(approved, later):
    assert prefix_scope(approved).covers(command_target(later))


def test_p_for_find_rm_and_git_diff_lets_no_exec_delete_or_outside_write_run(
    workspace: Path, tmp_path: Path
):
    """The attack's cases, run for real: asked (and denied), so nothing happens."""
    (workspace / "src").mkdir()
    (workspace / "src" / "app.py").write_text("print('hi')\n")
    (workspace / "out").mkdir()
    victim = tmp_path / "outside-victim.txt"
    victim.write_text("precious\n")
    precious = tmp_path / "precious"
    precious.mkdir()
    (precious / "thesis.tex").write_text("years of work\n")
    subprocess.run(["git", "init", "-q", str(workspace)], check=True)
    asker = ScriptedAsker(PREFIX, PREFIX, PREFIX)
    toolbox = make_toolbox(workspace, auto_approve=False, ask_permission=asker)
    for approved in ("find src -name '*.py'", "git diff --stat", "rmdir out"):
        assert not run(toolbox, approved).is_error, approved
    hostile = [
        "find src -exec touch PWNED {} +",
        "find src -delete",
        f"git diff --output={victim}",
        f"rmdir out -p {precious}",
        f"rmdir out {precious}/../precious",
    ]
    for command in hostile:
        assert run(toolbox, command).is_error, command  # asked, and denied
    assert asker.asked[3:] == hostile
    assert not (workspace / "PWNED").exists()
    assert (workspace / "src" / "app.py").exists()
    assert victim.read_text() == "precious\n"
    assert (precious / "thesis.tex").exists()


def test_p_never_covers_an_operand_a_link_leads_outside_the_workspace_or_into_git(
    workspace: Path, tmp_path: Path
):
    """The ninth attack's case, run for real: a cloned repository ships links (`notes.md`
    to a key outside, `docs` to a folder outside, `cfg` into `.git`). After `p` for
    `cat LICENSE`, a command naming any of them is asked about (and denied), so nothing
    outside is read; a link that stays inside is covered like the file it names."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "id_deploy").write_text("OUTSIDE-KEY-MATERIAL\n")
    (workspace / ".git").mkdir()
    (workspace / ".git" / "config").write_text("[core] hooksPath = evil\n")
    (workspace / "notes.md").symlink_to(outside / "id_deploy")
    (workspace / "docs").symlink_to(outside)
    (workspace / "cfg").symlink_to(workspace / ".git" / "config")
    (workspace / "loop").symlink_to(workspace / "loop")
    (workspace / "inner").symlink_to(workspace / "notes.txt")
    (workspace / "LICENSE").write_text("MIT\n")
    asker = ScriptedAsker(PREFIX)
    toolbox = make_toolbox(workspace, auto_approve=False, ask_permission=asker)
    assert "MIT" in run(toolbox, "cat LICENSE").content
    hostile = [
        "cat LICENSE notes.md",
        "cat LICENSE docs/id_deploy",
        "cat LICENSE cfg",
        "cat LICENSE loop",
    ]
    for command in hostile:
        outcome = run(toolbox, command)
        assert outcome.is_error and "Permission denied" in outcome.content, command
        assert "OUTSIDE-KEY" not in outcome.content and "hooksPath" not in outcome.content
    assert "draft" in run(toolbox, "cat LICENSE inner notes.txt").content  # not asked
    assert asker.asked == ["cat LICENSE", *hostile]


def test_without_a_start_folder_a_prefix_judges_operands_by_their_words(tmp_path: Path):
    """A target that names no start folder (a test's, an older caller's) is judged as
    before; one that does is followed there."""
    (tmp_path / "away").symlink_to("/etc")
    scope = prefix_scope("cat notes")
    assert scope.covers(command_target("cat notes away/passwd"))
    assert not scope.covers(command_target("cat notes away/passwd", tmp_path.resolve()))
    assert scope.covers(command_target("cat notes here/new", tmp_path.resolve()))


_PLAIN_CHARACTERS = "ab./-_~,+@%^"
_SPECIAL_CHARACTERS = "$*?[]{}=:'\"#!\\"
_PLAIN_TEXT = st.text(alphabet=_PLAIN_CHARACTERS, max_size=5)
_WORDS = st.one_of(
    st.text(alphabet=_PLAIN_CHARACTERS, min_size=1, max_size=6),  # often covered
    # nearly plain: one character the shell may expand or read as syntax
    st.builds(
        lambda head, special, tail: head + special + tail,
        _PLAIN_TEXT,
        st.sampled_from(_SPECIAL_CHARACTERS),
        _PLAIN_TEXT,
    ),
)


@settings(max_examples=300, deadline=None)
@example(approved="cat notes", extra=["a*"])  # each expands in the folder, or reads as syntax
@example(approved="cat notes", extra=["a?"])
@example(approved="cat notes", extra=["[a]b"])
@example(approved="cat notes", extra=["a{b,}"])
@example(approved="cat notes", extra=["a$b"])
@example(approved="cat notes", extra=["b=~"])
@example(approved="cat notes", extra=["a:~"])
@example(approved="cat notes", extra=["a", "#b"])
@example(approved="rm out", extra=["a/b"])
@example(approved="git diff --stat", extra=["a/../.."])
@given(
    approved=st.sampled_from(["rm out", "find src -name '*.py'", "git diff --stat", "cat notes"]),
    extra=st.lists(_WORDS, min_size=1, max_size=3),
)
def test_whatever_a_prefix_covers_bash_reads_as_the_same_plain_words_inside_the_workspace(
    approved: str, extra: list[str], tmp_path_factory: pytest.TempPathFactory
):
    """Property, with the real bash: a covered command's further words reach the program
    exactly as written (no expansion), none is an option, and each names a place inside
    the workspace and outside .git (for `rm`: in its top folder)."""
    scope = prefix_scope(approved)
    command = " ".join([scope.value, *extra])
    if command == approved or not scope.covers(command_target(command)):
        return
    root = tmp_path_factory.mktemp("ws")
    for name in ("a", "b.", "ab", ".a"):
        (root / name).write_text("x")
    seen = subprocess.run(
        ["bash", "-c", "printf '%s\\0' " + " ".join(extra)],
        cwd=root,
        capture_output=True,
        env={"HOME": "/home/someone", "PATH": os.environ["PATH"]},
        check=True,
    ).stdout.decode()
    assert seen.split("\0")[:-1] == extra
    for word in extra:
        assert not word.startswith(("-", "+"))
        place = Path(os.path.normpath(root / word))
        assert place == root or root in place.parents
        assert ".git" not in place.relative_to(root).parts
        if scope.value.startswith("rm "):
            assert "/" not in word


def test_a_prefix_covers_no_link_the_system_cannot_follow_nor_a_folder_diff_reads(
    workspace: Path, tmp_path: Path
) -> None:
    """The review of the ninth attack's fix: a 4,300-character operand whose absolute
    path is too long for Python to check its links (bash follows the shorter relative
    path), a folder given to `diff` (which compares the files in it, through their
    links), and the approved command run again after its operand became a link."""
    secret = tmp_path / "id_rsa"
    secret.write_text("OUTSIDE-KEY\n")
    root = workspace.resolve()
    name = "d" * 250
    deep = root.joinpath(*[name] * 17)
    descriptor = os.open(root, os.O_RDONLY)
    for _ in range(17):  # (the absolute path is too long for mkdir's own parents=True)
        os.mkdir(name, dir_fd=descriptor)
        inner = os.open(name, os.O_RDONLY, dir_fd=descriptor)
        os.close(descriptor)
        descriptor = inner
    os.symlink(secret, "link", dir_fd=descriptor)
    os.close(descriptor)
    long_operand = "/".join([name] * 17 + ["link"])
    assert len(str(deep)) > 4_096  # PATH_MAX: Python's look at the link fails, bash's does not
    scope = prefix_scope("cat notes")
    assert not scope.covers(command_target(f"cat notes {long_operand}", root))

    (root / "a").mkdir()
    (root / "a" / "notes.txt").symlink_to(secret)
    (root / "b").mkdir()
    (root / "b" / "notes.txt").write_text("draft\n")
    (root / "plain.txt").write_text("x\n")
    diff = prefix_scope("diff b")
    assert not diff.covers(command_target("diff b a", root))  # folders: files only
    assert diff.covers(command_target("diff b plain.txt", root)) is False  # `b` a folder
    files = prefix_scope("diff notes")
    assert files.covers(command_target("diff notes plain.txt", root))
    assert not files.covers(command_target("diff notes a", root))

    (root / "later.txt").write_text("fine\n")
    approved = prefix_scope("cat notes later.txt")
    assert approved.covers(command_target("cat notes later.txt", root))
    (root / "later.txt").unlink()
    (root / "later.txt").symlink_to(secret)
    assert not approved.covers(command_target("cat notes later.txt", root))


def test_a_prefix_never_reaches_agent_clis_own_state_folder(tmp_path: Path):
    """A fifteenth outside attack: run in the home folder, after `p` for `cat` the model
    ran `cat .local/share/agent-cli/transcripts/<id>.jsonl` unasked, where the file tools
    refuse that folder. No operand in it or above it is covered, nor a walk of a folder
    that holds it."""
    root = tmp_path.resolve()
    state = root / "agent-home"
    (state / "transcripts").mkdir(parents=True)
    (root / "src").mkdir()
    (root / "into-state").symlink_to(state)
    cat, tree = prefix_scope("cat notes"), prefix_scope("tree src")

    def covers(scope: AlwaysScope, command: str, off_limits=(state,)) -> bool:
        return scope.covers(command_target(command, root, off_limits))

    assert not covers(cat, "cat notes agent-home/history")
    assert not covers(cat, "cat notes agent-home/transcripts/s.jsonl")
    assert not covers(cat, "cat notes into-state/history")  # through a link
    assert not covers(tree, "tree src .")  # holds the state folder
    rg = prefix_scope("rg needle")
    assert not covers(rg, "rg needle")  # walks the folder that holds it
    assert covers(cat, "cat notes src/app.py")
    assert not covers(tree, "tree src")  # a walker: asked while a state folder lies below
    assert covers(tree, "tree src", off_limits=(root.parent / "elsewhere",))
    assert covers(rg, "rg needle", off_limits=(root.parent / "elsewhere",))
    assert covers(rg, "rg needle", off_limits=())


def test_bash_asks_again_for_a_prefix_command_into_the_state_folder(workspace: Path):
    home = workspace / "agent-home"
    (home / "transcripts").mkdir(parents=True)
    (home / "history").write_text("my db password is hunter2secretpw\n")
    asker = ScriptedAsker(PREFIX)
    toolbox = make_toolbox(
        workspace, auto_approve=False, ask_permission=asker, state_folders=(home,)
    )
    (workspace / "LICENSE").write_text("MIT\n")
    assert "MIT" in run(toolbox, "cat LICENSE").content
    assert "keep me" in run(toolbox, "cat LICENSE tall.txt").content  # covered: not asked
    outcome = run(toolbox, "cat LICENSE agent-home/history")
    assert outcome.is_error and "hunter2secretpw" not in outcome.content
    assert asker.asked == ["cat LICENSE", "cat LICENSE agent-home/history"]
