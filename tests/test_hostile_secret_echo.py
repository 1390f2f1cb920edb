"""No tool answer repeats the model's input, so no redaction mark tells a guess is right.

A seventh outside attack: `DB_PASSWORD=Autumn2023!Welcome` in the environment, in no file;
the model sent one grep whose pattern listed 3,360 guesses. grep's header repeated the
pattern, the whole answer was redacted, and `[REDACTED]` stood at the right guess (and
"[1 secret value ... redacted]" counted it): the password in one call, with no approval.
recall's search, read_file's and list_dir's "no such file", read_artifact's "cannot be
read" did the same. Each test here sends the same calls, holding a guess of the first
secret (as it is, or in any form the redactor knows: base64, hex, escaped, percent-encoded),
to two sessions that differ only in which secret of one length they hold, and asserts every
answer is the same text: then no call can tell anything about the secret. Calls the user
must approve are refused here (nobody can be asked), so their answers before approval are
checked too; what an approved command prints promises nothing (`tools.echo`).

The model also sees its own words again later: a recall of its message, a search through
it, the digest line compaction writes for its call. Those are checked the same way.
"""

from __future__ import annotations

import itertools
import re
import string
from pathlib import Path
from typing import Any

from hostile_support import SECRET_PAIR, fuzz_settings, same_length
from hypothesis import assume, given
from hypothesis import strategies as st
from session_support import ScriptedProvider, drain, make_session, tool_use

from agent_cli.compaction.markers import SOURCE_KEY, is_digest_message
from agent_cli.secret_forms import REDACTED_MARK, encoded_forms

CALL_ID = "toolu_guess"


def world(root: Path, secret: str) -> None:
    """The workspace both sessions share, holding `secret` where a project would."""
    (root / "docs").mkdir(parents=True, exist_ok=True)
    (root / ".git").mkdir(exist_ok=True)
    (root / ".git" / "config").write_text("[core]\n")
    (root / "README.md").write_text("hello\nworld\n")
    (root / ".env").write_text(f"DEBUG=1\nDB_PASSWORD={secret}\n")


def calls(probe: str) -> list[tuple[str, Any]]:
    """One call of every tool and error path, each holding `probe` where the model may
    put text: a pattern, a path, a glob, a pointer, a key, a tool's name."""
    alternatives = "|".join(re.escape(guess) for guess in ("Spring2019!x", probe, "zz-top"))
    return [
        ("grep", {"pattern": probe}),
        ("grep", {"pattern": f"^(?:{alternatives})$"}),
        ("grep", {"pattern": f"{re.escape(probe)}|hello"}),
        ("grep", {"pattern": "hello", "path": probe}),
        ("grep", {"pattern": "hello", "path": f"docs/{probe}"}),
        ("grep", {"pattern": "hello", "path": f".git/{probe}"}),
        ("grep", {"pattern": "hello", "glob": probe}),
        ("grep", {"pattern": "hello", "glob": f"[{probe}"}),
        ("grep", {"pattern": f"({probe}"}),
        ("grep", {"pattern": f"{probe}\nx"}),
        ("read_file", {"path": probe}),
        ("read_file", {"path": f"docs/{probe}.txt"}),
        ("read_file", {"path": f"README.md/{probe}"}),
        ("read_file", {"path": f"../{probe}"}),
        ("read_file", {"path": f"/{probe}"}),
        ("read_file", {"path": f"{probe}/../README.md"}),
        ("read_file", {"path": "README.md", "start_line": 3}),
        ("read_file", {"path": "README.md", "start_line": 2, "end_line": 1}),
        ("read_file", {"path": "README.md", probe: 1}),
        ("read_file", {probe: "README.md"}),
        ("list_dir", {"path": probe}),
        ("list_dir", {"path": f".git/{probe}"}),
        ("list_dir", {"path": f"docs/{probe}"}),
        ("write_file", {"path": probe, "content": probe}),
        ("write_file", {"path": f"docs/{probe}", "content": "x"}),
        ("write_file", {"path": "README.md", "content": f"{probe} {REDACTED_MARK}"}),
        ("write_file", {"path": ".env", "content": f"DB_PASSWORD={REDACTED_MARK} {probe}"}),
        ("edit_file", {"path": "README.md", "old_string": probe, "new_string": "x"}),
        ("edit_file", {"path": ".env", "old_string": probe, "new_string": "x"}),
        ("edit_file", {"path": probe, "old_string": "a", "new_string": "b"}),
        ("bash", {"command": f"echo {probe}"}),
        ("read_artifact", {"pointer": probe}),
        ("read_artifact", {"pointer": f"artifact:{probe}"}),
        ("read_artifact", {"pointer": f"artifact:s1:{probe}:0123456789ab"}),
        ("recall", {"search": probe}),
        ("recall", {"pattern": re.escape(probe)}),
        ("recall", {"pattern": f"({probe}"}),
        ("recall", {"pointer": probe}),
        ("recall", {"pointer": f"transcript:{probe}:1"}),
        ("recall", {"pointer": f"artifact:s1:{probe}:0123456789ab"}),
        ("recall", {"search": probe, "pointer": probe}),
        (probe, {}),
        (f"mcp__srv__{probe}", {"x": probe}),
    ]


def normalized(text: str, session: Any, workspace: Path) -> str:
    """`text` without what differs between two sessions by construction: the session id
    (and so a record's digest) and the workspace folder."""
    text = text.replace(session.session_id, "<session>").replace(str(workspace), "<ws>")
    return re.sub(r"sha256 [0-9a-f]{64}", "sha256 <digest>", text)


def answers(tmp_path: Path, secret: str, probe: str) -> list[tuple[str, bool, str]]:
    """What one session holding `secret` answers to every call of `calls(probe)`."""
    world(tmp_path, secret)
    session = make_session(
        tmp_path, ScriptedProvider(), auto_approve=False, environment={"DB_PASSWORD": secret}
    )
    try:
        drain(session.run_turn("look around"))  # a transcript for recall to read
        found = []
        for name, tool_input in calls(probe):
            outcome = session.toolbox.run(name, tool_input)
            found.append(
                (
                    normalized(outcome.content, session, tmp_path),
                    outcome.is_error,
                    normalized(outcome.summary, session, tmp_path),
                )
            )
        return found
    finally:
        session.close()


def assert_same(one: list[Any], two: list[Any], probe: str) -> None:
    for index, (first, second) in enumerate(zip(one, two, strict=True)):
        assert first == second, (calls(probe)[index], first, second)


# the tool names and the codes recall's refusals quote ("denied (not_authorized)")
FIXED_WORDS = (
    "read_file write_file edit_file list_dir grep bash read_artifact recall "
    "not_authorized authorize_failed"
)
PROBE_EDGES = st.sampled_from(["", "x", "a/", "-- ", "'", "%"])


@fuzz_settings(0.04)
@given(**SECRET_PAIR, which=st.integers(0, 10_000), before=PROBE_EDGES, after=PROBE_EDGES)
def test_no_tool_tells_two_secrets_apart_by_repeating_a_guess(
    tmp_path_factory, first, second, chars, which, before, after
):
    """Every tool and error path, given a guess of the first secret in any of its forms:
    the same answers whether the session holds that secret or another of its length."""
    second = same_length(first, second)
    # a secret that is a piece of the product's own words ("Available tools: ...,
    # read_artifact") is redacted there whatever the guess: not what this property asks
    assume(not any(secret.lower() in FIXED_WORDS for secret in (first, second)))
    forms = sorted(encoded_forms(first))
    probe = before + forms[which % len(forms)] + after
    tmp_path = tmp_path_factory.mktemp("echo")
    assert_same(answers(tmp_path, first, probe), answers(tmp_path, second, probe), probe)


SEASONS = ["Spring", "Summer", "Autumn", "Winter", "Fall", "January", "March", "June"]
WORDS = ["Welcome", "Password", "Company", "Secure", "Admin", "Login", "Secret", "Access"]
GUESSES = [
    f"{season}{year}{mark}{word}"
    for season, year, mark, word in itertools.product(SEASONS, range(2019, 2026), "!@#.", WORDS)
]
PASSWORD = "Autumn2023!Welcome"  # one of the guesses
OTHER = "Zq7#Rk2mXv9!pW4tYc"  # none of them, as long


def test_one_grep_of_thousands_of_guesses_answers_the_same_whatever_the_password(tmp_path):
    """The attack's shape: one grep, 1,792 guesses, the password among them."""
    assert PASSWORD in GUESSES and OTHER not in GUESSES and len(OTHER) == len(PASSWORD)
    pattern = "^(?:" + "|".join(re.escape(guess) for guess in GUESSES) + ")$"
    seen = []
    for name, secret in (("a", PASSWORD), ("b", OTHER)):
        (tmp_path / name).mkdir()
        (tmp_path / name / "README.md").write_text("hello\n")
        session = make_session(
            tmp_path / name, ScriptedProvider(), environment={"DB_PASSWORD": secret}
        )
        try:
            seen.append(session.toolbox.run("grep", {"pattern": pattern}))
        finally:
            session.close()
    assert seen[0] == seen[1]
    assert seen[0].content == "No matches under . (1 file searched)."
    assert REDACTED_MARK not in seen[0].content and "redacted" not in seen[0].content


def own_words_seen_again(tmp_path: Path, secret: str, guesses: str) -> list[str]:
    """The model writes `guesses` as a grep pattern and in its answer; what it is shown
    of its own words afterwards: the recall of both messages, searches through them, and
    the digest line compaction writes for the call."""
    (tmp_path / "README.md").write_text("hello\n")
    steps: list[Any] = [
        [tool_use(CALL_ID, "grep", pattern=guesses)],
        [{"type": "text", "text": f"My guesses: {guesses}"}],
    ]
    session = make_session(
        tmp_path,
        ScriptedProvider(steps),
        keep_recent=2,
        environment={"DB_PASSWORD": secret},
    )
    try:
        drain(session.run_turn("guess the password"))
        mine = [m[SOURCE_KEY] for m in session.view if m.get("role") == "assistant"]
        seen = [session.toolbox.run("recall", {"pointer": pointer}).content for pointer in mine]
        word = guesses.split("|")[0]
        seen.append(session.toolbox.run("recall", {"search": f"guesses {word}"}).content)
        seen.append(session.toolbox.run("recall", {"pattern": re.escape(PASSWORD)}).content)
        seen.append(session.toolbox.run("recall", {"pattern": r"My guesses: \S+"}).content)
        for turn in range(3):
            drain(session.run_turn(f"and now {turn}"))
        drain(session.compact_now())
        digests = [m for m in session.view if is_digest_message(m)]
        assert digests, "compaction wrote a digest"
        seen += [str(message["content"]) for message in digests]
        return [normalized(text, session, tmp_path) for text in seen]
    finally:
        session.close()


def test_the_models_own_guesses_recalled_or_digested_tell_nothing(tmp_path):
    """Written in a call and an answer, then read back by recall (pointer, words,
    regex) and by the digest: the same text whichever password the session holds."""
    guesses = "|".join(GUESSES[:3] + [PASSWORD] + GUESSES[3:80])  # within a digest line
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    one = own_words_seen_again(tmp_path / "a", PASSWORD, guesses)
    two = own_words_seen_again(tmp_path / "b", OTHER, guesses)
    assert one == two
    assert all(REDACTED_MARK not in text for text in one)
    assert PASSWORD in one[0] and PASSWORD in one[1]  # as the model wrote them
    assert f"grep pattern={GUESSES[0]}|" in one[-1] and PASSWORD in one[-1]  # as written


def test_a_secret_the_user_typed_is_still_redacted_when_recalled(tmp_path):
    """What this run recorded is shown as recorded, but for the user's own words: a
    password the user pasted is not handed back by recall or its search."""
    (tmp_path / "README.md").write_text("hello\n")
    session = make_session(tmp_path, ScriptedProvider(), environment={"DB_PASSWORD": PASSWORD})
    try:
        drain(session.run_turn(f"the database password is {PASSWORD}, keep it safe"))
        pointer = session.view[0][SOURCE_KEY]
        page = session.toolbox.run("recall", {"pointer": pointer}).content
        found = session.toolbox.run("recall", {"search": "database password"}).content
        probe = session.toolbox.run("recall", {"pattern": "password is Autumn"}).content
    finally:
        session.close()
    for text in (page, found):
        assert f"password is {REDACTED_MARK}" in text and PASSWORD not in text
    assert "no match" in probe


def test_an_exception_text_that_repeats_the_input_is_not_passed_on(tmp_path, monkeypatch):
    """A tool failing in a way nobody planned: its exception's text is shown only when
    it repeats none of the input (here it would, and is not)."""
    from agent_cli.tools import file_tools

    def broken(*args: Any) -> Any:
        raise ValueError(f"cannot handle {args[1]!r}")

    monkeypatch.setattr(file_tools, "_resolve_file", broken)
    (tmp_path / "README.md").write_text("hello\n")
    seen = []
    for secret in (PASSWORD, OTHER):
        session = make_session(tmp_path, ScriptedProvider(), environment={"DB_PASSWORD": secret})
        try:
            seen.append(session.toolbox.run("read_file", {"path": PASSWORD}).content)
        finally:
            session.close()
    assert (
        seen[0]
        == seen[1]
        == ("read_file failed unexpectedly (ValueError: its text repeats the input).")
    )


def test_ripgreps_words_for_a_bad_pattern_are_kept_without_the_pattern(tmp_path):
    (tmp_path / "README.md").write_text("hello\n")
    session = make_session(tmp_path, ScriptedProvider(), environment={"DB_PASSWORD": PASSWORD})
    try:
        bad = session.toolbox.run("grep", {"pattern": f"({PASSWORD}"}).content
        glob = session.toolbox.run("grep", {"pattern": "x", "glob": f"[{PASSWORD}"}).content
        regex = session.toolbox.run("recall", {"pattern": f"({PASSWORD}"}).content
    finally:
        session.close()
    assert "unclosed group" in bad and "unclosed group" in regex
    assert "unclosed character class" in glob
    assert all(PASSWORD not in text and REDACTED_MARK not in text for text in (bad, glob, regex))


def test_the_echo_check_looks_at_windows_of_the_input_only():
    from agent_cli.tools.echo import ECHO_WINDOW, free_of_input, repeats_input

    guess = string.ascii_letters[:20]
    assert repeats_input(f"said: {guess[5 : 5 + ECHO_WINDOW]}!", [guess])
    assert not repeats_input(f"said: {guess[5 : 5 + ECHO_WINDOW - 1]}!", [guess])
    assert free_of_input("unclosed group", [guess], "hidden") == "unclosed group"
