"""Characters that pass for ASCII ones, and the ones an approval marks.

Why: a model that sends `echo ʺremoving nothing; touch RAN_1; echo doneʺ` (U+02BA, drawn
like `"`) shows the user one quoted string while bash runs three commands; `ɡithub.com`
(U+0261, a Latin letter) reads as github.com and resolves to another host. No list of
scripts or letters written here keeps up with that, so the rule takes Unicode's own data:

- `passes_for_ascii(c)`: `c` is not ASCII and, by Unicode's confusables (UTS #39, as
  the `confusable-homoglyphs` package ships them), is confusable with one ASCII
  character (`ʺ` with `"`, `ɡ` with `g`, `;` with `;`), or its compatibility form
  (NFKC) is one ASCII character drawn in the same place (`＃`, `K`, `ⅰ`; not `²` or
  `①`, which are drawn raised or enclosed). Never a ligature or a letter with a hook or
  horn the data links to several ASCII characters (`æ` to `ae`, `ﬁ`, `ơ` to `o'`): it
  takes one cell where they take two, and these are letters of French, Danish or
  Vietnamese words.
- `lookalike_positions(line, in_command=...)`: where those characters are marked. In a
  word holding an ASCII letter or digit (`ɡithub.com`, `ʺdone`), and in a word made of
  nothing else in a line holding an ASCII letter (`curl аррӏе`); a look-alike of a sign
  (a quote, a dash, a semicolon...) also in a word holding any ASCII character
  (`“你好;`), and in a shell command wherever it stands (a shell never reads one as
  syntax, so it is there only to be read as one: `“你好 ; rm -rf ~ ; ”`); in a file a
  character drawn two cells wide is left unmarked (CJK text's `，：（）` cannot be
  taken for the narrow ASCII ones). Also kept: a letter of a script whose letters look
  like Latin ones (Cyrillic, Greek...) in a word with Latin letters (`gпthub`).
  Plain text of one script stays unmarked: `café`, `naïve`, `привет мир`, `東京`.
- `script_of(c)`: the Unicode Script property (`LATIN`, `CYRILLIC`, `COMMON`...).
- `ascii_counterparts()`: a `str.translate` table from each look-alike the data links to
  one ASCII character to that character (`ɡ` to `g`, `ʺ` to `"`), for comparing how two
  texts draw (`same_looking_lines`).

The data is read from the package on first use (about 50 ms), not at import. Pure
otherwise: no state but that cache.
"""

from __future__ import annotations

import bisect
import functools
import json
import re
import unicodedata
from dataclasses import dataclass
from importlib import resources

_DATA_PACKAGE = "confusable_homoglyphs"
# Scripts whose letters are drawn like Latin ones: one of them in a Latin word is marked
# even where the data links it to no ASCII letter (`gпthub`, a Cyrillic `п`).
LOOKALIKE_SCRIPTS = frozenset({"CYRILLIC", "GREEK", "ARMENIAN", "CHEROKEE", "COPTIC", "LISU"})
# Compatibility forms drawn where their ASCII character would be: font variants, full and
# half widths, small forms, others (`<compat>`: `ⅰ`), and canonical singletons (no tag:
# `K` KELVIN SIGN is `K`). Raised, lowered, enclosed, squared, rotated or fraction forms
# are drawn otherwise and are not taken for their character.
_SAME_PLACE_FORMS = frozenset({"", "<font>", "<wide>", "<narrow>", "<small>", "<compat>"})
_WORD = re.compile(r"[^ \t\n]+")
_WIDE = frozenset({"W", "F"})


@dataclass(frozen=True)
class _Data:
    ascii_lookalikes: frozenset[str]
    counterparts: dict[int, str]
    range_starts: list[int]
    ranges: list[tuple[int, int, str]]


@functools.lru_cache(maxsize=1)
def _data() -> _Data:
    """Unicode's confusables and scripts as the package ships them. Read from its files,
    not through its modules: those read a folder named by an environment variable."""
    folder = resources.files(_DATA_PACKAGE)
    confusables: dict[str, list[dict[str, str]]] = json.loads(
        folder.joinpath("confusables.json").read_text("utf-8")
    )
    # The data links each character to its prototype and back. An ASCII character's
    # links are its prototype (`"` to `''`, `m` to `rn`) and the characters drawn like
    # it; a non-ASCII one passes for ASCII when it is such a character, or when it links
    # to an ASCII character or to the prototype of one (`ʺ` to `''`). A link to other
    # ASCII texts is a ligature or digraph (`æ` to `ae`, `‖` to `ll`): one cell where
    # the letters take several, so not taken for them.
    ascii_forms: dict[str, str] = {}  # an ASCII character or prototype: the character
    counterparts: dict[int, str] = {}
    for character, entries in confusables.items():
        if len(character) == 1 and _is_ascii_text(character):
            ascii_forms.setdefault(character, character)
            for entry in entries:
                if entry["c"].isascii():
                    ascii_forms.setdefault(entry["c"], character)
                elif len(entry["c"]) == 1:
                    counterparts.setdefault(ord(entry["c"]), character)
    for character, entries in confusables.items():
        linked = [ascii_forms[entry["c"]] for entry in entries if entry["c"] in ascii_forms]
        if len(character) == 1 and linked and not character.isascii():
            counterparts.setdefault(ord(character), linked[0])
    lookalikes = {chr(code) for code in counterparts}
    categories = json.loads(folder.joinpath("categories.json").read_text("utf-8"))
    names = categories["iso_15924_aliases"]
    ranges = [
        (int(low), int(high), str(names[script]))
        for low, high, script, _ in categories["code_points_ranges"]
    ]
    ranges.sort()
    return _Data(frozenset(lookalikes), counterparts, [low for low, _, _ in ranges], ranges)


def _is_ascii_text(text: str) -> bool:
    """Printable ASCII, not only blanks."""
    return bool(text) and text.isascii() and text.isprintable() and not text.isspace()


@functools.lru_cache(maxsize=8192)
def passes_for_ascii(character: str) -> bool:
    """True for a non-ASCII character drawn like an ASCII letter, digit or sign (see the
    module contract)."""
    if character.isascii():
        return False
    if character in _data().ascii_lookalikes:
        return True
    compatible = unicodedata.normalize("NFKC", character)
    if len(compatible) != 1 or not _is_ascii_text(compatible):
        return False
    tag = unicodedata.decomposition(character).partition(" ")[0]
    return (tag if tag.startswith("<") else "") in _SAME_PLACE_FORMS


def ascii_counterparts() -> dict[int, str]:
    """`str.translate` table: each look-alike the data links to an ASCII character (as
    `passes_for_ascii` reads the data) to that character. Not to be changed."""
    return _data().counterparts


@functools.lru_cache(maxsize=8192)
def script_of(character: str) -> str:
    """The character's Unicode script (`LATIN`, `CYRILLIC`, `COMMON`, `INHERITED`...);
    `UNKNOWN` for one the data does not name."""
    data, code = _data(), ord(character)
    at = bisect.bisect_right(data.range_starts, code) - 1
    if at >= 0 and data.ranges[at][0] <= code <= data.ranges[at][1]:
        return data.ranges[at][2]
    return "UNKNOWN"


def is_ascii_sign_lookalike(character: str) -> bool:
    """True for a look-alike that is not a letter or digit of a word: a quote, a dash,
    a semicolon, a slash, a modifier letter such as `ʺ` (a letter to Unicode, a quote
    to the eye)."""
    category = unicodedata.category(character)
    is_word_letter = category[0] in "LN" and category != "Lm"
    return passes_for_ascii(character) and not is_word_letter


def may_be_marked(character: str, *, in_command: bool = True) -> bool:
    """Whether `character` could be marked in any word (`lookalike_positions`); in a
    file's text (not `in_command`) a two-cell character never is."""
    if character.isascii():
        return False
    if not in_command and unicodedata.east_asian_width(character) in _WIDE:
        return False
    return passes_for_ascii(character) or (
        character.isalpha() and script_of(character) in LOOKALIKE_SCRIPTS
    )


def lookalike_positions(line: str, *, in_command: bool) -> frozenset[int]:
    """The positions in `line` of the characters to mark (see the module contract);
    `in_command` for a shell command or a name, where marking is strictest."""
    if line.isascii():
        return frozenset()
    has_ascii_letter = any(c.isascii() and c.isalpha() for c in line)
    marked: set[int] = set()
    for word in _WORD.finditer(line):
        if not word.group().isascii():
            marked.update(_marked_in_word(word.group(), word.start(), in_command, has_ascii_letter))
    return frozenset(marked)


def _marked_in_word(word: str, start: int, in_command: bool, line_has_letter: bool) -> set[int]:
    if not any(may_be_marked(character, in_command=in_command) for character in word):
        return set()  # (most non-ASCII words: nothing below could mark one of them)

    def counts(character: str) -> bool:
        wide = unicodedata.east_asian_width(character) in _WIDE
        return passes_for_ascii(character) and (in_command or not wide)

    has_ascii = any(c.isascii() and c.isalnum() for c in word)
    all_lookalike = all(c.isascii() or counts(c) for c in word)
    whole = has_ascii or (all_lookalike and line_has_letter)
    # A sign beside any ASCII character in its word (`“你好;`), or anywhere in a command.
    signs = in_command or any(c.isascii() for c in word)
    marked = {
        start + offset
        for offset, character in enumerate(word)
        if counts(character) and (whole or (signs and is_ascii_sign_lookalike(character)))
    }
    if any(c.isalpha() and script_of(c) == "LATIN" for c in word):
        marked.update(
            start + offset
            for offset, character in enumerate(word)
            if character.isalpha() and script_of(character) in LOOKALIKE_SCRIPTS
        )
    return marked
