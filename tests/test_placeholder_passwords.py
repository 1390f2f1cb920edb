"""A placeholder written where a password goes is learned by no reader (twenty-fifth
outside attack, second round).

The attack: a `.env` and a compose file with `password=${PGPASSWORD}`,
`app:${DB_PASS}@tcp(...)`, `scott/${ORACLE_PWD}@//db:1521/ORCL`, `password=<password>`
and `pwd=${PWD##*/}`: each was learned as a password, so `${PGPASSWORD}` and the rest
were blanked as [REDACTED] in every result (the compose file, a README, a script), as
`postgres://app:${PGPASSWORD}@db` and `;Password=${X};` were before. The real password
that a reference names is found where it is set.
"""

from __future__ import annotations

import pytest
from hostile_support import McpServer

from agent_cli.tools.credentials import credentials_inside
from agent_cli.tools.dotenv_syntax import parse_dotenv
from agent_cli.tools.placeholders import is_placeholder
from agent_cli.tools.redaction import collect_mcp_secret_values, collect_secret_values
from agent_cli.tools.workspace_secrets import DotenvFile, WorkspaceDotenv, find_dotenv_secrets


@pytest.mark.parametrize(
    "value",
    [
        # libpq's conninfo, quoted or not, and ODBC's `;` form
        "host=db user=app password=${PGPASSWORD} dbname=app",
        'psql "host=db user=app password=${PGPASSWORD} dbname=app"',
        "host=db,user=app,password=${PGPASSWORD},dbname=app",
        "password='$(cat /run/secrets/db_password)'",
        "Server=db;Uid=app;Password=${DB_PASSWORD_VALUE};",
        "Driver={ODBC};Server=db;Pwd=%DB_PASSWORD_VALUE%;",
        # the Go MySQL DSN, EZConnect, URLs, Oracle's JDBC URL
        "app:${DB_PASS}@tcp(db:3306)/app",
        "scott/${ORACLE_PWD}@//db:1521/ORCL",
        "scott/${ORACLE_PWD}@dbhost/ORCLPDB1",
        "postgres://app:${PGPASSWORD}@db:5432/app",
        "postgres://app:%24%7BPGPASSWORD%7D@db:5432/app",
        "mysql://app:<password>@db/app",
        "https://api.example.com/v1?api_key={{.Values.apiKey}}&page=2",
        "jdbc:oracle:thin:scott/${ORACLE_PASSWORD_VALUE}@//db:1521/ORCL",
        # a client's command line
        "mysql -u root -p${MYSQL_ROOT_PASSWORD} app",
        "redis-cli -a $REDIS_PASSWORD_VALUE ping",
        # slots, names in capitals, masks
        "host=localhost password=<password>",
        "host=localhost password=<your-db-password>",
        "pwd=${PWD##*/}",
        "password={{ db_password }}",
        "password=YOUR_PASSWORD_HERE",
        "Server=db;Password=CHANGE_ME_BEFORE_DEPLOY;",
        "password=********************",
        "password=$env:DB_PASSWORD_VALUE",
    ],
)
def test_a_placeholder_where_a_password_goes_is_learned_by_no_reader(value):
    quote = '"' if "'" in value else "'"
    dotenv = WorkspaceDotenv((DotenvFile(".env", parse_dotenv(f"CONN={quote}{value}{quote}\n")),))
    assert list(credentials_inside(value)) == []
    assert collect_secret_values({"CONN": value}) == ()
    assert find_dotenv_secrets(dotenv, "").values == ()
    assert collect_mcp_secret_values([McpServer(env={"CONN": value})], {}) == ()
    assert collect_mcp_secret_values([McpServer(args=("--conn", value))], {}) == ()


@pytest.mark.parametrize(
    ("value", "secret"),
    [
        # a reference's default word may be the password itself
        ("password=${PGPASSWORD:-Dfl7Pw9xQ2vL}", "Dfl7Pw9xQ2vL"),
        ("host=db password=Xk9mQ2vLp7wRtZ4a note=${HOME}", "Xk9mQ2vLp7wRtZ4a"),
        # capitals alone that a generator may give, and a product key's shape
        ("password=QXJZKLMWPRTVBNHD", "QXJZKLMWPRTVBNHD"),
        ("Server=db;Password=QXJZ-KLMW-PRTV-BNHD;", "QXJZ-KLMW-PRTV-BNHD"),
        # a lower-case name reads as a passphrase too
        ("password=correct_horse_battery", "correct_horse_battery"),
        ("postgres://app:Pg%24Pw9xQ2vL@db/app", "Pg$Pw9xQ2vL"),
    ],
)
def test_a_real_password_that_only_resembles_a_placeholder_is_still_found(value, secret):
    assert any(secret in found for found in credentials_inside(value)), value


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("$PGPASSWORD", True),
        ("${PGPASSWORD}", True),
        ("${PWD##*/}", True),
        ("${DB_PASS:?set it}", True),
        ("${DB_PASS:-}", True),
        ("${DB_PASS:-Dfl7Pw9xQ2vL}", False),
        ("${DB_PASS+Alt7Pw9xQ2vL}", False),
        ("$(cat /run/secrets/pw)", True),
        ("`cat /run/secrets/pw`", True),
        ("%DB_PASSWORD%", True),
        ("$env:DB_PASSWORD", True),
        ("{{ .Values.password }}", True),
        ("<password>", True),
        ("YOUR_PASSWORD", True),
        ("DB_PASS_2", True),
        ("PASSWORD", True),
        ("CHANGEME", True),
        ("********", True),
        ("QXJZKLMWPRTVBN", False),
        ("QXJZ-KLMW-PRTV", False),
        ("your_password", False),
        ("Sup3rS3cretPw", False),
        ("AKIAIOSFODNN7EXAMPLE", False),
        ("<a>b<c>", False),
    ],
)
def test_what_counts_as_a_placeholder(value, expected):
    assert is_placeholder(value) is expected
