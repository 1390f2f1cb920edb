"""A secret that spans lines (a PEM private key) never leaves through numbered or
windowed views of a file: `read_file` (whole or any window) and `grep`'s lines.

The attack (found from outside): the key sits in `DEPLOY_PRIVATE_KEY` (a name the
redactor takes as a credential) and in the workspace file `deploy/id_deploy`. `bash cat`
of the file was redacted, but `read_file`, which needs no approval, sent every line of the
key: its line-number gutter broke the match, and windows (`start_line`/`end_line`) handed
the key out a few lines at a time; `grep` showed any line of it behind `path:N:`.

The end-to-end test runs the installed `agent-cli` as a real process against the fake
Messages API with the real SDK, on real files. The properties drive a `Toolbox` over real
files with random multi-line secrets, random lines around them and random windows, and
check what each shown line must be, line by line.
"""

from __future__ import annotations

import base64
import json
import random
import re
import tempfile
from pathlib import Path

import pytest
from cuts_support import SECRET_ALPHABET, leaked_piece, secret_occurrences, strings_in
from e2e_support import build_env, run_piped
from fake_anthropic import Reply, start_fake_server, text_block, tool_use_block
from hostile_support import fuzz_settings
from hypothesis import assume, given
from hypothesis import strategies as st
from test_hostile_secret_redaction import strings_in_json_lines, tool_results
from tools_support import FakeArtifactStore

from agent_cli.secret_forms import MAX_WRAPPED_CHARS, REDACTED_MARK, SecretForms
from agent_cli.secret_lines import context_chars, hide_in_lines
from agent_cli.tools import Toolbox

API_KEY = "sk-ant-FAKE-multiline-0123456789abcdef"


def make_pem(seed: int, size: int = 300) -> str:
    body = base64.b64encode(random.Random(seed).randbytes(size)).decode()
    lines = [body[i : i + 70] for i in range(0, len(body), 70)]
    return "\n".join(
        ["-----BEGIN OPENSSH PRIVATE KEY-----", *lines, "-----END OPENSSH PRIVATE KEY-----"]
    )


PEM = make_pem(8)
PEM_LINES = PEM.split("\n")
PEM_TOTAL = len(PEM_LINES)  # deploy/id_deploy holds the key and a final line break


def key_pieces(key: str) -> list[str]:
    """Every line of `key`, and both halves of each line long enough to be telling."""
    pieces = []
    for line in key.split("\n"):
        pieces.append(line)
        if len(line) >= 32:
            pieces += [line[: len(line) // 2], line[len(line) // 2 :]]
    return pieces


def pieces_in(text: str, key: str = PEM) -> list[str]:
    return [piece for piece in key_pieces(key) if piece in text]


def call(tool_id: str, name: str, tool_input: dict[str, object]) -> Reply:
    return Reply([tool_use_block(tool_id, name, tool_input)], stop_reason="tool_use")


WINDOWS = ((1, 1), (1, 3), (2, 2), (3, 5), (4, PEM_TOTAL), (PEM_TOTAL - 1, PEM_TOTAL + 5))
GREP_PIECE = PEM_LINES[3][20:32]  # a piece of one line of the key


@pytest.mark.e2e
def test_read_file_and_grep_send_no_line_of_a_multi_line_key_whole_or_windowed(tmp_path):
    home, workspace = tmp_path / "home", tmp_path / "ws"
    (workspace / "deploy").mkdir(parents=True)
    (workspace / "deploy" / "id_deploy").write_text(PEM + "\n")
    (workspace / "notes.txt").write_text(f"intro\nkey = {PEM} # end\nfooter\n")
    calls = [
        ("read_file", {"path": "deploy/id_deploy"}),
        *(
            ("read_file", {"path": "deploy/id_deploy", "start_line": a, "end_line": b})
            for a, b in WINDOWS
        ),
        ("read_file", {"path": "deploy/id_deploy", "start_line": 6}),
        ("read_file", {"path": "notes.txt"}),
        ("read_file", {"path": "notes.txt", "start_line": 3, "end_line": 4}),
        ("grep", {"pattern": GREP_PIECE.replace("+", ".").replace("/", ".")}),
        ("grep", {"pattern": "BEGIN OPENSSH"}),
        ("grep", {"pattern": "END OPENSSH"}),
        ("grep", {"pattern": ".", "path": "deploy"}),
    ]
    with start_fake_server(api_key=API_KEY) as fake:
        fake.enqueue(*(call(f"toolu_{n}", name, args) for n, (name, args) in enumerate(calls)))
        fake.enqueue(Reply([text_block("Looked at the deploy key.")]))
        env = build_env(
            home,
            {
                "ANTHROPIC_API_KEY": API_KEY,
                "ANTHROPIC_BASE_URL": fake.base_url,
                "DEPLOY_PRIVATE_KEY": PEM,
            },
        )
        done = run_piped([], cwd=workspace, env=env, stdin_text="look at the deploy key\n")
        bodies = [request.body for request in fake.requests]
    assert done.returncode == 0, done.stderr
    assert "Looked at the deploy key." in done.stdout
    results = tool_results(bodies[-1])
    assert len(results) == len(calls)
    reads, greps = results[:-4], results[-4:]
    for text in reads:  # every read met the key, and says something was redacted
        assert REDACTED_MARK in text and "redacted from this output" in text, text[:300]
    for text in greps:  # grep shows no line a secret touches (`grep_secrets`)
        assert text.startswith("No matches"), text[:300]
    whole, *windows = results[: 1 + len(WINDOWS)]
    assert whole.splitlines()[1:] == [f"{n:>6}\t{REDACTED_MARK}" for n in range(1, PEM_TOTAL + 1)]
    for (first, last), text in zip(WINDOWS, windows, strict=True):
        shown = range(first, min(last, PEM_TOTAL) + 1)
        assert f"(lines {first}-{shown[-1]} of {PEM_TOTAL})" in text.splitlines()[0]
        assert [f"{n:>6}\t{REDACTED_MARK}" for n in shown] == text.splitlines()[1 : 1 + len(shown)]
    notes = results[len(WINDOWS) + 2].splitlines()[1:]
    assert notes[0] == "     1\tintro" and notes[1] == f"     2\tkey = {REDACTED_MARK}"
    assert notes[8:] == [f"     9\t{REDACTED_MARK} # end", "    10\tfooter"]
    for where, body in enumerate(bodies):
        assert pieces_in(json.dumps(body)) == [], f"request {where}"
        assert pieces_in(strings_in(body)) == [], f"request {where}"
    for path in (p for p in home.rglob("*") if p.is_file()):
        text = path.read_bytes().decode("utf-8", "replace")
        assert pieces_in(text) == [] and pieces_in(strings_in_json_lines(text)) == [], path
    assert pieces_in(done.stdout + done.stderr) == []


# --- properties: random multi-line secrets, random lines around them, random windows ---

SECRET_LINE = st.text(st.sampled_from(SECRET_ALPHABET), min_size=1, max_size=76)
# Lines around the secret never hold a character a secret line may hold.
AROUND_LINE = st.text(st.sampled_from(" ·=:#"), max_size=30)


@st.composite
def files_with_a_secret(draw: st.DrawFn) -> tuple[str, list[str], list[str]]:
    """(the secret, the file's lines, what each line must show): the secret, of 2 to 12
    lines, once or twice between random lines, after some text on its first line and
    before some on its last."""
    secret_lines = draw(st.lists(SECRET_LINE, min_size=2, max_size=12))
    secret = "\n".join(secret_lines)
    if len(secret) < 8:
        secret_lines[0] += "x" * 8
        secret = "\n".join(secret_lines)
    # A line that repeats or stands inside another lets an occurrence run from one copy
    # into the next, taking the text before a copy's first line as its line gap (a short
    # prefix on each line belongs to an occurrence: `secret_pieces.LINE_GAP`); that text
    # is then hidden too, which the lines expected here do not say.
    assume(
        all(
            one not in other
            for i, one in enumerate(secret_lines)
            for j, other in enumerate(secret_lines)
            if i != j
        )
    )
    lines: list[str] = []
    expected: list[str] = []
    for _ in range(draw(st.integers(1, 2))):
        around = draw(st.lists(AROUND_LINE, max_size=5))
        lines += around
        expected += around
        prefix, suffix = draw(AROUND_LINE), draw(AROUND_LINE)
        lines += [prefix + secret_lines[0], *secret_lines[1:-1], secret_lines[-1] + suffix]
        middle = [REDACTED_MARK] * (len(secret_lines) - 2)
        expected += [prefix + REDACTED_MARK, *middle, REDACTED_MARK + suffix]
    tail = draw(st.lists(AROUND_LINE, max_size=5))
    return secret, lines + tail, expected + tail


def box_over(folder: Path, text: str, secret: str) -> Toolbox:
    (folder / "f.txt").write_text(text)
    environment = {"DEPLOY_PRIVATE_KEY": secret, "PATH": "/usr/bin:/bin"}
    return Toolbox(folder, FakeArtifactStore(), "s1", secret_environment=environment)


NEWLINES = st.sampled_from(["\n", "\r\n"])  # the file's line endings, whatever the value's


@pytest.mark.fuzz
@fuzz_settings(0.1)
@given(
    case=files_with_a_secret(),
    window=st.tuples(st.integers(1, 40), st.one_of(st.none(), st.integers(0, 40))),
    final_break=st.booleans(),
    newline=NEWLINES,
)
def test_any_window_of_read_file_shows_each_line_of_a_secret_as_the_mark_alone(
    case, window, final_break, newline
):
    secret, lines, expected = case
    first, length = window
    first = min(first, len(lines))
    arguments: dict[str, object] = {"path": "f.txt", "start_line": first}
    if length is not None:
        arguments["end_line"] = first + length
    with tempfile.TemporaryDirectory() as folder:
        ending = newline if final_break or lines[-1] == "" else ""  # else "" is no line
        box = box_over(Path(folder), newline.join(lines) + ending, secret)
        outcome = box.run("read_file", arguments)
    assert not outcome.is_error, outcome.content
    last = min(len(lines), first + (length if length is not None else 2000))
    shown = outcome.content.split("\n")[1 : 2 + last - first]
    assert shown == [f"{n:>6}\t{expected[n - 1]}" for n in range(first, last + 1)]
    # below the header: its own words ("held by agent-cli") may hold a line such as
    # "agent-cl", which Hypothesis draws from the code's strings
    body = outcome.content.partition("\n")[2]
    assert not any(line in body for line in secret.split("\n") if len(line) >= 8)
    assert ("redacted from this output" in outcome.content) == (REDACTED_MARK in "".join(shown))


@pytest.mark.fuzz
@fuzz_settings(0.1)
@given(
    case=files_with_a_secret(),
    which=st.integers(0, 11),
    span=st.tuples(st.integers(0, 75), st.integers(1, 12)),
    newline=NEWLINES,
)
def test_grep_shows_no_line_a_secret_touches(case, which, span, newline):
    """A pattern taken from a line of the secret finds nothing there: grep shows only
    lines no secret touches, as they are (`grep_secrets`)."""
    secret, lines, expected = case
    secret_lines = secret.split("\n")
    target = secret_lines[which % len(secret_lines)]
    start = span[0] % len(target)
    pattern = re.sub(r"[^A-Za-z0-9]", ".", target[start : start + span[1]])
    with tempfile.TemporaryDirectory() as folder:
        outcome = box_over(Path(folder), newline.join(lines) + newline, secret).run(
            "grep", {"pattern": pattern}
        )
    assert not outcome.is_error, outcome.content
    body = [line for line in outcome.content.split("\n")[1:] if line]
    for line in body:
        found = re.fullmatch(r"f\.txt:(\d+): (.*)", line)
        assert found is not None, outcome.content
        number = int(found.group(1))
        assert found.group(2) == lines[number - 1] == expected[number - 1]
    assert not any(line in "\n".join(body) for line in secret_lines if len(line) >= 8)


@pytest.mark.fuzz
@fuzz_settings(0.1)
@given(
    occurrence=secret_occurrences(),
    before=st.lists(AROUND_LINE, max_size=6),
    after=st.lists(AROUND_LINE, max_size=6),
    window=st.tuples(st.integers(0, 80), st.integers(0, 80)),
)
def test_a_window_with_its_context_hides_what_the_whole_text_hides(
    occurrence, before, after, window
):
    """Any form of a secret (value, hex, base64 at any alignment, wrapped or not) among
    random lines: a window cut with `context_chars` of lines either side shows exactly
    those lines of the whole text hidden, and no piece of the secret."""
    secret, form = occurrence
    forms = SecretForms.from_values([secret])
    lines = [*before, *form.split("\n"), *after]
    whole, _ = hide_in_lines(lines, 0, len(lines), forms)
    start = min(window[0], len(lines) - 1)
    stop = min(len(lines), start + 1 + window[1])
    low, reach = start, 0
    while low > 0 and reach < context_chars(forms):
        low -= 1
        reach += len(lines[low]) + 1
    high, reach = stop, 0
    while high < len(lines) and reach < context_chars(forms):
        reach += len(lines[high]) + 1
        high += 1
    shown, _ = hide_in_lines(lines[low:high], start - low, stop - low, forms)
    assert shown == whole[start:stop]
    assert leaked_piece("\n".join(shown), secret) is None


def test_a_long_key_with_windows_line_endings_is_hidden_by_every_tool(tmp_path):
    """A 4096-bit RSA key is longer than `MAX_WRAPPED_CHARS`, so its form matches only
    as it is, and a checkout with `\r\n` line endings held it differently."""
    key = make_pem(7, size=2350)
    assert len(key) > MAX_WRAPPED_CHARS
    (tmp_path / "f.txt").write_bytes((key.replace("\n", "\r\n") + "\r\n").encode())
    box = Toolbox(
        tmp_path,
        FakeArtifactStore(),
        "s1",
        auto_approve=True,
        secret_environment={"DEPLOY_PRIVATE_KEY": key, "PATH": "/usr/bin:/bin"},
    )
    lines = key.split("\n")
    outcomes = [
        box.run("read_file", {"path": "f.txt"}),
        box.run("read_file", {"path": "f.txt", "start_line": 5, "end_line": 9}),
        box.run("grep", {"pattern": "END OPENSSH"}),
        box.run("bash", {"command": "cat f.txt"}),
    ]
    for outcome in outcomes:
        assert not outcome.is_error, outcome.content[:400]
        assert pieces_in(outcome.content, key) == [], outcome.content[:400]
    assert all("redacted from this output" in o.content for o in (*outcomes[:2], outcomes[3]))
    assert outcomes[2].content.startswith("No matches")  # grep shows no line of a secret
    assert outcomes[1].content.split("\n")[1:6] == [
        f"{n:>6}\t{REDACTED_MARK}" for n in range(5, 10)
    ]
    shown = outcomes[0].content.split("\n")  # a header, the lines, the note on CRLF
    assert len(shown) == 2 + len(lines) and "ends with CRLF" in shown[-1]


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("named_with", ["\n", "\r\n", "\r"])
def test_a_key_file_with_the_other_line_endings_is_redacted_in_every_encoding(seed, named_with):
    """Eighth outside attack: a key known with LF line endings, its file checked out with
    CRLF (or saved with old Mac CR endings), was redacted when printed but went out whole
    JSON-quoted, in base64 and in hex: the encoded forms were made of the value's own line
    endings only."""
    pem = make_pem(seed)
    secrets = SecretForms.from_values([pem.replace("\n", named_with)])
    for ending in ("\n", "\r\n", "\r"):
        data = (pem.replace("\n", ending) + ending).encode()
        for shown in (
            data.decode(),
            json.dumps(data.decode()),
            base64.b64encode(data).decode(),
            data.hex(),
            data.hex().upper(),
        ):
            redacted = secrets.redact(shown)
            left = [part for part in redacted.split(REDACTED_MARK) if len(part) > 8]
            assert REDACTED_MARK in redacted and not left, (ending, left[:1])


ONE_LINE_PRINTERS = {
    "json list of lines": lambda key: json.dumps(key.splitlines()),
    "python readlines": lambda key: repr([line + "\n" for line in key.splitlines()]),
    "json of a prefixed diff": lambda key: json.dumps(
        {"patch": "".join(f"+{line}\n" for line in key.splitlines())}
    ),
    "json of a YAML block": lambda key: json.dumps(
        {"manifest": "key: |\n" + "".join(f"    {line}\n" for line in key.splitlines())}
    ),
    "json of cat -n": lambda key: json.dumps(
        "".join(f"{n:6d}\t{line}\n" for n, line in enumerate(key.splitlines(), 1))
    ),
}


@pytest.mark.parametrize("printer", sorted(ONE_LINE_PRINTERS))
@pytest.mark.parametrize("seed", range(3))
def test_a_key_printed_on_one_line_shows_none_of_its_lines(printer, seed):
    """Eighth outside attack: a key's lines printed with no line break between them (a
    JSON list of them, `print(f.readlines())`, a prefixed listing inside a JSON string,
    as the GitHub API returns a patch, or a record `recall` renders as JSON) matched no
    form: every line went out. Each material line of a multi-line value is a secret of
    its own (`secret_forms.material_lines`)."""
    key = make_pem(seed)
    shown = SecretForms.from_values([key]).redact(ONE_LINE_PRINTERS[printer](key))
    body = "\n".join(key.split("\n")[1:-1])  # the armour, which every key shares, stays
    assert pieces_in(shown, body) == [], shown[:200]
    assert "-----BEGIN" in shown


def test_the_ordinary_lines_of_a_named_config_are_not_secrets_of_their_own():
    """Review of the line rule: a named multi-line value that is a config (AWS
    credentials, a kubeconfig) made `[default]`, `region=us-east-1` and `clusters:`
    secrets everywhere, so every file read showed them as `[REDACTED]`. Only lines of
    key material (base64 or hex) are secrets of their own; the value whole still is."""
    config = "\n".join(
        [
            "[default]",
            "region=us-east-1",
            "clusters:",
            "aws_secret_access_key=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
            "certificate-authority-data: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0t",
        ]
    )
    secrets = SecretForms.from_values([config])
    ordinary = "[default]\nregion=us-east-1\nclusters:\n"
    assert secrets.redact(ordinary) == ordinary
    assert secrets.redact(f"x\n{config}\ny") == f"x\n{REDACTED_MARK}\ny"
