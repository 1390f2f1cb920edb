"""Which of a server's tools can be offered to the model, and as what.

Contract: `offer_tools(server, tools)` takes what a server listed (name, description,
input schema) and returns the tools the Messages API accepts, as Anthropic tool
definitions named `mcp__<server>__<tool>`, sorted by that name (the request's tool list
stays the same from request to request, so the prompt cache holds), and a `Skipped` for
each tool that cannot be offered, with the reason: a name outside the tool-name grammar
or too long once prefixed, a name listed twice, an input schema the Messages API would
refuse (`schema_rules`: not a JSON object schema, a top-level anyOf/oneOf/allOf, nested
too deep, holding NaN or Infinity, too big, not valid JSON Schema draft 2020-12). A
top-level property name the Messages API refuses (`filter[id]`, `$top`) is renamed to a
safe one (`property_names`): the `OfferedTool` keeps the pairs, `/mcp` shows them, and
`server_arguments` maps a call's arguments back; a schema that cannot be renamed so is
skipped with its reason. A
description is kept up to `MAX_DESCRIPTION_CHARS` (a 100 KB description would ride in
every request), cut at a word and marked.

Everything the server wrote rides in every request, so none of it may carry a secret
agent-cli keeps (`secrets`, the toolbox's forms): the description and every string in
the input schema (descriptions, titles, enum values, defaults) have them redacted, before
any cut; a tool whose name, or a property name in whose schema, holds one is not offered
(a name cannot be redacted: the model calls the tool by it), and its `Skipped` shows the
name redacted. Pure.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from agent_cli.mcp_servers.failures import one_line
from agent_cli.mcp_servers.property_names import rename_properties, server_arguments
from agent_cli.mcp_servers.schema_rules import describe_invalid_schema, describe_schema_problem
from agent_cli.secret_forms import NO_SECRETS, SecretForms

TOOL_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")  # the Messages API's grammar
PREFIX = "mcp__"
MAX_DESCRIPTION_CHARS = 2_000


@dataclass(frozen=True)
class ListedTool:
    """A tool as a server listed it: its `name` (a string, unless the server breaks the
    protocol), and, for one the SDK's session never saw (`tool_listing`), why not."""

    name: Any
    description: str
    input_schema: Any
    refusal: str = ""


@dataclass(frozen=True)
class OfferedTool:
    """A tool offered to the model: its definition, the server's own name for it, and
    the top-level property names renamed for the Messages API (server's, offered)."""

    definition: Mapping[str, Any]
    server: str
    tool: str
    renamed: tuple[tuple[str, str], ...] = ()

    @property
    def name(self) -> str:
        return str(self.definition["name"])

    def server_arguments(self, arguments: Mapping[str, Any]) -> dict[str, Any]:
        """The model's `arguments` under the server's own property names (a name this
        tool did not rename goes through as sent: `property_names.server_arguments`)."""
        return server_arguments(arguments, self.renamed)


@dataclass(frozen=True)
class Skipped:
    """A listed tool that is not offered, and why (`problem`, a short phrase)."""

    server: str
    tool: str
    problem: str


def offered_name(server: str, tool: str) -> str:
    return f"{PREFIX}{server}__{tool}"


def split_offered_name(name: str) -> tuple[str, str] | None:
    """(server, tool) of an offered name, None for any other name."""
    if not name.startswith(PREFIX) or "__" not in name[len(PREFIX) :]:
        return None
    server, tool = name[len(PREFIX) :].split("__", 1)
    return (server, tool) if server and tool else None


def offer_tools(
    server: str, tools: Iterable[ListedTool], secrets: SecretForms = NO_SECRETS
) -> tuple[list[OfferedTool], list[Skipped]]:
    """The offerable tools of `server`, sorted, and the skipped ones (module contract)."""
    offered: dict[str, OfferedTool] = {}
    skipped: list[Skipped] = []
    seen: set[str] = set()
    for tool in tools:
        problem = _problem(server, tool, seen, secrets)
        if isinstance(tool.name, str):  # a listing screened out may name it with anything
            seen.add(tool.name)
        renaming = rename_properties(tool.input_schema)  # the top level alone: cheap
        problem = problem or renaming.problem or None
        if problem is not None:
            shown = secrets.redact(tool.name if isinstance(tool.name, str) else repr(tool.name))
            skipped.append(Skipped(server, shown, problem))
            continue
        name = offered_name(server, tool.name)
        description = tool.description if isinstance(tool.description, str) else ""
        definition = {
            "name": name,
            "description": _short_description(secrets.redact(description), server),
            "input_schema": _redacted_values(renaming.schema, secrets),
        }
        offered[name] = OfferedTool(definition, server, tool.name, renaming.renamed)
    return [offered[name] for name in sorted(offered)], skipped


def _problem(server: str, tool: ListedTool, seen: set[str], secrets: SecretForms) -> str | None:
    if not isinstance(tool.name, str) or not TOOL_NAME.match(tool.name):
        return "its name is not letters, digits, '_' and '-' (at most 64)"
    if secrets.redact(tool.name) != tool.name:
        return "its name holds a secret agent-cli keeps (an API key or token)"
    if not TOOL_NAME.match(offered_name(server, tool.name)):
        return "its name is too long once prefixed with the server's (64 at most)"
    if tool.name in seen:
        return "the server lists this name twice"
    schema = tool.input_schema
    problem = describe_schema_problem(schema, secrets)
    if problem is not None:
        return problem
    if _names_a_secret(schema, secrets):
        return "its input schema names a property after a secret agent-cli keeps"
    if tool.refusal:
        return one_line(tool.refusal, secrets)
    return describe_invalid_schema(schema, secrets)


def _names_a_secret(value: Any, secrets: SecretForms) -> bool:
    """Whether a key of any object inside `value` holds a secret (module contract)."""
    if isinstance(value, Mapping):
        return any(
            (isinstance(key, str) and secrets.redact(key) != key) or _names_a_secret(item, secrets)
            for key, item in value.items()
        )
    if isinstance(value, list):
        return any(_names_a_secret(item, secrets) for item in value)
    return False


def _redacted_values(value: Any, secrets: SecretForms) -> Any:
    """`value` (JSON) with `secrets` redacted from every string in it but object keys."""
    if not secrets:
        return value
    if isinstance(value, str):
        return secrets.redact(value)
    if isinstance(value, Mapping):
        return {key: _redacted_values(item, secrets) for key, item in value.items()}
    if isinstance(value, list):
        return [_redacted_values(item, secrets) for item in value]
    return value


def _short_description(description: Any, server: str) -> str:
    text = description if isinstance(description, str) else ""
    text = text.strip() or f"A tool of the MCP server {server}."
    if len(text) <= MAX_DESCRIPTION_CHARS:
        return text
    mark = f" [... description cut: {len(text):,} characters]"
    room = MAX_DESCRIPTION_CHARS - len(mark)
    cut = text.rfind(" ", 0, room)
    return text[: cut if cut > room // 2 else room] + mark
