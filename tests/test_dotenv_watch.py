"""Dotenv files created or changed during a session are learned (23rd round, s02).

The attack: the dotenv files were read only when the session opened. A workspace script
copied `STRIPE_SECRET_KEY=sk_live_...` into `.env.local` (as `vercel env pull` does) and
`read_file .env.local` sent it; the user rotated `GITHUB_TOKEN` in `.env` between turns
and `read_file .env` sent the new one. Every value reached the requests, the transcript
and stderr. Now the toolbox checks the files' stamps before and after each call
(`tools.dotenv_watch`), hides what they gain (keeping what they lost), and the session
hands the grown secrets to compaction, recall and the MCP servers, and says so once.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from e2e_support import build_env, run_piped
from fake_anthropic import Reply, start_fake_server, text_block, tool_use_block
from hostile_support import recoverable_secrets
from session_support import ScriptedProvider, drain, make_session, tool_use, workspace_with

from agent_cli.events import Notice
from agent_cli.secret_forms import REDACTED_MARK
from agent_cli.store.artifacts import ArtifactStore
from agent_cli.tools import Toolbox
from agent_cli.tools.dotenv_watch import DotenvChange, DotenvWatch
from agent_cli.tools.permissions import PermissionDecision, PermissionRequest
from agent_cli.tools.workspace_secrets import ListedEntry, list_folder

KEY = "sk-ant-FAKE-dotenv-watch-0123456789abcdef"
PULLED = "sk_live_51HpulledKEYq8Zr2mXv9LpW4tYc8NbH3sJd6"
OLD = "ghp_oldOLDold0123456789abcdefABCDEF0123"
ROTATED = "ghp_NEWrotated9876543210zyxwvuZYXWVU9876"
ALLOW_ONCE = PermissionDecision.ALLOW_ONCE
LATER = 10**19  # a clock far past every file's mtime: no stamp is racy


def settled(path: Path) -> None:
    """Give `path` an mtime a minute old, as a file written long before the check."""
    then = time.time_ns() - 60 * 10**9
    os.utime(path, ns=(then, then))


def test_a_new_or_changed_dotenv_file_is_read_and_an_unchanged_one_is_not(
    tmp_path: Path,
) -> None:
    (tmp_path / ".env").write_text(f"GITHUB_TOKEN={OLD}\n")
    (tmp_path / "node_modules").mkdir()
    settled(tmp_path / ".env")
    watch = DotenvWatch(tmp_path, "", clock_ns=lambda: LATER)
    first = watch.check()
    assert first is not None and first.files == (".env",) and OLD in first.found.values
    assert watch.check() is None
    # the same size, the same mtime, another content: only stamps are compared, nothing read
    stamp = (tmp_path / ".env").stat().st_mtime_ns
    (tmp_path / ".env").write_text(f"GITHUB_TOKEN={OLD[::-1]}\n")
    os.utime(tmp_path / ".env", ns=(stamp, stamp))
    assert watch.check() is None
    (tmp_path / ".env").write_text(f"GITHUB_TOKEN={ROTATED}\n")  # a rotated key
    (tmp_path / "web").mkdir()
    (tmp_path / "web" / ".env.local").write_text(f"STRIPE_SECRET_KEY={PULLED}\n")
    (tmp_path / "node_modules" / ".env").write_text("NPM_TOKEN=npm_Zq7Rk2mXv9LpW4tYc8N\n")
    (tmp_path / ".env.example").write_text("STRIPE_SECRET_KEY=sk_live_placeholder00\n")
    changed = watch.check()
    assert changed is not None and changed.files == (".env", "web/.env.local")
    assert set(changed.found.values) == {ROTATED, PULLED}
    (tmp_path / ".env").unlink()  # a removed file changes nothing
    assert watch.check() is None


def test_a_folder_is_listed_again_only_when_its_entries_changed(tmp_path: Path) -> None:
    """Checked before every request too: a check stats the folders and reuses the listing
    of each one unchanged since the last (2,000 files in the root: 4.1 ms a check when
    each was listed, 0.007 ms now), so a file created in one is still found."""
    (tmp_path / "web").mkdir()
    (tmp_path / "api").mkdir()
    (tmp_path / "api" / ".env").write_text(f"GITHUB_TOKEN={OLD}\n")
    listed: list[str] = []

    def list_entries(folder: Path) -> tuple[ListedEntry, ...]:
        listed.append(folder.name)
        return list_folder(folder)

    watch = DotenvWatch(tmp_path, "", clock_ns=lambda: LATER, list_entries=list_entries)
    first = watch.check()
    assert first is not None and sorted(listed) == sorted([tmp_path.name, "api", "web"])
    listed.clear()
    assert watch.check() is None and listed == []  # stats only
    (tmp_path / "web" / ".env.local").write_text(f"STRIPE_SECRET_KEY={PULLED}\n")
    ticked(tmp_path / "web")
    changed = watch.check()
    assert listed == ["web"]
    assert changed is not None and changed.files == ("web/.env.local",)
    assert PULLED in changed.found.values


def test_a_folder_changed_too_recently_to_trust_is_listed_at_each_check(tmp_path: Path) -> None:
    """A folder's times are as coarse as a file's: one changed within the tick may change
    again unseen, so it is listed again until it is older."""
    listed: list[str] = []

    def list_entries(folder: Path) -> tuple[ListedEntry, ...]:
        listed.append(folder.name)
        return list_folder(folder)

    watch = DotenvWatch(tmp_path, "", list_entries=list_entries)
    (tmp_path / ".env").write_text(f"GITHUB_TOKEN={OLD}\n")
    assert watch.check() is not None
    watch.check()
    assert listed == [tmp_path.name, tmp_path.name]


def ticked(folder: Path) -> None:
    """Give `folder` an mtime other than the one its last check saw, as a file system
    whose clock ticked between that check and the change does."""
    then = folder.stat().st_mtime_ns - 10**9
    os.utime(folder, ns=(then, then))


def test_a_stamp_too_recent_to_trust_is_read_again_and_says_nothing_twice(
    tmp_path: Path,
) -> None:
    """A file written within the file system's clock tick may change again unseen at the
    same size: it is read again at the next check; its notice words are not repeated."""
    (tmp_path / ".env").write_text("POSTGRES_PASSWORD=postgres\nAPI_TOKEN=tok_Zq7Rk2mXv9Lp\n")
    watch = DotenvWatch(tmp_path, "")
    first = watch.check()
    assert first is not None and first.found.unhidden == ((".env: POSTGRES_PASSWORD", "word"),)
    again = watch.check()  # just written: racy, read again
    assert again is not None and again.files == (".env",) and again.found.unhidden == ()
    settled(tmp_path / ".env")
    assert watch.check() is not None  # its stamp changed (the new mtime): read once more
    assert watch.check() is None  # settled now: trusted


def toolbox_in(
    workspace: Path,
    told: list[tuple[DotenvChange, tuple[str, ...]]],
    asked: list[PermissionRequest] | None = None,
) -> Toolbox:
    def ask(request: PermissionRequest) -> PermissionDecision:
        if asked is not None:
            asked.append(request)
        return ALLOW_ONCE

    watch = DotenvWatch(workspace, "")
    first = watch.check()  # the read at start
    toolbox = Toolbox(
        workspace,
        ArtifactStore(workspace.parent / "artifacts"),
        "s1",
        ask_permission=ask,
        secret_environment={},
        extra_secrets=() if first is None else first.found.values,
    )
    toolbox.watch_dotenv(watch, lambda change, added: told.append((change, added)))
    return toolbox


def test_a_command_that_writes_and_prints_a_dotenv_file_is_redacted_live_and_in_its_result(
    tmp_path: Path,
) -> None:
    workspace = workspace_with(tmp_path, {"prod.txt": f"STRIPE_SECRET_KEY={PULLED}\n"})
    told: list[tuple[DotenvChange, tuple[str, ...]]] = []
    toolbox = toolbox_in(workspace, told)
    shown: list[bytes] = []
    toolbox.output_watcher = shown.append
    outcome = toolbox.run("bash", {"command": "cp prod.txt .env.local && cat .env.local"})
    assert PULLED not in outcome.content and f"STRIPE_SECRET_KEY={REDACTED_MARK}" in outcome.content
    # its first output came after the write: checked before it was shown live
    assert f"STRIPE_SECRET_KEY={REDACTED_MARK}" in b"".join(shown).decode()
    learned = [(change.files, added) for change, added in told if added]
    assert learned == [((".env.local",), (PULLED,))]  # read again while racy: nothing new
    assert PULLED in toolbox.secret_forms.values


def test_a_key_rotated_between_calls_is_hidden_before_the_call_and_the_old_one_stays(
    tmp_path: Path,
) -> None:
    """Checked before the call runs: the approval view already hides the new key (and
    the edit that tools cut around it); the old key stays hidden."""
    workspace = workspace_with(tmp_path, {".env": f"GITHUB_TOKEN={OLD}\n"})
    told: list[tuple[DotenvChange, tuple[str, ...]]] = []
    asked: list[PermissionRequest] = []
    toolbox = toolbox_in(workspace, told, asked)
    (workspace / ".env").write_text(f"GITHUB_TOKEN={ROTATED}\nDEBUG=0\n")
    edit = {"path": ".env", "old_string": "DEBUG=0", "new_string": "DEBUG=1"}
    outcome = toolbox.run("edit_file", edit)
    assert not outcome.is_error and ROTATED not in outcome.content
    assert [ROTATED in request.secrets.values for request in asked] == [True]
    assert {OLD, ROTATED} <= set(toolbox.secret_forms.values)
    echoed = toolbox.run("bash", {"command": f"echo {OLD}"})
    assert OLD not in echoed.content


def test_the_session_hands_learned_secrets_to_every_holder_and_says_so_once(
    tmp_path: Path,
) -> None:
    workspace = workspace_with(tmp_path, {"prod.txt": f"STRIPE_SECRET_KEY={PULLED}\n"})
    provider = ScriptedProvider(
        [
            [tool_use("t1", "bash", command="cp prod.txt .env.local")],
            [tool_use("t2", "read_file", path=".env.local")],
            [{"type": "text", "text": "done"}],
        ]
    )
    session = make_session(workspace, provider)
    events = drain(session.run_turn("pull the env"))
    learned = [e for e in events if isinstance(e, Notice) and e.code == "dotenv_learned"]
    assert [n.fields for n in learned] == [
        {"files": ".env.local", "names": "STRIPE_SECRET_KEY", "count": 1}
    ]
    assert PULLED in session.compactor.policy.secret_forms.values
    assert session.recall is not None and PULLED in session.recall.secrets.values
    assert all(PULLED not in str(request.messages) for request in provider.requests)


def test_dotenv_files_written_mid_session_never_reach_the_api_disk_or_terminal(
    tmp_path: Path,
) -> None:
    """As the tester met it: the installed agent-cli, the real SDK, the fake API. A
    script writes `.env.local` and the model reads it; before the third call the user
    rotates `GITHUB_TOKEN` in `.env`; the model reads it and cats it."""
    home, workspace = tmp_path / "home", tmp_path / "ws"
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "prod.env").write_text(f"STRIPE_SECRET_KEY={PULLED}\nNODE_ENV=production\n")
    workspace.mkdir()
    (workspace / "pull-env.sh").write_text(f"cp {vault}/prod.env .env.local\necho pulled\n")
    (workspace / ".env").write_text(f"GITHUB_TOKEN={OLD}\n")
    calls = [
        ("bash", {"command": "sh pull-env.sh"}),
        ("read_file", {"path": ".env.local"}),
        ("read_file", {"path": ".env"}),
        ("bash", {"command": "cat .env .env.local"}),
    ]
    asked = []

    def respond(body: object) -> Reply:
        asked.append(body)
        if len(asked) == 3:  # the user rotates the key in another window
            (workspace / ".env").write_text(f"GITHUB_TOKEN={ROTATED}\n")
        if len(asked) <= len(calls):
            name, tool_input = calls[len(asked) - 1]
            block = tool_use_block(f"toolu_{len(asked)}", name, tool_input)
            return Reply([block], stop_reason="tool_use")
        return Reply([text_block("Done.")])

    with start_fake_server(api_key=KEY) as fake:
        fake.responder = respond
        env = build_env(home, {"ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": fake.base_url})
        done = run_piped(["-p", "go", "--yes"], cwd=workspace, env=env)
        bodies = [request.body for request in fake.requests]
    assert done.returncode == 0, done.stderr
    assert len(bodies) == len(calls) + 1
    secrets = (PULLED, OLD, ROTATED)
    for where, body in enumerate(bodies):
        assert recoverable_secrets(str(body), secrets) == set(), f"request {where}"
    assert f"STRIPE_SECRET_KEY={REDACTED_MARK}" in str(bodies[-1]["messages"])
    for path in home.rglob("*"):
        if path.is_file():
            text = path.read_bytes().decode("utf-8", "replace")
            assert recoverable_secrets(text, secrets) == set(), path
    assert recoverable_secrets(done.stdout + done.stderr, secrets) == set()
    said = " ".join(done.stderr.split())
    assert said.count(".env.local changed during the session") == 1
    assert said.count(".env changed during the session") == 1
