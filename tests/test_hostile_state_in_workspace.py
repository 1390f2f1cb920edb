"""agent-cli's state folder inside the workspace (a fifteenth outside attack, F1).

The attack: run in the home folder, the default state folder `~/.local/share/agent-cli`
lies inside the workspace. Another session's user had typed "my db password is ..."; in
a new session the model's `grep` (never asked about) returned that transcript line,
`list_dir` listed every transcript and `read_file` read the prompt history. `recall`
answered "denied (not_authorized)" for the same records. Now the file tools refuse the
state folder as recall does, and grep and list_dir of the folders above it say they left
it out. `bash` is approved by the user and is not stopped (the README says so).
"""

from __future__ import annotations

from pathlib import Path

from e2e_support import build_env, run_piped
from fake_anthropic import Reply, start_fake_server, text_block, tool_use_block

KEY = "sk-ant-FAKE-state-folder-0123456789abcdef"
PASSWORD = "hunter2secretpw"
STATE = ".local/share/agent-cli"


def call(tool_id: str, name: str, **tool_input: str) -> dict:
    return tool_use_block(tool_id, name, tool_input)


def test_the_model_reads_no_other_sessions_transcript_through_the_file_tools(
    tmp_path: Path,
) -> None:
    """As a user meets it: the installed agent-cli, the real SDK, the fake API, with
    AGENT_CLI_HOME inside the workspace; an earlier session (offline, in another folder)
    recorded the password."""
    workspace = tmp_path / "home"
    home = workspace / STATE
    other = tmp_path / "other"
    other.mkdir(parents=True)
    said = f"my db password is {PASSWORD}\n"
    first = run_piped(["--provider", "offline"], cwd=other, env=build_env(home), stdin_text=said)
    assert first.returncode == 0, first.stderr
    assert PASSWORD in "".join(p.read_text() for p in (home / "transcripts").glob("*.jsonl"))
    with start_fake_server(api_key=KEY) as fake:
        fake.enqueue(
            Reply(
                [
                    call("toolu_1", "list_dir", path=f"{STATE}/transcripts"),
                    call("toolu_2", "grep", pattern=PASSWORD, path=STATE),
                    call("toolu_3", "read_file", path=f"{STATE}/history"),
                    call("toolu_4", "grep", pattern=PASSWORD),
                    call("toolu_5", "list_dir", path=".local/share"),
                    call("toolu_6", "write_file", path=f"{STATE}/config.toml", content="yes=1\n"),
                ],
                stop_reason="tool_use",
            )
        )
        fake.enqueue(Reply([text_block("done")]))
        env = build_env(home, {"ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": fake.base_url})
        done = run_piped(["-p", "look around", "--yes"], cwd=workspace, env=env)
        bodies = [request.body for request in fake.requests]
    assert done.returncode == 0, done.stderr
    assert len(bodies) == 2
    results = bodies[-1]["messages"][-1]["content"]
    texts = [str(result["content"]) for result in results]
    assert all(PASSWORD not in text for text in texts)
    assert all(".jsonl" not in text for text in texts)
    for refused in (texts[0], texts[1], texts[2], texts[5]):
        assert "agent-cli's own state folder" in refused and "Use recall" in refused
    assert [result.get("is_error", False) for result in results] == [
        True,
        True,
        True,
        False,
        False,
        True,
    ]
    assert f"{STATE}/ was not searched: agent-cli's own state folder" in texts[3]
    assert "agent-cli/  [agent-cli's own state folder" in texts[4]
    assert not (home / "config.toml").exists()
    assert "my db password" not in done.stdout + done.stderr  # (the pattern is shown)
