"""A dump of a secret in any layout, and a secret spaced out in pieces, are redacted.

The twenty-sixth outside attack (T1): `hexdump .env` (its default: 16-bit little-endian
words, `4947 4854` for `GITH`), `od -x`, `hexdump -x`/`-d`, `od -tx4`/`-tx8`, `xxd -e`,
`xxd -g 4`/`-g 8`, `xxd -c 32`, and `xxd -b`, `xxd -i`, `od -b`, `od -An -td1` sent a
`.env` token decodably to the model (17 of 19 layouts); so did the token in pieces with
a separator between them inside one result (`sed 's/.\\{8\\}/& /g'`, a JSON list of
10-character pieces, `split` read back with `tail`'s headers).

The twenty-seventh (below): a dump cut short (the run rule), a UTF-16 `.env`, lists of
quoted hex numbers.

The unit tests run the real programs as the `bash` tool of a `Toolbox` and read what it
returns as each layout's reader would (`_bytes_shown`), independently of the redactor.
"""

from __future__ import annotations

import base64
import json
import random
import re
import shutil
import uuid
from pathlib import Path

import pytest
from e2e_support import build_env, run_piped
from fake_anthropic import Reply, start_fake_server, text_block, tool_result_texts, tool_use_block
from tools_support import FakeArtifactStore

from agent_cli.secret_forms import REDACTED_MARK
from agent_cli.secret_spacing import PIECE_CHARS
from agent_cli.tools import Toolbox
from agent_cli.tools.redaction import SecretRedactor, StreamRedactor

TOKEN = "ghp_R26aB3cD4eF5gH6iJ7kL8mN9oP0qR1sT2uV3w"
PASSWORD = "Tr0ub4dor-3-horse-Staple"

DUMPERS = {
    "hexdump": ("hexdump .env", 16, 2, "little"),
    "od -x": ("od -x .env", 16, 2, "little"),
    "hexdump -x": ("hexdump -x .env", 16, 2, "little"),
    "hexdump -d": ("hexdump -d .env", 10, 2, "little"),
    "od -tu2": ("od -tu2 .env", 10, 2, "little"),
    "od": ("od .env", 8, 2, "little"),
    "od -tx4": ("od -tx4 .env", 16, 4, "little"),
    "od -tx8": ("od -tx8 .env", 16, 8, "little"),
    "xxd -e": ("xxd -e .env", 16, 4, "little"),
    "xxd -g 4": ("xxd -g 4 .env", 16, 4, "big"),
    "xxd -g 8": ("xxd -g 8 .env", 16, 8, "big"),
    "xxd -c 32": ("xxd -c 32 .env", 16, 2, "big"),
    "xxd -b -c 8": ("xxd -b -c 8 .env", 2, 1, "big"),
    "od -b": ("od -b .env", 8, 1, "big"),
    "od -An -td1": ("od -An -td1 .env", 10, 1, "big"),
    "xxd -i": ("xxd -i .env", 16, 1, "big"),
    "hex(':')": ("python3 -c \"print(open('.env','rb').read().hex(':'))\"", 16, 1, "big"),
    "xxd": ("xxd .env", 16, 2, "big"),
    "hexdump -C": ("hexdump -C .env", 16, 1, "big"),
}
_OFFSET = re.compile(r"^\s*(?:[0-9a-fA-F]{6,8}:|[0-9a-f]{7,8}(?=\s))")
_NUMBER = re.compile(r"(?<![0-9A-Za-z])-?(?:0x)?[0-9a-fA-F]+(?![0-9A-Za-z])")


def _bytes_shown(content: str, base: int, group: int, order: str) -> bytes:
    """The bytes a reader of this layout takes from `content`: each row's numbers after
    its offset, in order, up to the first word that is none (its text column)."""
    shown = bytearray()
    for line in content.splitlines():
        line = _OFFSET.sub("", line).split("  |")[0].replace(",", " ")
        for word in _NUMBER.findall(line):
            digits = word.removeprefix("0x")
            try:
                number = int(digits, base) % (1 << 64)
            except ValueError:
                break
            size = {16: len(digits) // 2, 2: 1, 8: 1 if len(digits) == 3 else 2}.get(base, group)
            if number >= 1 << (8 * size) and base == 10 and size == 1:
                number %= 256
            try:
                shown += number.to_bytes(size, "little" if order == "little" else "big")
            except OverflowError:
                break
    return bytes(shown)


def _longest_shared(data: bytes, secret: bytes) -> int:
    """The most bytes of `secret`, in a row, that `data` holds."""
    best = 0
    for start in range(len(secret)):
        while start + best < len(secret) and secret[start : start + best + 1] in data:
            best += 1
    return best


def toolbox(tmp_path: Path) -> Toolbox:
    return Toolbox(
        tmp_path,
        FakeArtifactStore(),
        "s1",
        auto_approve=True,
        secret_environment={"PATH": "/usr/bin:/bin", "GITHUB_TOKEN": TOKEN},
    )


@pytest.mark.parametrize("dumper", sorted(DUMPERS))
@pytest.mark.parametrize("offset", [0, 1, 2, 3, 5])
def test_a_dump_of_a_token_in_any_layout_shows_no_piece_of_it(tmp_path, dumper, offset):
    command, base, group, order = DUMPERS[dumper]
    if shutil.which(command.split()[0]) is None:
        pytest.skip(f"{dumper} is not installed")
    (tmp_path / ".env").write_text("#" * offset + f"GITHUB_TOKEN={TOKEN}\nDEBUG=1\n")
    content = toolbox(tmp_path).run("bash", {"command": command}).content
    assert REDACTED_MARK in content, content
    shown = _bytes_shown(content, base, group, order)
    assert _longest_shared(shown, TOKEN.encode()) < 8, content
    assert TOKEN[:8] not in content and TOKEN[-8:] not in content  # the text column


def test_the_reader_of_each_layout_does_read_the_token_from_it(tmp_path):
    """The check above is no check unless the reader finds the token in the unredacted
    dump (redaction off: no secret known)."""
    (tmp_path / ".env").write_text(f"#GITHUB_TOKEN={TOKEN}\n")
    box = Toolbox(tmp_path, FakeArtifactStore(), "s1", auto_approve=True, secret_environment={})
    for command, base, group, order in DUMPERS.values():
        if shutil.which(command.split()[0]) is None:
            continue
        content = box.run("bash", {"command": command}).content
        shown = _bytes_shown(content, base, group, order)
        assert _longest_shared(shown, TOKEN.encode()) >= 16, (command, content)


def test_dumps_of_other_bytes_uuids_and_base64_are_left_alone(tmp_path):
    noise = random.Random(26).randbytes(64 * 1024)
    (tmp_path / "blob.bin").write_bytes(noise)
    box = toolbox(tmp_path)
    for command in ("xxd blob.bin", "hexdump blob.bin", "od -tx8 blob.bin", "od -b blob.bin"):
        content = box.run("bash", {"command": f"{command} | head -2000"}).content
        assert REDACTED_MARK not in content, command
    redactor = SecretRedactor([TOKEN, PASSWORD])
    uuids = "\n".join(str(uuid.UUID(bytes=noise[i : i + 16])) for i in range(0, 16000, 16))
    blob = base64.b64encode(noise).decode()
    for text in (uuids, blob, uuids.replace("-", " ")):
        assert redactor.redact(text).count == 0


def test_a_dump_streamed_row_by_row_shows_no_piece_of_the_token():
    from subprocess import run

    dumped = run(
        ["xxd", "-e"], input=f"x{TOKEN}\n{'.' * 40}".encode() * 3, capture_output=True, check=True
    ).stdout
    assert_streamed_as_whole(dumped, marks=3)


SPACERS = {
    "sed 8": "sed 's/.\\{8\\}/& /g' .env",
    "json 10": "python3 -c \"import json;t=open('.env').read().strip();"
    'print(json.dumps([t[i:i+10] for i in range(0,len(t),10)]))"',
    "split and tail": "split -b 12 .env p_ && tail -n +1 p_*",
    "fold and join": "fold -w 9 .env | paste -sd'|'",
}


@pytest.mark.parametrize("spacer", sorted(SPACERS))
def test_a_token_spaced_out_in_pieces_in_one_result_is_redacted(tmp_path, spacer):
    (tmp_path / ".env").write_text(f"GITHUB_TOKEN={TOKEN}\n")
    content = toolbox(tmp_path).run("bash", {"command": SPACERS[spacer]}).content
    assert REDACTED_MARK in content, content
    joined = re.sub(r"==> \S+ <==|[\s\-\",\[\]|]", "", content.split("\n", 1)[1])
    assert all(TOKEN[at : at + PIECE_CHARS] not in joined for at in range(4, 33)), content


def test_pieces_far_apart_or_out_of_order_are_left_alone():
    redactor = SecretRedactor([TOKEN])
    pieces = [TOKEN[at : at + 10] for at in range(0, 40, 10)]
    assert redactor.redact((" " * 30).join(pieces)).count == 0
    assert redactor.redact(" ".join(reversed(pieces))).count == 0
    assert redactor.redact(" ".join(pieces)).count == 1


def test_a_list_of_the_tokens_characters_is_redacted():
    redactor = SecretRedactor([TOKEN])
    for shown in (str(list(TOKEN)), json.dumps(list(TOKEN))):
        redacted = redactor.redact(shown).text
        assert REDACTED_MARK in redacted and "'R', '2'" not in redacted, redacted
        assert '"R", "2"' not in redacted, redacted


# The twenty-seventh outside attack (T1): a dump cut short, a UTF-16 `.env`, quoted hex lists.
def _hex_pairs(content: str) -> bytes:
    """Every two-digit hex number of `content` after its header line, in order (a reader
    of `hexdump -C`, `xxd -g1`, a list of quoted numbers, Node's `<Buffer ..>`)."""
    body = content.split("\n", 1)[1]
    body = re.sub(r"\|.*?\|", "", body)
    return bytes.fromhex(
        "".join(re.findall(r"(?<![0-9a-fA-F])(?:0x)?([0-9a-f]{2})(?![0-9a-f])", body))
    )


def _xxd_words(content: str) -> bytes:
    """`xxd`'s (and `xxd -l`'s) bytes: its rows' 4-digit words after the offset."""
    rows = content.split("\n", 1)[1].splitlines()
    return bytes.fromhex(
        "".join(w for row in rows for w in re.findall(r"\b[0-9a-f]{4}\b", row[10:50]))
    )


def _plain_hex(content: str) -> bytes:
    """`xxd -p`'s bytes: its lines joined, a last odd digit left out."""
    digits = "".join(re.findall(r"[0-9a-f]+", content.split("\n", 1)[1]))
    return bytes.fromhex(digits[: len(digits) // 2 * 2])


def _characters(content: str) -> bytes:
    """`od -c`'s characters, and every text column (`|...|` or after `xxd`'s words)."""
    body = content.split("\n", 1)[1]
    cells = re.sub(r"^\d{7}|\\0|\s", "", body, flags=re.M)
    columns = "".join(re.findall(r"\|(.*?)\|", body)) + "".join(
        row[51:] for row in body.splitlines()
    )
    return (cells + columns.replace(".", "")).encode()


CUT_DUMPS = {
    "xxd | head -n 3": ("xxd .env | head -n 3", _xxd_words),
    "xxd -l 46": ("xxd -l 46 .env", _xxd_words),
    "hexdump -C | head -n 3": ("hexdump -C .env | head -n 3", _hex_pairs),
    "xxd -p | head -c 92": ("xxd -p .env | head -c 92", _plain_hex),
    "od -c | head -n 3": ("od -c .env | head -n 3", _characters),
}


@pytest.mark.parametrize("dumper", sorted(CUT_DUMPS))
def test_a_dump_cut_short_shows_no_run_of_the_token(tmp_path, dumper):
    """A dump of the first 32-37 of the token's 41 characters is hidden as `head -c 48`
    of the text is (the run rule), in its numbers and in its text column."""
    command, reader = CUT_DUMPS[dumper]
    (tmp_path / ".env").write_text(f"GITHUB_TOKEN={TOKEN}\n")
    content = toolbox(tmp_path).run("bash", {"command": command}).content
    assert REDACTED_MARK in content, content
    assert _longest_shared(reader(content), TOKEN.encode()) < 8, content
    assert _longest_shared(_characters(content), TOKEN.encode()) < 8, content
    assert "_R26aB3cD4eF5gH6"[:8] not in content


def test_the_readers_of_cut_dumps_do_read_the_token_from_them(tmp_path):
    (tmp_path / ".env").write_text(f"GITHUB_TOKEN={TOKEN}\n")
    box = Toolbox(tmp_path, FakeArtifactStore(), "s1", auto_approve=True, secret_environment={})
    for command, reader in CUT_DUMPS.values():
        content = box.run("bash", {"command": command}).content
        assert _longest_shared(reader(content), TOKEN.encode()) >= 30, (command, content)


@pytest.mark.parametrize("shown", [8, 15, 20, 21, 30, 41])
def test_a_cut_dump_is_hidden_where_the_same_cut_of_the_text_is(tmp_path, shown):
    """One rule for a value's pieces, whether printed or dumped: `xxd -l` and `od -c`
    of the token's first `shown` characters are hidden exactly when `head -c` is."""
    (tmp_path / ".env").write_text(f"GITHUB_TOKEN={TOKEN}\n")
    box = toolbox(tmp_path)
    size = len("GITHUB_TOKEN=") + shown
    text = box.run("bash", {"command": f"head -c {size} .env"}).content
    for command in (f"xxd -l {size} .env", f"head -c {size} .env | od -c"):
        dumped = box.run("bash", {"command": command}).content
        assert (REDACTED_MARK in dumped) == (REDACTED_MARK in text), (command, dumped, text)


def test_nodes_buffer_cut_after_fifty_bytes_shows_no_run_of_the_token():
    data = f"GITHUB_TOKEN={TOKEN}\n".encode()
    printed = f"<Buffer {' '.join(f'{b:02x}' for b in data[:50])} ... {len(data) - 50} more bytes>"
    redacted = SecretRedactor([TOKEN]).redact(printed).text
    assert REDACTED_MARK in redacted, redacted
    assert _longest_shared(_hex_pairs("\n" + redacted), TOKEN.encode()) < 8, redacted


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be"])
@pytest.mark.parametrize(
    "command", ["xxd .env", "hexdump -C .env", "od -c .env", "xxd .env | head -n 5"]
)
def test_a_dump_of_a_utf_16_env_shows_no_piece_of_the_token(tmp_path, codec, command):
    (tmp_path / ".env").write_bytes(
        ("\ufeff" + f"GITHUB_TOKEN={TOKEN}\r\nDEBUG=1\r\n").encode(codec)
    )
    content = toolbox(tmp_path).run("bash", {"command": command}).content
    assert REDACTED_MARK in content, content
    wide = TOKEN.encode(codec).strip(b"\x00")
    for shown in (_hex_pairs(content), _xxd_words(content)):
        assert _longest_shared(shown, wide) < 16, content
    cells = re.sub(r"^\d{7}|\\0|\s", "", content.split("\n", 1)[1], flags=re.M)
    column = "".join(re.findall(r"\|(.*?)\|", content)).replace(".", "")
    for text in (cells, column):
        assert _longest_shared(text.encode(), TOKEN.encode()) < 8, content


QUOTED_LISTS = {
    "hex()": "print([hex(b) for b in d])",
    "02x": "print([f'{b:02x}' for b in d])",
    "json": "import json; print(json.dumps([format(b, '02x') for b in d]))",
}


@pytest.mark.parametrize("lister", sorted(QUOTED_LISTS))
def test_a_list_of_quoted_hex_numbers_shows_no_piece_of_the_token(tmp_path, lister):
    (tmp_path / ".env").write_text(f"GITHUB_TOKEN={TOKEN}\n")
    script = f"d = open('.env', 'rb').read(); {QUOTED_LISTS[lister]}"
    content = toolbox(tmp_path).run("bash", {"command": f'python3 -c "{script}"'}).content
    assert REDACTED_MARK in content, content
    assert _longest_shared(_hex_pairs(content), TOKEN.encode()) < 8, content


def test_a_cut_dump_streamed_row_by_row_is_hidden_as_the_whole_result_is():
    from subprocess import run

    text = f"GITHUB_TOKEN={TOKEN}\n".encode()
    dumped = b"".join(
        run(command, input=text, capture_output=True, check=True).stdout
        for command in (["xxd", "-l", "46"], ["od", "-c"], ["xxd", "-p"])
    )
    assert_streamed_as_whole(dumped, marks=3)


def assert_streamed_as_whole(dumped: bytes, marks: int) -> None:
    """`dumped` fed to a `StreamRedactor` row by row shows what redacting it whole shows,
    with `marks` marks."""
    redactor = SecretRedactor([TOKEN])
    stream = StreamRedactor(redactor)
    shown = "".join(stream.feed(row) for row in dumped.splitlines(keepends=True))
    shown += stream.finish()
    assert shown == redactor.redact(dumped.decode()).text
    assert shown.count(REDACTED_MARK) == marks, shown


# The twenty-eighth outside attack: rows of 1 or 3 bytes, and hex joined by `-`, `_`, `.`.
def _narrow_rows(content: str) -> tuple[bytes, str]:
    """What a reader takes from a dump of narrow rows (`xxd -c N`, `xxd -b -c N`,
    `od -A x -t x1z -wN`): each row's numbers after its offset, up to two blanks (hex
    pairs and 4-digit groups, or 8 binary digits), and its text column joined."""
    shown, column = bytearray(), []
    for row in content.split("\n", 1)[1].splitlines():
        row = re.sub(r"^[0-9a-f]{6,8}:? ", "", row)
        numbers, _, text = row.partition("  ")
        column.append(text.strip().strip("><"))
        for word in numbers.split():
            if len(word) == 8 and set(word) <= {"0", "1"}:
                shown.append(int(word, 2))
            elif re.fullmatch(r"(?:[0-9a-f]{2})+", word):
                shown += bytes.fromhex(word)
    return bytes(shown), "".join(column)


NARROW_ROWS = [
    "xxd -c 1 .env",
    "xxd -c 3 .env",
    "xxd -b -c 1 .env",
    "xxd -b -c 2 .env",
    "xxd -b -c 3 .env",
    "od -A x -t x1z -w3 .env",
    "od -A x -t x1z -w1 .env",
    "xxd -c 1 .env | cat -n | cut -f2",
]


@pytest.mark.parametrize("command", NARROW_ROWS)
@pytest.mark.parametrize("offset", [0, 1, 2])
def test_a_dump_in_rows_of_one_to_three_bytes_shows_no_piece_of_the_token(
    tmp_path, command, offset
):
    (tmp_path / ".env").write_text("#" * offset + f"GITHUB_TOKEN={TOKEN}\nDEBUG=1\n")
    content = toolbox(tmp_path).run("bash", {"command": command}).content
    assert REDACTED_MARK in content, content
    shown, column = _narrow_rows(content.replace(REDACTED_MARK, ""))
    assert _longest_shared(shown, TOKEN.encode()) < 8, content
    assert _longest_shared(column.encode(), TOKEN.encode()) < 8, content


def test_the_reader_of_narrow_rows_does_read_the_token_from_them(tmp_path):
    (tmp_path / ".env").write_text(f"GITHUB_TOKEN={TOKEN}\n")
    box = Toolbox(tmp_path, FakeArtifactStore(), "s1", auto_approve=True, secret_environment={})
    for command in NARROW_ROWS:
        shown, column = _narrow_rows(box.run("bash", {"command": command}).content)
        assert TOKEN.encode() in shown and TOKEN in column, command


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be"])
@pytest.mark.parametrize("command", ["xxd -c 1 .env", "xxd -c 3 .env", "xxd -c 6 .env"])
def test_a_utf_16_env_in_narrow_rows_shows_no_piece_of_the_token(tmp_path, codec, command):
    (tmp_path / ".env").write_bytes(f"GITHUB_TOKEN={TOKEN}\r\n".encode(codec))
    content = toolbox(tmp_path).run("bash", {"command": command}).content
    assert REDACTED_MARK in content, content
    shown, _ = _narrow_rows(content.replace(REDACTED_MARK, ""))
    assert _longest_shared(shown, TOKEN.encode(codec).strip(b"\x00")) < 16, content


SEPARATED_HEX = {
    "hexdump /1 %02x-": "hexdump -v -e '/1 \"%02x-\"' .env",
    "hexdump /1 %02x_": "hexdump -v -e '/1 \"%02x_\"' .env",
    "hexdump /1 %02x.": "hexdump -v -e '/1 \"%02x.\"' .env",
    "hexdump %02x.": "hexdump -v -e '\"%02x.\"' .env",  # 32-bit little-endian words
    "hex('-')": "python3 -c \"print(open('.env','rb').read().hex('-'))\"",
    "hex('-', 3)": "python3 -c \"print(open('.env','rb').read().hex('-', 3))\"",
    "hex('.', -5)": "python3 -c \"print(open('.env','rb').read().hex('.', -5))\"",
    "hexlify('_', 3)": 'python3 -c "import binascii;'
    "print(binascii.hexlify(open('.env','rb').read(), '_', 3).decode())\"",
    "hex('/', 2) upper": "python3 -c \"print(open('.env','rb').read().hex('/', 2).upper())\"",
}


def _separated_hex(content: str, *, words: bool) -> bytes:
    """The bytes of hex with punctuation between its groups (each a 32-bit little-endian
    word when `words`), after the result's header line."""
    shown = bytearray()
    for group in re.findall(r"[0-9a-fA-F]+", content.split("\n", 1)[1]):
        data = bytes.fromhex(group.zfill(8) if words else group[: len(group) // 2 * 2])
        shown += data[::-1] if words else data
    return bytes(shown)


@pytest.mark.parametrize("layout", sorted(SEPARATED_HEX))
def test_hex_joined_by_any_punctuation_shows_no_piece_of_the_token(tmp_path, layout):
    (tmp_path / ".env").write_text(f"GITHUB_TOKEN={TOKEN}\n")
    content = toolbox(tmp_path).run("bash", {"command": SEPARATED_HEX[layout]}).content
    assert REDACTED_MARK in content, content
    for piece in content.split(REDACTED_MARK):
        shown = _separated_hex("\n" + piece, words=layout == "hexdump %02x.")
        assert _longest_shared(shown, TOKEN.encode()) < 8, content


def test_the_reader_of_separated_hex_does_read_the_token_from_it(tmp_path):
    (tmp_path / ".env").write_text(f"GITHUB_TOKEN={TOKEN}\n")
    box = Toolbox(tmp_path, FakeArtifactStore(), "s1", auto_approve=True, secret_environment={})
    for layout, command in SEPARATED_HEX.items():
        content = box.run("bash", {"command": command}).content
        assert TOKEN.encode() in _separated_hex(content, words=layout == "hexdump %02x."), layout


def test_narrow_dumps_and_punctuated_ids_of_other_bytes_are_left_alone(tmp_path):
    noise = random.Random(28).randbytes(16 * 1024)
    (tmp_path / "blob.bin").write_bytes(noise)
    box = toolbox(tmp_path)
    for command in ("xxd -c 1", "xxd -c 3", "xxd -b -c 1", "od -A x -t x1z -w3", "od -c -w1"):
        content = box.run("bash", {"command": f"{command} blob.bin | head -6000"}).content
        assert REDACTED_MARK not in content, command
    chunks = [noise[at : at + 16] for at in range(0, 8000, 16)]
    texts = [
        "\n".join(str(uuid.UUID(bytes=chunk)) for chunk in chunks),
        "\n".join(chunk.hex("-") for chunk in chunks),  # `de-ad-be-ef`-style ids
        "\n".join(chunk.hex("_", 3) + " " + chunk.hex(".") for chunk in chunks),
        "\n".join(":".join(f"{b:02x}" for b in chunk[:6]) for chunk in chunks),  # MACs
        "\n".join(".".join(str(b) for b in chunk[:4]) for chunk in chunks),  # IPs
        "\n".join(
            f"{c[0]}.{c[1]}.{c[2]} 2024-{c[3] % 12 + 1:02d}-{c[4] % 28 + 1:02d}" for c in chunks
        ),
    ]
    redactor = SecretRedactor([TOKEN, PASSWORD])
    for text in texts:
        assert redactor.redact(text).count == 0, text[:200]


def test_a_dashed_id_is_hidden_only_where_it_is_a_secrets_bytes():
    secret = "de-ad-be-ef-01-02-03-04"
    redactor = SecretRedactor([TOKEN, secret])
    shown = f"id {uuid.UUID(int=7)} build 1.2.3 at 2024-01-02 mac de:ad:be:ef:00:01"
    assert redactor.redact(shown).text == shown
    dumped = secret.encode().hex("-")
    assert redactor.redact(f"bytes: {dumped}").text == f"bytes: {REDACTED_MARK}"


@pytest.mark.parametrize(
    "command",
    [["xxd", "-c", "1"], ["xxd", "-b", "-c", "3"], ["od", "-A", "x", "-t", "x1z", "-w3"]],
)
def test_narrow_rows_streamed_row_by_row_are_hidden_as_the_whole_result_is(command):
    from subprocess import run

    dumped = run(command, input=f"x{TOKEN}\n".encode(), capture_output=True, check=True).stdout
    assert_streamed_as_whole(dumped * 2, marks=2)


def test_separated_hex_streamed_in_small_pieces_is_hidden_as_the_whole_result_is():
    dumped = "\n".join(f"x{TOKEN}\n".encode().hex(sep, 3) for sep in "-_.").encode()
    redactor = SecretRedactor([TOKEN])
    stream = StreamRedactor(redactor)
    shown = "".join(stream.feed(dumped[at : at + 7]) for at in range(0, len(dumped), 7))
    shown += stream.finish()
    assert shown == redactor.redact(dumped.decode()).text
    assert shown.count(REDACTED_MARK) == 3, shown


def test_a_long_utf_16_value_dumped_a_bit_a_row_behind_line_numbers_is_hidden():
    """A value of 200 characters in UTF-16 (400 bytes) in `xxd -b -c 1 | cat -n` takes
    29 characters a byte: a stretch longer than rows of 16 bytes make, still found."""
    from subprocess import run

    value = "".join(random.Random(5).choice("abcdefXYZ0123456789_-") for _ in range(200))
    dumped = run(
        ["sh", "-c", "xxd -b -c 1 | cat -n"],
        input=f"v={value}\n".encode("utf-16-le"),
        capture_output=True,
        check=True,
    ).stdout.decode()
    redacted = SecretRedactor([value]).redact(dumped).text
    assert redacted.count(REDACTED_MARK) == 1, redacted[:500]
    rows = "\n" + re.sub(r"^ *\d+\t", "", redacted, flags=re.M)
    wide = value.encode("utf-16-le").strip(b"\x00")
    assert _longest_shared(_narrow_rows(rows)[0], wide) < 16


KEY = "sk-ant-api03-DUMPROWSkeyQ9x8w7v6u5t4"


@pytest.mark.e2e
def test_narrow_rows_and_dashed_hex_of_a_dotenv_token_reach_no_request(tmp_path):
    """Through the real CLI: `.env`'s token (learned from the file, not the environment)
    dumped in rows of 3 and of 1 byte and as `-`-joined hex reaches no request, no file
    under the home and no terminal output."""
    home, workspace = tmp_path / "home", tmp_path / "ws"
    workspace.mkdir()
    (workspace / ".env").write_text(f"GITHUB_TOKEN={TOKEN}\n")
    commands = ["xxd -c 3 .env", "xxd -b -c 1 .env", SEPARATED_HEX["hex('-', 3)"]]
    with start_fake_server(api_key=KEY) as fake:
        fake.enqueue(
            *(
                Reply([tool_use_block(f"toolu_{n}", "bash", {"command": c})], "tool_use")
                for n, c in enumerate(commands)
            ),
            Reply([text_block("Dumped.")]),
        )
        env = build_env(home, {"ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": fake.base_url})
        done = run_piped(["--yes"], cwd=workspace, env=env, stdin_text="dump .env\n")
        bodies = [request.body for request in fake.requests]
    assert done.returncode == 0, done.stderr
    rows3, rows1, dashed = tool_result_texts(bodies[-1])
    for shown in (rows3, rows1, dashed):
        assert REDACTED_MARK in shown, shown
    for rows in (rows3, rows1):
        data, column = _narrow_rows(rows.replace(REDACTED_MARK, ""))
        assert _longest_shared(data, TOKEN.encode()) < 8, rows
        assert _longest_shared(column.encode(), TOKEN.encode()) < 8, rows
    for piece in dashed.split(REDACTED_MARK):
        assert _longest_shared(_separated_hex("\n" + piece, words=False), TOKEN.encode()) < 8
    token_hex = TOKEN.encode().hex()
    written = [p.read_bytes().decode("utf-8", "replace") for p in home.rglob("*") if p.is_file()]
    for text in [*map(json.dumps, bodies), *written, done.stdout + done.stderr]:
        flat = re.sub(r"[^0-9a-f]", "", text.lower())
        assert TOKEN not in text and token_hex[:32] not in flat
