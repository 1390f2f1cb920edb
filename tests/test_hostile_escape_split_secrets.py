"""A secret that colour escapes split is redacted whole (fifth outside attack).

The attack: `grep -rn --color=always ghp_ .`, approved as harmless, wraps the match in
escape sequences (`\\x1b[01;31m\\x1b[Kghp_\\x1b[m\\x1b[KZq7...`): the token was no
longer whole, so everything after `ghp_` reached the model, the transcript and the
screen (which drops the escapes and shows the token back). The tests run real grep
through a `Toolbox`, watching its live view too.
"""

from __future__ import annotations

import os

from tools_support import FakeArtifactStore

from agent_cli.secret_forms import REDACTED_MARK, SecretForms
from agent_cli.terminal_escapes import unsplit_secrets
from agent_cli.tools import Toolbox
from agent_cli.tools.redaction import SecretRedactor, StreamRedactor

TOKEN = "ghp_Zq7Rk2mXv9LpW4tYc8NbH3sJd6FgQ1"
REST = TOKEN[4:]
COLOURED = f"GITHUB_TOKEN=\x1b[01;31m\x1b[K{TOKEN[:4]}\x1b[m\x1b[K{REST}\n"


def test_colour_grep_of_a_token_gives_neither_the_model_nor_the_live_view_any_of_it(tmp_path):
    (tmp_path / ".env").write_text(f"GITHUB_TOKEN={TOKEN}\n")
    environment = {"GITHUB_TOKEN": TOKEN, "PATH": os.environ["PATH"]}
    box = Toolbox(
        tmp_path, FakeArtifactStore(), "s1", auto_approve=True, secret_environment=environment
    )
    shown: list[bytes] = []
    box.output_watcher = shown.append
    outcome = box.run("bash", {"command": "grep -rn --color=always ghp_ ."})
    live = b"".join(shown).decode()
    assert REST not in outcome.content and REST not in live
    assert f"GITHUB_TOKEN={REDACTED_MARK}" in outcome.content
    assert f"GITHUB_TOKEN={REDACTED_MARK}" in live


def test_the_live_view_finds_the_token_when_a_read_ends_inside_an_escape():
    redactor = SecretRedactor([TOKEN])
    data = COLOURED.encode()
    for size in (1, 2, 3, 5, 7):
        stream = StreamRedactor(redactor)
        pieces = [stream.feed(data[i : i + size]) for i in range(0, len(data), size)]
        shown = "".join(pieces) + stream.finish()
        assert shown == f"GITHUB_TOKEN={REDACTED_MARK}\n", size


def test_escapes_stay_when_they_split_no_secret():
    forms = SecretForms.from_values([TOKEN])
    coloured = f"\x1b[01;31mred\x1b[m and {TOKEN} plain\n"
    assert unsplit_secrets(coloured, forms) == coloured
    escape_inside = SecretForms.from_values(["ctrl\x1bseq-and-more"])
    assert unsplit_secrets("x ctrl\x1bseq-and-more\x1b[m", escape_inside).count("\x1b") == 2
    assert unsplit_secrets(COLOURED, forms) == f"GITHUB_TOKEN={TOKEN}\n"


def test_a_coloured_log_read_back_gives_none_of_the_token_that_escapes_split(tmp_path):
    """Sixth attack, left then: only bash output was made whole; a log written with colour
    (`pytest --color=yes > run.log`) and read with read_file or grep sent the rest."""
    (tmp_path / "run.log").write_text(f"start\n{COLOURED}end\n")
    environment = {"GITHUB_TOKEN": TOKEN, "PATH": os.environ["PATH"]}
    box = Toolbox(
        tmp_path, FakeArtifactStore(), "s1", auto_approve=True, secret_environment=environment
    )
    for tool, arguments in (
        ("read_file", {"path": "run.log"}),
        ("grep", {"pattern": "GITHUB_TOKEN"}),
    ):
        outcome = box.run(tool, arguments)
        assert REST not in outcome.content, tool
        # grep shows no line holding a secret (grep_secrets): the run of the token that the
        # escapes leave (`secret_runs`) is one, so the line is withheld, not redacted
        shown = outcome.content.startswith("No matches") if tool == "grep" else False
        assert shown or REDACTED_MARK in outcome.content, tool
