"""The ways a program writes a secret value into text. Pure: no I/O.

`agent_cli.secret_forms` finds a secret in every form listed here; this module only
spells them out.

Contract:
- `spellings(secret)`: the value under each Unicode normalisation (NFC, NFD, NFKC,
  NFKD): a password typed in NFC and stored by an editor in NFD is the same password to
  any reader, so each is a secret. One spelling for an ASCII value.
- `escaped_forms(spelling)`: what stands between the quotes when a program prints it as a
  quoted string (Python, JSON, shells), what a shell's backslash quoting makes of it
  (bash's `printf %q`, `ls -b`); what Python prints of its UTF-8 bytes
  (`print(os.environb[...])`: `\\xc3\\xa7`) is one of `byte_forms`. Escapes of one
  character at a time (percent-encoding, HTML's references, JSON's `\\uXXXX`), which
  have too many spellings to list, are one matcher of their own
  (`agent_cli.percent_forms`).
- `rewritten_forms(spelling)`: the value as everyday text tools rewrite it, characters
  kept: reversed (`rev`, which reverses each line, and a whole-string reversal) or in
  upper or lower case (`tr a-z A-Z`, `tr A-Z a-z`, `awk '{print toupper($0)}'`), or both;
  and its ROT13 (`tr a-zA-Z n-za-mN-ZA-M`), the cipher everyone can undo. A long
  random value's case changes and mirror image are found in no ordinary text, so each is
  as much the secret as the value: whoever reads one can undo it.
- `misdecoded_forms(spelling)`: the text a tool shows when the value was written in
  another encoding and read back as UTF-8 with errors replaced, as agent-cli reads every
  file and output: UTF-16 (little and big endian, a NUL between characters; only for a
  value of characters below U+0100, whose form reads as the value) and, for a
  non-ASCII value, Latin-1 and cp1252 (each non-UTF-8 byte shown as U+FFFD). A Latin-1
  form that is more than half U+FFFD is left out: it would match any binary noise.
- `byte_forms(data)`: what programs print of some bytes (a value's UTF-8, a private key's
  number): their hex in both cases, Python's `repr` of them (`print(b)`: `\\xd3...`),
  and their base64 on their own (standard and URL-safe alphabets, with and without `=`
  padding: `base64`, a JWK's `"d"`) or at the start of a longer stream.
  `stream_forms(data)`: the same bytes inside a longer encoded stream past its start
  (`aligned_base64` at the other two byte alignments, `aligned_base32` at each of the
  five, `base32` and `basenc --base32hex`), which tools make of a value (a token in a
  base64'd config), not of a key's number.
- `aligned_base64(data, alignment, encode)`: the base64 characters that stand for `data`
  alone inside a longer encoded stream; `aligned_base32` the same for base32 (`base32`,
  `basenc --base32hex`: 5-byte groups, 8 characters each).
- `decode_base64(text)`: the other way, the octets base64 `text` stands for (either
  alphabet, `=` padding optional), or None when it is no base64: how a value kept encoded
  is read back (a private key's body, a credential a CI variable holds in base64).

Matching is done on these forms rather than on a normalised copy of the text: a
normalised copy has other offsets, and every cut, line and window is placed on the text
as it is. A value mixing spellings inside itself (half NFC, half NFD) is not caught.
"""

from __future__ import annotations

import base64
import binascii
import codecs
import json
import re
import unicodedata
from collections.abc import Callable
from typing import Literal

_NORMAL_FORMS: tuple[Literal["NFC", "NFD", "NFKC", "NFKD"], ...] = ("NFC", "NFD", "NFKC", "NFKD")
_LEGACY_ENCODINGS = ("latin-1", "cp1252")
# UTF-16 writes a character below this as its byte and a NUL: read as UTF-8, a value of
# such characters is itself with a NUL between them. Above it, both bytes vary, and what
# is read is noise (control characters, U+FFFD) that no reader takes for the value.
_UTF16_NUL_BELOW = 0x100
_SHELL_DOUBLE_QUOTED = re.compile(r'[\\"$`]')
# What bash's `printf %q` (and readline's completion) puts a backslash before
# (`sh_backslash_quote` in bash's lib/sh/shquote.c, its `bstab`): blanks and every
# character special to the shell. `#` is also escaped at the start of the string, `~` there
# and after `:` or `=`.
_BASH_BACKSLASHED = frozenset(" \t\n!\"$&'()*,;<>?[\\]^`{|}")
# GNU's `escape` quoting style (`ls -b`, `ls --quoting-style=escape`): C escapes for these,
# three octal digits for any other unprintable byte, `\\` and `\ ` for a backslash and a
# blank (gnulib's quotearg.c).
_GNU_ESCAPES = {
    "\a": "\\a",
    "\b": "\\b",
    "\f": "\\f",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
    "\v": "\\v",
    "\\": "\\\\",
    " ": "\\ ",
}
_QUOTE_RUNS = re.compile("('+)")
# How bash's `$'...'` writes these characters (`ansic_quote` in bash's strtrans.c).
_ANSI_C_ESCAPES = {
    "\x1b": "\\E",
    "\a": "\\a",
    "\b": "\\b",
    "\f": "\\f",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
    "\v": "\\v",
    "\\": "\\\\",
    "'": "\\'",
}


def spellings(secret: str) -> set[str]:
    """`secret` and its four Unicode normalisations (one value when it is ASCII)."""
    if secret.isascii():
        return {secret}
    return {secret, *(unicodedata.normalize(form, secret) for form in _NORMAL_FORMS)}


def escaped_forms(secret: str) -> set[str]:
    """What stands between the quotes when a program prints `secret` as a quoted string:
    Python's `repr` and `ascii`, JSON (`\\uXXXX` for non-ASCII or not), a shell's double
    quotes (`declare -p`), its single quotes (bash's `set`: `'\\''`, `shlex.quote`:
    `'"'"'`, dash's `export -p`: a run of quotes as `"''"`) and bash's `$'...'`
    (`declare -p` and `set` of a value with a control character, or with a non-ASCII
    letter under a C locale, which bash writes as octal bytes); and, for a value on one
    line, the quoting that needs no quotes, a backslash before each special character:
    bash's `printf %q` (and readline's file-name completion) and GNU's `escape` style
    (`ls -b`). For a token of letters, digits, `-` and `_` every one is the value itself.
    HTML's escaping, JSON's `\\uXXXX` and other escapes of one character at a time,
    which escapers mix as each pleases, are one matcher (`agent_cli.percent_forms`,
    `agent_cli.character_escapes`). Python's `repr` of its UTF-8 bytes is a `byte_forms`."""
    one_line = set() if "\n" in secret or "\r" in secret else _one_line_forms(secret)
    return one_line | {
        repr(secret)[1:-1],
        ascii(secret)[1:-1],
        json.dumps(secret)[1:-1],
        json.dumps(secret, ensure_ascii=False)[1:-1],
        _SHELL_DOUBLE_QUOTED.sub(r"\\\g<0>", secret),
        secret.replace("'", "'\\''"),
        secret.replace("'", "'\"'\"'"),
        _ansi_c_quoted(secret, keep_non_ascii=True),
        _ansi_c_quoted(secret, keep_non_ascii=False),
        _dash_quoted(secret),
    }


def _one_line_forms(secret: str) -> set[str]:
    """The backslash quotings of a value without a line break (`escaped_forms`): a
    multi-line value is written as `$'...'` by bash, and GNU's style quotes file names,
    which a key that spans lines is not."""
    return {
        _gnu_escaped(secret, keep_non_ascii=True),
        _gnu_escaped(secret, keep_non_ascii=False),
        *_backslash_quoted(secret),
    }


def rewritten_forms(secret: str) -> set[str]:
    """`secret` reversed (by line, as `rev` does, and whole) or not, each in upper and lower
    case or as it is, and its ROT13, but never the value itself (module contract)."""
    by_line = "\n".join(line[::-1] for line in secret.split("\n"))
    orders = {secret, by_line, secret[::-1]}
    cased = {each for order in orders for each in (order, order.upper(), order.lower())}
    return (cased | {codecs.encode(secret, "rot13")}) - {secret}


def misdecoded_forms(secret: str) -> set[str]:
    """`secret` written as UTF-16 (characters below U+0100 only) or (non-ASCII only) a
    legacy 8-bit encoding and read as UTF-8 with errors replaced (module contract). The
    NUL that UTF-16 puts before the first or after the last character is left out."""
    forms: set[str] = set()
    if max(map(ord, secret), default=0) < _UTF16_NUL_BELOW:
        forms |= {
            secret.encode(codec).decode("utf-8", errors="replace").strip("\x00")
            for codec in ("utf-16-le", "utf-16-be")
        }
    if secret.isascii():
        return forms
    for codec in _LEGACY_ENCODINGS:
        try:
            shown = secret.encode(codec).decode("utf-8", errors="replace")
        except UnicodeEncodeError:
            continue
        if 2 * shown.count("\ufffd") <= len(shown):
            forms.add(shown)
    return forms


def _ansi_c_quoted(secret: str, *, keep_non_ascii: bool) -> str:
    """`secret` as bash writes it inside `$'...'` (`ansic_quote`): named escapes, `\\\\`
    and `\\'`, every other unprintable byte as three octal digits."""
    return _octal_escaped(secret, _ANSI_C_ESCAPES, keep_non_ascii)


def _backslash_quoted(secret: str) -> set[str]:
    """`secret` as bash's `printf %q` writes a printable value (`sh_backslash_quote`): a
    backslash before each blank and shell-special character, and before a `~` that
    follows `:` or `=`. A `#` or `~` that begins it is escaped only where it begins the
    printed string, so both ways. (A value with a control character is written as
    `$'...'`, `_ansi_c_quoted`: nothing here.)"""
    if not secret.isprintable():
        return set()
    body = "".join(
        f"\\{character}"
        if character in _BASH_BACKSLASHED
        or (character == "~" and index > 0 and secret[index - 1] in ":=")
        else character
        for index, character in enumerate(secret)
    )
    return {body, f"\\{body}"} if secret[:1] in ("#", "~") else {body}


def _gnu_escaped(secret: str, *, keep_non_ascii: bool) -> str:
    """`secret` as GNU's `escape` quoting style writes it (`ls -b`): C escapes, `\\\\`,
    `\\ `, every other unprintable byte (and, in a C locale, every non-ASCII one) as three
    octal digits."""
    return _octal_escaped(secret, _GNU_ESCAPES, keep_non_ascii)


def _octal_escaped(secret: str, escapes: dict[str, str], keep_non_ascii: bool) -> str:
    """`secret` with each character in `escapes` written as it says, a printable one as
    itself (a non-ASCII one only with `keep_non_ascii`), and any other as the three octal
    digits of each of its UTF-8 bytes."""
    pieces = []
    for character in secret:
        if character in escapes:
            pieces.append(escapes[character])
        elif character.isprintable() and (keep_non_ascii or character.isascii()):
            pieces.append(character)
        else:
            pieces.extend(f"\\{byte:03o}" for byte in character.encode("utf-8"))
    return "".join(pieces)


def _dash_quoted(secret: str) -> str:
    """`secret` as dash (`/bin/sh` on Debian: `export -p`, `set`) single-quotes it: each
    run of `'` in double quotes between single-quoted stretches (`single_quote` in dash's
    output.c), less the quote that opens the whole and the one that closes it, if any."""
    stretches = _QUOTE_RUNS.split(secret)  # text, quotes, text, quotes, ..., text
    quoted = f"'{stretches[0]}'" + "".join(
        f'"{run}"' + (f"'{text}'" if text else "")
        for run, text in zip(stretches[1::2], stretches[2::2], strict=True)
    )
    return quoted[1:].removesuffix("'")


def byte_forms(data: bytes) -> set[str]:
    """What programs print of `data` (module contract): hex, Python's bytes `repr`, base64
    alone and at a stream's start, in both alphabets."""
    forms = {data.hex(), data.hex().upper(), repr(data)[2:-1]}
    for encode in (base64.b64encode, base64.urlsafe_b64encode):
        alone = encode(data).decode("ascii")
        forms |= {alone, alone.rstrip("="), aligned_base64(data, 0, encode)}
    return forms


def stream_forms(data: bytes) -> set[str]:
    """`data` inside a longer encoded stream, past its start (module contract): base64 at
    the other two byte alignments, base32 at each of the five, in both alphabets each."""
    forms = {
        aligned_base64(data, alignment, encode)
        for encode in (base64.b64encode, base64.urlsafe_b64encode)
        for alignment in (1, 2)
    }
    return forms | {
        aligned_base32(data, alignment, encode)
        for encode in (base64.b32encode, base64.b32hexencode)
        for alignment in range(5)
    }


def aligned_base64(data: bytes, alignment: int, encode: Callable[[bytes], bytes]) -> str:
    """The base64 characters that encode only `data`'s bits when it starts `alignment`
    bytes into a 3-byte group: the same characters wherever the value sits in a stream."""
    return _aligned(data, alignment, encode, bits=6)


def aligned_base32(data: bytes, alignment: int, encode: Callable[[bytes], bytes]) -> str:
    """`aligned_base64` for base32 (either alphabet): `data` starting `alignment` bytes
    into a 5-byte group."""
    return _aligned(data, alignment, encode, bits=5)


def _aligned(data: bytes, alignment: int, encode: Callable[[bytes], bytes], *, bits: int) -> str:
    """The characters of `bits` bits each that encode only `data`'s bits, `alignment`
    bytes into a group. `=` padding is dropped: it stands for no bit of `data`."""
    encoded = encode(b"\0" * alignment + data).decode("ascii").rstrip("=")
    first = (alignment * 8 + bits - 1) // bits  # characters that mix in the bytes before
    last = (alignment + len(data)) * 8 // bits  # characters made only of known bits
    return encoded[first:last]


def decode_base64(text: str) -> bytes | None:
    """The octets of base64 `text` (either alphabet, padding optional), or None."""
    if not text:
        return None
    padded = text.rstrip("=") + "=" * (-len(text.rstrip("=")) % 4)
    try:
        if "-" in padded or "_" in padded:
            return base64.b64decode(padded, altchars=b"-_", validate=True)
        return base64.b64decode(padded, validate=True)
    except (binascii.Error, ValueError):
        return None
