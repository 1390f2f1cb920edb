"""A secret that spans lines (a PEM private key) printed with a prefix before each line is
still one secret: `git diff`/`git show`/`git log -p` (`+`), `cat -n`, `nl`, `grep -n`,
`diff` (`> `), an indentation (a YAML block scalar), `read_file`'s own gutter.

The attack (seventh outside attack, S5): `DEPLOY_PRIVATE_KEY` is a key agent-cli knows,
and `bash cat` of the file is redacted; `git diff --cached; cat -n deploy/id_deploy`
sent every line of it, since redaction found whole forms only and a prefix on each line
broke the form. Forms now allow a short gap at each of the value's own line breaks
(`secret_pieces.LINE_GAP`), and every cut (`safe_cuts`) knows the longer occurrence.

The end-to-end test runs the installed `agent-cli` against the fake Messages API with
the real SDK, in a real git repository; the printers are the real programs.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from cuts_support import SECRET_ALPHABET
from e2e_support import build_env, run_piped
from fake_anthropic import Reply, start_fake_server, text_block, tool_use_block
from hostile_support import fuzz_settings
from hypothesis import assume, given
from hypothesis import strategies as st
from test_hostile_multiline_secrets import make_pem, pieces_in
from test_hostile_secret_redaction import tool_results

from agent_cli.safe_cuts import safe_head_end, safe_tail_start
from agent_cli.secret_forms import REDACTED_MARK, SecretForms, material_lines
from agent_cli.secret_pieces import LINE_PREFIX_CHARS, LINE_SUFFIX_CHARS
from agent_cli.tools.redaction import SecretRedactor

API_KEY = "sk-ant-FAKE-prefixed-0123456789abcdef"
PEM = make_pem(57)
KEY_FILE = "deploy/id_deploy"
PRINTERS = {
    "git diff --cached": "git diff --cached",
    "git show": "git show HEAD",
    "git log -p": "git log -p",
    "git diff --color=always": "git show --color=always HEAD",
    "cat -n": f"cat -n {KEY_FILE}",
    "nl": f"nl {KEY_FILE}",
    "grep -n": f"grep -n . {KEY_FILE}",
    "grep -rn": "grep -rn . deploy",
    "diff": f"diff /dev/null {KEY_FILE}",
    "diff -u": f"diff -u /dev/null {KEY_FILE}",
    "quoted with > ": f"sed 's/^/> /' {KEY_FILE}",
    "indented (YAML block scalar)": f"sed 's/^/    /' {KEY_FILE}",
    "awk NR": f"awk '{{print NR\": \"$0}}' {KEY_FILE}",
    "cat -A": f"cat -A {KEY_FILE}",
    "CRLF and cat -n": f"sed 's/$/\\r/' {KEY_FILE} | cat -n",
    "git blame": f"git blame {KEY_FILE}",
    "JSON list of lines": "python3 -c 'import json,sys; "
    f'print(json.dumps(open("{KEY_FILE}").read().splitlines(), indent=2))\'',
}


def git(workspace: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.email=t@example.com", "-c", "user.name=t", *args],
        cwd=workspace,
        check=True,
        capture_output=True,
    )


@pytest.fixture(scope="module")
def key_repository(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A git repository whose last commit adds the key, and a copy of it staged."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    workspace = tmp_path_factory.mktemp("repo")
    git(workspace, "init", "-q")
    (workspace / "deploy").mkdir()
    (workspace / KEY_FILE).write_text(PEM + "\n")
    git(workspace, "add", "-A")
    git(workspace, "commit", "-qm", "add the deploy key")
    (workspace / "deploy" / "id_staged").write_text(PEM + "\n")
    git(workspace, "add", "-A")
    return workspace


@pytest.mark.parametrize("printer", sorted(PRINTERS))
def test_a_key_printed_with_a_prefix_on_each_line_is_redacted(key_repository, printer):
    output = subprocess.run(
        PRINTERS[printer], shell=True, cwd=key_repository, capture_output=True, text=True
    ).stdout
    assert len(pieces_in(output)) >= 6  # the printer shows the key's lines
    redaction = SecretRedactor([PEM]).redact(output)
    assert pieces_in(redaction.text) == [], redaction.text
    assert redaction.count >= 1


@pytest.mark.e2e
def test_git_diff_and_numbered_listings_of_a_known_key_send_none_of_its_lines(tmp_path):
    workspace, home = tmp_path / "ws", tmp_path / "home"
    workspace.mkdir()
    git(workspace, "init", "-q")
    (workspace / "deploy").mkdir()
    (workspace / KEY_FILE).write_text(PEM + "\n")
    body = "\n".join(f"  {line}" for line in PEM.split("\n"))
    (workspace / "values.yml").write_text(f"deploy:\n  key: |\n{body}\n  user: ci\n")
    git(workspace, "add", "-A")
    command = (
        f"git diff --cached; cat -n {KEY_FILE}; nl {KEY_FILE}; grep -n . {KEY_FILE}; "
        f"diff /dev/null {KEY_FILE}; cat {KEY_FILE}"
    )
    calls = [
        ("bash", {"command": command}),
        ("read_file", {"path": "values.yml"}),
        ("read_file", {"path": "values.yml", "start_line": 4, "end_line": 6}),
    ]
    with start_fake_server(api_key=API_KEY) as fake:
        for number, (name, tool_input) in enumerate(calls):
            fake.enqueue(Reply([tool_use_block(f"toolu_{number}", name, tool_input)], "tool_use"))
        fake.enqueue(Reply([text_block("Checked the staged key.")]))
        env = {"ANTHROPIC_API_KEY": API_KEY, "ANTHROPIC_BASE_URL": fake.base_url}
        env["DEPLOY_PRIVATE_KEY"] = PEM
        done = run_piped(
            ["--yes"], cwd=workspace, env=build_env(home, env), stdin_text="show the diff\n"
        )
        bodies = [request.body for request in fake.requests]
    assert done.returncode == 0, done.stderr
    results = tool_results(bodies[-1])
    assert len(results) == len(calls)
    assert results[0].count(REDACTED_MARK) >= 6  # one for each printer
    assert "user: ci" in results[1]  # the YAML around the key is still read
    for where, text in (("requests", repr(bodies)), ("screen", done.stdout + done.stderr)):
        assert pieces_in(text) == [], where
    for path in home.rglob("*"):
        if path.is_file():
            assert pieces_in(path.read_bytes().decode("utf-8", "replace")) == [], path


secret_lines = st.lists(
    st.text(st.sampled_from(SECRET_ALPHABET), min_size=8, max_size=70), min_size=2, max_size=8
)
gap_text = st.text(st.characters(codec="utf-8", exclude_characters="\r\n"), max_size=12)


@st.composite
def prefixed_keys(draw: st.DrawFn) -> tuple[str, str, list[str], tuple[int, int]]:
    """(a secret of several lines, how a program printed it with a prefix and a suffix on
    each line, LF or CRLF, the lines of the secret, where in the printed text the secret
    begins and ends)."""
    lines = draw(secret_lines)
    numbered = draw(st.booleans())
    prefix = draw(st.one_of(gap_text, st.text(st.sampled_from(" \t+-<>:0123456789"))))
    prefix = prefix[: LINE_PREFIX_CHARS - (7 if numbered else 0)]
    suffix = draw(st.text(st.sampled_from(' \t$",\\'), max_size=LINE_SUFFIX_CHARS))
    assume(not any(line in prefix or line in suffix for line in lines))  # no line shown twice
    break_ = draw(st.sampled_from(["\n", "\r\n"]))
    gutters = [f"{n:>6}\t{prefix}" if numbered else prefix for n in range(1, len(lines) + 1)]
    shown = break_.join(
        f"{gutter}{line}{suffix}" for gutter, line in zip(gutters, lines, strict=True)
    )
    span = (len(gutters[0]), len(shown) - len(suffix))
    return "\n".join(lines), shown, lines, span


@fuzz_settings(0.3)
@given(key=prefixed_keys(), before=st.text(" ·\n", max_size=40), after=st.text(" ·\n", max_size=40))
def test_any_short_prefix_on_each_line_keeps_the_lines_one_secret(key, before, after):
    secret, shown, lines, _ = key
    secrets = SecretForms.from_values([secret])
    text = before + shown + after
    redacted = secrets.redact(text)
    assert not any(line in redacted for line in lines)
    spans = list(secrets.occurrences(text, 0, len(text)))
    assert spans and secrets.longest_match >= max(end - start for start, end in spans)


@fuzz_settings(0.3)
@given(key=prefixed_keys(), before=st.text(" ·\n", max_size=40), cut=st.integers(0, 2_000))
def test_no_cut_keeps_a_piece_of_a_prefixed_key(key, before, cut):
    secret, shown, lines, (first, last) = key
    secrets = SecretForms.from_values([secret])
    text = before + shown + " end"
    start, end = len(before) + first, len(before) + last
    head_end = safe_head_end(text, cut, secrets)
    assert head_end <= start or head_end >= end
    tail_start = safe_tail_start(text, cut, secrets)
    assert tail_start <= start or tail_start >= end
    stopped = text[: min(cut, len(text))]  # a command stopped there: the rest never came
    kept = stopped[: safe_head_end(stopped, len(stopped), secrets, stream_stopped=True)]
    assert len(kept) <= start or len(stopped) >= end


@fuzz_settings(0.2)
@given(
    lines=st.lists(st.text(SECRET_ALPHABET, min_size=4, max_size=20), min_size=2, max_size=4),
    blanks=st.integers(1, 12),
    prefix=st.sampled_from(["", "+", "     7\t", "> ", "    "]),
)
def test_a_value_with_runs_of_blank_lines_printed_with_prefixes_is_one_secret(
    lines, blanks, prefix
):
    """Eighth outside attack: a value holding blank lines in a row (a config export)
    made the gap regex try every way to split each blank line's text between two gaps:
    1.5 s for 1,000 characters at 7 blank lines, seven times more per line. The text
    between two line breaks of the value is now one possessive run, the same language:
    printed with a prefix on each line it is still one secret, and text near it (its
    first line repeated, then short lines) stays as it was but for that line when it is
    key material (`material_lines`)."""
    value = ("\n" * (blanks + 1)).join(lines)
    secrets = SecretForms.from_values([value])
    printed = "\n".join(prefix + line for line in value.split("\n"))
    assert secrets.redact(f"before\n{printed}\nafter") == f"before\n{prefix}{REDACTED_MARK}\nafter"
    rest = "a line\n" * blanks + "DB_HOST=db.internal\n"
    assume(lines[0] not in rest)
    # the value's first line alone is hidden when it is a line of key material
    first = REDACTED_MARK if lines[0] in material_lines(value) else lines[0]
    assert secrets.redact(f"{lines[0]}\n{rest}" * 10) == f"{first}\n{rest}" * 10


def test_a_value_that_ends_or_begins_with_a_line_break_takes_nothing_beside_it():
    """Review: the gap of a value's last line break took up to 80 characters of the next
    line (a `cat -n` listing lost `     3\tnext`), and that of a first line break up to
    8 characters before the value. A break at either end of the value takes no gap
    outside it; inside, lines still carry their prefixes."""
    body = "MIIBOgIBAAJBAKj34GkxFhD90vcN\nLYLInFEX6Ppy1tPf9Cnzj4p4WGeK"
    for value in (body + "\n", "\n" + body):
        secrets = SecretForms.from_values([value])
        lines = ["before", *body.split("\n"), "next line here"]
        listing = "".join(f"{n:6d}\t{line}\n" for n, line in enumerate(lines, 1))
        shown = secrets.redact(listing)
        assert "MIIB" not in shown and "LYLI" not in shown, shown
        assert "     1\tbefore" in shown and "     4\tnext line here" in shown, shown
