"""The password variables of common clients are secrets; `PWD` is not (fifth attack).

The attack: `PGPASSWORD` (libpq) and `MYSQL_PWD` (mysql) did not look like credentials
(`_PASSWORD` was wanted as a whole word), so read_file of the project's `.pgpass` sent
the database password to the model. Names that hold a password glued to a prefix or
shortened (`*PASSWORD`, `*_PWD`, `*_PASS`, `SSHPASS`) count now; the shell's `PWD` and
`OLDPWD`, the current folders, must stay readable.
"""

from __future__ import annotations

import os

import pytest
from tools_support import FakeArtifactStore

from agent_cli.secret_forms import REDACTED_MARK
from agent_cli.tools import Toolbox
from agent_cli.tools.redaction import collect_secret_values

PASSWORD = "Zq7Rk2mXv9LpW4tY"


@pytest.mark.parametrize(
    "name", ["PGPASSWORD", "MYSQL_PWD", "SMTP_PASS", "DB_PASSWD", "SSHPASS", "REDISCLI_AUTH"]
)
def test_a_password_variable_of_a_common_client_is_redacted_from_a_file(tmp_path, name):
    (tmp_path / ".pgpass").write_text(f"db.internal:5432:app:app:{PASSWORD}\n")
    environment = {name: PASSWORD, "PATH": os.environ["PATH"]}
    box = Toolbox(
        tmp_path, FakeArtifactStore(), "s1", auto_approve=True, secret_environment=environment
    )
    shown = box.run("read_file", {"path": ".pgpass"}).content
    assert PASSWORD not in shown and f"app:app:{REDACTED_MARK}" in shown


def test_the_current_folder_and_look_alike_names_are_no_secret():
    environment = {
        "PWD": "/home/someone/projects/app",
        "OLDPWD": "/home/someone/projects",
        "PASSWORDLESS_LOGIN": "enabled-for-all",
        "BYPASS_CACHE": "sometimes-true",
        "COMPASS_HOME": "/opt/compass/home",
        "PGPASSFILE": "/home/someone/.pgpass",
        "MYSQL_PWD": PASSWORD,
    }
    assert collect_secret_values(environment) == (PASSWORD,)
