"""What an earlier session cut before a secret was known keeps no piece of it once it is
(`cut_pieces.hide_cut_pieces`; seventh outside attack, S7 and S1's windows).

Each property records a result the way session 1 did, with no secret known, through the
real producer of a cut (a `Toolbox` over real files: the spill preview, grep's long
lines, the bash output cap, `read_artifact` ranges, `read_file` windows; L1's cut; a
recall search excerpt), with the cut falling anywhere in the value. Then the value is
named a secret: what a resumed view sends (`hide_cut_pieces`, then redacted) holds no
piece of any of its forms (`cuts_support.leaked_piece`), and the same result made with
the value's characters replaced is not changed at all: an edge that holds no piece
keeps its text.
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Callable
from pathlib import Path

from compaction_support import make_counter
from cuts_support import (
    LEAK_CHARS,
    SECRET_ALPHABET,
    PaddedSecret,
    flat,
    leaked_piece,
    padded_secrets,
    stand_in,
)
from hostile_support import fuzz_settings
from hypothesis import assume, example, given
from hypothesis import strategies as st
from test_hostile_multiline_secrets import make_pem, pieces_in
from tools_support import FakeArtifactStore

from agent_cli.compaction.layers.truncate import build_truncated_text
from agent_cli.cut_pieces import MIN_PIECE_CHARS, hide_cut_pieces
from agent_cli.recall_search import build_excerpt
from agent_cli.secret_forms import NO_SECRETS, REDACTED_MARK, SecretForms
from agent_cli.tools import Toolbox

CLEAN_ENVIRONMENT = {"PATH": "/usr/bin:/bin"}  # session 1 knew no secret
# One byte, in no form of any drawn secret (`cuts_support.secret_values` holds no blank),
# so a cut's place in bytes is known exactly.
FILLER = " "
PREVIEW_SIDE = 256  # the bytes of each side of a spill preview at a 1,024-byte threshold
GUTTER = len("     1\t")  # before a line read_file shows
SPILL_AT = {"artifact_threshold_bytes": 1_024}
ARTIFACT_POINTER = re.compile(r"artifact:[A-Za-z0-9._:-]+")


@st.composite
def cut_secrets(draw: st.DrawFn, most: int = 249) -> tuple[str, str, int]:
    """A secret, one of its forms a file can hold (a form holding NUL, UTF-16 read as
    UTF-8, makes a file binary), and where in the form's UTF-8 a cut falls: between 1
    byte and all but one, at most `most`."""
    secret, form, _, _ = draw(padded_secrets().filter(lambda case: "\x00" not in case.form))
    size = len(form.encode("utf-8"))
    return secret, form, draw(st.integers(1, max(1, min(size - 1, most))))


def kept(form: str, size: int, *, from_end: bool = False) -> str:
    """The characters of `form` that `size` of its bytes hold, from its start or end."""
    data = form.encode("utf-8")
    return (data[-size:] if from_end else data[:size]).decode("utf-8", "ignore")


def resumed(text: str, secrets: SecretForms) -> str:
    """What a resumed view sends of `text` once `secrets` are known: its pieces at cuts
    hidden, then redacted (`resumed_secrets`)."""
    return secrets.redact(hide_cut_pieces(text, secrets)[0])


def assert_resume_leaves_no_piece(
    record: Callable[[str], str],
    secret: str,
    form: str,
    around: Callable[[str], str],
    cut_piece: str = "",
) -> None:
    """`record(around(form))` (a result session 1 cut) shows no piece of `secret` once
    resumed, and the same result with the form's characters replaced is not changed.
    `cut_piece`: what the cut keeps of the form; when it is long enough to count as a
    leak, the recorded result must hold one (else the case tests nothing)."""
    forms = SecretForms.from_values([secret])
    baseline = record(around(stand_in(form)))
    assert hide_cut_pieces(baseline, forms) == (baseline, 0)
    recorded = record(around(form))
    if len(flat(cut_piece)) >= LEAK_CHARS and "\n" not in form:
        assert leaked_piece(recorded, secret, baseline, form) is not None, "no piece was cut"
    shown = resumed(recorded, forms)
    # An artifact pointer holds a digest of the content: hex that may share six
    # characters with a hex form by chance, and differs from the baseline's.
    shown, baseline = (ARTIFACT_POINTER.sub("artifact:…", text) for text in (shown, baseline))
    assert leaked_piece(shown, secret, baseline, form) is None, shown


def run_tool(files: dict[str, str], tool: str, arguments: dict[str, object], **limits: int) -> str:
    """The content a `Toolbox` that knows no secret records for one call on `files`."""
    with tempfile.TemporaryDirectory() as folder:
        for name, text in files.items():
            (Path(folder) / name).write_text(text)
        box = Toolbox(
            Path(folder),
            FakeArtifactStore(),
            "s1",
            auto_approve=True,
            secret_environment=CLEAN_ENVIRONMENT,
            **limits,  # type: ignore[arg-type]
        )
        return box.run(tool, arguments).content


@fuzz_settings(0.1)
@given(head_cut=cut_secrets(), tail_into=st.integers(1, 249), numbered=st.booleans())
def test_a_spill_preview_cut_inside_a_value_named_later_shows_no_piece(
    head_cut, tail_into, numbered
):
    """The preview's head ends `into` bytes into the value, its tail begins `tail_into`
    bytes before the end of a second copy: both cuts fall inside the value. Read with
    `read_file` (numbered lines) or printed by `cat`. (A form wrapped over lines is no
    form once a gutter stands before each of its pieces: only a value's own line breaks
    take a gap, `secret_pieces.LINE_GAP`; so `read_file` gets unwrapped forms.)"""
    secret, form, into = head_cut
    assume(not numbered or "\n" not in form)
    tail_into = min(tail_into, len(form.encode("utf-8")) - 1) or 1
    gutter = GUTTER if numbered else 0

    def record(text: str) -> str:
        if numbered:
            arguments: dict[str, object] = {"path": "bundle.json"}
            return run_tool({"bundle.json": text}, "read_file", arguments, **SPILL_AT)
        return run_tool({"bundle.json": text}, "bash", {"command": "cat bundle.json"}, **SPILL_AT)

    def around(value: str) -> str:  # one long line: no line end moves the cuts
        head = FILLER * (PREVIEW_SIDE - gutter - into)
        return head + value + FILLER * 1_500 + value + FILLER * (PREVIEW_SIDE - tail_into)

    assert "omitted" in record(around(form))
    assert_resume_leaves_no_piece(record, secret, form, around, kept(form, into))
    assert_resume_leaves_no_piece(
        record, secret, form, around, kept(form, tail_into, from_end=True)
    )


@fuzz_settings(0.1)
@given(cut=cut_secrets(most=290))
def test_a_long_line_grep_cut_inside_a_value_named_later_shows_no_piece(cut):
    """grep shows 300 characters of a line; the value straddles the 300th."""
    secret, form, into = cut
    value_chars = len(kept(form, into))

    def record(text: str) -> str:
        return run_tool({"f.txt": text}, "grep", {"pattern": "needle"})

    def around(value: str) -> str:
        line = "needle" + FILLER * (300 - len("needle") - value_chars)
        return line + value.replace("\n", "") + FILLER * 400 + "\n"

    assert "[...]" in record(around(form))
    flat_form = form.replace("\n", "")
    assert_resume_leaves_no_piece(record, secret, form, around, flat_form[:value_chars])


@fuzz_settings(0.05)
@given(cut=cut_secrets(), before=st.integers(0, 200))
def test_command_output_capped_inside_a_value_named_later_shows_no_piece(cut, before):
    """The command printed `before` blanks and the value; the cap falls inside it."""
    secret, form, into = cut
    cap = before + into

    def record(text: str) -> str:
        return run_tool({"f.txt": text}, "bash", {"command": "cat f.txt"}, max_output_bytes=cap)

    def around(value: str) -> str:
        return FILLER * before + value + FILLER * 600

    assert "cap" in record(around(form))
    assert_resume_leaves_no_piece(record, secret, form, around, kept(form, into))


@fuzz_settings(0.1)
@given(
    cut=cut_secrets(),
    before=st.integers(0, 100),
    shift=st.integers(-20, 20),
    limit=st.integers(1, 300),
)
def test_an_artifact_range_cut_inside_a_value_named_later_shows_no_piece(cut, before, shift, limit):
    """A range that begins inside the value, ends inside it, or both."""
    secret, form, into = cut
    store = FakeArtifactStore()
    offset = max(0, before + into + shift)

    def record(text: str) -> str:
        pointer = store.put("s1", text.encode("utf-8")).pointer
        box = Toolbox(Path("."), store, "s1", secret_environment=CLEAN_ENVIRONMENT)
        arguments = {"pointer": pointer, "offset": offset, "limit": limit}
        return box.run("read_artifact", arguments).content

    around = lambda value: FILLER * before + value + FILLER * 400  # noqa: E731
    assert_resume_leaves_no_piece(record, secret, form, around)


@fuzz_settings(0.1)
@given(case=padded_secrets(), budget=st.integers(45, 200), repeats=st.integers(1, 40))
@example(  # a form holding NUL: the oracle's stand-in for each mark once made a piece of it
    case=PaddedSecret("00000000", "0\x00" * 7 + "0", "", ""), budget=55, repeats=15
)
def test_an_l1_cut_inside_a_value_named_later_shows_no_piece(case, budget, repeats):
    secret, form, before, after = case
    counter, _ = make_counter()

    def record(text: str) -> str:
        return (build_truncated_text(text, budget, counter, NO_SECRETS) or (text, 0))[0]

    around = lambda value: (before + value) * repeats + after  # noqa: E731 - as in L1's test
    assert_resume_leaves_no_piece(record, secret, form, around)


@fuzz_settings(0.1)
@given(
    case=padded_secrets().filter(lambda case: " ".join(case.form.split()) == case.form),
    shift=st.integers(-120, 120),
)
def test_a_search_excerpt_cut_inside_a_value_named_later_shows_no_piece(case, shift):
    """(An excerpt folds line breaks into ` ⏎ ` and runs of blanks into one, and drops
    the blanks at its ends: a form wrapped over lines, or one with a blank at an end (the
    NFKD spelling of `¯` begins with a space) is then no form, cut or not; that fold is
    not a cut, and such forms are left out here.)"""
    secret, form, before, after = case

    def record(text: str) -> str:
        at = max(0, min(len(text) - 1, len(before) + shift))
        return build_excerpt(text, at, at + 1, NO_SECRETS)

    assert_resume_leaves_no_piece(record, secret, form, lambda value: before + value + after)


KEY_LINE = st.text(st.sampled_from(SECRET_ALPHABET), min_size=16, max_size=76)


@fuzz_settings(0.1)
@given(
    lines=st.lists(KEY_LINE, min_size=2, max_size=10),
    window=st.tuples(st.integers(1, 14), st.integers(0, 14)),
    newline=st.sampled_from(["\n", "\r\n"]),
)
def test_any_read_file_window_of_a_key_named_later_shows_none_of_its_lines(lines, window, newline):
    """Session 1 read a window of a file holding a key it did not know: the start of
    the key, its end, or lines in its middle; none of them is sent once it is known."""
    key = "\n".join(["-----BEGIN TEST KEY-----", *lines, "-----END TEST KEY-----"])
    text = newline.join(["intro", *key.split("\n"), "outro", ""])
    first, length = window
    arguments = {"path": "f.txt", "start_line": first, "end_line": first + length}
    recorded = run_tool({"f.txt": text}, "read_file", arguments)
    shown = resumed(recorded, SecretForms.from_values([key]))
    assert pieces_in(shown, key) == [], shown
    assert not any(line in shown for line in lines)
    if first == 1 and length == 0:
        assert recorded == shown  # "intro" alone: nothing of the key, nothing changed


def test_a_whole_recorded_session_of_ordinary_results_is_not_changed():
    """A preview, an L1 cut, grep lines, a window and a stopped command whose edges hold
    ordinary text (words, digests, numbers, dashes) keep every character with a key, a
    token and a password known."""
    secrets = SecretForms.from_values(
        [make_pem(3), "ghp_Zq7Rk2mXv9LpW4tYc8NbH3aQ5sD1fG6jK0", "Tr0ub4dor&3-correct"]
    )
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text()
    counter, _ = make_counter()
    records = [
        run_tool(
            {"README.md": readme},
            "read_file",
            {"path": "README.md"},
            artifact_threshold_bytes=4_096,
        ),
        run_tool(
            {"README.md": readme},
            "read_file",
            {"path": "README.md", "start_line": 40, "end_line": 60},
        ),
        run_tool({"README.md": readme}, "grep", {"pattern": "secret"}),
        run_tool(
            {"README.md": readme}, "bash", {"command": "cat README.md"}, max_output_bytes=5_000
        ),
        (build_truncated_text(readme, 400, counter, NO_SECRETS) or ("", 0))[0],
        build_excerpt(readme, 5_000, 5_010, NO_SECRETS),
        "Exit code: 0\n" + "\n".join(["-" * 40, "sha256 " + "0123456789abcdef" * 4, "-----"]),
    ]
    for record in records:
        assert record and hide_cut_pieces(record, secrets) == (record, 0), record[:200]


def test_a_piece_shorter_than_the_minimum_stays_and_a_longer_one_goes():
    token = "sgn_J9kcdZlU0pFxSMxq7Rk2mXv9LpW4tYc8NbH3aQ5s"
    forms = SecretForms.from_values([token])
    short = f"Exit code: 0\nid={token[: MIN_PIECE_CHARS - 1]}"
    assert hide_cut_pieces(short, forms) == (short, 0)
    cut = f"Exit code: 0\nid={token[:19]}\n[... 4,000 bytes omitted ...]\n{token[30:]}, next"
    hidden, count = hide_cut_pieces(cut, forms)
    assert count == 2
    assert hidden == f"Exit code: 0\nid={REDACTED_MARK}\n[... 4,000 bytes omitted ...]\n" + (
        f"{REDACTED_MARK}, next"
    )
