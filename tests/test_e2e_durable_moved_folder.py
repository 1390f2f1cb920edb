"""The tester's steps in a real terminal: facts and pending items after the folder moved.

`agent-cli` in tmux, the fake API playing the model through the real SDK. Run 1 in
`proj`: `/remember`, `/todo`, quit. The user renames the folder (`mv proj proj-renamed`)
and goes on with `--resume <id>` there. Found (session 30): the only word was that the old
folder no longer exists; `/facts` said `none`, the next request carried no durable block,
and a new `/remember` printed `remembered F1` while the screen above showed another `F1`.
The facts sat in the memory file of the old path. Now they follow the folder (same
device and inode, `session.durable_folder`), and ids go on after theirs.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from e2e_support import TerminalPool, session_id_on, start_repl
from fake_anthropic import Reply, start_fake_server, text_block

pytestmark = pytest.mark.e2e

API_KEY = "sk-ant-e2e-moved-facts-0123456789"
FACT = "the staging db is on port 5433"
TODO = "migrate the users table"


def first_run(terminals: TerminalPool, home: Path, project: Path, extra: dict[str, str]) -> str:
    """Run 1 in `project`: remember a fact, add a pending item, quit. Gives the session id."""
    repl = start_repl(terminals, home, project, extra_env=extra)
    assert "remembered F1" in repl.submit(f"/remember {FACT}")
    assert "added T1" in repl.submit(f"/todo {TODO}")
    session_id = session_id_on(repl.terminal.screen())
    repl.send("/quit")
    assert repl.terminal.wait_for_exit() == 0
    return session_id


def said(screen: str) -> str:
    return " ".join(screen.split())


def test_a_resume_in_the_renamed_folder_goes_on_with_its_facts_and_ids(
    terminals: TerminalPool, home: Path, tmp_path: Path
) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    with start_fake_server(api_key=API_KEY) as server:
        extra = {"ANTHROPIC_API_KEY": API_KEY, "ANTHROPIC_BASE_URL": server.base_url}
        session_id = first_run(terminals, home, project, extra)
        renamed = tmp_path / "proj-renamed"
        os.rename(project, renamed)

        repl = start_repl(terminals, home, renamed, "--resume", session_id, extra_env=extra)
        opening = said(repl.terminal.screen())
        assert f"This session's folder was {project} (moved or renamed since)" in opening
        assert "(1 fact, 1 pending item) came with it, under the same ids" in opening
        facts = repl.submit("/facts")
        assert "F1" in facts and FACT in facts and "T1" in facts and TODO in facts, facts

        server.enqueue(Reply([text_block("Noted.")]))
        repl.submit("what is pending?")
        sent = json.dumps(server.accepted[-1]["messages"][-1])
        assert FACT in sent and TODO in sent  # the durable block rides in the newest turn

        assert "remembered F2: another fact" in repl.submit("/remember another fact")
        assert len(list((home / "memory").glob("*.json"))) == 1  # none left at the old path


def test_a_resume_in_a_copy_of_the_folder_says_where_the_facts_are_and_brings_them(
    terminals: TerminalPool, home: Path, tmp_path: Path
) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    with start_fake_server(api_key=API_KEY) as server:
        extra = {"ANTHROPIC_API_KEY": API_KEY, "ANTHROPIC_BASE_URL": server.base_url}
        session_id = first_run(terminals, home, project, extra)
        copy = tmp_path / "proj-copy"
        shutil.copytree(project, copy)
        shutil.rmtree(project)

        repl = start_repl(terminals, home, copy, "--resume", session_id, extra_env=extra)
        opening = said(repl.terminal.screen())
        assert f"(1 fact, 1 pending item) were kept for {project} (not known to be" in opening
        assert "/facts bring copies them here" in opening
        assert "remembered F2: not F1" in repl.submit("/remember not F1")
        assert "brought F1, T1 from" in said(repl.submit("/facts bring"))
        facts = repl.submit("/facts")
        assert FACT in facts and TODO in facts and "not F1" in facts, facts
