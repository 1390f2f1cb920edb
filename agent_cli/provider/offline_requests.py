"""How the offline model reads a user's plain request: a small, fixed grammar.

Contract: `build_request_plan(text, available_tools)` splits the text into requests joined
by "and" (or a comma) and maps each to at most one tool call:

    read|open|show|cat|view X -> read_file {"path": X}
    list|ls [X]               -> list_dir {"path": X or "."}
    grep P [[in] DIR]         -> grep {"pattern": P, "path": DIR}  (quote a P with spaces)
    search [for] P [in DIR] | find P [in DIR] -> the same; here P may be several words
    run CMD | $ CMD           -> bash {"command": CMD}  (not "run it": a pronoun is no command)
    write X: TEXT             -> write_file {"path": X, "content": TEXT}
    edit X: OLD -> NEW        -> edit_file {"path": X, "old_string": OLD, "new_string": NEW}
    read artifact:...         -> read_artifact {"pointer": "artifact:..."}
    recall POINTER            -> recall {"pointer": POINTER}
    recall search [for] WORDS -> recall {"search": WORDS}

A request naming a tool the caller did not advertise is reported in `unavailable`, never
called. Parts that are not tool requests ("tell me its first heading") are kept as
`questions`; the answer step uses them. Pure and deterministic: same text, same plan.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

_TOOL_VERBS = r"read|open|show|cat|view|list|ls|grep|search|find|run|execute|write|edit|recall"
_QUESTION_VERBS = r"tell|what|which|how|give|say|summari[sz]e|explain|count|describe"
# Split only before something that starts a new request, so "write a.txt: salt and
# pepper" or "run echo this and that" keep their free text whole.
_SPLIT = re.compile(
    rf"(?:\s+and\s+|\s*,\s*|\s*;\s*)(?:then\s+)?(?=(?:{_TOOL_VERBS}|{_QUESTION_VERBS})\b|\$\s)",
    re.IGNORECASE,
)
_TOKEN = r"(\"[^\"]+\"|'[^']+'|`[^`]+`|\S+)"
_READ = re.compile(
    rf"(?:read|open|show|cat|view)\s+(?:me\s+)?(?:the\s+)?(?:file\s+)?{_TOKEN}", re.IGNORECASE
)
_LIST = re.compile(
    rf"(?:list|ls)(?:\s+(?:the\s+)?(?:files\s+in\s+|directory\s+|dir\s+|folder\s+)?{_TOKEN})?",
    re.IGNORECASE,
)
_GREP = re.compile(rf"grep\s+{_TOKEN}(?:\s+(?:in\s+)?{_TOKEN})?", re.IGNORECASE)
_SEARCH = re.compile(
    rf"(?:grep|search\s+for|search|find)\s+(.+?)(?:\s+in\s+{_TOKEN})?", re.IGNORECASE
)
_RUN = re.compile(r"(?:(?:run|execute)\s+|\$\s*)(.+)", re.IGNORECASE | re.DOTALL)
# "read app.py and run it": the model cannot tell which command "it" means, so it runs none
_PRONOUN = re.compile(r"(?:it|this|that|them|these|those)[.!?]*", re.IGNORECASE)
_WRITE = re.compile(rf"write\s+(?:to\s+)?{_TOKEN}\s*:\s?(.*)", re.IGNORECASE | re.DOTALL)
_EDIT = re.compile(rf"edit\s+{_TOKEN}\s*:\s?(.*?)\s+->\s+(.*)", re.IGNORECASE | re.DOTALL)
_RECALL = re.compile(r"recall\s+(\S+)", re.IGNORECASE)
_RECALL_SEARCH = re.compile(r"recall\s+search\s+(?:for\s+)?(.+)", re.IGNORECASE | re.DOTALL)
_ARTIFACT = re.compile(r"(?:read|open|show|cat|view)\s+(artifact:\S+)", re.IGNORECASE)


@dataclass(frozen=True)
class PlannedCall:
    """One tool call the offline model decided to make."""

    tool: str
    arguments: dict[str, Any]


@dataclass(frozen=True)
class RequestPlan:
    """What a user's text asks for: tool calls, leftover questions, unadvertised tools."""

    calls: tuple[PlannedCall, ...]
    questions: tuple[str, ...]
    unavailable: tuple[str, ...]


def build_request_plan(text: str, available_tools: Iterable[str]) -> RequestPlan:
    """Map `text` to tool calls among `available_tools`; see the module contract."""
    available = frozenset(available_tools)
    calls: list[PlannedCall] = []
    questions: list[str] = []
    unavailable: list[str] = []
    for part in split_requests(text):
        call = parse_request(part)
        if call is None:
            questions.append(part)
        elif call.tool in available:
            calls.append(call)
        elif call.tool not in unavailable:
            unavailable.append(call.tool)
    return RequestPlan(tuple(calls), tuple(questions), tuple(unavailable))


def split_requests(text: str) -> list[str]:
    """The separate requests in `text`, in order, blank ones dropped."""
    return [part.strip() for part in _SPLIT.split(text.strip()) if part and part.strip()]


def parse_request(part: str) -> PlannedCall | None:
    """The tool call one request maps to, or None when it is not a tool request."""
    text = part.strip()
    if match := _RUN.fullmatch(text):
        command = match.group(1).strip()
        return None if _PRONOUN.fullmatch(command) else PlannedCall("bash", {"command": command})
    if match := _EDIT.fullmatch(text):
        return PlannedCall(
            "edit_file",
            {
                "path": _clean_token(match.group(1)),
                "old_string": match.group(2),
                "new_string": match.group(3),
            },
        )
    if match := _RECALL_SEARCH.fullmatch(text):
        return PlannedCall("recall", {"search": match.group(1).strip().rstrip("?.!")})
    if match := _RECALL.fullmatch(text):
        return PlannedCall("recall", {"pointer": _clean_token(match.group(1))})
    if match := _ARTIFACT.fullmatch(text.rstrip(".")):
        return PlannedCall("read_artifact", {"pointer": match.group(1)})
    if match := _WRITE.fullmatch(text):
        content = match.group(2)
        content = content if content.endswith("\n") else content + "\n"
        return PlannedCall("write_file", {"path": _clean_token(match.group(1)), "content": content})
    text = text.rstrip("?!").strip()
    if match := _READ.fullmatch(text):
        return PlannedCall("read_file", {"path": _clean_token(match.group(1))})
    if match := _LIST.fullmatch(text):
        token = match.group(1) or ""
        # "ls -la": options are not a path; the listing tool takes none.
        path = _clean_token(token) if token and not token.startswith("-") else "."
        return PlannedCall("list_dir", {"path": path})
    if match := _GREP.fullmatch(text) or _SEARCH.fullmatch(text):
        return _grep_call(match.group(1), match.group(2))
    return None


def _grep_call(pattern: str, path: str | None) -> PlannedCall:
    """A grep call; a path only when one was named (the tool searches "." without)."""
    arguments = {"pattern": _clean_token(pattern.strip())}
    if path:
        arguments["path"] = _clean_token(path)
    return PlannedCall("grep", arguments)


def _clean_token(token: str) -> str:
    """A path or pattern without surrounding quotes and without a sentence's final dot."""
    for quote in ('"', "'", "`"):
        if len(token) >= 2 and token[0] == quote and token[-1] == quote:
            return token[1:-1]
    if token.endswith(".") and token.strip("."):
        return token[:-1]
    return token
