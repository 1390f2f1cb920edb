"""The tester's and the reviewer's steps in a real terminal: facts after the folder moved.

`agent-cli` in tmux, the fake API playing the model through the real SDK. Run 1 in
`proj`: `/remember`, `/todo`, quit. The user renames the folder (`mv proj proj-renamed`)
and goes on with `--resume <id>` there. Found (session 30): the only word was that the old
folder no longer exists; `/facts` said `none`, and a new `/remember` printed `remembered
F1` while the screen above showed another `F1`. The first fix moved the memory file when
the folder's inode matched, and an unrelated folder that got a deleted folder's inode
took its facts (reviewer's inode.sh). Now the resume says where the items are kept,
`/facts bring` copies them, ids go on after theirs, and nothing moves on its own.
"""

from __future__ import annotations

import json
import os
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


def test_a_resume_in_the_renamed_folder_says_where_the_facts_are_and_copies_them_on_request(
    terminals: TerminalPool, home: Path, tmp_path: Path
) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    with start_fake_server(api_key=API_KEY) as server:
        extra = {"ANTHROPIC_API_KEY": API_KEY, "ANTHROPIC_BASE_URL": server.base_url}
        session_id = first_run(terminals, home, project, extra)
        (earlier,) = (home / "memory").glob("*.json")
        kept = earlier.read_bytes()
        renamed = tmp_path / "proj-renamed"
        os.rename(project, renamed)

        repl = start_repl(terminals, home, renamed, "--resume", session_id, extra_env=extra)
        opening = said(repl.terminal.screen())
        assert f"(1 fact, 1 pending item) for {project}, in {earlier}" in opening, opening
        assert "not this folder's: /facts bring copies them here, under the same ids" in opening
        facts = said(repl.submit("/facts"))
        assert FACT not in facts and "not here: facts and pending items" in facts, facts
        assert "remembered F2: another fact" in repl.submit("/remember another fact")
        assert f"brought F1, T1 from {project}" in said(repl.submit("/facts bring"))
        facts = repl.submit("/facts")
        assert FACT in facts and TODO in facts and "another fact" in facts, facts

        server.enqueue(Reply([text_block("Noted.")]))
        repl.submit("what is pending?")
        sent = json.dumps(server.accepted[-1]["messages"][-1])
        assert FACT in sent and TODO in sent  # the durable block rides in the newest turn
        assert earlier.read_bytes() == kept  # copied: the old path's file is as it was


def test_an_unrelated_folder_with_the_old_folders_inode_gets_none_of_its_facts(
    terminals: TerminalPool, home: Path, tmp_path: Path
) -> None:
    """Reviewer's inode.sh: `rm -rf clientA; mkdir clientB` often gives clientB clientA's
    inode; the memory file is made to name clientB's, as that reuse would."""
    client_a = tmp_path / "clientA"
    client_a.mkdir()
    with start_fake_server(api_key=API_KEY) as server:
        extra = {"ANTHROPIC_API_KEY": API_KEY, "ANTHROPIC_BASE_URL": server.base_url}
        session_id = first_run(terminals, home, client_a, extra)
        client_a.rmdir()
        client_b = tmp_path / "clientB"
        client_b.mkdir()
        (earlier,) = (home / "memory").glob("*.json")
        document = json.loads(earlier.read_text())
        document["workspace_id"] = [os.stat(client_b).st_dev, os.stat(client_b).st_ino]
        earlier.write_text(json.dumps(document))

        repl = start_repl(terminals, home, client_b, "--resume", session_id, extra_env=extra)
        opening = said(repl.terminal.screen())
        assert f"for {client_a}, in {earlier}; they are not this folder's" in opening, opening
        repl.send("/quit")
        assert repl.terminal.wait_for_exit() == 0

        fresh = start_repl(terminals, home, client_b, extra_env=extra)  # a new clientB session
        assert FACT not in fresh.submit("/facts")
        server.enqueue(Reply([text_block("Hello.")]))
        fresh.submit("hello")
        assert FACT not in json.dumps(server.accepted[-1])
