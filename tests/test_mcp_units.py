"""MCP pieces that need no server: config tables, which tools are offered, results."""

from __future__ import annotations

import base64
import struct
import zlib

import pytest

from agent_cli.errors import ConfigError
from agent_cli.mcp_servers.call_results import render_call_result
from agent_cli.mcp_servers.offered_tools import (
    MAX_DESCRIPTION_CHARS,
    ListedTool,
    offer_tools,
    split_offered_name,
)
from agent_cli.mcp_servers.settings import parse_mcp_servers
from agent_cli.repl.config import check_config_values

OBJECT = {"type": "object", "properties": {"text": {"type": "string"}}}


def test_servers_are_parsed_sorted_with_their_own_env():
    servers = parse_mcp_servers(
        {
            "web": {"url": "https://host/mcp", "headers": {"Authorization": "Bearer t"}},
            "github": {
                "command": "npx",
                "args": ["-y", "srv"],
                "env": {"TOKEN": "x"},
                "timeout": 5,
                "startup_timeout": 45,
            },
        },
        "config.toml",
    )
    assert [s.name for s in servers] == ["github", "web"]
    assert servers[0].env == {"TOKEN": "x"} and servers[0].timeout == 5.0
    assert servers[0].startup_timeout == 45.0 and servers[1].startup_timeout == 10.0
    assert servers[1].transport == "http" and servers[1].enabled


@pytest.mark.parametrize(
    ("table", "key", "says"),
    [
        ({"gh": {"args": []}}, "mcp_servers.gh", "exactly one of command"),
        ({"gh": {"command": "x", "url": "http://h"}}, "mcp_servers.gh", "exactly one of"),
        ({"gh": {"command": ""}}, "mcp_servers.gh.command", "non-empty string"),
        ({"gh": {"command": "x", "args": "-y"}}, "mcp_servers.gh.args", "list of strings"),
        ({"gh": {"command": "x", "env": {"A": 1}}}, "mcp_servers.gh.env", "table of strings"),
        ({"gh": {"command": "x", "timeout": 0}}, "mcp_servers.gh.timeout", "more than 0"),
        (
            {"gh": {"command": "x", "startup_timeout": "1m"}},
            "mcp_servers.gh.startup_timeout",
            "number of seconds",
        ),
        ({"gh": {"command": "x", "enabled": "yes"}}, "mcp_servers.gh.enabled", "true or false"),
        ({"gh": {"command": "x", "headers": {}}}, "mcp_servers.gh.headers", "does not apply"),
        ({"gh": {"url": "ftp://h"}}, "mcp_servers.gh.url", "http:// or https://"),
        ({"gh": {"command": "x", "colour": 1}}, "mcp_servers.gh.colour", "unknown key"),
        ({"../x": {"command": "x"}}, "mcp_servers.../x", "rename the table"),
        ({"gh": "npx"}, "mcp_servers.gh", "must be a table"),
    ],
)
def test_a_bad_server_table_names_the_key_and_says_what_to_do(table, key, says):
    with pytest.raises(ConfigError) as raised:
        check_config_values({"mcp_servers": table}, source="/home/u/.config/agent-cli/config.toml")
    assert raised.value.key == key and says in raised.value.reason
    assert raised.value.source == "/home/u/.config/agent-cli/config.toml"


def test_tools_are_offered_sorted_and_those_the_api_refuses_are_skipped_with_a_reason():
    listed = [
        ListedTool("zeta", "last", OBJECT),
        ListedTool("alpha", "first", OBJECT),
        ListedTool("../../x", "bad name", OBJECT),
        ListedTool("n" * 60, "too long once prefixed", OBJECT),
        ListedTool("alpha", "twice", OBJECT),
        ListedTool("arr", "schema not an object", {"type": "array"}),
        ListedTool("wordy", "x" * 100_000, OBJECT),
    ]
    offered, skipped = offer_tools("files", listed)
    assert [t.name for t in offered] == [
        "mcp__files__alpha",
        "mcp__files__wordy",
        "mcp__files__zeta",
    ]
    assert {s.tool: s.problem.split()[0] for s in skipped} == {
        "../../x": "its",
        "n" * 60: "its",
        "alpha": "the",
        "arr": "its",
    }
    wordy = offered[1].definition["description"]
    assert len(wordy) <= MAX_DESCRIPTION_CHARS and "100,000 characters" in wordy
    assert split_offered_name("mcp__files__read__all") == ("files", "read__all")
    assert split_offered_name("read_file") is None


def _nested(levels: int) -> dict:
    schema: dict = {"type": "string"}
    for _ in range(levels):
        schema = {"type": "object", "properties": {"a": schema}}
    return schema


def test_schemas_the_messages_api_refuses_are_skipped_with_the_reason_and_the_rest_offered():
    """The API refuses a whole request over one tool with a top-level anyOf/oneOf/allOf or
    a schema that is no valid draft 2020-12 (real servers list both); one nested past the
    depth the checker can walk is skipped too. Combinators inside a property, an ECMA-only
    pattern and a recursive $ref are fine."""
    from agent_cli.secret_forms import SecretForms

    secret = "ghp_unitSECRET0123456789"
    by_id_or_name = {
        "type": "object",
        "properties": {"id": {"type": "string"}, "name": {"type": "string"}},
        "anyOf": [{"required": ["id"]}, {"required": ["name"]}],
    }
    listed = [
        ListedTool("union", "by id or by name", by_id_or_name),
        ListedTool("one", "", {"type": "object", "oneOf": [{"required": ["a"]}]}),
        ListedTool("all", "", {"type": "object", "allOf": [{"required": ["a"]}]}),
        ListedTool("badtype", "", {"type": "object", "properties": {"a": {"type": "notatype"}}}),
        ListedTool("leaky", "", {"type": "object", "properties": {"a": {"type": secret}}}),
        ListedTool("deep", "", _nested(100)),
        ListedTool("inner", "", {"type": "object", "properties": {"v": {"anyOf": [OBJECT]}}}),
        ListedTool("letters", "", {"type": "object", "properties": {"w": {"pattern": r"\p{L}+"}}}),
        ListedTool("loop", "", {"type": "object", "properties": {"n": {"$ref": "#/properties/n"}}}),
        ListedTool("fine", "", _nested(20)),
    ]
    offered, skipped = offer_tools("srv", listed, SecretForms.from_values([secret]))
    assert [t.tool for t in offered] == ["fine", "inner", "letters", "loop"]
    problems = {s.tool: s.problem for s in skipped}
    assert problems["union"].startswith("its input schema has anyOf at the top level")
    assert "oneOf at the top level" in problems["one"]
    assert "allOf at the top level" in problems["all"]
    assert problems["badtype"] == (
        "its input schema is not valid JSON Schema (draft 2020-12, which the Messages API "
        "requires): at properties.a.type: 'notatype' is not valid under any of the given schemas"
    )
    assert "not valid JSON Schema" in problems["leaky"] and secret[:8] not in problems["leaky"]
    assert problems["deep"] == "its input schema is nested more than 64 levels deep"


def test_a_schema_holding_nan_or_infinity_is_skipped_saying_where():
    """`1e400` (valid JSON, read as Infinity) or the NaN Python's json.dumps writes made
    the SDK's strict encoder raise on every request of the session; such a tool is now
    skipped with the place named (a secret in a key on the way redacted)."""
    from agent_cli.secret_forms import SecretForms

    secret = "ghp_unitSECRET0123456789"

    def number(value: object, key: str = "n") -> dict:
        return {"type": "object", "properties": {key: {"type": "number", "maximum": value}}}

    listed = [
        ListedTool("huge", "", number(float("inf"))),
        ListedTool("low", "", number(float("-inf"))),
        ListedTool("nan", "", {"type": "object", "examples": [{"a": 1}, {"a": float("nan")}]}),
        ListedTool("leaky", "", number(float("inf"), key=secret)),
        ListedTool("fine", "", number(1e308)),
    ]
    offered, skipped = offer_tools("srv", listed, SecretForms.from_values([secret]))
    assert [t.tool for t in offered] == ["fine"]
    problems = {s.tool: s.problem for s in skipped}
    assert problems["huge"] == (
        "its input schema holds Infinity at properties.n.maximum, which strict JSON cannot "
        "carry and the Messages API refuses (a number past about 1.8e308, such as 1e400, "
        "reads as Infinity)"
    )
    assert problems["low"].startswith("its input schema holds -Infinity at properties.n.maximum")
    assert problems["nan"].startswith("its input schema holds NaN at examples.1.a,")
    assert "Infinity at properties." in problems["leaky"] and secret[:8] not in problems["leaky"]


def test_a_listing_is_screened_tool_by_tool_so_the_sdk_takes_the_rest():
    """What the SDK refused as a whole listing (a string schema, a name that is a number,
    annotations that are no object) or could not walk (100 deep) is taken out, each tool
    with its reason; the rest, and the listing's other members, are handed on."""
    from agent_cli.mcp_servers.tool_listing import screen_listing

    good = {"name": "echo", "description": "echoes", "inputSchema": OBJECT}
    listing = {
        "tools": [
            good,
            {"name": "s", "inputSchema": {"type": "string"}},
            {"name": 5, "inputSchema": OBJECT},
            {"name": "ann", "inputSchema": OBJECT, "annotations": "x"},
            {"name": "deep", "inputSchema": _nested(100)},
        ],
        "nextCursor": "page-2",
    }
    kept, taken = screen_listing(listing, "2025-06-18")
    assert kept == {"tools": [good], "nextCursor": "page-2"}
    offered, skipped = offer_tools("srv", taken)
    assert offered == []
    assert {s.tool: s.problem for s in skipped} == {
        "s": "its input schema is not a JSON object schema",
        "5": "its name is not letters, digits, '_' and '-' (at most 64)",
        "ann": "the MCP SDK cannot read how the server lists it (annotations: Input should be "
        "a valid dictionary or instance of ToolAnnotations)",
        "deep": "its input schema is nested more than 64 levels deep",
    }
    assert screen_listing({"tools": [good]}, None) == ({"tools": [good]}, [])
    assert screen_listing({"tools": "none"}, None) == ({"tools": "none"}, [])


def _png_head(text: bytes) -> bytes:
    """A whole 1 x 1 PNG (its size can be read, a decoder reads it) with `text` in a tEXt
    chunk after its IHDR."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
        )

    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0))
        + chunk(b"tEXt", b"Comment\x00" + text)
        + chunk(b"IDAT", zlib.compress(b"\x00\x00\x00\x00"))
        + chunk(b"IEND", b"")
    )


def test_results_keep_text_in_order_and_store_binary_content_as_artifacts():
    saved: list[tuple[bytes, str]] = []

    def save(data: bytes, suffix: str) -> str:
        saved.append((data, suffix))
        return f"artifact:s1:{len(saved)}"

    png = base64.b64encode(_png_head(b" fake")).decode()
    result, images = render_call_result(
        "files",
        "look",
        [
            {"type": "text", "text": "first"},
            {"type": "image", "data": png, "mimeType": "image/png"},
            {"type": "image", "data": "not base64!", "mimeType": "image/png"},
            {"type": "resource", "resource": {"uri": "file:///a.txt", "text": "inside"}},
            {"type": "resource_link", "name": "spec", "uri": "file:///spec.md"},
            {"type": "video", "data": "x"},
        ],
        False,
        save,
    )
    lines = result.body.splitlines()
    assert result.header == "MCP files look: ok" and not result.is_error
    assert lines[0] == "first"
    assert "saved as artifact:s1:1" in lines[1] and saved == [(_png_head(b" fake"), ".png")]
    assert "not valid base64; dropped" in lines[2]
    assert lines[3:5] == ["[resource file:///a.txt]", "inside"]
    assert "spec file:///spec.md" in lines[5] and "not supported; dropped" in lines[6]
    assert render_call_result("f", "t", [], True, save)[0].is_error
    # the valid PNG also goes to the model as an image block (its pointer kept beside, for a
    # request that must leave it out to name it); the broken one does not
    source = {"type": "base64", "media_type": "image/png", "data": png}
    assert images == ({"type": "image", "source": source, "_pointer": "artifact:s1:1"},)


def test_binary_content_is_stored_redacted_and_an_image_holding_a_secret_is_withheld():
    """Secrets in binary content (plain, hex or base64 inside the bytes, or in the item's
    base64 itself) are redacted from the stored bytes; an image holding one is never sent
    and the text says why; a clean image still is."""
    from agent_cli.secret_forms import SecretForms

    secret = "ghp_unitSECRET0123456789"
    secrets = SecretForms.from_values([secret])
    saved: list[bytes] = []

    def save(data: bytes, suffix: str) -> str:
        saved.append(data)
        return f"artifact:s1:{len(saved)}"

    def image(data: bytes) -> dict[str, str]:
        return {"type": "image", "data": base64.b64encode(data).decode(), "mimeType": "image/png"}

    clean = image(_png_head(b" clean"))
    items = [
        image(b"\x89PNG tEXt " + secret.encode()),
        image(b"\x89PNG " + secret.encode().hex().encode()),
        image(b"\x89PNG " + base64.b64encode(b"x" + secret.encode())),
        clean,
        {"type": "audio", "data": base64.b64encode(secret.encode()).decode()},
        {"type": "resource", "resource": {"uri": "u", "blob": image(secret.encode())["data"]}},
    ]
    result, images = render_call_result("s", "t", items, False, save, secrets)
    lines = result.body.splitlines()
    assert all("withheld from the model" in line for line in lines[:3]), lines
    assert "withheld" not in lines[3] and "redacted" not in lines[3]
    assert all(
        "1 secret value held by agent-cli redacted" in line for line in lines[:3] + lines[4:]
    )
    assert [block["source"]["data"] for block in images] == [clean["data"]]
    assert saved[3] == _png_head(b" clean")
    for stored in saved:
        assert secrets.redact_bytes(stored)[1] == 0
        assert secret.encode() not in stored


def test_what_a_server_lists_is_offered_with_secrets_redacted_and_never_named_after_one():
    """A description (even one cut for length right inside the secret), every string of
    an input schema: redacted. A tool named after a secret, or whose schema names a
    property after one: not offered, shown redacted."""
    from agent_cli.secret_forms import SecretForms

    secret = "ghp_unitSECRET0123456789"
    secrets = SecretForms.from_values([secret])
    long = "x " * (MAX_DESCRIPTION_CHARS // 2 - 20) + secret + " tail"
    schema = {
        "type": "object",
        "properties": {
            "mode": {"type": "string", "enum": ["a", secret], "description": f"uses {secret}"}
        },
    }
    offered, skipped = offer_tools(
        "srv",
        [
            ListedTool("ok", f"token {secret}", schema),
            ListedTool("wordy", long, OBJECT),
            ListedTool(secret, "named after it", OBJECT),
            ListedTool("keyed", "a property named after it", {"type": "object", secret: {}}),
        ],
        secrets,
    )
    assert [tool.tool for tool in offered] == ["ok", "wordy"]
    text = repr([dict(tool.definition) for tool in offered])
    assert secret[:8] not in text and text.count("[REDACTED]") == 4
    assert [(s.tool, "secret" in s.problem) for s in skipped] == [
        ("[REDACTED]", True),
        ("keyed", True),
    ]


def test_a_servers_stderr_is_redacted_before_its_last_lines_are_cut():
    """The window of stderr read, and each line's 200 characters, may fall inside the
    secret: no piece of it is left."""

    from agent_cli.mcp_servers.failures import stderr_lines
    from agent_cli.secret_forms import SecretForms

    secret = "ghp_unitSECRET0123456789"
    secrets = SecretForms.from_values([secret])
    for before in range(3_762, 3_785, 2):  # the 4,000-character window begins inside it
        written = "a" * (10_000 - before) + secret + "b" * before + "\n" + "." * 190 + secret
        tail = stderr_lines(written, secrets)
        assert not any(secret[i : i + 6] in tail for i in range(len(secret) - 5)), tail


def test_the_credentials_config_toml_gives_mcp_servers_are_collected_as_secrets():
    from agent_cli.tools.redaction import collect_mcp_secret_values

    basic = base64.b64encode(b"alice:basic-pass-123").decode()
    servers = parse_mcp_servers(
        {
            "gh": {
                "command": "npx",
                "env": {
                    "GITHUB_TOKEN": "ghp_config0123456789",
                    "MY_PAT": "named-by-the-user-1",
                    "DB_URL": "postgres://app:db-pass-4567@host/db",
                    "LOG_LEVEL": "debugging-verbose",
                    "SHORT_TOKEN": "tiny",
                },
            },
            "web": {
                "url": "https://host/mcp?api_key=query-key-890&page=200000000",
                "headers": {
                    "Authorization": "Bearer bearer-tok-0001",
                    "Proxy-Authorization": f"Basic {basic}",
                    "X-Team": "team-identifier-9",
                    "Accept": "application/json",
                },
            },
        },
        "config.toml",
    )
    found = set(collect_mcp_secret_values(servers, {"AGENT_CLI_SECRET_NAMES": "MY_PAT"}))
    assert found == {
        "ghp_config0123456789",
        "named-by-the-user-1",
        "db-pass-4567",
        "query-key-890",
        "Bearer bearer-tok-0001",
        "bearer-tok-0001",
        f"Basic {basic}",
        basic,
        "alice:basic-pass-123",
        "basic-pass-123",
        "team-identifier-9",
    }


def test_the_credentials_in_an_mcp_servers_args_and_json_env_values_are_collected():
    """Seventh attack, S6: flags in both spellings, `NAME=value`, header flags, URLs
    and JSON `env` values; flags that name a file or take no value give nothing."""
    from agent_cli.tools.redaction import collect_mcp_secret_values

    servers = parse_mcp_servers(
        {
            "tools": {
                "command": "npx",
                "args": [
                    "-y",
                    "some-mcp-server",
                    "mysql://root:mysql-pass-123@localhost/app",
                    "--token=flag-token-0001",
                    "--password",
                    "flag-pass-0002",
                    "--client-secret",
                    "flag-secret-03",
                    "--header",
                    "Authorization: Bearer header-tok-04",
                    "-H",
                    "X-Api-Key: header-key-0005",
                    "--header=Accept: application/json-seq",
                    "-e",
                    "SERVICE_TOKEN=env-token-0006",
                    "--api-key",
                    "--verbose",
                    "--token-file",
                    "/run/secrets/token-file",
                    "--log-level",
                    "debugging-verbose",
                ],
                "env": {
                    "HEADERS": '{"Authorization": "Basic aGVhZGVyLXBhc3M=", "X-Trace": "trace-12345"}',
                    "CONFIG": '{"db": {"host": "db.internal", "password": "json-pass-07"}}',
                },
            },
        },
        "config.toml",
    )
    found = set(collect_mcp_secret_values(servers, {}))
    assert found == {
        "mysql-pass-123",
        "flag-token-0001",
        "flag-pass-0002",
        "flag-secret-03",
        "Bearer header-tok-04",
        "header-tok-04",
        "header-key-0005",
        "env-token-0006",
        "Basic aGVhZGVyLXBhc3M=",
        "aGVhZGVyLXBhc3M=",
        "header-pass",
        "json-pass-07",
    }
