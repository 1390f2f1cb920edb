"""No tool answer tells anything about a secret's value: grep and edit_file are no oracle.

An outside attack had the model send 240 grep calls shaped `^GITHUB_TOKEN=.{i}[a-m]` at a
`.env` holding the token: every line shown was redacted, but match or no match is one bit
a call, and the next answer spelled the token out, with no approval asked. Each test here
runs the same calls over two workspaces that differ only in the secret's value (the
toolbox redacting that value, as a session redacts its environment's), and asserts the
two answers are the same text: then no call can tell anything about the secret.
edit_file was the same oracle ("old_string was not found" came back without asking, a
found prefix asked for approval), and write_file could put `[REDACTED]`, copied from
read_file, in place of the user's secret.
"""

from __future__ import annotations

import string
from pathlib import Path

from hostile_support import PROBE_AT, SECRET_PAIR, fuzz_settings, probe_class, same_length
from hypothesis import assume, given
from hypothesis import strategies as st
from tools_support import FakeArtifactStore

from agent_cli.tools import Toolbox
from agent_cli.tools.workspace import SKIPPED_DIRECTORY_NAMES

TOKEN_A = "ghp_AAAAbbbbCCCCdddd0000111122223333"
TOKEN_B = "ghp_zzzzYYYYxxxxWWWW9999888877776666"
PEM_LINES = 5


def box_with(
    tmp_path: Path,
    name: str,
    token: str,
    files: dict[str, str | bytes],
    variable: str = "GITHUB_TOKEN",
    asked: list[object] | None = None,
    encoding: str = "utf-8",
) -> Toolbox:
    """A toolbox over a fresh workspace holding `files` (`{TOKEN}` stands for `token`, in
    a file's text and its name; text is written in `encoding`), redacting `token` as the
    environment's `variable`."""
    workspace = tmp_path / name
    workspace.mkdir()
    for relative, text in files.items():
        path = workspace / relative.replace("{TOKEN}", token)
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            path.write_bytes(text.replace(b"{TOKEN}", token.encode()))
        else:
            path.write_bytes(text.replace("{TOKEN}", token).encode(encoding))
    environment = {variable: token, "PATH": "/usr/bin:/bin"}

    def refuse(request: object) -> bool:  # the user says no to everything, and it is noted
        if asked is not None:
            asked.append(request)
        return False

    return Toolbox(
        workspace, FakeArtifactStore(), "s1", ask_permission=refuse, secret_environment=environment
    )


def answers(
    box: Toolbox, patterns: list[str], path: str = ".", glob: str | None = None
) -> list[str]:
    extra = {"glob": glob} if glob is not None else {}
    return [box.run("grep", {"pattern": p, "path": path, **extra}).content for p in patterns]


def probes(token: str) -> list[str]:
    """Patterns that would each tell one bit of `token` if matches on its line counted."""
    found = []
    for at, char in enumerate(token):
        found.append(f"^GITHUB_TOKEN=.{{{at}}}{char}")  # true for this token
        found.append(f"^GITHUB_TOKEN=.{{{at}}}[a-m]")
        found.append(f"REDACT|^GITHUB_TOKEN=.{{{at}}}[{string.ascii_uppercase}]")
    return found


ENV_FILE = "DEBUG=1\nGITHUB_TOKEN={TOKEN}\nREGION=eu-west-1\n"


def test_probing_a_token_character_by_character_gets_the_same_answers_for_any_token(tmp_path):
    files: dict[str, str | bytes] = {".env": ENV_FILE}
    patterns = probes(TOKEN_A) + probes(TOKEN_B)
    first = answers(box_with(tmp_path, "a", TOKEN_A, files), patterns, ".env")
    second = answers(box_with(tmp_path, "b", TOKEN_B, files), patterns, ".env")
    assert first == second
    assert all(answer.startswith("No matches") for answer in first)


def test_the_other_lines_of_a_file_holding_a_secret_are_still_found(tmp_path):
    box = box_with(tmp_path, "a", TOKEN_A, {".env": ENV_FILE})
    outcome = box.run("grep", {"pattern": "=", "path": ".env"})
    assert ".env:1: DEBUG=1" in outcome.content and ".env:3: REGION=eu-west-1" in outcome.content
    assert "GITHUB_TOKEN" not in outcome.content and "2 matches in 1 file" in outcome.content


def test_a_secret_line_does_not_count_towards_the_match_cap(tmp_path):
    """199 plain matches and the token's line: a probe that matched it would reach the
    cap of 200 and say so; neither answer may differ."""
    text = "".join(f"needle {n}\n" for n in range(199)) + "GITHUB_TOKEN={TOKEN}\n"
    patterns = ["needle|^GITHUB_TOKEN=ghp_A", "needle|^GITHUB_TOKEN=ghp_z"]
    first = answers(box_with(tmp_path, "a", TOKEN_A, {"notes.txt": text}), patterns)
    second = answers(box_with(tmp_path, "b", TOKEN_B, {"notes.txt": text}), patterns)
    assert first == second
    assert all("199 matches in 1 file" in a and "cap" not in a for a in first)


def test_a_key_spanning_lines_shows_none_of_its_lines(tmp_path):
    """A PEM-like value over several lines (as a private key in the environment): a
    probe of any of its lines gets nothing, the lines around it are found."""

    def pem(token: str) -> str:
        body = "\n".join(token[n : n + 8] for n in range(0, len(token), 8))
        return f"-----BEGIN KEY-----\n{body}\n-----END KEY-----"

    lines = [line for token in (TOKEN_A, TOKEN_B) for line in pem(token).split("\n")]
    patterns = [f"^{line[:4]}" for line in lines] + ["^#|^end"]
    files: dict[str, str | bytes] = {"deploy/key.pem": "# deploy key\n{TOKEN}\nend\n"}
    results = [
        answers(box_with(tmp_path, name, pem(token), files, "DEPLOY_PRIVATE_KEY"), patterns)
        for name, token in (("a", TOKEN_A), ("b", TOKEN_B))
    ]
    assert results[0] == results[1]
    assert all(answer.startswith("No matches") for answer in results[0][:-1])
    assert "key.pem:1: # deploy key" in results[0][-1] and "key.pem:9: end" in results[0][-1]


def test_a_binary_file_holding_a_secret_is_counted_the_same_whether_a_probe_matches(tmp_path):
    files: dict[str, str | bytes] = {"blob.bin": b"\x00\x01GITHUB_TOKEN={TOKEN}\x00"}
    patterns = ["GITHUB_TOKEN=ghp_A", "GITHUB_TOKEN=ghp_z"]
    first = answers(box_with(tmp_path, "a", TOKEN_A, files), patterns)
    second = answers(box_with(tmp_path, "b", TOKEN_B, files), patterns)
    assert first == second


@fuzz_settings(0.2)
@given(
    **SECRET_PAIR,
    at=PROBE_AT,
    before=st.lists(st.text(string.ascii_lowercase + " =", max_size=20), max_size=4),
)
def test_no_pattern_tells_two_secrets_of_one_length_apart(
    tmp_path_factory, first, second, at, chars, before
):
    second = same_length(first, second)
    text = "\n".join([*before, "GITHUB_TOKEN={TOKEN}", "tail = 1"]) + "\n"
    klass = probe_class(chars)
    patterns = [f"^GITHUB_TOKEN=.{{{at}}}[{klass}]", f"tail|GITHUB_TOKEN=.{{{at}}}[{klass}]"]
    tmp_path = tmp_path_factory.mktemp("oracle")
    one = answers(box_with(tmp_path, "a", first, {".env": text}), patterns, ".env")
    two = answers(box_with(tmp_path, "b", second, {".env": text}), patterns, ".env")
    assert one == two


ENCODINGS = ("utf-8", "utf-16", "utf-16-be", "utf-32", "latin-1")


@fuzz_settings(0.2)
@given(
    **SECRET_PAIR,
    at=PROBE_AT,
    encoding=st.sampled_from(ENCODINGS),
    line_end=st.sampled_from(["\n", "\r\n"]),
)
def test_no_pattern_tells_two_secrets_apart_in_any_encoding_or_file_name(
    tmp_path_factory, first, second, at, chars, encoding, line_end
):
    """A fifth outside attack: rg read a UTF-16 (BOM) `.env` as text while the secret
    check read its bytes as UTF-8 and found no secret, and grep's "[1 match left out]"
    came back only when a probe matched the token; a file named with a line feed did the
    same. The answers, notes included, are the same for any two secrets of one length."""
    second = same_length(first, second)
    text = line_end.join(["REGION=eu", "GITHUB_TOKEN={TOKEN}", "tail = 1", ""])
    klass = probe_class(chars)
    probe = f"GITHUB_TOKEN=.{{{at}}}[{klass}]"
    patterns = [probe, f"^{probe}", f"tail|{probe}", f"^[{klass}]$", "tail"]
    files: dict[str, str | bytes] = {".env": text, "deploy\nnotes.env": text}
    tmp_path = tmp_path_factory.mktemp("encodings")
    one = answers(box_with(tmp_path, "a", first, files, encoding=encoding), patterns)
    two = answers(box_with(tmp_path, "b", second, files, encoding=encoding), patterns)
    assert one == two
    assert not any("left out" in answer for answer in one)


def test_a_utf16_env_holding_a_token_answers_no_probe(tmp_path):
    files: dict[str, str | bytes] = {".env": "REGION=eu\r\nGITHUB_TOKEN={TOKEN}\r\n"}
    patterns = [f"GITHUB_TOKEN={t[:n]}" for t in (TOKEN_A, TOKEN_B) for n in range(4, 12)]
    first = answers(box_with(tmp_path, "a", TOKEN_A, files, encoding="utf-16"), patterns, ".env")
    second = answers(box_with(tmp_path, "b", TOKEN_B, files, encoding="utf-16"), patterns, ".env")
    assert first == second
    assert all(answer.startswith("No matches") and "left out" not in answer for answer in first)


@fuzz_settings(0.2)
@given(
    **SECRET_PAIR,
    known=PROBE_AT,
)
def test_no_glob_tells_two_secrets_in_file_names_apart(
    tmp_path_factory, first, second, known, chars
):
    """A fifth outside attack: `glob: cache/ghp_Z[q]*.json` found a file named after the
    token (one match or none), one character at a time. Such a file is absent to grep."""
    second = same_length(first, second)
    # a secret spelled as a folder no search enters (`node_modules`) is skipped by name,
    # not as a secret: no oracle, but the two boxes would answer apart
    assume(not {first, second} & SKIPPED_DIRECTORY_NAMES)
    files: dict[str, str | bytes] = {
        "cache/{TOKEN}.json": '{"scopes": "repo"}\n',
        "cache/settings.json": '{"theme": "dark"}\n',
        "keys/{TOKEN}/notes.txt": "scopes\n",
    }
    klass = "".join(dict.fromkeys(c for c in chars if c not in "-]^\\")) or "a"
    globs = (
        [f"cache/{token[:known]}[{klass}]*.json" for token in (first, second)]
        + [f"keys/{token[:known]}[{klass}]*/*" for token in (first, second)]
        + ["*", "cache/*"]
    )
    tmp_path = tmp_path_factory.mktemp("names")
    boxes = [box_with(tmp_path, n, token, files) for n, token in (("a", first), ("b", second))]
    one, two = ([answers(box, ["scopes|theme"], glob=g)[0] for g in globs] for box in boxes)
    assert one == two
    assert "1 match in 1 file" in one[-1] and "settings.json" in one[-1]


def test_probing_a_token_with_edit_file_gets_the_same_answers_and_asks_no_one(tmp_path):
    files: dict[str, str | bytes] = {".env": ENV_FILE}
    olds = [f"GITHUB_TOKEN={t[:n]}" for t in (TOKEN_A, TOKEN_B) for n in range(4, len(t) + 1)]
    olds += [t[n : n + 3] for t in (TOKEN_A, TOKEN_B) for n in range(len(t) - 2)]
    results, asked = [], []
    for name, token in (("a", TOKEN_A), ("b", TOKEN_B)):
        box = box_with(tmp_path, name, token, files, asked=asked)
        results.append(
            [
                box.run("edit_file", {"path": ".env", "old_string": old, "new_string": "x"}).content
                for old in olds
            ]
        )
    assert results[0] == results[1]
    assert all("was not found" in answer for answer in results[0]) and asked == []
    assert (tmp_path / "a" / ".env").read_text() == ENV_FILE.replace("{TOKEN}", TOKEN_A)


def test_edit_file_changes_the_lines_around_a_secret_and_keeps_it(tmp_path):
    box_with(tmp_path, "a", TOKEN_A, {".env": ENV_FILE})  # the workspace; this box says yes
    box = Toolbox(
        tmp_path / "a",
        FakeArtifactStore(),
        "s1",
        auto_approve=True,
        secret_environment={"GITHUB_TOKEN": TOKEN_A},
    )
    done = box.run("edit_file", {"path": ".env", "old_string": "DEBUG=1", "new_string": "DEBUG=0"})
    assert not done.is_error, done.content
    assert (tmp_path / "a" / ".env").read_text() == ENV_FILE.replace("{TOKEN}", TOKEN_A).replace(
        "DEBUG=1", "DEBUG=0"
    )


def test_write_file_refuses_to_put_the_redaction_mark_over_a_secret(tmp_path):
    asked: list[object] = []
    box = box_with(tmp_path, "a", TOKEN_A, {".env": ENV_FILE}, asked=asked)
    shown = box.run("read_file", {"path": ".env"}).content
    assert "GITHUB_TOKEN=[REDACTED]" in shown
    rewrite = "DEBUG=0\nGITHUB_TOKEN=[REDACTED]\nREGION=eu-west-1\n"
    refused = box.run("write_file", {"path": ".env", "content": rewrite})
    assert refused.is_error and "secret would be lost" in refused.content and asked == []
    assert (tmp_path / "a" / ".env").read_text() == ENV_FILE.replace("{TOKEN}", TOKEN_A)
    # content without the mark is a write like any other: the user is asked
    box.run("write_file", {"path": ".env", "content": "DEBUG=0\n"})
    assert len(asked) == 1
