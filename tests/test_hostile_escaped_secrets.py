"""A secret printed the way programs print quoted strings is redacted too.

The attack (found from outside): a `*_PASSWORD` holding a quote, a backslash or a
non-ASCII letter went out through the usual ways of printing an environment: Python's
`repr` (`print(os.environ)` doubles the backslash), JSON (`\\"`, `\\\\`, `\\u00e7`) and
bash's `declare -p` (`$'...'` with octal bytes under a C locale); only `printenv` was
redacted. A private key stored in a JSON file (as cloud service-account files hold one,
its line breaks written `\\n`) passed every tool. A ninth attack: bash's `printf %q`
(`Tr0ub4dor\\&3\\ x\\(yz\\)\\!pass`, no quotes, a backslash before each special
character), the quoting completion and `ls -b` use too, went out whole.

The tests run the real programs (python, bash, dash) as the `bash` tool of a `Toolbox`
and check what each printed line must become.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
from pathlib import Path

import pytest
from hostile_support import fuzz_settings
from hypothesis import example, given
from hypothesis import strategies as st
from test_hostile_multiline_secrets import PEM, pieces_in
from tools_support import FakeArtifactStore

from agent_cli.secret_forms import REDACTED_MARK
from agent_cli.tools import Toolbox
from agent_cli.tools.redaction import SecretRedactor

PASSWORD = 'Tr0ub4dor&3"x\\yz-ç9'
PASSWORDS = (
    PASSWORD,
    'it\'s a "pass\\word" ü',
    "tab\there-and-more",
    "ctrl\x1bseq\x7fend",
    "Tr0ub4dor&3 x(yz)!pass",
)

# Each prints the value of X (read from x.txt) the way a common program does.
PRINTERS = {
    "python repr": "python3 -c 'import os; print(repr(os.environ[\"X\"]))'",
    "python environ": 'python3 -c \'import os; print({"X": os.environ["X"]})\'',
    "python ascii": "python3 -c 'import os; print(ascii(os.environ[\"X\"]))'",
    "json": 'python3 -c \'import os, json; print(json.dumps({"pw": os.environ["X"]}))\'',
    "json utf-8": (
        "python3 -c 'import os, json; print(json.dumps(os.environ[\"X\"], ensure_ascii=False))'"
    ),
    "shlex": "python3 -c 'import os, shlex; print(shlex.quote(os.environ[\"X\"]))'",
    "declare -p, C": "LC_ALL=C bash -c 'declare -p X'",
    "declare -p, UTF-8": "LC_ALL=C.UTF-8 bash -c 'declare -p X'",
    "set, C": "LC_ALL=C bash -c 'set' | grep -a '^X='",
    "set, UTF-8": "LC_ALL=C.UTF-8 bash -c 'set' | grep -a '^X='",
    "dash export -p": "dash -c 'export -p' | grep -a ' X='",
    # a ninth outside attack: quoting with backslashes, no quotes around
    "printf %q, C": 'LC_ALL=C bash -c \'printf "%q\\n" "$X"\'',
    "printf %q, UTF-8": 'LC_ALL=C.UTF-8 bash -c \'printf "%q\\n" "$X"\'',
    "ls -b, C": 'mkdir n && touch -- "n/$X" && LC_ALL=C ls -b n',
    "ls --quoting-style=escape, UTF-8": (
        'mkdir n && touch -- "n/$X" && LC_ALL=C.UTF-8 ls --quoting-style=escape n'
    ),
    # and HTML's escaping (a page or template that shows the value)
    "html.escape": "python3 -c 'import os, html; print(html.escape(os.environ[\"X\"]))'",
    "html.escape, quotes kept": (
        "python3 -c 'import os, html; print(html.escape(os.environ[\"X\"], quote=False))'"
    ),
    "lodash / Ruby CGI.escapeHTML": (
        'python3 -c \'import os, html; print(html.escape(os.environ["X"])'
        '.replace("&#x27;", "&#39;"))\''
    ),
    "XML (&apos;)": (
        'python3 -c \'import os, html; print(html.escape(os.environ["X"])'
        '.replace("&#x27;", "&apos;"))\''
    ),
    "Go html.EscapeString": (
        'python3 -c \'import os; print(os.environ["X"].replace("&", "&amp;")'
        '.replace("<", "&lt;").replace(">", "&gt;").replace(chr(34), "&#34;")'
        '.replace(chr(39), "&#39;"))\''
    ),
}


def make_box(folder: Path, secret: str) -> Toolbox:
    environment = {"DB_PASSWORD": secret, "PATH": os.environ["PATH"]}
    return Toolbox(
        folder, FakeArtifactStore(), "s1", auto_approve=True, secret_environment=environment
    )


@pytest.mark.parametrize("secret", PASSWORDS)
@pytest.mark.parametrize("printer", sorted(PRINTERS))
def test_a_password_printed_quoted_by_a_common_program_is_redacted(tmp_path, secret, printer):
    (tmp_path / "x.txt").write_text(secret)
    command = f'export X="$(cat x.txt)"; {PRINTERS[printer]}'
    outcome = make_box(tmp_path, secret).run("bash", {"command": command})
    printed = outcome.content.split("\n", 1)[1].strip()
    assert "redacted from this output" in outcome.content
    # The value is gone whole: what is left is the program's own quoting around the mark.
    assert printed in QUOTED_MARKS, printed


QUOTED_MARKS = {
    shape.replace("M", REDACTED_MARK)
    for shape in (
        "'M'",
        '"M"',
        "{'X': 'M'}",
        "{'X': \"M\"}",
        '{"pw": "M"}',
        'declare -x X="M"',
        "declare -x X=$'M'",
        "X='M'",
        "X=$'M'",
        "export X='M'",
        "M",
        "$'M'",
    )
}


def test_a_private_key_in_a_json_file_is_redacted_by_read_file_and_cat(tmp_path):
    """A service-account file holds the key as one JSON string, line breaks as `\\n`."""
    account = {"type": "service_account", "private_key": PEM + "\n", "client_email": "a@b.c"}
    (tmp_path / "account.json").write_text(json.dumps(account, indent=2))
    box = make_box(tmp_path, PEM)
    read, grep, cat = (
        box.run("read_file", {"path": "account.json"}),
        box.run("grep", {"pattern": "private_key"}),
        box.run("bash", {"command": "cat account.json"}),
    )
    for outcome in (read, cat):
        assert "redacted from this output" in outcome.content, outcome.content
        assert pieces_in(outcome.content) == [], outcome.content
        assert f'"private_key": "{REDACTED_MARK}\\n",' in outcome.content
    assert grep.content.startswith("No matches")  # grep shows no line a secret touches
    assert '"client_email": "a@b.c"' in read.content and '"client_email": "a@b.c"' in cat.content


PRINTABLE = st.text(
    st.one_of(
        st.characters(min_codepoint=0x20, max_codepoint=0x7E),
        st.sampled_from("çüéß€日本\t\x1b\x7f\n"),
    ),
    min_size=8,
    max_size=40,
).filter(lambda text: text.strip() == text and len(text) >= 8)


BASH_SHAPES = {
    shape.replace("M", REDACTED_MARK)
    for shape in ('declare -x X="M"', "declare -x X=$'M'", "X='M'", "X=$'M'", "X=M")
}


def shell_output(argv: list[str], environment: dict[str, str]) -> str:
    done = subprocess.run(argv, env=environment, capture_output=True, check=True)
    return done.stdout.decode("utf-8")


@pytest.mark.fuzz
@fuzz_settings(0.04)
@given(secret=PRINTABLE)
# a value's own line break may take a gap (`secret_pieces.gap_pattern`); tried before the
# escaped spelling, it matched from one printed line's `00000` to the next one's `'0`
@example(secret="00000\n'0")
@example(secret="000000\n<")
def test_bash_and_dash_quoting_of_any_value_leaves_only_the_mark_between_the_quotes(secret):
    """The real shells quote random values (quotes, backslashes, `$`, backticks, non-ASCII
    letters, tab, escape, DEL, line breaks). After redaction, each assignment bash prints
    (`declare -p`, `set`, `printf %q`; C and UTF-8 locales) is the mark alone between its
    quotes, or the mark alone where `printf %q` needs none. dash
    (`export -p`) writes a quote at either end of the value as `"'"` outside the single
    quotes, so there the value's own end quotes may stay beside the mark: nothing else."""
    redactor = SecretRedactor([secret])
    for locale in ("C", "C.UTF-8"):
        environment = {"X": secret, "LC_ALL": locale, "PATH": os.environ["PATH"]}
        script = "declare -p X; set | grep -a '^X='; printf 'X=%q\\n' \"$X\""
        output = shell_output(["bash", "-c", script], environment)
        lines = redactor.redact(output).text.split("\n")
        assert len(lines) == 4 and set(lines[:3]) <= BASH_SHAPES, (locale, output, lines)
    output = shell_output(["dash", "-c", "export -p"], {"X": secret})  # and PWD
    shown = redactor.redact(output).text.split("export X=", 1)[1]
    assert REDACTED_MARK in shown and set(shown.replace(REDACTED_MARK, "")) <= set("'\"\n")


@pytest.mark.fuzz
@fuzz_settings(0.1)
@given(
    secret=st.text(
        st.characters(codec="utf-8", exclude_categories=["Cs"]), min_size=8, max_size=40
    ).filter(lambda text: text.strip() == text),
    before=st.text(max_size=20),
    after=st.text(max_size=20),
)
def test_python_and_json_quoting_of_any_value_is_redacted(secret, before, after):
    redactor = SecretRedactor([secret])
    for quoted in (
        repr(secret),
        ascii(secret),
        json.dumps(secret),
        json.dumps(secret, ensure_ascii=False),
        shlex.quote(secret),
    ):
        inside = secret if quoted == secret else quoted[1:-1]  # shlex leaves plain words
        redacted = redactor.redact(before + quoted + after)
        assert redacted.count >= 1
        assert inside not in redacted.text, (quoted, redacted.text)
