"""A secret shaped like a path stays a secret (twenty-eighth outside attack).

The attack: session 27 let a credential name's value through when it was plainly a path
(`tools.path_values`), and `cat .env` / `env | grep` then sent whole to the model, the
transcript and the terminal `HA_WEBHOOK_SECRET=/api/webhook/<64 hex>`,
`SIGNING_SECRET=~/<32 hex>`, `DB_PASSWORD=/Summer/2024` and
`BACKUP_PASSPHRASE=~/correct-horse-battery-staple`: lower-case hex counted as a name, a
number as a last segment, and `~/`, `./` or a drive needed one segment after it. A path
now reads as one a person writes to a file or folder: two segments or more that name
something, no random word but in a key file's name, and no lone word after a mark.
"""

from __future__ import annotations

import base64
import random

import pytest
from e2e_support import run_scripted
from fake_anthropic import Reply, text_block, tool_result_texts, tool_use_block
from test_credential_name_words import secrets_by_every_reader
from test_hostile_credential_names import _assert_sent_and_stored_without

from agent_cli.secret_forms import REDACTED_MARK
from agent_cli.tools.path_values import is_path_value

HEX64 = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
HEX32 = "9f86d081884c7d659a2feaa0c55ad015"
# The tester's values, under the names it gave them.
PATH_SHAPED_SECRETS = {
    "HA_WEBHOOK_SECRET": f"/api/webhook/{HEX64}",
    "SIGNING_SECRET": "~/4c1e7b0e2a9d8f3b6a5c0d1e2f3a4b5c",
    "DB_PASSWORD": "/Summer/2024",
    "BACKUP_PASSPHRASE": "~/correct-horse-battery-staple",
}
KEY = "sk-ant-FAKE-pathshaped-0123456789abcdef"


@pytest.mark.parametrize("name", sorted(PATH_SHAPED_SECRETS))
def test_the_testers_path_shaped_secrets_are_secrets_by_every_reader(name):
    value = PATH_SHAPED_SECRETS[name]
    assert not is_path_value(value)
    assert secrets_by_every_reader(name, value) == [(value,)] * 5


@pytest.mark.parametrize(
    "value",
    [
        # what the tester called the rule with directly
        "C:\\Summer2024",
        f"C:\\{HEX32}",
        "./hunter2024",
        "~/sk-proj-abcdefghijklmnop",
        f"secrets/{HEX32}.json",  # a stem of hex alone names nothing
        # and their kin: a lone word after a mark, a number or hex as the last part,
        # a random word in a folder, a token's letters or digits run long
        "C:/Winter2024",
        "~/hunter2",
        f"/hooks/{HEX32}",
        "/v1/9f86d081-884c-7d65-9a2f-eaa0c55ad015",
        f"./shpat_{HEX32}",
        f"~/dop_v1_{HEX64}",
        f"dop_v1_{HEX64}/a.txt",
        "npm_abcdefghijklmnopqrstuvwxyz0123456789/x.txt",
        "glpat-abcdefghijklmnopqrst/x.json",
        "/xoxb/123456789012/abcdefghijklmnopqrstuvwx",
        "/home/dev/myproject-3f2a1b9c0d4e",  # a key id outside a key file's name
        f"/tmp/{HEX32}/key.json",
        "/credentials.json",
        "/Summer/Winter/2024",
    ],
)
def test_a_value_a_person_would_not_write_as_a_path_stays_a_secret(value):
    assert not is_path_value(value)
    assert secrets_by_every_reader("GOOGLE_APPLICATION_CREDENTIALS", value) == [(value,)] * 5


@pytest.mark.parametrize(
    "path",
    [
        "/run/secrets/db_password",
        "/etc/ssl/private/server.key",
        "C:\\Users\\dev\\keys\\sa.json",
        "/home/dev/.ssh/id_ed25519",
        "~/.kube/config",
        "~/sa.json",  # one file name with a key file's extension after a mark
        "./service-account.json",
        "/home/dev/backups/2024/sa.json",  # a number beside names
        "/var/lib/docker/secrets/.dockerconfigjson",
    ],
)
def test_a_path_a_person_writes_stays_visible(path):
    """Session 27's paths (tests/test_credential_name_words.py) and their kin."""
    assert is_path_value(path)
    assert secrets_by_every_reader("GOOGLE_APPLICATION_CREDENTIALS", path) == [()] * 5


@pytest.mark.parametrize(
    "prefix", ["/", "~/", "./", "C:\\", "C:/", "$HOME/", "${HOME}/", "%APPDATA%\\"]
)
def test_random_hex_and_base64_after_a_path_start_are_never_a_path(prefix):
    """Measured with a fixed seed: hex of a key's lengths never passes, nor base64 of a
    token's (32 and 44 characters, which hold `/` about every 64th character). Shorter
    base64 may pass rarely (of 40,000 after `/`: 65 of 12 characters, 9 of 16, 2 of 20,
    1 of 22 and of 27), when each of its segments happens to read as a word."""
    rng = random.Random(28)
    for length in (16, 32, 40, 64):
        for _ in range(500):
            assert not is_path_value(prefix + rng.randbytes(length).hex()[:length])
    for length in (32, 44):
        for _ in range(4000):
            token = base64.b64encode(rng.randbytes(length)).decode()[:length]
            assert not is_path_value(prefix + token), token


@pytest.mark.e2e
def test_cat_env_of_path_shaped_secrets_sends_and_shows_none_of_them(tmp_path):
    """The attack as it ran: `--yes`, the real SDK and the fake API; bash prints a `.env`
    holding the webhook secret and the signing secret, then `env` shows the password and
    the passphrase. None reaches a request, a file under AGENT_CLI_HOME or the terminal;
    a credentials path beside them is shown as written."""
    home, workspace = tmp_path / "home", tmp_path / "ws"
    workspace.mkdir()
    dotenv = {name: PATH_SHAPED_SECRETS[name] for name in ("HA_WEBHOOK_SECRET", "SIGNING_SECRET")}
    dotenv["GOOGLE_APPLICATION_CREDENTIALS"] = "/home/dev/keys/gcp-sa.json"
    (workspace / ".env").write_text("".join(f"{n}={v}\n" for n, v in dotenv.items()))
    environment = {name: PATH_SHAPED_SECRETS[name] for name in ("DB_PASSWORD", "BACKUP_PASSPHRASE")}
    commands = ["cat .env", "env | grep -E '^(DB_PASSWORD|BACKUP_PASSPHRASE)=' | sort"]
    replies = [
        Reply([tool_use_block(f"toolu_{i}", "bash", {"command": c})], "tool_use")
        for i, c in enumerate(commands)
    ]
    replies.append(Reply([text_block("Read.")]))
    done, bodies = run_scripted(home, workspace, KEY, replies, environment=environment)
    assert done.returncode == 0, done.stderr
    printed_env, printed_vars = tool_result_texts(bodies[-1])
    for name in ("HA_WEBHOOK_SECRET", "SIGNING_SECRET"):
        assert f"{name}={REDACTED_MARK}" in printed_env, printed_env
    assert "GOOGLE_APPLICATION_CREDENTIALS=/home/dev/keys/gcp-sa.json" in printed_env
    for name in environment:
        assert f"{name}={REDACTED_MARK}" in printed_vars, printed_vars
    secrets = tuple(PATH_SHAPED_SECRETS.values())
    _assert_sent_and_stored_without(secrets, bodies, home)
    for secret in secrets:
        assert secret not in done.stdout and secret not in done.stderr, secret
