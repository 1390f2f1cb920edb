"""The `[mcp_servers.<name>]` tables of config.toml, checked.

Contract: `parse_mcp_servers(table, source)` turns the `mcp_servers` value into
`McpServerSettings`, sorted by name, or raises `ConfigError` naming the key
(`mcp_servers.<name>.<field>`), the file and what to do. A server has either `command`
(stdio: `args`, `env` passed to that server only, `cwd`) or `url` (streamable HTTP:
`headers`), not both; `enabled` (default true), `timeout` (seconds per call, default
60) and `startup_timeout` (seconds to connect and list its tools, default 10; the first
request waits as long for it) are optional. Server names are what tool names are built from, so they follow the
tool-name grammar (letters, digits, `_`, `-`) and are short enough to leave room for
the tool's own name. Pure.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from agent_cli.errors import ConfigError

SERVER_NAME = re.compile(r"^[A-Za-z0-9_-]{1,24}$")
DEFAULT_CALL_TIMEOUT = 60.0
DEFAULT_STARTUP_TIMEOUT = 10.0
MAX_CALL_TIMEOUT = 3_600.0
STDIO_FIELDS = {"command", "args", "env", "cwd"}
HTTP_FIELDS = {"url", "headers"}
COMMON_FIELDS = {"enabled", "timeout", "startup_timeout"}


@dataclass(frozen=True)
class McpServerSettings:
    """One server as config.toml names it (module contract)."""

    name: str
    command: str | None = None
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    cwd: str | None = None
    url: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict)
    enabled: bool = True
    timeout: float = DEFAULT_CALL_TIMEOUT
    startup_timeout: float = DEFAULT_STARTUP_TIMEOUT

    @property
    def transport(self) -> str:
        return "stdio" if self.command is not None else "http"


def parse_mcp_servers(table: Any, source: str) -> tuple[McpServerSettings, ...]:
    """The checked servers of the `mcp_servers` table (module contract)."""
    if not isinstance(table, Mapping):
        raise ConfigError(
            "mcp_servers",
            'must be a table of servers, e.g. [mcp_servers.github] with command = "..."',
            source=source,
        )
    return tuple(_parse_server(name, table[name], source) for name in sorted(table))


def _parse_server(name: str, value: Any, source: str) -> McpServerSettings:
    key = f"mcp_servers.{name}"
    if not SERVER_NAME.match(name):
        raise ConfigError(
            key,
            "a server name uses only letters, digits, '_' and '-' and is at most 24 "
            "characters (tool names are built from it); rename the table",
            source=source,
        )
    if not isinstance(value, Mapping):
        raise ConfigError(key, 'must be a table with command = "..." or url = "..."', source=source)
    unknown = sorted(set(value) - STDIO_FIELDS - HTTP_FIELDS - COMMON_FIELDS)
    if unknown:
        known = ", ".join(sorted(STDIO_FIELDS | HTTP_FIELDS | COMMON_FIELDS))
        raise ConfigError(f"{key}.{unknown[0]}", f"unknown key (known: {known})", source=source)
    has_command, has_url = "command" in value, "url" in value
    if has_command == has_url:
        raise ConfigError(
            key,
            'needs exactly one of command = "..." (a program to start) or url = "..." '
            "(a streamable HTTP endpoint)",
            source=source,
        )
    mixed = sorted(set(value) & (HTTP_FIELDS if has_command else STDIO_FIELDS) - {"command", "url"})
    if mixed:
        raise ConfigError(
            f"{key}.{mixed[0]}",
            f"does not apply to a {'command' if has_command else 'url'} server; remove it",
            source=source,
        )
    return McpServerSettings(
        name=name,
        command=_text(value, "command", key, source) if has_command else None,
        args=_texts(value.get("args", []), f"{key}.args", source),
        env=_text_table(value.get("env", {}), f"{key}.env", source),
        cwd=_text(value, "cwd", key, source) if "cwd" in value else None,
        url=_url(value, key, source) if has_url else None,
        headers=_text_table(value.get("headers", {}), f"{key}.headers", source),
        enabled=_flag(value.get("enabled", True), f"{key}.enabled", source),
        timeout=_timeout(value.get("timeout", DEFAULT_CALL_TIMEOUT), f"{key}.timeout", source),
        startup_timeout=_timeout(
            value.get("startup_timeout", DEFAULT_STARTUP_TIMEOUT), f"{key}.startup_timeout", source
        ),
    )


def _text(value: Mapping[str, Any], name: str, key: str, source: str) -> str:
    text = value.get(name)
    if not isinstance(text, str) or not text.strip() or "\x00" in text:
        raise ConfigError(f"{key}.{name}", "must be a non-empty string", source=source)
    return text


def _texts(value: Any, key: str, source: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(
        isinstance(v, str) and "\x00" not in v for v in value
    ):
        raise ConfigError(key, 'must be a list of strings, e.g. ["-y", "server"]', source=source)
    return tuple(value)


def _text_table(value: Any, key: str, source: str) -> dict[str, str]:
    if not isinstance(value, Mapping) or not all(
        isinstance(k, str) and isinstance(v, str) and "\x00" not in k + v for k, v in value.items()
    ):
        raise ConfigError(key, 'must be a table of strings, e.g. { NAME = "value" }', source=source)
    return dict(value)


def _url(value: Mapping[str, Any], key: str, source: str) -> str:
    url = _text(value, "url", key, source)
    if not re.match(r"^https?://[^\s/]+", url):
        raise ConfigError(f"{key}.url", "must be an http:// or https:// address", source=source)
    return url


def _flag(value: Any, key: str, source: str) -> bool:
    if not isinstance(value, bool):
        raise ConfigError(key, "must be true or false", source=source)
    return value


def _timeout(value: Any, key: str, source: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ConfigError(key, "must be a number of seconds, e.g. 60", source=source)
    if not 0 < value <= MAX_CALL_TIMEOUT:
        raise ConfigError(
            key, f"must be more than 0 and at most {MAX_CALL_TIMEOUT:.0f} seconds", source=source
        )
    return float(value)
