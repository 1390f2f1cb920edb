"""grep never says "No matches" about a file it did not search, and shows a match on a
long line (a fourteenth outside attack, items 6 and 8a): real files, the real rg."""

from __future__ import annotations

from pathlib import Path

import pytest
from tools_support import make_toolbox

from agent_cli.safe_cuts import cut_around
from agent_cli.secret_forms import SecretForms
from agent_cli.tools.grep_unsearched import OVERSIZED_NAMED

CAP = 20 * 1024 * 1024  # ToolLimits.max_read_file_bytes


def oversized(path: Path, line: bytes = b"ERROR disk full\n", size: int = CAP + 1024**2) -> None:
    """A sparse file of `size` bytes, then `line` (a 21 MB log, written in no time)."""
    with path.open("wb") as handle:
        handle.truncate(size)
        handle.seek(size)
        handle.write(line)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "small.txt").write_text("all is well\n")
    oversized(root / "app.log")
    return root


def grep(root: Path, **arguments: str) -> str:
    outcome = make_toolbox(root).run("grep", arguments)
    assert not outcome.is_error, outcome.content
    return outcome.content


NOTE = (
    "[app.log (21.0 MB) was not searched: over the 20.0 MB cap; "
    "bash: grep -n PATTERN app.log | head]"
)


def test_a_folder_search_names_a_file_over_the_cap_and_does_not_count_it(workspace: Path):
    assert grep(workspace, pattern="ERROR").splitlines() == [
        "No matches under . (1 file searched; 1 over the 20.0 MB cap not searched).",
        NOTE,
    ]


def test_a_file_over_the_cap_named_as_the_path_is_not_searched_and_says_so(workspace: Path):
    assert grep(workspace, pattern="ERROR", path="app.log").splitlines() == [
        "Nothing was searched under app.log: 1 file over the 20.0 MB cap.",
        NOTE,
    ]


def test_an_answer_with_matches_names_the_file_over_the_cap_too(workspace: Path):
    (workspace / "small.txt").write_text("ERROR once\n")
    assert grep(workspace, pattern="ERROR").splitlines() == [
        "1 match in 1 file under .",
        "small.txt:1: ERROR once",
        NOTE,
    ]


def test_many_files_over_the_cap_are_named_a_few_and_counted(workspace: Path):
    for number in range(4):
        oversized(workspace / f"dump{number}.bin")
    lines = grep(workspace, pattern="ERROR").splitlines()
    assert lines[0] == "No matches under . (1 file searched; 5 over the 20.0 MB cap not searched)."
    assert len([line for line in lines if "was not searched" in line]) == OVERSIZED_NAMED
    assert lines[-1] == "[2 more files over the 20.0 MB cap were not searched]"


def test_a_text_file_just_under_the_cap_is_searched(tmp_path: Path):
    line = b"." * 99 + b"\n"
    (tmp_path / "edge.log").write_bytes(line * (CAP // 100 - 1) + b"ERROR disk full\n")
    assert grep(tmp_path, pattern="ERROR").splitlines() == [
        "1 match in 1 file under .",
        f"edge.log:{CAP // 100}: ERROR disk full",
    ]


def test_a_binary_file_that_matched_is_said_to_be_skipped_when_nothing_else_matched(
    tmp_path: Path,
):
    oversized(tmp_path / "sparse.img", size=1024)  # NUL bytes, then the line
    assert grep(tmp_path, pattern="ERROR").splitlines() == [
        "No matches under . (0 files searched).",
        "[1 binary or unreadable files skipped]",
    ]


def test_read_file_of_a_file_over_the_cap_does_not_send_the_model_to_grep(workspace: Path):
    outcome = make_toolbox(workspace).run("read_file", {"path": "app.log"})
    assert outcome.is_error and "grep does not search it either" in outcome.content
    assert "bash with grep -n" in outcome.content


def test_a_file_over_the_cap_whose_name_holds_a_secret_stays_absent(tmp_path: Path):
    token = "ghp_R7x2Kq9LmN4pZ8vT3wY6bC1dF5gH0jS2aE7u"
    oversized(tmp_path / f"{token}.log")
    box = make_toolbox(tmp_path, secret_environment={"GITHUB_TOKEN": token})
    content = box.run("grep", {"pattern": "ERROR"}).content
    assert content == (
        "No matches under . (0 files searched).\n"
        "[1 file withheld: its name holds a secret; grep never searches or names it]"
    )


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-be", "utf-8-sig"])
def test_a_text_file_with_a_byte_order_mark_is_searched_as_text(tmp_path: Path, encoding: str):
    """As Windows writes text: UTF-16 with a BOM and CRLF (Notepad, PowerShell 5)."""
    (tmp_path / "win.txt").write_bytes("line one\r\nthe NEEDLE is here\r\n".encode(encoding))
    if encoding == "utf-16-be":  # Python writes no mark for an explicit byte order
        (tmp_path / "win.txt").write_bytes(b"\xfe\xff" + (tmp_path / "win.txt").read_bytes())
    assert grep(tmp_path, pattern="NEEDLE").splitlines() == [
        "1 match in 1 file under .",
        "win.txt:2: the NEEDLE is here",
    ]
    assert grep(tmp_path, pattern="^line one").splitlines()[1:] == ["win.txt:1: line one"]


def test_a_utf16_file_holding_a_secret_shows_none_of_its_lines(tmp_path: Path):
    token = "ghp_R7x2Kq9LmN4pZ8vT3wY6bC1dF5gH0jS2aE7u"
    (tmp_path / ".env").write_bytes(f"REGION=eu\r\nGITHUB_TOKEN={token}\r\n".encode("utf-16"))
    box = make_toolbox(tmp_path, secret_environment={"GITHUB_TOKEN": token})
    for pattern in ("REGION", "GITHUB", "ghp_R7x2"):
        assert box.run("grep", {"pattern": pattern}).content.startswith("No matches")


def minified(column: int) -> str:
    """One minified line with `zzzfind()` at `column`."""
    head = ("var a=1;" * (column // 8 + 1))[:column]
    return head + "zzzfind();" + "var b=2;" * 5_000 + "\n"


def test_a_match_deep_in_a_minified_line_is_shown_in_a_window_around_it(tmp_path: Path):
    (tmp_path / "min.js").write_text(minified(200_000))
    line = grep(tmp_path, pattern=r"zzzfind\(\)").splitlines()[1]
    assert line.startswith("min.js:1: …") and line.endswith("…")
    shown = line.removeprefix("min.js:1: ")
    assert "zzzfind();" in shown and len(shown) <= 302
    assert shown.index("zzzfind") > 40  # some context before it, too


def test_a_match_near_the_end_of_a_long_line_is_shown_with_the_lines_end(tmp_path: Path):
    (tmp_path / "min.js").write_text("var a=1;" * 1_000 + "zzzfind();\n")
    shown = grep(tmp_path, pattern="zzzfind").splitlines()[1].removeprefix("min.js:1: ")
    assert shown.startswith("…") and shown.endswith("zzzfind();")


def test_a_match_in_the_head_of_a_long_line_is_cut_as_before(tmp_path: Path):
    (tmp_path / "min.js").write_text("zzzfind();" + "var a=1;" * 1_000 + "\n")
    shown = grep(tmp_path, pattern="zzzfind").splitlines()[1].removeprefix("min.js:1: ")
    assert shown.startswith("zzzfind();") and shown.endswith(" [...]")


def test_the_window_never_splits_a_pointer_or_a_secret_form():
    pointer = "artifact:s1-0042"
    text = "x" * 499 + " " + pointer + " " + "y" * 1_000
    for position in range(500, 900, 7):  # the window's start sweeps over the pointer
        window = cut_around(text, position, 300)
        inner = window.strip("…")
        assert pointer in inner or "artifact" not in inner and "0042" not in inner
    secret = "ghp_R7x2Kq9LmN4pZ8vT3wY6bC1dF5gH0jS2aE7u"
    forms = SecretForms.from_values([secret])
    text = "x" * 500 + secret + "y" * 1_000
    for position in range(480, 900, 7):
        inner = cut_around(text, position, 300, forms).strip("…")
        assert secret in inner or not any(secret[i : i + 8] in inner for i in range(33))


def test_no_window_is_cut_when_the_line_fits():
    assert cut_around("short line", 5, 300) == "short line"


def test_a_search_of_this_repository_still_answers_quickly():
    """The walk that finds oversized files adds one `rg --files` and a stat per file."""
    import time

    root = Path(__file__).resolve().parent.parent
    box = make_toolbox(root)
    box.run("grep", {"pattern": "qq[_]none[_]here"})  # warm the caches
    started = time.monotonic()
    content = box.run("grep", {"pattern": "qq[_]none[_]here"}).content
    assert time.monotonic() - started < 5 and "files searched" in content


def test_a_matching_file_whose_name_holds_a_secret_is_said_to_be_withheld(tmp_path: Path):
    """The fifteenth attack (F6): `.env` held the value, a file named after it held the
    match; the answer said "No matches (1 file searched)" and nothing of that file."""
    token = "Zq8vLm2Rt9xYw4Kp"
    (tmp_path / ".env").write_text(f"DB_PASSWORD={token}\n")
    (tmp_path / f"{token}.log").write_text("zz\n")
    box = make_toolbox(tmp_path, secret_environment={"DB_PASSWORD": token})
    content = box.run("grep", {"pattern": "zz"}).content
    assert content.startswith("No matches under . (1 file searched).")
    assert "[1 file withheld: its name holds a secret; grep never searches or names it]" in content
    assert token not in content


def test_the_withheld_count_does_not_depend_on_the_glob(tmp_path: Path):
    """A glob must not ask whether a secret-named file matches it (the fifth attack
    spelled a token with globs): the count is of the walk without the glob."""
    token = "ghp_R7x2Kq9LmN4pZ8vT3wY6bC1dF5gH0jS2aE7u"
    (tmp_path / "cache").mkdir()
    (tmp_path / "cache" / f"{token}.json").write_text("zz\n")
    (tmp_path / "cache" / f"{token}2.json").write_text("zz\n")
    (tmp_path / "a.txt").write_text("zz\n")
    box = make_toolbox(tmp_path, secret_environment={"GITHUB_TOKEN": token})
    answers = {
        glob: box.run("grep", {"pattern": "nothing", "glob": glob}).content
        for glob in ("cache/ghp_R*.json", "cache/ghp_X*.json", "*.txt")
    }
    for content in answers.values():
        assert "[2 files withheld: their names hold a secret" in content
    assert answers["cache/ghp_R*.json"] == answers["cache/ghp_X*.json"]


def test_a_file_whose_name_holds_a_line_break_is_said_to_be_not_searched(tmp_path: Path):
    (tmp_path / "new\nline.txt").write_text("zz\n")
    content = make_toolbox(tmp_path).run("grep", {"pattern": "zz"}).content
    assert content.startswith("No matches under . (0 files searched).")
    assert "[1 file not searched: its name holds a line break; use bash to search it]" in content
