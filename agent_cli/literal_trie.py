"""One regex that finds any of many texts, written as a trie. Pure: no I/O.

Why: secret redaction matches dozens of forms of each secret (`agent_cli.secret_forms`)
in every tool result, and a plain alternation `a|b|c|...` tries each form in turn at
every position whose character starts one. Many forms share their first characters (the
value, its quoted and percent-encoded spellings), so written as a trie each shared
prefix is matched once and a position is tried against one branch per distinct next
piece, not against every form.

Contract: `trie_pattern(forms)` takes each form as its sequence of regex fragments (one
per character, already escaped, a line break allowed before it or not) and returns a
pattern that matches exactly where one of the forms matches. Where several forms match at
a position, the one tried first is the one with the most fragments below the branch
where they part (a longer form before its own prefix), as an alternation sorted longest
first would.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

_END = ""  # the key that marks a node where a form ends; no fragment is empty
_Node = dict[str, "_Node"]


def trie_pattern(forms: Iterable[Sequence[str]]) -> str:
    """A regex matching any of `forms`, each a sequence of fragments (module contract)."""
    root: _Node = {}
    for fragments in forms:
        node = root
        for fragment in fragments:
            node = node.setdefault(fragment, {})
        node[_END] = {}
    return _emit(root)[0]


def _emit(node: _Node) -> tuple[str, int]:
    """The pattern of `node`'s subtree and the most fragments a form has below it."""
    branches: list[tuple[int, str]] = []
    for fragment, child in node.items():
        if fragment == _END:
            continue
        pieces = [fragment]
        while len(child) == 1 and _END not in child:  # a chain: no recursion along it
            ((fragment, child),) = child.items()
            pieces.append(fragment)
        below, longest = _emit(child)
        branches.append((len(pieces) + longest, "".join(pieces) + below))
    if not branches:
        return "", 0
    branches.sort(key=lambda branch: -branch[0])  # stable: ties keep the forms' order
    alternation = "|".join(pattern for _, pattern in branches)
    if len(branches) > 1 or _END in node:
        alternation = f"(?:{alternation})"
    return alternation + ("?" if _END in node else ""), branches[0][0]
