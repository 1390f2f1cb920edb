"""The extractive summarizer: a handoff summary built from the messages, with no model.

Contract: `build_extractive_summarizer(focus)` returns a deterministic function from old
prompt-view messages to summary text holding the first user request (the user's words),
the later user requests (newest kept), the tools used with counts, the files touched
(paths from tool_use inputs) and the last assistant text. When the first message is a
previous summary, its sections are parsed and merged instead of re-derived, so repeated
compactions accumulate. A focus is recorded and the items mentioning its words are kept
first when space runs out. The output never exceeds `max_chars`, so for large inputs it
is always smaller than what it replaces. It sees only the messages it is given.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from agent_cli.compaction.markers import is_summary_message, summary_body

DEFAULT_MAX_SUMMARY_CHARS = 2_000
_PATH_KEYS = ("path", "file_path", "file", "directory")
_STOPWORDS = frozenset(
    (
        "the",
        "and",
        "for",
        "with",
        "about",
        "keep",
        "focus",
        "what",
        "that",
        "this",
        "from",
        "into",
        "only",
        "more",
        "most",
        "less",
        "all",
        "any",
        "are",
        "was",
        "were",
        "you",
        "your",
    )
)
_LIMITS = {"later": 6, "notes": 4, "files": 20, "earlier": 600, "item": 240}
# Applied in order until the rendering fits: lists shrink before the core lines do.
_SHRINK_STEPS = (
    ("later", 3),
    ("notes", 2),
    ("files", 10),
    ("earlier", 200),
    ("item", 120),
    ("later", 1),
    ("notes", 0),
    ("files", 4),
    ("earlier", 0),
    ("later", 0),
    ("files", 0),
)
_LABELS = {
    "Focus requested:": "focus",
    "First user request:": "first",
    "Later user requests": "later",
    "Tools used:": "tools",
    "Files touched:": "files",
    "Notes on the focus:": "notes",
    "Earlier summary:": "earlier",
    "Last outcome:": "outcome",
}


@dataclass
class ExtractedDigest:
    """What the extractive summary keeps; built from messages or parsed from a summary."""

    first_request: str = ""
    later_requests: list[str] = field(default_factory=list)
    tool_counts: dict[str, int] = field(default_factory=dict)
    files: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    earlier: str = ""
    last_outcome: str = ""


def build_extractive_summarizer(
    focus: str | None = None,
    max_chars: int = DEFAULT_MAX_SUMMARY_CHARS,
) -> Callable[[list[dict[str, Any]]], str]:
    """A summarizer for L4 that needs no model; see the module contract."""
    focus_text = " ".join((focus or "").split())
    words = build_focus_words(focus_text)

    def summarize(messages: list[dict[str, Any]]) -> str:
        digest = ExtractedDigest()
        rest: Sequence[dict[str, Any]] = messages
        if messages and is_summary_message(messages[0]):
            digest = parse_summary(summary_body(messages[0]))
            rest = messages[1:]
        for message in rest:
            apply_message(digest, message, words)
        return render_summary(digest, focus_text, words, max_chars)

    return summarize


def build_focus_words(focus: str) -> tuple[str, ...]:
    """The distinctive lower-case words of a focus instruction."""
    words = re.findall(r"[\w./-]{3,}", focus.lower())
    return tuple(dict.fromkeys(w for w in words if w not in _STOPWORDS))


def apply_message(digest: ExtractedDigest, message: dict[str, Any], words: Sequence[str]) -> None:
    """Fold one message into `digest` (requests, tools, files, outcome, focus notes)."""
    content = message.get("content")
    blocks = content if isinstance(content, list) else [{"type": "text", "text": content or ""}]
    texts = [
        str(b.get("text", "")) for b in blocks if isinstance(b, dict) and b.get("type") == "text"
    ]
    text = _flatten("\n".join(texts))
    if message.get("role") == "user" and text and not is_summary_message(message):
        if digest.first_request:
            digest.later_requests.append(text)
        else:
            digest.first_request = text
    elif message.get("role") == "assistant" and text:
        digest.last_outcome = text
    for block in blocks:
        if not isinstance(block, dict):
            continue
        if block.get("type") == "tool_use":
            name = str(block.get("name", "?"))
            digest.tool_counts[name] = digest.tool_counts.get(name, 0) + 1
            _add_files(digest, block.get("input"))
        elif block.get("type") == "tool_result":
            texts.append(_block_text(block))
    if words:
        digest.notes.extend(line for line in _lines_of(texts) if _mentions(line, words))


def render_summary(
    digest: ExtractedDigest,
    focus: str,
    words: Sequence[str],
    max_chars: int = DEFAULT_MAX_SUMMARY_CHARS,
) -> str:
    """The summary text, shrunk step by step until it is at most `max_chars` long."""
    limits = dict(_LIMITS)
    text = _render(digest, focus, words, limits)
    for key, value in _SHRINK_STEPS:
        if len(text) <= max_chars:
            break
        limits[key] = min(limits[key], value)
        text = _render(digest, focus, words, limits)
    return _clip(text, max_chars)


def parse_summary(body: str) -> ExtractedDigest:
    """The digest a previous extractive summary holds; other text is kept as `earlier`."""
    digest = ExtractedDigest()
    section = ""
    unknown: list[str] = []
    for line in body.splitlines():
        label = next((lab for lab in _LABELS if line.startswith(lab)), None)
        value = line.split(":", 1)[1].strip() if label and ":" in line else ""
        if label:
            section = _LABELS[label]
            _parse_labelled(digest, section, value)
        elif line.startswith("- ") and section in ("later", "notes"):
            (digest.later_requests if section == "later" else digest.notes).append(line[2:])
        elif line.strip():
            unknown.append(line.strip())
    if unknown:
        digest.earlier = _flatten(" ".join([digest.earlier, *unknown]))
    return digest


def _parse_labelled(digest: ExtractedDigest, section: str, value: str) -> None:
    if section == "first":
        digest.first_request = value
    elif section == "tools":
        for name, count in re.findall(r"([^\s,()]+) \((\d+)\)", value):
            digest.tool_counts[name] = digest.tool_counts.get(name, 0) + int(count)
    elif section == "files":
        value = re.sub(r"\s*\(and \d+ more\)$", "", value)
        digest.files.extend(p for p in value.split(", ") if p and p not in digest.files)
    elif section == "earlier":
        digest.earlier = value
    elif section == "outcome":
        digest.last_outcome = value


def _render(
    digest: ExtractedDigest, focus: str, words: Sequence[str], limits: dict[str, int]
) -> str:
    item = limits["item"]
    lines = []
    if focus:
        lines.append(f"Focus requested: {_clip(focus, item)}")
    if digest.first_request:
        lines.append(f"First user request: {_clip(digest.first_request, 2 * item)}")
    later = _select(digest.later_requests, limits["later"], words)
    if later:
        lines.append("Later user requests (oldest first):")
        lines.extend(f"- {_clip(request, item)}" for request in later)
    if digest.tool_counts:
        lines.append(
            "Tools used: " + ", ".join(f"{n} ({c})" for n, c in digest.tool_counts.items())
        )
    files = _select(digest.files, limits["files"], words)
    if files:
        more = len(digest.files) - len(files)
        lines.append("Files touched: " + ", ".join(files) + (f" (and {more} more)" if more else ""))
    notes = _select(list(dict.fromkeys(digest.notes)), limits["notes"], words)
    if notes:
        lines.append("Notes on the focus:")
        lines.extend(f"- {_clip(note, item)}" for note in notes)
    if digest.earlier and limits["earlier"]:
        lines.append(f"Earlier summary: {_clip(digest.earlier, limits['earlier'])}")
    if digest.last_outcome:
        lines.append(f"Last outcome: {_clip(digest.last_outcome, 2 * item)}")
    return "\n".join(lines)


def _select(items: Sequence[str], limit: int, words: Sequence[str]) -> list[str]:
    """At most `limit` items in their order: those naming the focus first, then the newest."""
    if len(items) <= limit:
        return list(items)
    ranked = sorted(range(len(items)), key=lambda i: (not _mentions(items[i], words), -i))
    return [items[i] for i in sorted(ranked[:limit])]


def _add_files(digest: ExtractedDigest, tool_input: Any) -> None:
    if not isinstance(tool_input, dict):
        return
    for key in _PATH_KEYS:
        value = tool_input.get(key)
        if isinstance(value, str) and value.strip():
            path = _flatten(value)[:200]
            if path not in digest.files:
                digest.files.append(path)


def _block_text(block: dict[str, Any]) -> str:
    content = block.get("content")
    if isinstance(content, list):
        return "\n".join(str(b.get("text", "")) for b in content if isinstance(b, dict))
    return str(content or "")


def _lines_of(texts: Sequence[str]) -> list[str]:
    return [_flatten(line) for text in texts for line in text.splitlines() if line.strip()]


def _mentions(text: str, words: Sequence[str]) -> bool:
    lowered = text.lower()
    return any(word in lowered for word in words)


def _flatten(text: str) -> str:
    return " ".join(text.split())


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: max(0, limit - 1)] + "…"
