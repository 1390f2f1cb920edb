"""A cut piece of a generated password holding symbols is hidden, as a token's is.

Found by session 33's outside-style attack: `DB_PASSWORD="Zq7#vR2pL9!mK4wX8nT3bY6c"`
in `.env`, then `cut -c1-30 .env; cut -c31-80 .env` showed `Zq7#vR2pL9!mK4wX8` and then
`nT3bY6c`: the whole password in two pieces. A token's long runs were hidden
(`secret_runs`), but only a value of letters, digits and `+/=_.~-` had runs, and a
generated password's `#`, `!`, `%` made it a value "with separators", like a URL's.
The commands are the real programs run as the `bash` tool of a `Toolbox`.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from tools_support import make_toolbox

from agent_cli.secret_forms import REDACTED_MARK
from agent_cli.secret_runs import RUN_MIN_CHARS, run_least
from agent_cli.tools import Toolbox

PASSWORDS = [
    "Zq7#vR2pL9!mK4wX8nT3bY6c",
    "p%4Lk&9Qz^2Wm*7Rx(3Tn)8V",
    "Ab3$Cd5?Ef7|Gh9;Jk2,Lm4<",
    "Xy1[Zw2]Vu3{Ts4}Rq5-Po6_",
]


def toolbox(tmp_path: Path, password: str) -> Toolbox:
    environment = {"PATH": "/usr/bin:/bin", "DB_PASSWORD": password}
    return make_toolbox(tmp_path, secret_environment=environment)


@pytest.mark.parametrize("password", PASSWORDS)
@pytest.mark.parametrize("cut", ["cut -c1-30 .env", "cut -c16-34 .env", "head -c 33 .env"])
def test_a_long_run_of_a_symbol_password_is_hidden(tmp_path, password, cut):
    (tmp_path / ".env").write_text(f'DB_PASSWORD="{password}"   # generated\n')
    content = toolbox(tmp_path, password).run("bash", {"command": cut}).content
    assert REDACTED_MARK in content, (cut, content)
    for start in range(len(password) - RUN_MIN_CHARS + 1):
        assert password[start : start + RUN_MIN_CHARS] not in content, (cut, content)


@pytest.mark.parametrize(
    "value",
    [
        "postgres://admin:S3cr3tPassw0rd@db:5432/app",  # a URL: `:` and `@`
        "ci-bot:Rg7tLq2ZpX9wVb4N",  # user:password
        "correct horse battery staple 42",  # a passphrase
        "admin@example.com-Passw0rd!",  # `@`
    ],
)
def test_a_value_with_a_urls_or_a_phrases_separators_still_has_no_runs(value):
    assert run_least(value) is None


def test_the_ordinary_text_around_a_symbol_password_is_untouched(tmp_path):
    password = PASSWORDS[0]
    (tmp_path / ".env").write_text(f'DB_PASSWORD="{password}"\nDEBUG=true\nPORT=8080\n')
    box = toolbox(tmp_path, password)
    content = box.run("bash", {"command": "cat .env; echo 'C# and F#: 100% done!'"}).content
    assert "DEBUG=true" in content and "PORT=8080" in content
    assert "C# and F#: 100% done!" in content
    assert password not in content
