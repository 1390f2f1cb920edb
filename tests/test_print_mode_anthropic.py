"""`agent-cli -p` answers on the real SDK against the strict fake API, in a real process."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from fake_anthropic import Reply, start_fake_server, text_block, tool_use_block

API_KEY = "sk-ant-print-mode-FAKE-42"


def _run_agent(
    workspace: Path, base_url: str, prompt: str, *flags: str
) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
    env.update(ANTHROPIC_API_KEY=API_KEY, ANTHROPIC_BASE_URL=base_url)
    return subprocess.run(
        [sys.executable, "-m", "agent_cli", *flags, "-p", prompt],
        cwd=workspace,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )


def test_print_mode_reads_a_file_through_claude_and_prints_only_the_answer(tmp_path) -> None:
    (tmp_path / "README.md").write_text("# Fake heading\n\ntext\n")
    with start_fake_server(api_key=API_KEY) as server:
        server.enqueue(
            Reply([tool_use_block("toolu_r", "read_file", {"path": "README.md"})], "tool_use"),
            Reply([text_block("The first heading is Fake heading.")]),
        )
        done = _run_agent(tmp_path, server.base_url, "read README.md and tell me its first heading")
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip() == "The first heading is Fake heading."
        assert "read_file" in done.stderr  # tool progress goes to stderr
        assert all(r.rejection is None for r in server.requests)
        sent = server.accepted[-1]["messages"]
        assert sent[-1]["content"][0]["tool_use_id"] == "toolu_r"
        assert "Fake heading" in str(sent[-1]["content"][0]["content"])


def test_print_mode_fails_with_exit_1_and_a_clear_message_when_the_api_refuses(tmp_path) -> None:
    from fake_anthropic import HttpError

    with start_fake_server(api_key=API_KEY) as server:
        server.enqueue(HttpError(400, "invalid_request_error", "model not allowed"))
        done = _run_agent(tmp_path, server.base_url, "hello")
    assert done.returncode == 1
    assert done.stdout == ""
    assert "unchanged" in done.stderr
    assert API_KEY not in done.stderr


def test_print_mode_prints_an_answer_the_api_paused_and_continued_as_one(tmp_path) -> None:
    with start_fake_server(api_key=API_KEY) as server:
        server.enqueue(
            Reply([text_block("Working on it,")], "pause_turn"),
            Reply([text_block(" and it is done.")]),
        )
        done = _run_agent(tmp_path, server.base_url, "take your time")
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip() == "Working on it, and it is done."
        assert len(server.requests) == 2
        assert all(r.rejection is None for r in server.requests)


def test_a_step_with_forty_large_results_goes_on_cut_instead_of_exiting_blocked(tmp_path) -> None:
    """Issue 21.14: forty reads, each under L1's per-result budget and under the spill
    threshold, put the view over the hard limit together. The run used to end with
    "compacting cannot help" and exit 3; now the results share the room and it answers."""
    import random

    workspace = tmp_path / "ws"
    workspace.mkdir()
    words = ["alpha", "parser", "token", "branch", "merge", "queue", "value", "error"]
    pick = random.Random(21)
    for n in range(40):  # ~15 KB of dense text each: about 4,000 tokens, not spilled
        lines = (" ".join(f"{pick.choice(words)}{pick.randint(0, 999)}" for _ in range(10)) for _ in range(165))  # fmt: skip
        (workspace / f"f{n}.txt").write_text("\n".join(lines) + "\n")
    with start_fake_server(api_key=API_KEY) as server:
        server.enqueue(
            Reply(
                [
                    tool_use_block(f"toolu_{n}", "read_file", {"path": f"f{n}.txt"})
                    for n in range(40)
                ],
                "tool_use",
            ),
            Reply([text_block("Read all forty.")]),
        )
        done = _run_agent(workspace, server.base_url, "read all forty files")
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip() == "Read all forty."
        assert "cannot help" not in done.stderr and "blocked" not in done.stderr
        assert "40 results cut" in done.stderr
        assert len(server.requests) == 2 and all(r.rejection is None for r in server.requests)
        results = server.accepted[-1]["messages"][-1]["content"]
        assert [r["tool_use_id"] for r in results] == [f"toolu_{n}" for n in range(40)]
        assert all("cut by context compaction" in str(r["content"]) for r in results)


def test_print_mode_without_yes_tells_the_model_and_the_user_that_nobody_was_asked(
    tmp_path,
) -> None:
    with start_fake_server(api_key=API_KEY) as server:
        server.enqueue(
            Reply(
                [tool_use_block("toolu_b", "bash", {"command": "touch made-by-bash"})], "tool_use"
            ),
            Reply([text_block("I could not run it.")]),
        )
        done = _run_agent(tmp_path, server.base_url, "make a file")
        sent = server.accepted[-1]["messages"][-1]["content"][0]
    assert done.returncode == 4, done.stderr
    assert not (tmp_path / "made-by-bash").exists()
    to_model = str(sent["content"])
    assert sent["tool_use_id"] == "toolu_b" and sent.get("is_error") is True
    assert "denied by the user" not in to_model
    assert "nobody could be asked" in to_model and "--yes" in to_model
    stderr = " ".join(done.stderr.split())
    assert "bash was not run: -p cannot ask for permission." in stderr
    assert "--yes" in stderr and "denied by the user" not in stderr


def test_a_failed_request_in_print_mode_says_to_run_again_not_to_send_continue(
    tmp_path,
) -> None:
    from fake_anthropic import HttpError

    with start_fake_server(api_key=API_KEY) as server:
        server.enqueue(HttpError(400, "invalid_request_error", "model not allowed"))
        done = _run_agent(tmp_path, server.base_url, "hello")
    stderr = " ".join(done.stderr.split())
    assert done.returncode == 1
    assert "send 'continue'" not in stderr
    assert "run the command again with --continue" in stderr


def test_after_a_failed_request_continue_goes_on_from_that_session_which_the_advice_names(
    tmp_path,
) -> None:
    """LOSS-4: --continue went on from an older answered session, never reaching the
    message the failed run said it kept; the advice named no session."""
    from fake_anthropic import HttpError

    with start_fake_server(api_key=API_KEY) as server:
        assert _run_agent(tmp_path, server.base_url, "an older, answered request").returncode == 0
        server.enqueue(HttpError(400, "invalid_request_error", "not today"))
        failed = _run_agent(tmp_path, server.base_url, "the kept request")
        transcripts = Path(os.environ["AGENT_CLI_HOME"]) / "transcripts"
        newest = max(transcripts.glob("*.jsonl"), key=lambda path: path.stat().st_mtime)
        stderr = " ".join(failed.stderr.split())
        assert failed.returncode == 1
        assert f"run the command again with --continue (or --resume {newest.stem})" in stderr
        server.enqueue(Reply([text_block("Going on.")]))
        went_on = _run_agent(tmp_path, server.base_url, "go on", "--continue")
        assert went_on.returncode == 0, went_on.stderr
        sent = [m["content"] for m in server.accepted[-1]["messages"] if m["role"] == "user"]
    assert "the kept request" in str(sent) and "go on" in str(sent)
    assert "an older, answered request" not in str(sent)


def test_an_endpoint_that_always_pauses_gets_three_requests_then_the_turn_says_so(
    tmp_path,
) -> None:
    """LOSS-10: one prompt sent 40 paid requests, each with the growing history."""
    with start_fake_server(api_key=API_KEY) as server:
        server.responder = lambda body: Reply([text_block("still working")], "pause_turn")
        done = _run_agent(tmp_path, server.base_url, "go")
        requests = len(server.requests)
        assert all(r.rejection is None for r in server.requests)
    assert requests == 3
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "\n".join(["still working"] * 3)  # what arrived is kept
    stderr = " ".join(done.stderr.split())
    assert "paused its answer 3 times in this turn" in stderr
    assert "run the command again with --continue (or --resume " in stderr


def test_an_answer_paused_twice_still_goes_on_to_its_end(tmp_path) -> None:
    with start_fake_server(api_key=API_KEY) as server:
        server.enqueue(
            Reply([text_block("One,")], "pause_turn"),
            Reply([text_block(" two,")], "pause_turn"),
            Reply([text_block(" three.")]),
        )
        done = _run_agent(tmp_path, server.base_url, "count")
        assert len(server.requests) == 3
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "One, two, three."
    assert "paused" not in done.stderr


def test_a_paused_answer_and_its_continuation_are_not_glued_together(tmp_path) -> None:
    """A fourteenth outside attack (8b): `paused part` + `after pause` printed as
    `paused partafter pause`. Parts that meet without a space go on a new line, as the
    interactive REPL shows each part on its own line."""
    with start_fake_server(api_key=API_KEY) as server:
        server.enqueue(
            Reply([text_block("paused part")], "pause_turn"),
            Reply([text_block("after pause")]),
        )
        done = _run_agent(tmp_path, server.base_url, "go")
        assert all(r.rejection is None for r in server.requests)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "paused part\nafter pause\n"
