"""Tools that shorten output cut it where no piece of a secret is left (issue 21, item 2).

grep cuts long lines and bash stops at its output cap before the result is redacted; a
key split by either cut was no longer recognised, so its start went into the result and
into the artifact on disk. Real tools on real files and commands, the real artifact
store; properties over random secrets in every form, paddings and cut sizes.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from cuts_support import (
    PADDING,
    PaddedSecret,
    assert_no_piece_leaks,
    leaked_piece,
    padded_secrets,
    secret_occurrences,
    stand_in,
)
from hostile_support import fuzz_settings
from hypothesis import example, given
from hypothesis import strategies as st

from agent_cli.secret_forms import NO_SECRETS, SecretForms
from agent_cli.store.artifacts import ArtifactStore
from agent_cli.tools import Toolbox
from agent_cli.tools.grep_confirm import Match
from agent_cli.tools.output import render_preview
from agent_cli.tools.redaction import SecretRedactor
from agent_cli.tools.search_tools import _format_match
from agent_cli.tools.shell import CommandRun, render_command_run

KEY = "sk-ant-FAKE-Zq9w8e7r6t5y4u3i2o1pLmNb"


def make_box(tmp_path: Path, **options: int) -> tuple[Toolbox, Path, Path]:
    workspace, home = tmp_path / "ws", tmp_path / "home"
    workspace.mkdir()
    home.mkdir()
    box = Toolbox(
        workspace,
        ArtifactStore(home),
        "s-cuts-1",
        auto_approve=True,
        secret_environment={"ANTHROPIC_API_KEY": KEY, "PATH": "/usr/bin:/bin"},
        **options,
    )
    return box, workspace, home


def stored_text(home: Path) -> str:
    return "".join(path.read_text(errors="replace") for path in home.rglob("*") if path.is_file())


@pytest.mark.parametrize("before_cut", [1, 6, 12, len(KEY) - 1])
def test_grep_shows_no_part_of_a_long_line_holding_a_key_that_straddles_the_cut(
    tmp_path, before_cut
):
    """The cut of a long line used to be the danger (issue 21); now a line holding a key
    is not shown at all (`grep_secrets`), and the long line beside it is still cut."""
    box, workspace, _ = make_box(tmp_path)
    line = "·" * (300 - before_cut) + KEY + " needle"
    (workspace / "long.txt").write_text(f"{line}\n{'·' * 400} needle\n")
    outcome = box.run("grep", {"pattern": "needle"})
    assert not outcome.is_error and "long.txt:1: " not in outcome.content
    # (the match is past the head: the line is shown cut around it, `…` at the cut)
    assert "long.txt:2: …" in outcome.content and outcome.content.endswith("· needle")
    assert leaked_piece(outcome.content, KEY) is None, outcome.content
    assert KEY[:before_cut] not in outcome.content


@pytest.mark.parametrize("before_cap", [1, 9, len(KEY) - 1])
def test_bash_stopped_at_its_cap_inside_a_key_leaks_no_piece_of_it(tmp_path, before_cap):
    """The model chooses the padding, so it chooses where the cap falls in the key."""
    cap = 4096
    box, workspace, home = make_box(tmp_path, max_output_bytes=cap, artifact_threshold_bytes=512)
    (workspace / "key.txt").write_text(KEY)
    outcome = box.run("bash", {"command": f"head -c {cap - before_cap} /dev/zero; cat key.txt"})
    assert outcome.is_error and "cap" in outcome.content.splitlines()[0]
    assert outcome.artifact_pointer is not None
    assert leaked_piece(outcome.content, KEY) is None, outcome.content[-400:]
    on_disk = stored_text(home)
    assert on_disk and leaked_piece(on_disk, KEY) is None, on_disk[-200:]
    cut_start = "\0" + KEY[:before_cap]  # the padding is NUL bytes: not even one character
    assert cut_start not in on_disk and cut_start not in outcome.content


def test_bash_output_that_holds_a_whole_key_before_the_cap_is_redacted(tmp_path):
    cap = 4096
    box, workspace, home = make_box(tmp_path, max_output_bytes=cap, artifact_threshold_bytes=512)
    (workspace / "key.txt").write_text(KEY)
    outcome = box.run("bash", {"command": "cat key.txt; echo; head -c 9000 /dev/zero"})
    assert "[REDACTED]" in stored_text(home)
    assert leaked_piece(outcome.content + stored_text(home), KEY) is None


@fuzz_settings(0.1)
@given(
    case=padded_secrets(),
    limit=st.integers(1, 500),
    around=st.none() | st.integers(0, 1_500),
)
def test_a_grep_line_cut_anywhere_leaves_no_piece_of_a_secret(case, limit, around):
    """The head of a long line, or a window `around` a match (`safe_cuts.cut_around`)."""
    secret, form, before, after = case
    redactor = SecretRedactor([secret])

    def shown(line: str) -> str:
        match = Match("f.txt", 1, line.encode())
        return redactor.redact(_format_match(match, limit, redactor.forms, around)).text

    form, before, after = (part.replace("\n", "") for part in (form, before, after))
    # a grep line holds no line break
    assert_no_piece_leaks(shown, secret, form, lambda f: before + f + after)


@fuzz_settings(0.1)
@given(
    occurrence=secret_occurrences(),
    before=PADDING,
    kept=st.integers(1, 10_000),
    reason=st.sampled_from(["output_cap", "timeout"]),
)
def test_a_command_stopped_anywhere_in_a_secret_leaves_no_piece_of_it(
    occurrence, before, kept, reason
):
    secret, form = occurrence
    redactor = SecretRedactor([secret])
    piece = form[: min(kept, len(form))]
    output = (before + piece).encode()
    result = render_command_run(CommandRun(output, None, reason), 1, len(output), redactor.forms)
    shown = redactor.redact(result.text).text
    # what the result says whatever the output (its header, its closing advice): a
    # secret such as "direct00" shares a piece with "Redirect" there, which is no leak
    plain = (before + stand_in(piece)).encode()
    baseline = render_command_run(CommandRun(plain, None, reason), 1, len(plain), NO_SECRETS)
    assert leaked_piece(shown, secret, baseline.text, form) is None


@fuzz_settings(0.1)
@given(
    case=padded_secrets(),
    side=st.integers(1, 300),
)
def test_a_preview_cut_anywhere_leaves_no_piece_of_a_secret(case, side):
    secret, form, before, after = case
    redactor = SecretRedactor([secret])

    def shown(text: str) -> str:
        return redactor.redact(render_preview(text, side, 0, redactor.forms)).text

    assert_no_piece_leaks(shown, secret, form, lambda f: before + f + after)


def test_a_preview_keeps_a_pointer_at_its_edge_whole():
    pointer = "artifact:s-1:abcdef0123456789.txt:" + "0123456789ab"
    text = "a " * 45 + pointer + " b" * 200 + " " + pointer + " c" * 45
    preview = render_preview(text, 100, 0, SecretForms())
    assert preview.count(pointer) == 2


@fuzz_settings(0.1)
@given(
    case=padded_secrets(),
    offset=st.integers(0, 500),
    limit=st.integers(1, 300),
    binary=st.booleans(),
)
@example(  # the pointer's hash held "cc86c3", a piece of the secret's hex: no leak
    case=PaddedSecret("¥óĭþï𱀆ĭġØ", "1AARUCG5KSP1M3NPKSP27GM608CQECGPJSP1U3J", "", ""),
    offset=0,
    limit=1,
    binary=False,
)
def test_an_artifact_range_read_anywhere_leaves_no_piece_of_a_secret(case, offset, limit, binary):
    """An artifact may hold a secret whole (written before it was known, by an older
    version); `read_artifact` takes the model's offset and limit, so the model would
    choose where the secret is cut. A range never begins or ends inside it, and what it
    keeps of it is redacted; the offset to continue at always moves on. The artifact's
    pointer (a hash of the bytes stored) is set aside: its hex may share a piece with a
    hex form of the secret by chance, and it gives nothing of the bytes back."""
    from tools_support import FakeArtifactStore

    from agent_cli.tools.artifact_tool import read_artifact_range

    secret, form, before, after = case
    secrets = SecretForms.from_values([secret])
    store = FakeArtifactStore()
    prefix = b"\x00\xff" if binary else b""

    def shown(text: str) -> str:
        pointer = str(store.put("s1", prefix + text.encode("utf-8")).pointer)
        data = store.saved[pointer]
        if offset >= len(data):
            return ""
        page = read_artifact_range(store, pointer, offset, limit, secrets)
        following = re.search(r"continue with offset=(\d+)\]", page.body)
        assert following is None or int(following.group(1)) > offset
        return secrets.redact(page.text).replace(pointer, "<pointer>")

    assert_no_piece_leaks(shown, secret, form, lambda f: before + f + after)


def test_a_key_sharing_a_piece_with_the_cap_advice_is_no_leak_but_its_own_piece_is():
    """Hypothesis found "direct00", which shares "direct" with "Redirect big output" in
    the cap's advice: the property compares with what the result says whatever the
    output. A piece of the key that text does not hold is still found."""
    redactor = SecretRedactor(["direct00"])
    output = b"x" * 10 + b"direct"
    result = render_command_run(
        CommandRun(output, None, "output_cap"), 1, len(output), redactor.forms
    )
    plain = b"x" * 10 + stand_in("direct").encode()
    baseline = render_command_run(CommandRun(plain, None, "output_cap"), 1, len(plain), NO_SECRETS)
    shown = redactor.redact(result.text).text
    assert leaked_piece(shown, "direct00", baseline.text) is None
    assert leaked_piece(shown + " rect00", "direct00", baseline.text) == "rect00"
