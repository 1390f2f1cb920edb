r"""The twenty-ninth outside attack as a user meets it: the installed agent-cli with
`--yes`, the real SDK, the fake Messages API and the real programs that print a secret
with every byte or character escaped.

With `GITHUB_TOKEN` and `DB_PASSWORD` set, `hexdump -v -e '"\\x" 1/1 "%02x"'`, Perl's
`sprintf "\\x%02X"`, Python's `\u%04x` and `&#x%x;` per character, `od -An -tx1 | sed
's/ /\\x/g'` and `printf '\\x%02x'` sent the value whole to the model, the transcript
and the terminal (`\x67\x68\x70\x5f...`). Each runs here as the model asks; no value,
as it is or read back from its escapes, reaches a request, a file under AGENT_CLI_HOME
or the terminal.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from e2e_support import run_scripted
from fake_anthropic import Reply, text_block, tool_result_texts, tool_use_block

from agent_cli.secret_forms import REDACTED_MARK

KEY = "sk-ant-FAKE-a29-escapes-0123456789abcdef"
TOKEN = "ghp_Zq8xR2mV7tK4nP9wL3sJ6hB1cF5dG0aYe8Ui"
PASSWORD = "Tr0ub4dor-horse-9"
HEXDUMP = 'hexdump -v -e \'"\\\\\\x" 1/1 "%02x"\''
COMMANDS = (
    f'printf %s "$GITHUB_TOKEN" | {HEXDUMP}',
    f'printf %s "$DB_PASSWORD" | {HEXDUMP}',
    "perl -e 'print map { sprintf \"\\\\x%02X\", ord } split //, $ENV{GITHUB_TOKEN}'",
    "python3 -c \"import os;print(''.join('\\\\\\\\u%04x'%ord(c) for c in os.environ['GITHUB_TOKEN']))\"",
    "python3 -c \"import os;print(''.join('&#x%x;'%ord(c) for c in os.environ['GITHUB_TOKEN']))\"",
    "printf %s \"$GITHUB_TOKEN\" | od -An -tx1 -v | sed 's/ /\\\\x/g'",
    "printf '\\\\x%02x' $(printf %s \"$DB_PASSWORD\" | od -An -tu1 -v)",
    # the review: the rows of od | sed as a JSON string, \xNN in JSON of JSON, a C list
    # wrapped over lines
    "printf %s \"$GITHUB_TOKEN\" | od -An -tx1 -v | sed 's/ /\\\\x/g' | jq -Rs '{stdout: .}'",
    f"printf %s \"$GITHUB_TOKEN\" | {HEXDUMP} | jq -Rs '{{stdout: .}}' | jq -Rs '{{body: .}}'",
    "python3 -c \"import os;t=os.environ['GITHUB_TOKEN'].encode();print(',\\n    '.join("
    "', '.join(\\\"'\\\\\\\\x%02x'\\\"%b for b in t[i:i+8]) for i in range(0,len(t),8)))\"",
)
_BYTE = re.compile(r"\\x([0-9a-fA-F]{2})|\\u([0-9a-fA-F]{4})|&#x([0-9a-fA-F]+);")


def read_back(text: str) -> str:
    """`text` with each `\\xNN`, `\\uNNNN` and `&#xN;` read as its character, and the
    blanks, line breaks (real or JSON's), quotes and commas between them left out (as a
    reader of a dump would)."""
    joined = re.sub(r"(?<=[0-9a-fA-F;'])(?:\s|\\+[nr]|[',])+(?='?(?:\\x|\\u|&#x))", "", text)
    return _BYTE.sub(lambda found: chr(int(next(filter(None, found.groups())), 16)), joined)


def leaked(text: str) -> set[str]:
    """The secrets `text` shows, as it is or read back with its backslashes undoubled
    up to three times (JSON of JSON of JSON)."""
    undoubled = [text]
    for _ in range(3):
        undoubled.append(undoubled[-1].replace("\\\\", "\\"))
    views = (text, *map(read_back, undoubled))
    return {secret for secret in (TOKEN, PASSWORD) for view in views if secret[2:14] in view}


@pytest.mark.e2e
@pytest.mark.skipif(
    not all(shutil.which(tool) for tool in ("hexdump", "perl", "od", "python3", "jq")),
    reason="needs hexdump, perl, od, python3 and jq",
)
def test_a_secret_printed_with_every_byte_escaped_reaches_no_request(tmp_path: Path) -> None:
    home, workspace = tmp_path / "home", tmp_path / "ws"
    workspace.mkdir()
    calls = [
        Reply(
            [tool_use_block(f"toolu_{index}", "bash", {"command": command})],
            stop_reason="tool_use",
        )
        for index, command in enumerate(COMMANDS)
    ]
    done, bodies = run_scripted(
        home,
        workspace,
        KEY,
        [*calls, Reply([text_block("Printed them.")])],
        environment={"GITHUB_TOKEN": TOKEN, "DB_PASSWORD": PASSWORD},
    )
    assert done.returncode == 0, done.stderr
    results = tool_result_texts(bodies[-1])
    assert len(results) == len(COMMANDS)
    for command, result in zip(COMMANDS, results, strict=True):
        assert REDACTED_MARK in result, (command, result)
        assert "redacted" in result.splitlines()[0], (command, result)
    for where, body in enumerate(bodies):
        assert leaked(json.dumps(body)) == set(), f"request {where}"
    for path in home.rglob("*"):
        if path.is_file():
            assert leaked(path.read_bytes().decode("utf-8", "replace")) == set(), path
    assert leaked(done.stdout + done.stderr) == set()
