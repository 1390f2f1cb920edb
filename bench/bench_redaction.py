"""What hiding secrets costs on large output, and on the inputs that once made it slow.

Run with `python -m bench bench_redaction` (or `make bench`). Prints figures only, each
beside the time of a plain scan of the same text (`str.count` of a character), so a
slow host moves both.

- 1 MB of ordinary output (log lines, some non-ASCII) with four secrets set, one a
  3,000-character multi-line key: `redact`, and `open_match_start` (every cut of a
  stream that stopped asks it; it once copied the text at each of its last positions).
- 1 MB of base64 text (the characters of a token, everywhere) with a `ghp_` token, an AWS
  secret key and an API key set: every position may begin a long run of a secret
  (`secret_forms`' runs), so this is where finding them costs most.
- Building a session's forms (`SecretForms.from_values`: every form, the pattern
  compiled) for six secrets: two tokens, an AWS secret key, the multi-line key and two
  passwords holding `&<>#'!` (each escaped character a choice of its own), and `redact`
  of 1 MB of log lines with them.
- 1 MB of `xxd` and of `hexdump` output of other bytes, with the three token secrets:
  a dump is read for a secret's bytes in any layout (`secret_dumps`) wherever four of
  them may stand, so a dump is where that costs most.
- 1 MB of ordinary output dense with escapes (JSON's `\\u00e9`, C's `\\x1b`, URLs'
  `%2F`, HTML's `&#233;`) that hold no secret: every stretch around an escape is read
  back (`secret_escapes`), so this is where a value written with escapes costs most.
- 1 MB of output that is escapes only and holds no secret: `hexdump`'s `\\xNN` of text
  written in a token's characters, the same in a JSON string (`\\\\xNN`, read deep too),
  and `\\x67` repeated: every escape stands for a value's character, so all of it is one
  stretch to read (once cost 2 s a MB; each escape is now read by `re.sub`).
- A real private key (RSA, 2,048 bits, made by `openssl` when it is installed) as the one
  secret: its forms add what programs print of its private numbers (`key_number_forms`:
  `openssl -text`'s listing, hex, decimal, and the octets' hex, bytes and base64 as a
  JWK holds them), built once per dotenv change; `redact` of 1 MB of log lines and of
  1 MB of base64 text, where base64 forms cost most.
- Near-occurrences of a secret holding runs of blank lines: its first line repeated,
  then short lines, as ordinary output may hold them. A line break's gap (a prefix
  before each line) once let `re` try every way to split a blank line's text between
  two gaps: time grew about sevenfold per blank line (1.5 s at 7). Shown for 3 to 12.
"""

from __future__ import annotations

import base64
import re
import shutil
import subprocess
import time
from collections.abc import Callable

from agent_cli.secret_forms import SecretForms


def _key(lines: int = 45) -> str:
    body = ["".join(chr(65 + (i * 7 + j * 13) % 26) for j in range(64)) for i in range(lines)]
    return "\n".join(["-----BEGIN TEST KEY-----", *body, "-----END TEST KEY-----"])


def _output(size: int) -> str:
    line = "2026-12-05 12:00:00 worker-3 processed job 4711 in 0.24 s — ok\n"
    return (line * (size // len(line) + 1))[:size]


def _timed(action: Callable[[], object]) -> float:
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


def bench_large_output() -> None:
    secrets = SecretForms.from_values(
        [_key(), "sk-ant-api03-BENCHKEYzzQ9x8w7v6u5t4", "hunter2-hunter2", "p@ss w/rd%"]
    )
    text = _output(1_000_000)
    plain = _timed(lambda: text.count("\x00"))
    redact = _timed(lambda: secrets.redact(text))
    opened = _timed(lambda: secrets.open_match_start(text, 6))
    print(
        f"1 MB of output, 4 secrets (one a {len(_key()):,}-character key): redact "
        f"{redact * 1000:.0f} ms, open_match_start {opened * 1000:.0f} ms "
        f"(a plain scan {plain * 1000:.1f} ms)"
    )


def bench_token_text() -> None:
    secrets = SecretForms.from_values(
        [
            "ghp_R7x2Kq9LmN4pZ8vT3wY6bC1dF5gH0jS2aE7u",
            "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzQ9aXk2LmP",
            "sk-ant-api03-SECRETKEYVALUE1234567890abcdef",
        ]
    )
    text = _base64_text(1_000_000)
    plain = _timed(lambda: text.count("\x00"))
    redact = _timed(lambda: secrets.redact(text))
    print(
        f"1 MB of base64 text, 3 token secrets: redact {redact * 1000:.0f} ms "
        f"(a plain scan {plain * 1000:.1f} ms)"
    )


SESSION_VALUES = (
    "sk-ant-api03-BENCHKEYzzQ9x8w7v6u5t4",
    "ghp_R7x2Kq9LmN4pZ8vT3wY6bC1dF5gH0jS2aE7u",
    "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzQ9aXk2LmP",
    "Xk9#mQ2&vL7pR4zT<w>Qe",
    "!Kq7'mZ2vL9pR4zTx8w",
)


def _fresh_forms(values: list[str] | tuple[str, ...]) -> SecretForms:
    """`SecretForms.from_values` with `re`'s cache of compiled patterns emptied first: a
    session compiles its patterns once, and a bench that repeats must too."""
    re.purge()
    return SecretForms.from_values(values)


def _dump(lines: int, *, words: bool) -> str:
    """`xxd` (bytes in pairs, a text column) or `hexdump` (16-bit little-endian words)
    rows of pseudo-random bytes."""
    rows = []
    for row in range(lines):
        data = bytes((row * 131 + i * 7919 + (row * i) // 5) % 256 for i in range(16))
        if words:
            groups = " ".join(data[i : i + 2][::-1].hex() for i in range(0, 16, 2))
            rows.append(f"{row * 16:07x} {groups}")
        else:
            groups = " ".join(data[i : i + 2].hex() for i in range(0, 16, 2))
            text = "".join(chr(b) if 32 <= b < 127 else "." for b in data)
            rows.append(f"{row * 16:08x}: {groups}  {text}")
    return "\n".join(rows)


def bench_dumps() -> None:
    secrets = SecretForms.from_values(
        [
            "ghp_R7x2Kq9LmN4pZ8vT3wY6bC1dF5gH0jS2aE7u",
            "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzQ9aXk2LmP",
            "sk-ant-api03-SECRETKEYVALUE1234567890abcdef",
        ]
    )
    for name, words in (("xxd", False), ("hexdump", True)):
        text = _dump(1_000_000 // 60, words=words)[:1_000_000]
        plain = _timed(lambda: text.count("\x00"))  # noqa: B023 - run at once
        redact = _timed(lambda: secrets.redact(text))  # noqa: B023 - run at once
        print(
            f"1 MB of {name} output of other bytes, 3 token secrets: redact "
            f"{redact * 1000:.0f} ms (a plain scan {plain * 1000:.1f} ms)"
        )


def bench_session_build() -> None:
    values = [*SESSION_VALUES, _key()]
    built = min(_timed(lambda: _fresh_forms(values)) for _ in range(3))
    tokens = min(_timed(lambda: _fresh_forms(SESSION_VALUES[:2])) for _ in range(3))
    passwords = min(_timed(lambda: _fresh_forms(SESSION_VALUES[3:])) for _ in range(3))
    secrets = SecretForms.from_values(values)
    text = _output(1_000_000)
    plain = _timed(lambda: text.count("\x00"))
    redact = _timed(lambda: secrets.redact(text))
    print(
        f"a session's forms, 6 secrets (2 with escaped characters, one a key): built in "
        f"{built * 1000:.0f} ms (2 tokens alone {tokens * 1000:.0f} ms, the 2 passwords "
        f"{passwords * 1000:.0f} ms); redact of 1 MB "
        f"{redact * 1000:.0f} ms (a plain scan {plain * 1000:.1f} ms)"
    )


def _base64_text(size: int) -> str:
    """`size` characters of base64 of other bytes, in lines of 76."""
    noise = base64.b64encode(bytes((i * 7919 + i // 3) % 256 for i in range(size * 3 // 4)))
    return "\n".join(noise[i : i + 76].decode("ascii") for i in range(0, len(noise), 76))[:size]


def bench_private_key() -> None:
    openssl = shutil.which("openssl")
    if openssl is None:
        print("a private key's forms: skipped, no openssl installed")
        return
    pem = subprocess.run(
        [openssl, "genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048"],
        capture_output=True, text=True, check=True, timeout=120,
    ).stdout  # fmt: skip
    built = min(_timed(lambda: _fresh_forms([pem])) for _ in range(3))
    secrets = SecretForms.from_values([pem])
    logs, encoded = _output(1_000_000), _base64_text(1_000_000)
    plain = _timed(lambda: logs.count("\x00"))
    redact_logs = _timed(lambda: secrets.redact(logs))
    redact_encoded = _timed(lambda: secrets.redact(encoded))
    print(
        f"a 2048-bit RSA key ({len(secrets.forms)} forms): built in {built * 1000:.0f} ms; "
        f"redact of 1 MB of log lines {redact_logs * 1000:.0f} ms, of 1 MB of base64 "
        f"{redact_encoded * 1000:.0f} ms (a plain scan {plain * 1000:.1f} ms)"
    )


def _escaped_output(size: int) -> str:
    """`size` characters of ordinary output dense with escapes that hold no secret: JSON
    with `\\u00e9` and `\\"`, C string literals with `\\x1b` and octal, URLs with `%2F`,
    HTML with `&#233;` and `&amp;`."""
    lines = (
        '{"name": "caf\\u00e9 na\\u00efve \\"quoted\\"", "path": "C:\\\\Users\\\\dev"}\n',
        'printf("\\x1b[1;31m%s\\x1b[0m\\n\\t\\101\\102", name);\n',
        "GET /search?q=caf%C3%A9%20cr%C3%A8me&next=%2Fhome%2Fdev%3Fa%3Db 200\n",
        "<p>caf&#233; &amp; cr&#xE8;me &lt;b&gt;</p>\n",
    )
    text = "".join(lines)
    return (text * (size // len(text) + 1))[:size]


def bench_escaped_output() -> None:
    secrets = SecretForms.from_values(
        [
            "ghp_R7x2Kq9LmN4pZ8vT3wY6bC1dF5gH0jS2aE7u",
            "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzQ9aXk2LmP",
            "Xk9#mQ2&vL7pR4zT<w>Qe",
        ]
    )
    text = _escaped_output(1_000_000)
    plain = _timed(lambda: text.count("\x00"))
    redact = _timed(lambda: secrets.redact(text))
    print(
        f"1 MB of escaped output (JSON, C strings, URLs, HTML) holding no secret, 3 secrets: "
        f"redact {redact * 1000:.0f} ms (a plain scan {plain * 1000:.1f} ms)"
    )


def bench_blank_lines() -> None:
    for blanks in (3, 7, 12):
        value = "# vault export for prod-eu-1" + "\n" * (blanks + 1) + "DB_PASSWORD=Zq9-kx7"
        secrets = SecretForms.from_values([value])
        near = "# vault export for prod-eu-1\n" + "a line\n" * blanks + "DB_HOST=db.internal\n"
        text = near * 10
        took = _timed(lambda: secrets.redact(text))  # noqa: B023 - run at once
        print(f"a secret with {blanks} blank lines, 10 near-occurrences: {took * 1000:.2f} ms")


def bench_escape_dense_output() -> None:
    secrets = SecretForms.from_values(
        ["ghp_R7x2Kq9LmN4pZ8vT3wY6bC1dF5gH0jS2aE7u", "Tr0ub4dor-horse-9"]
    )
    letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_"
    written = "".join(letters[(at * 7919) % len(letters)] for at in range(250_000))
    dumped = "".join(f"\\x{ord(c):02x}" for c in written)
    texts = {
        "hexdump \\xNN": dumped,
        "the same in a JSON string": dumped.replace("\\", "\\\\")[:1_000_000],
        "\\x67 repeated": "\\x67" * 250_000,
    }
    plain = _timed(lambda: dumped.count("\x00"))
    took = {name: _timed(lambda: secrets.redact(text)) for name, text in texts.items()}  # noqa: B023
    print(
        "1 MB of escapes holding no secret, 2 secrets: "
        + ", ".join(f"{name} {seconds * 1000:.0f} ms" for name, seconds in took.items())
        + f" (a plain scan {plain * 1000:.1f} ms)"
    )


def main() -> None:
    bench_large_output()
    bench_token_text()
    bench_dumps()
    bench_escaped_output()
    bench_escape_dense_output()
    bench_session_build()
    bench_private_key()
    bench_blank_lines()


if __name__ == "__main__":
    main()
