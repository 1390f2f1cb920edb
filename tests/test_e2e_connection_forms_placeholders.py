"""The twenty-fifth outside attack's second round as a user meets it: the installed
agent-cli with `--yes`, the real SDK and the fake Messages API.

agent-cli's environment holds passwords in the connection forms the first rule missed
(EZConnect `scott/X@dbhost.example.com/ORCLPDB1`, quoted after `rman target`, a
comma-separated conninfo, `redis-cli -a X` in a variable); the workspace's `.env` sets
the real password and writes `${PGPASSWORD}`, `<password>` and `${PWD##*/}` where
passwords go, and its compose file does the same. The model prints the environment and
reads the compose file: no password reaches a request, a file under AGENT_CLI_HOME or
the terminal, and every placeholder is shown as it is written.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from e2e_support import run_scripted
from fake_anthropic import Reply, text_block, tool_result_texts, tool_use_block
from hostile_support import secrets_left_anywhere

from agent_cli.secret_forms import REDACTED_MARK

KEY = "sk-ant-FAKE-a25b-conn-0123456789abcdef"
EZ_PW = "Ez7cOnnectNoPort9x"
QUOTED_PW = "Qu0tedEzPw4rd#2026"
COMMA_PW = "C0mmaSep4ratedPw8"
REDIS_PW = "Red1sCliFlagPw-7Qx"
DOTENV_PW = "R3alPgPassw0rd-xyz"
ENVIRONMENT = {
    "ORACLE_LOGIN": f"scott/{EZ_PW}@dbhost.example.com/ORCLPDB1",
    "BACKUP_CMD": f'rman target sys/"{QUOTED_PW}"@dbhost/ORCLPDB1',
    "PG_CONN": f"host=db,user=app,password={COMMA_PW},dbname=app",
    "CACHE_CHECK": f"redis-cli -h cache -a {REDIS_PW} ping",
}
SECRETS = (EZ_PW, QUOTED_PW, COMMA_PW, REDIS_PW, DOTENV_PW, KEY)
DOTENV = f"""PGPASSWORD={DOTENV_PW}
PG_CONNINFO="host=db user=app password=${{PGPASSWORD}} dbname=app"
MYSQL_ADDR="app:${{DB_PASS}}@tcp(db:3306)/app"
ORACLE_CONNECT="scott/${{ORACLE_PWD}}@//db:1521/ORCL"
DOCS_CONNINFO="host=localhost password=<password>"
PROMPT_SUFFIX="pwd=${{PWD##*/}}"
"""
COMPOSE = """services:
  db:
    environment:
      POSTGRES_PASSWORD: ${PGPASSWORD}
      CONNINFO: host=db user=app password=${PGPASSWORD} dbname=app
      MYSQL_ADDR: app:${DB_PASS}@tcp(db:3306)/app
      ORACLE_CONNECT: scott/${ORACLE_PWD}@//db:1521/ORCL
# README: psql "host=localhost password=<password>"
# prompt: PS1="pwd=${PWD##*/} $ "
"""


def call(tool_id: str, tool: str, **tool_input: str) -> Reply:
    return Reply([tool_use_block(tool_id, tool, tool_input)], stop_reason="tool_use")


@pytest.mark.e2e
def test_missed_forms_are_hidden_and_placeholders_are_shown_as_written(tmp_path: Path) -> None:
    home, workspace = tmp_path / "home", tmp_path / "ws"
    home.mkdir()
    workspace.mkdir()
    (workspace / ".env").write_text(DOTENV, encoding="utf-8")
    (workspace / "docker-compose.yml").write_text(COMPOSE, encoding="utf-8")
    names = "|".join(ENVIRONMENT)
    replies = [
        call("toolu_env", "bash", command=f"env | grep -E '^({names})=' | sort"),
        call("toolu_cut", "bash", command='echo "${PG_CONN#*password=}" | cut -d, -f1'),
        call("toolu_read", "bash", command="cat docker-compose.yml"),
        Reply([text_block("Looked at all of them.")]),
    ]
    done, bodies = run_scripted(
        home, workspace, KEY, replies, environment=ENVIRONMENT, stdin_text="show me\n"
    )
    assert done.returncode == 0, done.stderr
    printed, cut, compose = tool_result_texts(bodies[-1])
    assert f"ORACLE_LOGIN=scott/{REDACTED_MARK}@dbhost.example.com/ORCLPDB1" in printed
    assert f'BACKUP_CMD=rman target sys/"{REDACTED_MARK}"@dbhost/ORCLPDB1' in printed
    assert f"CACHE_CHECK=redis-cli -h cache -a {REDACTED_MARK} ping" in printed
    assert REDACTED_MARK in cut
    assert COMPOSE.strip() in compose and REDACTED_MARK not in compose
    assert secrets_left_anywhere(bodies, home, done.stdout + done.stderr, SECRETS) == []
