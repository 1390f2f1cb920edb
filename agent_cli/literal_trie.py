"""One regex that finds any of many texts, written as a trie. Pure: no I/O.

Why: secret redaction matches dozens of forms of each secret (`agent_cli.secret_forms`)
in every tool result, and a plain alternation `a|b|c|...` tries each form in turn at
every position whose character starts one. Many forms share their first characters (the
value, its quoted and percent-encoded spellings), so written as a trie each shared
prefix is matched once and a position is tried against one branch per distinct next
piece, not against every form.

Contract: `trie_pattern(forms, tried_last)` takes each form as its sequence of regex
fragments (one per character, already escaped, a line break allowed before it or not)
and returns a pattern that matches exactly where one of the forms matches. Where several
forms match at a position, the one tried first is the one with the most fragments below
the branch where they part (a longer form before its own prefix), as an alternation
sorted longest first would; except that a branch whose first fragment `tried_last`
names comes after its siblings (a fragment that reaches across lines, tried first,
could take the next printed line where a sibling matches within the line).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

_END = ""  # the key that marks a node where a form ends; no fragment is empty
_Node = dict[str, "_Node"]


def trie_pattern(
    forms: Iterable[Sequence[str]],
    tried_last: Callable[[str], bool] = lambda _: False,
    open_ended: Iterable[tuple[Sequence[str], int]] = (),
) -> str:
    """A regex matching any of `forms`, each a sequence of fragments (module contract),
    and any start of at least `least` fragments of each `(fragments, least)` in
    `open_ended` (a run of a secret: `secret_forms`), the longest one there is."""
    root: _Node = {}
    for fragments in forms:
        node = root
        for fragment in fragments:
            node = node.setdefault(fragment, {})
        node[_END] = {}
    for fragments, least in open_ended:
        node = root
        for depth, fragment in enumerate(fragments, start=1):
            node = node.setdefault(fragment, {})
            if depth >= least:
                node[_END] = {}
    return _emit(root, tried_last)[0]


def _emit(node: _Node, tried_last: Callable[[str], bool]) -> tuple[str, int]:
    """The pattern of `node`'s subtree and the most fragments a form has below it."""
    branches: list[tuple[bool, int, str]] = []
    for fragment, child in node.items():
        if fragment == _END:
            continue
        last = tried_last(fragment)
        pieces = [fragment]
        while len(child) == 1 and _END not in child:  # a chain: no recursion along it
            ((fragment, child),) = child.items()
            pieces.append(fragment)
        below, longest = _emit(child, tried_last)
        branches.append((last, len(pieces) + longest, "".join(pieces) + below))
    if not branches:
        return "", 0
    most = max(length for _, length, _ in branches)
    branches.sort(key=lambda branch: (branch[0], -branch[1]))  # stable: ties keep order
    alternation = "|".join(pattern for _, _, pattern in branches)
    if len(branches) > 1 or _END in node:
        alternation = f"(?:{alternation})"
    return alternation + ("?" if _END in node else ""), most
