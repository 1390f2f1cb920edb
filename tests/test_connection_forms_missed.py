"""The common connection forms the first rule missed are secrets by every reader
(session 25's outside attack, second round).

The attack: `ORACLE_LOGIN=scott/<pw>@dbhost.example.com/ORCLPDB1` (EZConnect with a
service and no port, sqlplus's most common form), `rman target sys/"<pw>"@dbhost/ORCLPDB1`
(quoted) and `PG_CONN=host=db,user=app,password=<pw>,dbname=app` (only `<pw>,dbname=app`
was learned, so `<pw>` alone leaked) reached the model through `env`; so did a password
on a client's command line held in a variable (`mongosh -p`, `redis-cli -a`,
`ldapsearch -w`, `mysql -p<pw>`, `sqlplus scott/<pw>`) and libpq's `password =` with its
value on the next line. A Go module or an image reference with `/` and `@` in it, and a
client flag that prompts or means something else, still hold no password.
"""

from __future__ import annotations

import pytest
from hostile_support import found_by_every_reader

from agent_cli.tools.client_passwords import client_passwords
from agent_cli.tools.connection_credentials import connection_passwords

PW = "Ez7cOnnectNoPort9x"
QUOTED = "Qu0tedEzPw4rd#2026"


@pytest.mark.parametrize(
    ("value", "secret"),
    [
        (f"scott/{PW}@dbhost.example.com/ORCLPDB1", PW),
        (f"sqlplus -s scott/{PW}@dbhost.example.com/ORCLPDB1", PW),
        (f"scott/{PW}@localhost/XEPDB1", PW),
        (f"scott/{PW}@10.0.0.5/ORCL", PW),
        (f"c##admin/{PW}@db-01/ORCLPDB1 as sysdba", PW),
        (f'rman target sys/"{QUOTED}"@dbhost/ORCLPDB1', QUOTED),
        (f'sys/"{QUOTED}"@dbhost/ORCLPDB1', QUOTED),
    ],
)
def test_ezconnect_with_a_service_and_no_port_is_a_secret_by_every_reader(value, secret):
    for found in found_by_every_reader(value):
        assert secret in found, (value, found)


@pytest.mark.parametrize(
    "value",
    [
        "golang.org/x@v0.1.0/cmd",
        "go install golang.org/x/tools/gopls@v0.15.3/internal",
        "library/ubuntu@sha256:45b23dee08af5e43a7fea6c4cf9c25ccf269ee113168c19722f87876677c5cb2",
        "acme/widget-library@1.24.3/dist",  # a package at a version
        "acme/widget-library@v2/dist",
        "tools/v1.22.4@mirror/go",  # a version where a password would be
        "tools/sha256:45b23dee08af5e43@mirror/go",
        "https://cdn.jsdelivr.net/npm/widget-library@1.24.3/dist/widget.min.js",
    ],
)
def test_module_image_and_package_references_hold_no_password(value):
    assert list(connection_passwords(value)) == []
    assert [found for found in found_by_every_reader(value) if found] == []


@pytest.mark.parametrize(
    "value",
    [
        "host=db,user=app,password=C0mmaSep4ratedPw8,dbname=app",
        "password=C0mmaSep4ratedPw8,sslmode=require",
        "user=app&password=C0mmaSep4ratedPw8&db=app",
    ],
)
def test_a_password_in_a_comma_separated_keyword_list_is_found_alone(value):
    """`echo ${PG_CONN#*password=} | cut -d, -f1` prints the password alone."""
    assert "C0mmaSep4ratedPw8" in set(connection_passwords(value))
    for found in found_by_every_reader(value):
        assert "C0mmaSep4ratedPw8" in found, (value, found)


def test_a_comma_inside_a_password_not_before_a_keyword_does_not_cut_it():
    assert set(connection_passwords("password=Pa,ss9Q2vLp7w host=db")) == {"Pa,ss9Q2vLp7w"}


@pytest.mark.parametrize(
    "value",
    [
        "[svc]\nhost=db\npassword =\n  L1neBreakPw99x\n",
        "host=db password=\nL1neBreakPw99x dbname=app",
        "sslpassword=\r\nL1neBreakPw99x",
    ],
)
def test_libpq_reads_its_password_on_the_line_after_its_equals(value):
    assert "L1neBreakPw99x" in set(connection_passwords(value))


@pytest.mark.parametrize(
    "value",
    [
        "DB_PASSWORD=\nDB_HOST=db.internal.example",  # an empty value, then the next setting
        "password=\nhost=db.internal.example",
        "DB_PASSWORD=\nreplace-this-before-deploying",  # not libpq's keyword
    ],
)
def test_an_empty_password_at_a_lines_end_does_not_take_the_next_line(value):
    assert list(connection_passwords(value)) == []


def test_an_empty_password_line_does_not_hide_the_password_set_on_the_next():
    found = set(connection_passwords("DB_PASSWORD=\nPGPASSWORD=R3alPgPassw0rd"))
    assert "R3alPgPassw0rd" in found


CLIENT_PW = "Cl1entFlagPw-8xQ2"


@pytest.mark.parametrize(
    "command",
    [
        f"mysql -h db -u root -p{CLIENT_PW} app",
        f"mysqldump --user=root --password={CLIENT_PW} app",
        f"docker exec -i db mariadb -uroot -p'{CLIENT_PW}' app",
        f"mongosh --host db -u app -p {CLIENT_PW}",
        f"mongodump --password={CLIENT_PW} --out /backup",
        f"redis-cli -h db -a {CLIENT_PW} ping",
        f"/usr/bin/redis-cli --pass {CLIENT_PW}",
        f"ldapsearch -x -D cn=admin,dc=example,dc=org -w {CLIENT_PW} -b dc=example,dc=org",
        f"ldapmodify -D cn=admin -w{CLIENT_PW} -f change.ldif",
        f"sshpass -p {CLIENT_PW} ssh deploy@host",
        f"sqlcmd -S db -U sa -P {CLIENT_PW} -Q 'SELECT 1'",
        f"sqlplus scott/{CLIENT_PW}",
        f"sqlplus -s scott/{CLIENT_PW}@PRODDB @report.sql",
        f"rman target / catalog rco/{CLIENT_PW}@catdb",
        f"expdp userid=system/{CLIENT_PW} directory=dump dumpfile=app.dmp",
        f"cd /srv && sudo -u oracle sqlplus system/{CLIENT_PW}@ORCL",
    ],
)
def test_a_password_on_a_clients_command_line_is_a_secret_by_every_reader(command):
    assert CLIENT_PW in set(client_passwords(command))
    for found in found_by_every_reader(command):
        assert CLIENT_PW in found, (command, found)


@pytest.mark.parametrize(
    "command",
    [
        "mysql -h db -u root -p app_production",  # `-p` alone prompts; `app_production` is the database
        "mysql --password app_production",
        "mongosh -u app -p --authenticationDatabase admin_database",
        "sshpass -f /run/secrets/pw ssh -p 22222 deploy@host.example.com",
        "psql -h db -p 5432 -U app application_db",  # psql takes no password
        "rman target / cmdfile scripts/backup_nightly.rman",
        "redis-cli -h db.internal.example --askpass",
        "grep -p something_long_here mysql.log",  # a client's name after the flag
    ],
)
def test_a_client_flag_that_prompts_or_means_something_else_holds_no_password(command):
    assert list(client_passwords(command)) == []
    assert [found for found in found_by_every_reader(command) if found] == []
