"""A token written as a URL's user part, and the password of a JDBC URL, are secrets
wherever a URL's password is found (twenty-third outside attack).

The attack: `PIP_EXTRA_INDEX_URL=https://<token>@pypi.fury.io/acme/` (Gemfury's form),
GitHub's documented `https://<PAT>@github.com/acme/private.git` in a `.env`, and
Spring Boot's `SPRING_DATASOURCE_URL=jdbc:mysql://app:<password>@db:3306/prod` reached
the model through `env` and `read_file`: only a URL's password was looked at (there is
none in the first two), and `jdbc` was read as the scheme, leaving the user and password
in the path. A user part is a secret only when it has a key's shape, so `git@`,
`deploy@` and `oauth2@` stay visible.
"""

from __future__ import annotations

import pytest
from hostile_support import McpServer

from agent_cli.tools.dotenv_syntax import parse_dotenv
from agent_cli.tools.redaction import collect_mcp_secret_values, collect_secret_values
from agent_cli.tools.url_credentials import url_credentials
from agent_cli.tools.workspace_secrets import DotenvFile, WorkspaceDotenv, find_dotenv_secrets

FURY = "fJ8kq2ZrX9mLp4WtY7cN"
PAT = "ghp_UserPartTok0123456789abcdefABCDEF01"
JDBC_PASSWORD = "Sprng-Pw-7Rk2mXv9Lp"


def found_by_every_reader(value: str) -> list[set[str]]:
    """What the environment, a dotenv file, an MCP server's `env`, its `url` and its
    `args` each take as secret of `value` held under a name that is no credential's."""
    (assignment,) = parse_dotenv(f"INDEX={value}\n")
    dotenv = WorkspaceDotenv((DotenvFile(".env", (assignment,)),))
    return [
        set(collect_secret_values({"INDEX": value})),
        set(find_dotenv_secrets(dotenv, "").values),
        set(collect_mcp_secret_values([McpServer(env={"INDEX": value})], {})),
        set(collect_mcp_secret_values([McpServer(url=value)], {})),
        set(collect_mcp_secret_values([McpServer(args=("--index", value))], {})),
    ]


@pytest.mark.parametrize(
    ("url", "secret"),
    [
        (f"https://{FURY}@pypi.fury.io/acme/", FURY),
        (f"https://{PAT}@github.com/acme/private.git", PAT),
        (f"https://{PAT}:x-oauth-basic@github.com/acme/private.git", PAT),  # GitHub's old form
        (f"https://{PAT}:@api.example.com/v1", PAT),  # an empty password, as curl -u takes it
        (f"jdbc:mysql://app:{JDBC_PASSWORD}@db.internal:3306/prod", JDBC_PASSWORD),
        (f"jdbc:postgresql://app:{JDBC_PASSWORD}@db/app?ssl=true", JDBC_PASSWORD),
        (f"jdbc:mysql:loadbalance://app:{JDBC_PASSWORD}@db1,db2/prod", JDBC_PASSWORD),
        (f"r2dbc:pool:postgresql://app:{JDBC_PASSWORD}@db/app", JDBC_PASSWORD),
        # pip's list of indexes, one URL in a JSON value, one in a command
        (f"https://pypi.org/simple https://{FURY}@pypi.fury.io/acme/", FURY),
        (f'{{"index":"https://{FURY}@pypi.fury.io/acme/"}}', FURY),
        (f"git clone https://{PAT}@github.com/acme/private.git", PAT),
        # second round: a key of fewer than 4 digits as the user, Oracle's JDBC URL
        ("https://aBcDeFgHiJkLmNoPq7r2@pypi.fury.io/acme/", "aBcDeFgHiJkLmNoPq7r2"),
        ("https://glpat-xKvPqRzLmNbTwYs8aJdQ@gitlab.com/acme/a.git", "glpat-xKvPqRzLmNbTwYs8aJdQ"),
        ("https://glpat-xKvPqRzLmNbTwYsaJdQ@gitlab.com/acme/a.git", "glpat-xKvPqRzLmNbTwYsaJdQ"),
        (f"jdbc:oracle:thin:app/{JDBC_PASSWORD}@//db.internal:1521/ORCL", JDBC_PASSWORD),
        (f"jdbc:oracle:thin:app/{JDBC_PASSWORD}@db.internal:1521:ORCL", JDBC_PASSWORD),
        (f"jdbc:oracle:oci:app/{JDBC_PASSWORD}@prod_tns", JDBC_PASSWORD),
    ],
)
def test_a_token_user_part_or_a_jdbc_password_is_a_secret_by_every_reader(url, secret):
    for found in found_by_every_reader(url):
        assert secret in found, found


def test_a_percent_encoded_user_part_is_a_secret_as_written_and_as_the_server_reads_it():
    token = "tok-Zq7Rk2mXv9LpW4tYc8Nb"
    written = token.replace("-", "%2D")
    assert set(url_credentials(f"https://{written}@pypi.fury.io/acme/")) == {written, token}


@pytest.mark.parametrize(
    "url",
    [
        "https://git@github.com/acme/private.git",
        "ssh://deploy@build.internal/srv/app.git",
        "https://oauth2@gitlab.example.com/acme/app.git",
        "https://someone.else@example.com/path",
        "ftp://anonymous@ftp.example.org/pub",
        "https://AKIAIOSFODNN7EXAMPLE@s3.example.com/bucket",  # an access key's id, public
        "jdbc:mysql://db.internal:3306/prod?useSSL=true",
        "jdbc:postgresql://db/app?user=app",
        "https://example.com/mcp/v1/sse",
        "https://oauth2accesstoken@us-docker.pkg.dev/acme/repo",  # Google's user name
        "https://ci-deployer-account@build.example.com/x",
        "https://MyCompanyDeployBot@build.example.com/x",
        "jdbc:oracle:thin:@//db.internal:1521/ORCL",  # no user, no password
    ],
)
def test_a_user_name_in_a_url_is_no_secret(url):
    """Hidden, `git` or `deploy` would vanish from every remote and log line shown."""
    assert found_by_every_reader(url) == [set()] * 5
