"""Where text may be cut (`agent_cli.safe_cuts`): never inside a secret, never inside a
pointer; random secrets in every form the redactor knows, paddings and cut positions."""

from __future__ import annotations

from cuts_support import PADDING, secret_occurrences
from hostile_support import fuzz_settings
from hypothesis import given
from hypothesis import strategies as st

from agent_cli.safe_cuts import (
    LINE_END_PIECE_CHARS,
    cut_head,
    safe_head_end,
    safe_tail_start,
    stopped_secret_start,
)
from agent_cli.secret_forms import NO_SECRETS, SecretForms

POINTER = "artifact:s-20261203-1:0123456789abcdef.txt:" + "0123456789ab" * 5 + "0123"


@fuzz_settings(0.2)
@given(occurrence=secret_occurrences(), before=PADDING, after=PADDING, cut=st.integers(0, 900))
def test_a_head_ends_before_a_secret_it_would_split(occurrence, before, after, cut):
    secret, form = occurrence
    text = before + form + after
    end = safe_head_end(text, cut, SecretForms.from_values([secret]))
    start_of_form, end_of_form = len(before), len(before) + len(form)
    assert end <= min(cut, len(text))
    assert end <= start_of_form or end >= end_of_form


@fuzz_settings(0.2)
@given(occurrence=secret_occurrences(), before=PADDING, after=PADDING, start=st.integers(0, 900))
def test_a_tail_begins_after_a_secret_it_would_split(occurrence, before, after, start):
    secret, form = occurrence
    text = before + form + after
    begin = safe_tail_start(text, start, SecretForms.from_values([secret]))
    start_of_form, end_of_form = len(before), len(before) + len(form)
    assert begin >= min(start, len(text))
    assert begin <= start_of_form or begin >= end_of_form


@fuzz_settings(0.2)
@given(occurrence=secret_occurrences(), before=PADDING, kept=st.integers(1, 10_000))
def test_a_stream_stopped_inside_a_secret_keeps_none_of_it(occurrence, before, kept):
    """What a capped or timed-out command printed last may be the start of a key whose
    rest never came: the head ends before it, wherever the stream stopped."""
    secret, form = occurrence
    text = before + form[: min(kept, len(form))]
    end = safe_head_end(text, len(text), SecretForms.from_values([secret]), stream_stopped=True)
    assert end <= len(before)


REAL_KEY = "sk-ant-api03-Zq9w8e7r6t5y4u3i2o1pLmNbVcXz_AbCdEfGhIjKl"
# twenty-third outside test: each line's last character starts a form of the key ("d" of
# base64 dGVz..., "2" of base32 2GK4... for `test-key`; "c" of base64 c2st... and "O" of
# base32 ONVS... for an sk-ant key), which only a wrap right after it could continue
FINISHED_LINES = ["trapped\n", "line1\nline2\n", "abc\n", "VERSION INFO\n", "ls -d\n"]


def kept_of_stopped(text: str, secrets: SecretForms) -> str:
    return text[: safe_head_end(text, len(text), secrets, stream_stopped=True)]


def test_a_stream_stopped_after_a_finished_line_keeps_its_last_character():
    for key in ("test-key", REAL_KEY):
        secrets = SecretForms.from_values([key])
        for text in FINISHED_LINES:
            assert kept_of_stopped(text, secrets) == text, (key, text)
            assert stopped_secret_start(text, secrets) is None


def test_a_line_end_may_begin_a_form_only_through_a_wrap_and_one_character_is_too_few():
    secrets = SecretForms.from_values(["test-key"])
    # the rule is no blindness: the same line continued by a wrap is the key's base64
    assert secrets.redact("trapped\nGVzdC1rZXk=").startswith("trappe[REDACTED]")
    assert secrets.open_match_start("trapped\n") == len("trappe")


def test_a_stream_stopped_after_a_line_still_holds_back_a_longer_start_of_a_form():
    secrets = SecretForms.from_values(["test-key"])
    for piece in ("dGV", "dGVzdC1rZ", "dG\nVz"):  # base64, wrapped or not
        assert kept_of_stopped(f"out: {piece}\n", secrets) == "out: "
    real = SecretForms.from_values([REAL_KEY])
    assert kept_of_stopped(f"export KEY={REAL_KEY[:LINE_END_PIECE_CHARS]}\n", real) == (
        "export KEY="
    )


def test_a_stream_stopped_inside_a_line_holds_back_even_one_character_of_a_form():
    secrets = SecretForms.from_values([REAL_KEY])
    assert kept_of_stopped("abc", secrets) == "ab"  # "c" may begin c2st..., the base64
    assert kept_of_stopped("key: sk", secrets) == "key: "


def test_a_multi_line_value_whose_first_line_ended_is_held_back():
    # a PEM-like value: its own line break counts as one of its characters
    secrets = SecretForms.from_values(["ab\nQ1w2E3r4T5y6U7i8"])
    assert kept_of_stopped("value:\nab\n", secrets) == "value:\n"


def test_a_stream_that_stopped_after_a_whole_secret_keeps_it_for_redaction():
    secrets = SecretForms.from_values(["sk-ant-FAKE-0123456789"])
    text = "key: sk-ant-FAKE-0123456789 done"
    assert safe_head_end(text, len(text), secrets, stream_stopped=True) == len(text)


def test_a_cut_inside_a_pointer_keeps_the_whole_pointer():
    text = f"read_artifact pointer={POINTER} offset=0"
    inside = text.index(POINTER) + 20
    assert safe_head_end(text, inside) == text.index(POINTER) + len(POINTER)
    assert safe_tail_start(text, inside) == text.index(POINTER)
    assert cut_head(text, inside).endswith(POINTER + "…")


def test_a_transcript_pointer_is_kept_whole_too():
    text = "see transcript:s-20261203-1:12345 for it"
    assert safe_head_end(text, text.index("12345") + 2) == text.index(" for")


def test_a_secret_that_begins_inside_a_pointer_leaves_the_whole_pointer_out():
    secrets = SecretForms.from_values(["0123 yes-a-secret"])
    text = f"x {POINTER} yes-a-secret and more"
    assert safe_head_end(text, text.index(POINTER) + 30, secrets) == 2


def test_a_cut_outside_any_pointer_or_secret_stays_where_it_was():
    text = "plain words " * 20
    assert safe_head_end(text, 50) == 50
    assert safe_tail_start(text, 50) == 50
    assert safe_head_end(text, 10_000) == len(text)


def test_forms_never_show_the_secret_in_their_repr():
    forms = SecretForms.from_values(["sk-ant-FAKE-0123456789"])
    assert "FAKE" not in repr(forms) and "FAKE" not in str(forms)
    assert not NO_SECRETS and forms
