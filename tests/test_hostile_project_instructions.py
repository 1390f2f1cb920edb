"""A cloned repository's AGENTS.md / CLAUDE.md must not carry a secret to the API.

git stores links, so a repository can ship `AGENTS.md -> .env`. The link stays inside the
workspace, yet the file's text would go into the system blocks of every request, summary
requests included. Project instructions are opened the way the file tools open a file and
pass through the same redaction as tool results; a link to a hidden name (a dotfile,
anything in `.git/` or another dot-folder) is refused with one notice. Requests go
through the real SDK to the strict fake Messages API.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from fake_anthropic import Reply, start_fake_server, text_block
from session_support import ScriptedProvider, drain, make_session

from agent_cli.provider.anthropic_provider import AnthropicProvider
from agent_cli.repl.error_text import notice_text
from agent_cli.secret_forms import REDACTED_MARK
from agent_cli.session.instructions import MAX_INSTRUCTION_CHARS, load_project_instructions
from agent_cli.tools.redaction import SecretRedactor

API_KEY = "sk-ant-test-hostile-instructions"
SECRET = "tok-live-4f9a1c7e2b8d6053a1e9"
ENVIRONMENT = {"DEPLOY_TOKEN": SECRET}
RULE = "Run the linters before every commit (rule 12B)."


def _plant_secrets(root: Path) -> None:
    """A workspace with secrets in the usual hidden places, and one ordinary doc."""
    (root / ".env").write_text(f"DEPLOY_TOKEN={SECRET}\nOTHER=visible-only-in-dotenv\n")
    (root / ".git").mkdir()
    (root / ".git" / "config").write_text("[remote]\n\turl = visible-only-in-git-config\n")
    (root / "conf" / ".private").mkdir(parents=True)
    (root / "conf" / ".private" / "notes.md").write_text("visible-only-in-private-notes\n")
    (root / "docs").mkdir()
    (root / "docs" / "rules.md").write_text(f"{RULE}\n")


def _all_bodies(server) -> str:
    return "\n".join(json.dumps(body, ensure_ascii=False) for body in server.accepted)


HIDDEN_LINKS = [
    pytest.param({"AGENTS.md": ".env"}, id="agents-to-dotenv"),
    pytest.param({"CLAUDE.md": ".env"}, id="claude-to-dotenv"),
    pytest.param({"AGENTS.md": ".git/config"}, id="into-git"),
    pytest.param({"AGENTS.md": "conf/.private/notes.md"}, id="into-a-dot-folder"),
    # a chain: the link itself names an ordinary file, which is a link to .env
    pytest.param({"AGENTS.md": "docs/guide.md", "docs/guide.md": "../.env"}, id="chain"),
    # an ordinary folder name that is itself a link into .git
    pytest.param({"AGENTS.md": "meta/config", "meta": ".git"}, id="folder-link-into-git"),
]


@pytest.mark.parametrize("links", HIDDEN_LINKS)
def test_a_link_to_a_hidden_file_is_refused_once_and_its_text_reaches_no_request(
    tmp_path: Path, links: dict[str, str]
) -> None:
    _plant_secrets(tmp_path)
    for name, target in links.items():
        os.symlink(target, tmp_path / name)
    with start_fake_server(api_key=API_KEY) as server:
        server.responder = lambda body: Reply([text_block("ok")])
        provider = AnthropicProvider(API_KEY, "claude-sonnet-5-5", base_url=server.base_url)
        session = make_session(tmp_path, provider, environment=ENVIRONMENT)
        [notice] = session.startup_notices
        drain(session.run_turn("hello"))
        session.close()
        sent = _all_bodies(server)
    assert session.project_instructions.problem == "hidden_target"
    assert notice.code == "project_instructions_unusable"
    assert "hidden file or folder" in notice_text(notice) and "/reload" in notice_text(notice)
    assert session.project_instructions.text == ""
    for leaked in (SECRET, "visible-only-in-dotenv", "visible-only-in-git-config"):
        assert leaked not in sent
    assert "visible-only-in-private-notes" not in sent
    assert "hello" in sent  # the request itself did go


MASTER_KEY = "9f2c4e71b0d83a56c1e7f04b92d6a8e3"  # as Rails writes config/master.key
NOT_MARKDOWN_LINKS = [
    # a gitignored key file with no dot-part in its path (a seventh outside attack)
    pytest.param({"AGENTS.md": "config/master.key"}, id="rails-master-key"),
    pytest.param({"CLAUDE.md": "deploy/id_deploy"}, id="claude-to-ssh-key"),
    pytest.param({"AGENTS.md": "terraform.tfstate"}, id="terraform-state"),
    pytest.param({"AGENTS.md": "config/credentials.json"}, id="credentials-json"),
    # a chain: a Markdown-named link on the way, a key file at the end
    pytest.param(
        {"AGENTS.md": "docs/guide.md", "docs/guide.md": "../config/master.key"}, id="chain"
    ),
    # a folder link: the name on the way looks like docs, the file is the key
    pytest.param({"AGENTS.md": "keys/master.key", "keys": "config"}, id="folder-link"),
]


def _plant_key_files(root: Path) -> None:
    """Credential files a project holds where no part of the path starts with a dot."""
    (root / ".gitignore").write_text("config/master.key\ndeploy/\n*.tfstate\n")
    for relative in (
        "config/master.key",
        "deploy/id_deploy",
        "terraform.tfstate",
        "config/credentials.json",
    ):
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text(f"{MASTER_KEY}\n")
    (root / "docs").mkdir(exist_ok=True)


@pytest.mark.parametrize("links", NOT_MARKDOWN_LINKS)
def test_a_link_to_a_file_that_is_not_markdown_is_refused_once_and_reaches_no_request(
    tmp_path: Path, links: dict[str, str]
) -> None:
    """`AGENTS.md -> config/master.key`: only a dot-part in the target was refused, so a
    key file Rails makes (gitignored, no dot in its path) went out with every request."""
    _plant_key_files(tmp_path)
    for name, target in links.items():
        os.symlink(target, tmp_path / name)
    with start_fake_server(api_key=API_KEY) as server:
        server.responder = lambda body: Reply([text_block("ok")])
        provider = AnthropicProvider(API_KEY, "claude-sonnet-5-5", base_url=server.base_url)
        session = make_session(tmp_path, provider, environment=ENVIRONMENT)
        drain(session.run_turn("hello"))
        session.close()
        sent = _all_bodies(server)
    assert MASTER_KEY not in sent and "hello" in sent
    assert session.project_instructions.problem == "not_markdown_target"
    assert session.project_instructions.text == ""
    [notice] = session.startup_notices
    said = notice_text(notice)
    assert notice.code == "project_instructions_unusable"
    assert "not Markdown" in said and "never sent" in said
    assert "Point the link at a Markdown file" in said and "/reload" in said


LEGITIMATE_LINKS = [
    pytest.param({"AGENTS.md": "CLAUDE.md", "CLAUDE.md": None}, id="agents-to-claude"),
    pytest.param({"CLAUDE.md": "AGENTS.md", "AGENTS.md": None}, id="claude-to-agents"),
    pytest.param({"AGENTS.md": "docs/AGENTS.md", "docs/AGENTS.md": None}, id="into-docs"),
    pytest.param({"AGENTS.md": "docs/Guide.MARKDOWN", "docs/Guide.MARKDOWN": None}, id="case"),
    pytest.param(
        {"AGENTS.md": "docs/guide.md", "docs/guide.md": "rules.mdx", "docs/rules.mdx": None},
        id="chain-of-markdown",
    ),
]


@pytest.mark.parametrize("links", LEGITIMATE_LINKS)
def test_a_link_to_markdown_instructions_in_the_workspace_is_followed(
    tmp_path: Path, links: dict[str, str | None]
) -> None:
    """What people set up: one file for both names, or the instructions kept in docs/."""
    _plant_key_files(tmp_path)
    for name, target in links.items():
        if target is None:
            (tmp_path / name).write_text(f"{RULE}\n")
    for name, target in links.items():
        if target is not None:
            os.symlink(target, tmp_path / name)
    found = load_project_instructions(tmp_path, SecretRedactor([SECRET]))
    assert found.problem is None and RULE in found.text


def test_a_link_to_an_ordinary_file_in_the_workspace_still_works(tmp_path: Path) -> None:
    _plant_secrets(tmp_path)
    os.symlink("docs/rules.md", tmp_path / "AGENTS.md")
    found = load_project_instructions(tmp_path, SecretRedactor([SECRET]))
    assert found.problem is None and RULE in found.text


def test_a_secret_written_in_agents_md_is_redacted_in_every_request_summary_included(
    tmp_path: Path,
) -> None:
    (tmp_path / "AGENTS.md").write_text(f"{RULE}\nDeploy with DEPLOY_TOKEN={SECRET} please.\n")
    with start_fake_server(api_key=API_KEY) as server:
        server.responder = lambda body: Reply([text_block("noted " + "words " * 40)])
        provider = AnthropicProvider(API_KEY, "claude-sonnet-5-5", base_url=server.base_url)
        session = make_session(tmp_path, provider, keep_recent=2, environment=ENVIRONMENT)
        for index in range(5):
            drain(session.run_turn(f"message {index} " + "words " * 50))
        drain(session.compact_now("the deploy"))
        drain(session.run_turn("after compaction"))
        session.close()
        sent = _all_bodies(server)
        summary_requests = [b for b in server.accepted if "the deploy" in json.dumps(b)]
    assert summary_requests, "a summary request was sent"
    assert SECRET not in sent
    assert RULE in sent and f"DEPLOY_TOKEN={REDACTED_MARK}" in sent
    assert all(f"DEPLOY_TOKEN={REDACTED_MARK}" in json.dumps(b) for b in server.accepted)
    [notice] = session.startup_notices
    assert notice.code == "project_instructions_redacted"
    assert "AGENTS.md holds 1 secret value" in notice_text(notice) and SECRET not in notice_text(
        notice
    )


def test_a_secret_in_a_linked_ordinary_file_is_redacted_too(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "deploy.md").write_text(f"token: {SECRET}\n")
    os.symlink("docs/deploy.md", tmp_path / "AGENTS.md")
    found = load_project_instructions(tmp_path, SecretRedactor([SECRET]))
    assert SECRET not in found.text and f"token: {REDACTED_MARK}" in found.text
    assert found.redacted == 1


def test_a_secret_that_crosses_the_cap_is_not_sent_in_part(tmp_path: Path) -> None:
    # four-byte characters up to just before the cap, then the secret: the read limit of
    # four bytes a character ends inside the secret, and the cut at the cap crosses it.
    head = "\U0001f600" * (MAX_INSTRUCTION_CHARS - 6)
    (tmp_path / "AGENTS.md").write_text(head + SECRET + " and more text\n" * 10)
    found = load_project_instructions(tmp_path, SecretRedactor([SECRET]))
    assert found.truncated and found.problem is None
    assert SECRET[:6] not in found.text


def test_the_default_redactor_knows_the_secrets_of_this_process(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("DEPLOY_TOKEN", SECRET)
    (tmp_path / "AGENTS.md").write_text(f"use {SECRET}\n")
    found = load_project_instructions(tmp_path)
    assert SECRET not in found.text and found.redacted == 1


def test_a_binary_agents_md_is_refused_as_read_file_refuses_it(tmp_path: Path) -> None:
    (tmp_path / "AGENTS.md").write_bytes(b"rules\x00\x01\x02 more")
    provider = ScriptedProvider()
    session = make_session(tmp_path, provider)
    [notice] = session.startup_notices
    assert session.project_instructions.problem == "binary"
    assert "binary" in notice_text(notice)
    drain(session.run_turn("hi"))
    assert provider.requests[-1].project_instructions == ""


def test_reload_refuses_a_link_swapped_in_after_the_start(tmp_path: Path) -> None:
    _plant_secrets(tmp_path)
    (tmp_path / "AGENTS.md").write_text(f"{RULE}\n")
    provider = ScriptedProvider()
    session = make_session(tmp_path, provider, environment=ENVIRONMENT)
    (tmp_path / "AGENTS.md").unlink()
    os.symlink(".env", tmp_path / "AGENTS.md")
    found = session.reload_project_instructions()
    assert found.problem == "hidden_target"
    drain(session.run_turn("hi"))
    assert provider.requests[-1].project_instructions == ""


def test_reload_says_when_it_redacted_a_secret(tmp_path: Path) -> None:
    from agent_cli.repl.model_views import build_instructions_reloaded

    (tmp_path / "AGENTS.md").write_text(f"{RULE}\n")
    session = make_session(tmp_path, ScriptedProvider(), environment=ENVIRONMENT)
    assert session.startup_notices == []
    (tmp_path / "AGENTS.md").write_text(f"{RULE}\nkey {SECRET} and again {SECRET}\n")
    line = build_instructions_reloaded(session.reload_project_instructions()).plain
    assert "reloaded AGENTS.md" in line and "holds 2 secret values" in line
    assert "Take them out of the file" in line
    assert SECRET not in line and SECRET not in session.project_instructions.text
