"""A database password in a connection form that is no URL, and a credential header line
written in a value, are secrets by every reader (session 25's outside attack).

The attack: `DATABASE_URL=host=db port=5432 user=app password=<pw> dbname=app` (libpq's
keyword/value conninfo), the same quoted in a `.env` line, and the Go MySQL driver's DSN
`app:<pw>@tcp(db:3306)/app` reached the request through `env` and `read_file`; only URLs
and `;`-separated connection strings were read. An MCP server's `env` value
`X-API-Key: <key>` or `Cookie: session=<id>` was not hidden, though the same line after
`--header` in its `args` was. Ordinary values with a `:`, `/`, `@` or `=` in them stay
visible.
"""

from __future__ import annotations

import pytest
from hostile_support import McpServer, found_by_every_reader

from agent_cli.tools.connection_credentials import connection_passwords
from agent_cli.tools.credentials import credentials_inside, named_header_credentials
from agent_cli.tools.redaction import collect_mcp_secret_values, collect_secret_values

PW = "Xk9mQ2vLp7wRtZ4a"
KEY = "Zq8xW3vR7tY2pL9mK4nB6cD1"


@pytest.mark.parametrize(
    "value",
    [
        # libpq's keyword/value conninfo, in any order, spaced, quoted
        f"host=db port=5432 user=app password={PW} dbname=app",
        f"password={PW}",
        f"host=db password = {PW} dbname=app",
        f"PASSWORD={PW} host=db",
        f"host=db sslpassword={PW}",
        f"psql 'host=db user=app password={PW} dbname=app'",
        # `pwd=`/`passwd=`, `;`-separated, braced as ODBC writes a password with `;`
        f"Driver={{PostgreSQL}};Server=db;Uid=app;Pwd={PW};",
        f"server=db;uid=app;passwd={PW}",
        f"Driver=x;PWD={{{PW}}};",
        f"PGPASSWORD={PW} psql -h db -U app",
        # the Go MySQL driver's DSN, any protocol, no protocol
        f"app:{PW}@tcp(db:3306)/app?parseTime=true",
        f"app:{PW}@unix(/var/run/mysqld/mysqld.sock)/app",
        f"app:{PW}@tcp6([::1]:3306)/app",
        f"app:{PW}@/app",
        f"dsn=app:{PW}@tcp(127.0.0.1:3306)/app",
        # Oracle's EZConnect, without `jdbc:`
        f"app/{PW}@//db.internal:1521/ORCLPDB1",
        f"app/{PW}@db.internal:1521/ORCLPDB1",
        f"sqlplus -S app/{PW}@db:1521",
        f'app/"{PW}"@//db:1521/svc',
    ],
)
def test_a_password_in_a_connection_form_that_is_no_url_is_a_secret_by_every_reader(value):
    for found in found_by_every_reader(value):
        assert PW in found, (value, found)


@pytest.mark.parametrize(
    ("value", "passwords"),
    [
        ("password='p\\'w d\\\\9Q2vLp7w'", {"p\\'w d\\\\9Q2vLp7w", "p'w d\\9Q2vLp7w"}),
        ('password="pw d9Q2vLp7w"', {"pw d9Q2vLp7w"}),
        ("Pwd={a;b}}c9Q2vLp7w};", {"a;b}}c9Q2vLp7w", "a;b}c9Q2vLp7w"}),
        # a form body: the value up to the next field, and as written
        ("user=a&password=Fm9Q2vLp7w&remember=1", {"Fm9Q2vLp7w", "Fm9Q2vLp7w&remember=1"}),
        # the driver reads the password up to the last `@`
        ("app:p@ss9Q2vLp7w@tcp(db)/app", {"p@ss9Q2vLp7w"}),
    ],
)
def test_a_quoted_or_escaped_password_is_found_as_written_and_as_the_driver_reads_it(
    value, passwords
):
    assert set(connection_passwords(value)) == passwords


@pytest.mark.parametrize(
    "value",
    [
        "PWD=/home/user/project",  # an environment's dump: the shell's working folder
        "OLDPWD=/srv/app PWD=~/src",
        "POSTGRES_PASSWORD_FILE=/run/secrets/db-password",
        "password= ",
        "the password is in the vault",
        "host=db port=5432 user=app dbname=app sslmode=require",
        "golang.org/x/tools@v0.21.0/cmd",
        "golang.org/toolchain@v0.0.1-go1.22.0.linux-amd64/bin",
        "library/ubuntu@sha256:45b23dee08af5e43a7fea6c4cf9c25ccf269ee113168c19722f87876677c5cb2",
        "npx -y @modelcontextprotocol/server-github@2025.4.8",
        "git@github.com:acme/app.git",
        "postgres://app@db:5432/app",
        "user@example.com",
        "10:30 https://example.com:8443/path@/x",
        "Note: see docs/setup.md",
        "Token: see the wiki",
        "X-API-Key: ${API_KEY}",
        "Cookie: none",
        "Content-Type: application/json",
        "max_tokens: 4096",
    ],
)
def test_ordinary_values_with_connection_or_header_punctuation_hold_no_credential(value):
    assert [found for found in found_by_every_reader(value) if found] == []


@pytest.mark.parametrize(
    ("line", "secret"),
    [
        (f"X-API-Key: {KEY}", KEY),
        (f"Cookie: session={KEY}", KEY),
        (f"Cookie: theme=dark; session={KEY}", KEY),
        (f"Set-Cookie: sid={KEY}; Path=/; HttpOnly", KEY),
        (f"Private-Token: {KEY}", KEY),
        (f"X-Auth-Token: Token {KEY}", KEY),
        (f"Ocp-Apim-Subscription-Key:{KEY}", KEY),
        (f"Accept: application/json\nX-Goog-Api-Key: {KEY}", KEY),
        (f"curl -H 'X-API-Key: {KEY}' https://api.example.com", KEY),
        (f'X-API-Key: "{KEY}"', KEY),
        (f"Authorization: Bearer {KEY}", KEY),
    ],
)
def test_a_credential_header_line_in_a_value_is_a_secret_by_every_reader(line, secret):
    """mcp-remote-style wrappers take a header through a variable of any name."""
    for found in found_by_every_reader(line):
        assert secret in found, (line, found)


def test_an_mcp_env_header_line_is_hidden_as_the_same_line_after_header_in_args_is():
    for line in (f"X-API-Key: {KEY}", f"Cookie: session={KEY}"):
        in_env = set(collect_mcp_secret_values([McpServer(env={"AUTH_HEADER": line})], {}))
        in_args = set(collect_mcp_secret_values([McpServer(args=("--header", line))], {}))
        assert KEY in in_env and KEY in in_args


def test_each_cookie_of_a_cookie_header_is_a_credential_but_set_cookies_attributes_are_not():
    assert set(named_header_credentials("Cookie", f"a={KEY}; b=second-cookie-9Q2v")) >= {
        KEY,
        "second-cookie-9Q2v",
    }
    set_cookie = set(named_header_credentials("Set-Cookie", f"sid={KEY}; Path=/; Max-Age=3600"))
    assert KEY in set_cookie and "3600" not in set_cookie
    assert list(named_header_credentials("Content-Type", "application/json")) == []
    assert set(
        collect_mcp_secret_values([McpServer(headers={"Cookie": f"session={KEY}"})], {})
    ) >= {KEY}


def test_an_ordinary_word_after_a_password_keyword_is_left_visible_in_the_environment():
    """As `POSTGRES_PASSWORD=postgres` is: hidden, it would blank the word everywhere."""
    assert "postgres" in set(credentials_inside("host=db password=postgres"))
    assert collect_secret_values({"CONN": "host=db user=app password=postgres"}) == ()
