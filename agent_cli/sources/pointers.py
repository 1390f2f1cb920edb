"""Source pointers: path-free names for a transcript record or a stored artifact.

Grammar (DESIGN.md section 4):

    transcript:<session_id>:<sequence>
    artifact:<session_id>:<filename>:<digest>

Components match `[A-Za-z0-9][A-Za-z0-9._-]{0,199}` (so never `.`, `..`, a slash, a
backslash or a colon); the sequence is ASCII digits without leading zeros, at least 1;
the digest is 12 or 64 lowercase hex digits, a prefix of the file's sha256. Each place
has exactly one spelling, so two pointers to the same thing compare equal as strings.

Contract: parsing is pure (it touches no file) and anything that does not fit raises
`SourcePointerError` with a short reason code; a well-formed scheme this program does not
own raises its subclass `UnknownSourceSchemeError`. The pointer text is never put into
the error, since it is untrusted input.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from agent_cli.errors import SourcePointerError, UnknownSourceSchemeError

TRANSCRIPT_SCHEME = "transcript"
ARTIFACT_SCHEME = "artifact"
MAX_POINTER_CHARS = 512  # also bounds a sequence's digits, far below int()'s limit

_COMPONENT = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,199}")
_COMPONENT_CHARS = re.compile(r"[A-Za-z0-9._-]+")
_SCHEME = re.compile(r"[a-z][a-z0-9+.-]{0,31}")
_DIGEST = re.compile(r"[0-9a-f]+")
_SEQUENCE = re.compile(r"[0-9]+")


@dataclass(frozen=True)
class ParsedSourcePointer:
    """A pointer split into its parts; `text` gives the one canonical spelling back."""

    scheme: str
    session_id: str
    sequence: int | None = None
    filename: str | None = None
    digest: str | None = None

    @property
    def text(self) -> str:
        if self.scheme == TRANSCRIPT_SCHEME:
            return f"{TRANSCRIPT_SCHEME}:{self.session_id}:{self.sequence}"
        return f"{ARTIFACT_SCHEME}:{self.session_id}:{self.filename}:{self.digest}"

    @property
    def is_transcript(self) -> bool:
        return self.scheme == TRANSCRIPT_SCHEME

    @property
    def is_artifact(self) -> bool:
        return self.scheme == ARTIFACT_SCHEME


def _check_characters(text: str) -> None:
    if not text:
        raise SourcePointerError("empty")
    if len(text) > MAX_POINTER_CHARS:
        raise SourcePointerError("too_long")
    if any(ch.isspace() for ch in text):
        raise SourcePointerError("whitespace")
    if not text.isascii():
        raise SourcePointerError("non_ascii")
    if not text.isprintable():
        raise SourcePointerError("control_character")


def check_component(part: str) -> str:
    """One session id or file name; the reason code says what is wrong with it."""
    if not part:
        raise SourcePointerError("empty_part")
    if part in (".", ".."):
        raise SourcePointerError("dot_component")
    if "/" in part:
        raise SourcePointerError("slash")
    if "\\" in part:
        raise SourcePointerError("backslash")
    if not _COMPONENT_CHARS.fullmatch(part):
        raise SourcePointerError("bad_character")
    if len(part) > 200:
        raise SourcePointerError("component_too_long")
    if not _COMPONENT.fullmatch(part):
        raise SourcePointerError("bad_first_character")
    return part


def check_sequence(part: str) -> int:
    """A transcript sequence: ASCII digits, no leading zero, at least 1.

    No upper bound: the grammar has none, and a sequence past the end of its transcript
    is a well-formed pointer that resolves as missing, not a malformed one.
    """
    if not part:
        raise SourcePointerError("empty_part")
    if not _SEQUENCE.fullmatch(part):
        raise SourcePointerError("sequence_not_digits")
    if part.startswith("0"):
        raise SourcePointerError(
            "sequence_below_one" if set(part) == {"0"} else "sequence_leading_zero"
        )
    return int(part)


def check_digest(part: str) -> str:
    """A sha256 prefix: exactly 12 or 64 lowercase hex digits."""
    if not part:
        raise SourcePointerError("empty_part")
    if not _DIGEST.fullmatch(part):
        raise SourcePointerError("digest_not_hex")
    if len(part) not in (12, 64):
        raise SourcePointerError("digest_length")
    return part


def parse_source_pointer(text: object) -> ParsedSourcePointer:
    """Split and check a pointer; raise `SourcePointerError` for anything malformed."""
    if not isinstance(text, str):
        raise SourcePointerError("not_text")
    _check_characters(text)
    scheme, sep, rest = text.partition(":")
    if not sep or not _SCHEME.fullmatch(scheme):
        raise SourcePointerError("missing_scheme")
    if scheme not in (TRANSCRIPT_SCHEME, ARTIFACT_SCHEME):
        raise UnknownSourceSchemeError("unknown_scheme")
    parts = rest.split(":")
    if scheme == TRANSCRIPT_SCHEME:
        if len(parts) != 2:
            raise SourcePointerError("wrong_part_count")
        return ParsedSourcePointer(
            scheme, check_component(parts[0]), sequence=check_sequence(parts[1])
        )
    if len(parts) != 3:
        raise SourcePointerError("wrong_part_count")
    return ParsedSourcePointer(
        scheme,
        check_component(parts[0]),
        filename=check_component(parts[1]),
        digest=check_digest(parts[2]),
    )


def format_transcript_pointer(session_id: str, sequence: int) -> str:
    """The pointer to one transcript record; raises `SourcePointerError` on bad parts."""
    if isinstance(sequence, bool) or not isinstance(sequence, int):
        raise SourcePointerError("sequence_not_digits")
    return parse_source_pointer(f"{TRANSCRIPT_SCHEME}:{session_id}:{sequence}").text


def format_artifact_pointer(session_id: str, filename: str, digest: str) -> str:
    """The pointer to one artifact file; raises `SourcePointerError` on bad parts."""
    return parse_source_pointer(f"{ARTIFACT_SCHEME}:{session_id}:{filename}:{digest}").text
