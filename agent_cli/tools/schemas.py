"""Tool definitions sent to the model, and the check of each call's input against them.

Contract: `TOOL_SCHEMAS` is in a fixed order (a stable prefix keeps the prompt cache warm).
`validate_input` accepts exactly what a schema declares: required keys present, known keys
only, strings as strings, integers as integers (not booleans), minimums respected. `null`
for an optional key means "not given". Failures raise `ToolInputInvalid` whose message
tells the model what was expected, without repeating what it sent (a key or a value:
`tools.echo`).
"""

from __future__ import annotations

from typing import Any

from agent_cli.errors import ToolInputInvalid


def _schema(
    name: str, description: str, properties: dict[str, Any], required: list[str]
) -> dict[str, Any]:
    return {
        "name": name,
        "description": description,
        "input_schema": {
            "type": "object",
            "properties": properties,
            "required": required,
            "additionalProperties": False,
        },
    }


_PATH = {"type": "string", "description": "Path relative to the workspace root."}
_LINE = {"type": "integer", "minimum": 1}

TOOL_SCHEMAS: tuple[dict[str, Any], ...] = (
    _schema(
        "read_file",
        "Read a text file in the workspace, with line numbers. The first line names the file "
        "and the line range shown. Use start_line/end_line (1-based, inclusive) for parts "
        "of long files. Re-read a file only if it may have changed.",
        {
            "path": _PATH,
            "start_line": {**_LINE, "description": "First line to show (default 1)."},
            "end_line": {**_LINE, "description": "Last line to show (default: a window)."},
        },
        ["path"],
    ),
    _schema(
        "write_file",
        "Create or overwrite a file in the workspace with the given content. Parent "
        "directories are created. Needs the user's permission.",
        {"path": _PATH, "content": {"type": "string", "description": "The whole new file."}},
        ["path", "content"],
    ),
    _schema(
        "edit_file",
        "Replace one exact occurrence of old_string with new_string in a file. old_string "
        "must match the file exactly (whitespace included) and exactly once; add "
        "surrounding lines to make it unique. Needs the user's permission.",
        {
            "path": _PATH,
            "old_string": {"type": "string", "description": "Exact text to replace."},
            "new_string": {"type": "string", "description": "Replacement text."},
        },
        ["path", "old_string", "new_string"],
    ),
    _schema(
        "list_dir",
        "List a directory in the workspace: subdirectories end with '/', files show sizes. "
        "Leaves out what .gitignore ignores and .git, environment and cache folders.",
        {"path": {**_PATH, "description": "Directory relative to the workspace (default '.')."}},
        [],
    ),
    _schema(
        "grep",
        "Search file contents in the workspace with a regular expression (ripgrep syntax). "
        "Prints path:line: text for each match, up to a cap. Skips what .gitignore ignores, "
        ".git, .venv, node_modules and binary files, and never shows a line that holds a "
        "secret value (read_file shows it redacted). Narrow with path (file or directory) "
        "and glob (e.g. '*.py').",
        {
            "pattern": {
                "type": "string",
                "description": "Regular expression (ripgrep/Rust syntax, like Python `re` without look-around or back-references).",
            },
            "path": {**_PATH, "description": "File or directory to search (default '.')."},
            "glob": {
                "type": "string",
                "description": "Only files matching this gitignore-style glob.",
            },
        },
        ["pattern"],
    ),
    _schema(
        "bash",
        "Run a shell command with bash in the workspace directory. Returns the exit code "
        "and the combined stdout and stderr. Has a timeout and an output cap; the whole "
        "process group is ended when either is hit. Needs the user's permission.",
        {
            "command": {"type": "string", "description": "The command line to run."},
            "timeout_seconds": {
                "type": "integer",
                "minimum": 1,
                "description": "Time limit in seconds (default 120, max 600).",
            },
        },
        ["command"],
    ),
    _schema(
        "read_artifact",
        "Read a byte range of a large tool output that was saved as an artifact (its "
        "pointer starts with 'artifact:'). Returns the text and the offset to continue at.",
        {
            "pointer": {"type": "string", "description": "The artifact: pointer."},
            "offset": {"type": "integer", "minimum": 0, "description": "Byte offset (default 0)."},
            "limit": {"type": "integer", "minimum": 1, "description": "Bytes to read."},
        },
        ["pointer"],
    ),
)

_PYTHON_TYPES = {"string": str, "integer": int}


def validate_input(schema: dict[str, Any], tool_input: Any) -> dict[str, Any]:
    """The call's arguments with `null` optionals dropped, or `ToolInputInvalid`."""
    name = schema["name"]
    spec = schema["input_schema"]
    properties: dict[str, Any] = spec["properties"]
    if not isinstance(tool_input, dict):
        raise ToolInputInvalid(
            f"Invalid input for {name}: expected a JSON object with keys "
            f"{_describe_keys(spec)}, got {_json_type(tool_input)}.",
            tool=name,
        )
    arguments = {key: value for key, value in tool_input.items() if value is not None}
    for key in arguments:
        if key not in properties:
            raise ToolInputInvalid(
                f"Invalid input for {name}: a key it does not take. Allowed keys: "
                f"{_describe_keys(spec)}.",
                tool=name,
                field=str(key),
            )
    for key in spec["required"]:
        if key not in arguments:
            raise ToolInputInvalid(
                f"Invalid input for {name}: missing required key {key!r}. Expected keys: "
                f"{_describe_keys(spec)}.",
                tool=name,
                field=key,
            )
    for key, value in arguments.items():
        _check_value(name, key, properties[key], value)
    return arguments


def _check_value(tool: str, key: str, prop: dict[str, Any], value: Any) -> None:
    expected = prop["type"]
    is_right_type = isinstance(value, _PYTHON_TYPES[expected]) and not isinstance(value, bool)
    if not is_right_type:
        raise ToolInputInvalid(
            f"Invalid input for {tool}: {key} must be {_article(expected)} {expected}, got "
            f"{_json_type(value)}.",
            tool=tool,
            field=key,
        )
    minimum = prop.get("minimum")
    if minimum is not None and value < minimum:
        raise ToolInputInvalid(
            f"Invalid input for {tool}: {key} must be at least {minimum}.",
            tool=tool,
            field=key,
        )


def _describe_keys(spec: dict[str, Any]) -> str:
    required = set(spec["required"])
    parts = [
        f"{key} ({prop['type']}{'' if key in required else ', optional'})"
        for key, prop in spec["properties"].items()
    ]
    return ", ".join(parts)


def _article(type_name: str) -> str:
    return "an" if type_name[0] in "aeiou" else "a"


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    names = {
        str: "a string",
        int: "an integer",
        float: "a number",
        list: "an array",
        dict: "an object",
    }
    return names.get(type(value), type(value).__name__)


RECALL_SCHEMA: dict[str, Any] = _schema(
    "recall",
    "Read back something that context compaction removed from this conversation, by the "
    "pointer the compaction digest or a tool result gave for it (transcript:<session>:<n> "
    "or artifact:...). To find one the digest does not name (its folded 'older "
    "interactions' line, say), search instead: `search` takes words (all must occur, any "
    "case), `pattern` a regex (ripgrep syntax); either answers the pointers of this "
    "session's matching messages with short excerpts, oldest first. Give exactly one of "
    "pointer, search, pattern. Only this session's records. Long records and many matches "
    "come in pages: pass the offset the previous page named.",
    {
        "pointer": {"type": "string", "description": "The pointer, copied exactly."},
        "search": {
            "type": "string",
            "description": "Words to find in this session's earlier messages.",
        },
        "pattern": {
            "type": "string",
            "description": "A regex to find in this session's earlier messages "
            "((?i) ignores case).",
        },
        "offset": {
            "type": "integer",
            "minimum": 0,
            "description": "Pointer: character offset. Search: matches to skip.",
        },
    },
    [],
)
