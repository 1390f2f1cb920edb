"""Bytes that are not UTF-8, in a real process against the fake API (fifth outside attack):
file and link names from an old archive, typed or piped input, the workspace's own folder
name, a Latin-1 terminal. None of them may end the session or be dropped in silence."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from e2e_support import agent_cli_argv, build_env, start_repl
from fake_anthropic import Reply, text_block, tool_use_block

pytestmark = pytest.mark.e2e

API_KEY = "sk-ant-odd-bytes-FAKE-0123456789"


def run_agent(
    args: list[str],
    *,
    cwd: Path | bytes,
    home: Path,
    server: Any,
    stdin: bytes = b"",
    extra: dict[str, str] | None = None,
) -> subprocess.CompletedProcess[bytes]:
    """`agent-cli args` on pipes, against `server`, with its state in `home`."""
    env = build_env(home, {"ANTHROPIC_API_KEY": API_KEY, "ANTHROPIC_BASE_URL": server.base_url})
    env.update(extra or {})
    return subprocess.run(
        [*agent_cli_argv(), *args],
        cwd=cwd,
        env=env,
        input=stdin,
        capture_output=True,
        check=False,
        timeout=120,
    )


def said(run: subprocess.CompletedProcess[bytes]) -> str:
    return (run.stdout + run.stderr).decode("utf-8", errors="replace")


def tool_results(server: Any) -> list[dict[str, Any]]:
    """Every tool_result block of the last request accepted."""
    return [
        block
        for message in server.accepted[-1]["messages"]
        if isinstance(message["content"], list)
        for block in message["content"]
        if block.get("type") == "tool_result"
    ]


def test_list_dir_shows_names_that_are_not_utf8_with_escapes_and_the_session_goes_on(
    home: Path, tmp_path: Path, server: Any
) -> None:
    folder = tmp_path / "ws"
    folder.mkdir()
    Path(os.fsdecode(bytes(folder) + b"/caf\xe9.txt")).write_bytes(b"menu\n")
    os.symlink(b"caf\xe9.txt", bytes(folder) + b"/link\xe9")
    server.enqueue(
        Reply([tool_use_block("toolu_l", "list_dir", {})], "tool_use"),
        Reply([text_block("Two names.")]),
        Reply([text_block("second answer")]),
    )

    run = run_agent(
        [], cwd=folder, home=home, server=server, stdin=b"what is here?\nsecond question\n"
    )

    assert run.returncode == 0, said(run)
    assert "Traceback" not in said(run)
    listing = str(tool_results(server)[0]["content"])
    # written out as an approval writes them (a fifteenth outside attack: one rule)
    assert "caf<byte E9>.txt" in listing and "link<byte E9> -> caf<byte E9>.txt" in listing
    assert "second answer" in said(run)


def sent_texts(server: Any) -> list[str]:
    """The text of every user message of the last request accepted."""
    texts = []
    for message in server.accepted[-1]["messages"]:
        content = message["content"]
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        if message["role"] == "user":
            texts += [block["text"] for block in blocks if block.get("type") == "text"]
    return texts


@pytest.mark.parametrize(
    ("args", "stdin"),
    [
        ([], b"caf\xe9 au lait\n"),
        (["-p", "-"], b"caf\xe9 au lait\n"),
        (["-p", b"caf\xe9 au lait"], b""),
    ],
    ids=["piped-repl", "print-stdin", "print-argv"],
)
def test_a_message_with_a_byte_that_is_not_utf8_is_sent_with_a_replacement_and_said_so(
    home: Path, workspace: Path, server: Any, args: list[Any], stdin: bytes
) -> None:
    server.enqueue(Reply([text_block("got it")]))

    run = run_agent(args, cwd=workspace, home=home, server=server, stdin=stdin)

    assert run.returncode == 0, said(run)
    assert any("caf\ufffd au lait" in text for text in sent_texts(server)), sent_texts(server)
    assert "1 byte in this message is not UTF-8 (0xE9)" in said(run), said(run)
    assert "state folder" not in said(run)


def test_a_tool_input_holding_nan_is_refused_unrun_and_asked_once_more(
    home: Path, workspace: Path, server: Any
) -> None:
    raw = '{"path": "README.md", "start_line": NaN}'
    server.enqueue(
        Reply([tool_use_block("toolu_n", "read_file", {}, raw_json=raw)], "tool_use"),
        Reply([text_block("answered without the tool")]),
    )

    run = run_agent(["-p", "go"], cwd=workspace, home=home, server=server)

    assert run.returncode == 0, said(run)
    assert run.stdout.decode().strip() == "answered without the tool"
    assert "NaN, Infinity" in said(run) and "Asking once more" in said(run)
    assert "state folder" not in said(run)
    assert len(server.accepted) == 2
    assert "NaN" not in str(server.accepted[-1]["messages"])


@pytest.mark.parametrize(
    "blocks",
    [
        [text_block("caf\ud800e ok")],
        [tool_use_block("toolu_s1", "read\udc00file", {"path": "README.md"})],
    ],
    ids=["text", "tool name"],
)
def test_an_answer_holding_a_lone_surrogate_is_dropped_and_asked_once_more(
    home: Path, workspace: Path, server: Any, blocks: list[dict[str, Any]]
) -> None:
    """LOSS-6: it failed the turn with "Not recorded ... (not_utf8); the state folder is
    fine", a storage error with no next step, and was not asked again."""
    reason = "tool_use" if blocks[0]["type"] == "tool_use" else "end_turn"
    server.enqueue(Reply(blocks, reason), Reply([text_block("a clean answer")]))

    run = run_agent(["-p", "go"], cwd=workspace, home=home, server=server)

    assert run.returncode == 0, said(run)
    assert run.stdout.decode().strip() == "a clean answer"
    flat = " ".join(said(run).split())
    assert "not valid Unicode (a lone surrogate" in flat and "Asking once more" in flat
    assert "not_utf8" not in flat and "state folder" not in flat
    assert len(server.accepted) == 2
    assert all(r.rejection is None for r in server.requests)


@pytest.mark.parametrize("encoding", ["latin-1", "ascii"])
def test_an_output_encoding_that_is_not_utf8_shows_tool_panels_without_a_crash(
    home: Path, workspace: Path, server: Any, encoding: str
) -> None:
    server.enqueue(
        Reply([text_block("let me look"), tool_use_block("toolu_e", "list_dir", {})], "tool_use"),
        Reply([text_block("first answer ☕")]),
        Reply([text_block("second answer")]),
    )

    run = run_agent(
        [],
        cwd=workspace,
        home=home,
        server=server,
        stdin=b"hello\nsecond question\n",
        extra={"PYTHONIOENCODING": encoding},
    )

    assert run.returncode == 0, said(run)
    assert "Traceback" not in said(run)
    assert "first answer ?" in said(run) and "second answer" in said(run)


@pytest.mark.parametrize(
    ("encoding", "piped", "sent"),
    [
        ("ascii", "h\u00e9llo \u2615".encode(), "h\u00e9llo \u2615"),
        ("cp1252", b"a\x81b", "a\ufffdb"),
    ],
)
def test_piped_input_its_declared_encoding_cannot_decode_is_read_without_a_crash(
    home: Path, workspace: Path, server: Any, encoding: str, piped: bytes, sent: str
) -> None:
    """PYTHONIOENCODING=ascii and `héllo` piped in: UnicodeDecodeError out of the line
    reader, exit 1. UTF-8 behind an ASCII label is read as written; a byte another
    codec cannot decode goes out as U+FFFD with the note naming it."""
    server.enqueue(Reply([text_block("first answer")]), Reply([text_block("second answer")]))

    run = run_agent(
        [],
        cwd=workspace,
        home=home,
        server=server,
        stdin=piped + b"\nwhat is 2+2?\n",
        extra={"PYTHONIOENCODING": encoding},
    )

    assert run.returncode == 0, said(run)
    assert "Traceback" not in said(run) and "second answer" in said(run)
    first_message = server.accepted[0]["messages"][0]["content"]
    assert sent in json.dumps(first_message, ensure_ascii=False), first_message
    assert ("not UTF-8 (0x81)" in said(run)) is (encoding == "cp1252")


def test_a_workspace_folder_whose_name_is_not_utf8_starts_remembers_and_resumes(
    home: Path, tmp_path: Path, server: Any
) -> None:
    folder = bytes(tmp_path) + b"/proj\xe9"
    os.mkdir(folder)
    server.enqueue(Reply([text_block("hello back")]), Reply([text_block("resumed answer")]))

    first = run_agent(
        [], cwd=folder, home=home, server=server, stdin=b"hello\n/remember the tests use tox\n"
    )
    again = run_agent(["--continue", "-p", "and now?"], cwd=folder, home=home, server=server)

    assert first.returncode == 0, said(first)
    assert again.returncode == 0, said(again)
    assert "Traceback" not in said(first) + said(again)
    assert "hello back" in said(first) and "resumed answer" in said(again)
    sent = str(server.accepted[-1]["messages"])
    assert "hello" in sent and "the tests use tox" in sent, sent  # the same session, its fact


DROPPED_TEXT = "DROPPED caf\ud800e answer"  # a raw `\ud800` JSON escape on the wire
DROP_WORDS = (
    "not valid Unicode (a lone surrogate",
    "it was dropped and nothing ran",
    "Asking once more",
)


def recorded_texts(home: Path) -> str:
    """Every transcript record of `home`, each line read back as strict UTF-8 JSON (it
    fails the test when one cannot be)."""
    records = [
        json.loads(line.decode("utf-8"))
        for path in sorted((home / "transcripts").glob("*.jsonl"))
        for line in path.read_bytes().splitlines()
    ]
    return json.dumps(records, ensure_ascii=False)


def test_a_piped_repl_answer_holding_a_lone_surrogate_is_dropped_and_asked_once_more(
    home: Path, workspace: Path, server: Any
) -> None:
    """Piped, the streamed answer's `\\ud800` reached stdout as it arrived: three
    tracebacks (UnicodeEncodeError) and exit 1, where `-p` dropped it and asked again."""
    server.enqueue(
        Reply([text_block(DROPPED_TEXT)]),
        Reply([text_block("a clean answer")]),
        Reply([text_block("second answer")]),
    )

    run = run_agent([], cwd=workspace, home=home, server=server, stdin=b"go\nagain\n")

    assert run.returncode == 0, said(run)
    out = said(run)
    assert "Traceback" not in out and "UnicodeEncodeError" not in out
    flat = " ".join(out.split())
    assert all(words in flat for words in DROP_WORDS), flat
    assert "DROPPED caf\ufffde answer" in out  # written as it streamed, never taken back
    assert "a clean answer" in out and "second answer" in out
    recorded = recorded_texts(home)
    assert "a clean answer" in recorded and "DROPPED" not in recorded
    assert len(server.accepted) == 3


def test_a_terminal_repl_answer_holding_a_lone_surrogate_is_dropped_off_screen_and_asked_again(
    home: Path, workspace: Path, server: Any, terminals: Any
) -> None:
    """In a terminal the live view wrote the streamed `\\ud800` first: three tracebacks
    (UnicodeEncodeError) and EXITED=1. Now the streamed text leaves the screen, the
    notice says it was dropped, and the session goes on."""
    server.enqueue(
        Reply([text_block(DROPPED_TEXT)]),
        Reply([text_block("a clean answer")]),
        Reply([text_block("second answer")]),
    )
    env = {"ANTHROPIC_API_KEY": API_KEY, "ANTHROPIC_BASE_URL": server.base_url}
    repl = start_repl(terminals, home, workspace, extra_env=env)

    shown = repl.submit("go")
    assert "a clean answer" in shown, shown
    flat = " ".join(shown.split())
    assert all(words in flat for words in DROP_WORDS), shown
    assert "DROPPED" not in repl.terminal.screen()
    assert "second answer" in repl.submit("again")
    repl.terminal.press("C-d")
    assert repl.terminal.wait_for_exit() == 0
    assert "Traceback" not in repl.terminal.screen()
    recorded = recorded_texts(home)
    assert "a clean answer" in recorded and "DROPPED" not in recorded
