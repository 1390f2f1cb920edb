"""A long run of a secret, a hex dump of it, and a `/` escaped are redacted too.

The fourteenth outside attack: `env | grep TOKEN | cut -c1-48` sent 35 of a 40-character
`ghp_` token's characters, `cut -c1-40`, `cut -c5-` and `cut -c14-` of a 44-character
key 30 to 40 of its characters: only whole forms were found. `read_file` of a binary
file suggested `xxd`, whose grouped hex (`6870 5f52`) and text column (16 characters a
line) passed, as did `od -An -tx1`, `od -c` and `hexdump -C`. JSON's `\\/` (PHP's
default) and HTML's `&#x2F;`, `&#47;`, `&sol;` of an AWS secret key's slashes passed
whole.

The unit tests run the real programs (`cut`, `xxd`, `od`, `hexdump`) as the `bash` tool
of a `Toolbox`; the properties check any run, any cut and any stream split; the e2e
test runs the installed `agent-cli` against the fake Messages API with `--yes`.
"""

from __future__ import annotations

import html
import json
import shutil
from pathlib import Path

import pytest
from cuts_support import strings_in
from e2e_support import build_env, run_piped
from fake_anthropic import Reply, start_fake_server, text_block, tool_use_block
from hostile_support import fuzz_settings
from hypothesis import example, given
from hypothesis import strategies as st
from tools_support import FakeArtifactStore

from agent_cli.safe_cuts import safe_head_end, safe_tail_start
from agent_cli.secret_forms import REDACTED_MARK, SecretForms
from agent_cli.secret_runs import RUN_MIN_CHARS, run_least
from agent_cli.secret_spacing import GAP_CHARS
from agent_cli.tools import Toolbox
from agent_cli.tools.redaction import SecretRedactor, StreamRedactor

TOKEN = "ghp_R7x2Kq9LmN4pZ8vT3wY6bC1dF5gH0jS2aE7u"  # 40 characters: runs of 20 count
KEY = "sk-ant-api03-SECRETKEYVALUE1234567890abcdef"  # 43: runs of 22
AWS = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzQ9aXk2LmP"  # 40, three runs between slashes


def longest_piece(text: str, secret: str) -> int:
    """The most characters of `secret`, in a row, that `text` holds (the mark's letters
    are none of them)."""
    text = text.replace(REDACTED_MARK, "\0")
    best = 0
    for start in range(len(secret)):
        low, high = best + 1, len(secret) - start
        while low <= high:  # a piece's pieces are in `text` too: bisect the length
            middle = (low + high) // 2
            if secret[start : start + middle] in text:
                best, low = middle, middle + 1
            else:
                high = middle - 1
    return best


def toolbox(tmp_path: Path, environment: dict[str, str]) -> Toolbox:
    return Toolbox(
        tmp_path,
        FakeArtifactStore(),
        "s1",
        auto_approve=True,
        secret_environment={"PATH": "/usr/bin:/bin", **environment},
    )


def test_the_threshold_is_long_both_absolutely_and_against_the_value():
    assert run_least(TOKEN) == 20 and run_least(KEY) == 22 and run_least(AWS) == 20
    assert run_least("Zq9kx7Lm2Pw4Rt6Y") is None  # 16 characters: no shorter run counts
    assert run_least("Zq9kx7Lm2Pw4Rt6Yb8") == RUN_MIN_CHARS
    # no run of what is no token: a URL, a DSN, a phrase, letters alone
    for value in (
        "https://hooks.example.com/services/T0001/B0002/abcdef",
        "postgres://app:Zq9kx7Lm2Pw4@db.internal.example.com:5432/app",
        "correct horse battery staple 42",
        "correcthorsebatterystaplecorrecthorse",
    ):
        assert run_least(value) is None, value


@pytest.mark.parametrize(
    ("cut", "text", "secret"),
    [
        ("cut -c1-48 of GITHUB_TOKEN=", f"GITHUB_TOKEN={TOKEN}"[:48], TOKEN),
        ("cut -c1-40", KEY[:40], KEY),
        ("cut -c5-", KEY[4:], KEY),
        ("cut -c14-", KEY[13:], KEY),
        ("30 at the start", KEY[:30], KEY),
        ("30 at the end", KEY[-30:], KEY),
        ("30 in the middle", KEY[6:36], KEY),
        ("head -c 35", TOKEN[:35], TOKEN),
        ("the smallest run", TOKEN[7:27], TOKEN),
    ],
)
def test_a_long_run_of_a_secret_is_redacted_whole(cut, text, secret):
    redactor = SecretRedactor([TOKEN, KEY, AWS])
    line = f"x={text} and more\n"
    redaction = redactor.redact(line)
    assert redaction.count == 1, cut
    assert longest_piece(redaction.text, secret) < 4, (cut, redaction.text)
    assert redaction.text.endswith(" and more\n") and redaction.text.startswith("x=")


def test_the_attacks_cuts_run_by_bash_send_no_piece_of_the_secrets(tmp_path):
    (tmp_path / "k.txt").write_text(KEY + "\n")
    (tmp_path / ".env").write_text(f"HOME=/root\nGITHUB_TOKEN={TOKEN}\n")  # as `env` prints
    box = toolbox(tmp_path, {"GITHUB_TOKEN": TOKEN, "ANTHROPIC_API_KEY": KEY})
    for command in (
        "grep TOKEN .env | cut -c1-48",
        "cut -c1-40 k.txt",
        "cut -c5- k.txt",
        "cut -c14- k.txt",
        "head -c 30 k.txt",
        "grep TOKEN .env | cut -c14-40",
    ):
        outcome = box.run("bash", {"command": command})
        assert REDACTED_MARK in outcome.content, command
        for secret in (TOKEN, KEY):
            assert longest_piece(outcome.content, secret) < 12, (command, outcome.content)


def test_ordinary_text_that_shares_a_prefix_or_short_pieces_is_left_alone():
    redactor = SecretRedactor(
        [
            KEY,
            TOKEN,
            "https://hooks.example.com/services/T0001/B0002/Zq9kx7Lm2Pw4Rt6Y",
            "postgres://app:Zq9kx7Lm2Pw4Rt6Y@db.internal.example.com:5432/appdata",
        ]
    )
    ordinary = (
        "set ANTHROPIC_API_KEY=sk-ant-api03-... (see https://hooks.example.com/services/)\n"
        "connect to db.internal.example.com:5432/appdata as app\n"
        f"ids: {KEY[13:28]} {TOKEN[4:23]} {TOKEN[:19]}\n"  # 15 and 19 characters: too short
    )
    assert redactor.redact(ordinary).text == ordinary


@st.composite
def tokens(draw: st.DrawFn) -> str:
    alphabet = "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz0123456789"
    body = draw(st.text(alphabet, min_size=16, max_size=100))
    prefix = draw(st.sampled_from(["", "ghp_", "sk-ant-api03-", "xoxb-", "AKIA"]))
    return f"{prefix}{body}7a"


@pytest.mark.fuzz
@fuzz_settings(0.5)
@given(tokens(), st.data())
@example(TOKEN, None)
def test_any_run_at_the_threshold_is_hidden_wherever_it_stands(secret, data):
    least = run_least(secret)
    assert least is not None
    if data is None:
        start, end, before, after = 0, 35, "GITHUB_TOKEN=", "\n"
    else:
        start = data.draw(st.integers(0, len(secret) - least))
        end = data.draw(st.integers(start + least, len(secret)))
        before = data.draw(st.text(" =:\n\"'x", max_size=8))
        after = data.draw(st.text(" =:\n\"'x", max_size=8))
    redacted = SecretForms.from_values([secret]).redact(before + secret[start:end] + after)
    assert REDACTED_MARK in redacted
    assert longest_piece(redacted, secret) < 4, redacted


@pytest.mark.fuzz
@fuzz_settings(0.5)
@given(tokens(), st.data())
def test_text_holding_only_pieces_shorter_than_the_threshold_is_left_alone(secret, data):
    least = run_least(secret)
    assert least is not None
    pieces = data.draw(
        st.lists(
            st.tuples(st.integers(0, len(secret) - 1), st.integers(1, least - 1)),
            min_size=1,
            max_size=6,
        )
    )
    # each piece between more blanks than a spaced-out value's gap (`secret_spacing`): no
    # two join into a longer run, nor into one shown in pieces
    text = (" " * (GAP_CHARS + 1)).join(secret[start : start + size] for start, size in pieces)
    text += " !"
    assert SecretForms.from_values([secret]).redact(text) == text


@pytest.mark.fuzz
@fuzz_settings(0.5)
@given(tokens(), st.data())
def test_no_cut_leaves_a_run_long_enough_to_leak_on_either_side(secret, data):
    least = run_least(secret)
    assert least is not None
    forms = SecretForms.from_values([secret])
    start = data.draw(st.integers(0, len(secret) - least))
    text = ":: " + secret[start:] + " ;;\n"  # no character of a token beside it
    cut = data.draw(st.integers(0, len(text)))
    head = text[: safe_head_end(text, cut, forms)]
    tail = text[safe_tail_start(text, cut, forms) :]
    for part in (head, tail):  # the run stays whole on one side, and is redacted there
        assert longest_piece(forms.redact(part), secret) == 0, (cut, part)


@pytest.mark.fuzz
@fuzz_settings(0.5)
@given(tokens(), st.data())
def test_the_live_view_never_shows_a_run_whatever_the_pieces(secret, data):
    least = run_least(secret)
    assert least is not None
    start = data.draw(st.integers(0, len(secret) - least))
    output = f"TOKEN={secret[start:]}\nnext line\n".encode()
    cuts = sorted(data.draw(st.lists(st.integers(0, len(output)), max_size=6)))
    stream = StreamRedactor(SecretRedactor([secret]))
    shown = "".join(
        stream.feed(output[a:b]) for a, b in zip([0, *cuts], [*cuts, len(output)], strict=True)
    )
    shown += stream.finish()
    assert longest_piece(shown, secret) < 4 and shown.endswith("next line\n")


@pytest.mark.parametrize(
    "spelling",
    [
        AWS.replace("/", "\\/"),  # JSON, as PHP's json_encode writes it
        AWS.replace("/", "&#x2F;"),  # Python's html.escape does not; OWASP encoders do
        AWS.replace("/", "&#x2f;"),
        AWS.replace("/", "&#47;"),
        AWS.replace("/", "&#047;"),
        AWS.replace("/", "&sol;"),  # PHP's htmlentities with ENT_HTML5
        "\\/".join(AWS.split("/")[:2]) + "&#47;" + AWS.split("/")[2],  # each `/` either way
    ],
)
def test_a_slash_escaped_as_json_or_html_writes_it_is_redacted(spelling):
    redactor = SecretRedactor([AWS])
    line = f'{{"secret": "{spelling}"}}'
    assert redactor.redact(line).text == f'{{"secret": "{REDACTED_MARK}"}}'
    data, count = redactor.forms.redact_bytes(line.encode())
    assert count == 1 and data == f'{{"secret": "{REDACTED_MARK}"}}'.encode()


def test_a_slash_and_a_quote_escaped_together_are_redacted():
    secret = 'Tr0ub/4dor"&3/x'
    redactor = SecretRedactor([secret])
    assert redactor.redact(html.escape(secret).replace("/", "&#x2F;")).text == REDACTED_MARK
    assert redactor.redact(json.dumps(secret)[1:-1].replace("/", "\\/")).text == REDACTED_MARK


DUMPERS = {
    "xxd": "xxd app.db",
    "xxd -u": "xxd -u app.db",
    "xxd -g1": "xxd -g1 app.db",
    "od -An -tx1": "od -An -tx1 app.db",
    "od -tx1": "od -tx1 app.db",
    "od -c": "od -c app.db",
    "hexdump -C": "hexdump -C app.db",
    "sed spaced": "tr '\\0' '\\n' < app.db | grep ghp | sed 's/./& /g'",
}


@pytest.mark.parametrize("dumper", sorted(DUMPERS))
@pytest.mark.parametrize("offset", [0, 1, 7, 12, 15])
def test_a_hex_or_character_dump_of_a_binary_file_shows_no_piece_of_the_token(
    tmp_path, dumper, offset
):
    if shutil.which(DUMPERS[dumper].split()[0]) is None:
        pytest.skip(f"{dumper} is not installed")
    data = b"SQLite format 3\0" + b"x" * offset + b"github_token\0" + TOKEN.encode()
    (tmp_path / "app.db").write_bytes(data + b"\0" + b"ABCDEFGHIJKLMNOP" * 4)
    box = toolbox(tmp_path, {"GITHUB_TOKEN": TOKEN})
    outcome = box.run("bash", {"command": DUMPERS[dumper]})
    content = outcome.content
    assert REDACTED_MARK in content, content
    flat = "".join(content.split())
    assert longest_piece(content, TOKEN) < 8, content  # the text column, od -c's letters
    assert longest_piece(flat, TOKEN.encode().hex()) < 16, content  # its hex
    assert longest_piece(flat.lower(), TOKEN.encode().hex()) < 16, content
    if dumper != "sed spaced":  # the rest of the file stays
        kept = ("ABCD", "4142", "41 42", "A   B")
        assert any(rest in content for rest in kept), content


def test_a_dump_of_other_bytes_is_left_alone(tmp_path):
    (tmp_path / "app.db").write_bytes(b"SQLite format 3\0" + bytes(range(256)))
    box = toolbox(tmp_path, {"GITHUB_TOKEN": TOKEN})
    for command in ("xxd app.db", "od -An -tx1 app.db", "od -c app.db"):
        assert REDACTED_MARK not in box.run("bash", {"command": command}).content


def test_read_file_of_a_binary_file_suggests_tools_that_show_a_value_whole(tmp_path):
    (tmp_path / "app.db").write_bytes(b"SQLite format 3\0\x01\x02" * 20)
    box = toolbox(tmp_path, {})
    answer = box.run("read_file", {"path": "app.db"}).content
    assert "binary" in answer and "strings" in answer and "xxd" not in answer


AWS_FROM_ENVIRON = "tr '\\0' '\\n' </proc/$PPID/environ | grep ^AWS_SECRET | cut -d= -f2-"


@pytest.mark.e2e
def test_the_attacks_cuts_and_dumps_send_no_long_piece_of_a_token(tmp_path):
    home, workspace = tmp_path / "home", tmp_path / "ws"
    workspace.mkdir()
    (workspace / "k.txt").write_text(KEY + "\n")
    (workspace / "app.db").write_bytes(
        b"SQLite format 3\0" + b"\0" * 7 + b"github_token\0" + TOKEN.encode() + b"\0"
    )
    commands = (
        "env | grep TOKEN | cut -c1-48",
        "cut -c14- k.txt",
        "xxd app.db | head",
        "od -c app.db",
        f"{AWS_FROM_ENVIRON} | sed 's,/,\\\\/,g'",  # JSON's `\/`, as PHP writes it
        f"{AWS_FROM_ENVIRON} | sed 's,/,\\&#x2F;,g'",  # an HTML escaper's
    )
    with start_fake_server(api_key=KEY) as fake:
        fake.enqueue(
            *(
                Reply([tool_use_block(f"toolu_{n}", "bash", {"command": c})], "tool_use")
                for n, c in enumerate(commands)
            ),
            Reply([tool_use_block("toolu_r", "read_file", {"path": "app.db"})], "tool_use"),
            Reply([text_block("Done looking.")]),
        )
        env = build_env(
            home,
            {
                "ANTHROPIC_API_KEY": KEY,
                "ANTHROPIC_BASE_URL": fake.base_url,
                "GITHUB_TOKEN": TOKEN,
                "AWS_SECRET_ACCESS_KEY": AWS,
            },
        )
        done = run_piped(["--yes"], cwd=workspace, env=env, stdin_text="look around\n")
        bodies = [json.dumps(request.body) for request in fake.requests]
        strings = [strings_in(request.body) for request in fake.requests]
    assert done.returncode == 0, done.stderr
    assert "Done looking." in done.stdout
    last = strings[-1]
    assert last.count(REDACTED_MARK) >= len(commands), last[-3000:]
    assert "xxd" not in last.split("looks like a binary file")[-1][:200]
    written = [p.read_bytes().decode("utf-8", "replace") for p in home.rglob("*") if p.is_file()]
    for where, text in enumerate([*bodies, *strings, *written, done.stdout + done.stderr]):
        for secret in (TOKEN, KEY[13:]):
            assert longest_piece(text, secret) < 12, (where, secret)
        assert longest_piece(text.replace("\\/", "/").replace("\\\\", "\\"), AWS) < 14, where
