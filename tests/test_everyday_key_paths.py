"""Everyday key-file paths under credential names stay visible (twenty-ninth outside attack).

The attack: in a `.env`, `SSH_PRIVATE_KEY=${HOME}/.ssh/id_rsa`, `DEPLOY_KEY=./id_rsa`,
`JWT_PRIVATE_KEY=./keys/jwtRS256.key`, `K3S_TOKEN=/var/lib/rancher/k3s/server/token`,
`RAILS_CREDENTIALS=config/credentials.yml.enc` (and `$HOME/...`, `.env.local`,
`./.env.production`, `~/Library/Application Support/...`) were shown to the model as
`[REDACTED]`, by all five readers: session 28's rule (`tools.path_values`) knew no
variable as a path's start, no key file without an extension, no double extension, no
`k3s`, no blank. The tester's 85 everyday paths: 16 hidden before, none now; the
path-shaped secrets of session 28 and their kin here stay hidden (41 of 41, before and
after).
"""

from __future__ import annotations

import random
import string

import pytest
from e2e_support import run_scripted
from fake_anthropic import Reply, text_block, tool_result_texts, tool_use_block
from test_credential_name_words import secrets_by_every_reader
from test_hostile_credential_names import _assert_sent_and_stored_without

from agent_cli.secret_forms import REDACTED_MARK
from agent_cli.tools.path_values import is_path_value

HEX32 = "9f86d081884c7d659a2feaa0c55ad015"
# The tester's probe (`probe_real_paths.py`), whole: paths people keep keys and settings at.
EVERYDAY_PATHS = """/home/dev/.ssh/id_ed25519
~/.ssh/id_rsa
~/.aws/credentials
/run/secrets/db_password
/var/run/secrets/kubernetes.io/serviceaccount/token
/etc/letsencrypt/live/example.com/privkey.pem
/etc/letsencrypt/live/api.example.com/fullchain.pem
./certs/server.key
certs/server.key
/opt/app/config/secrets.yaml
/var/lib/postgresql/14/main/server.key
/etc/postgresql/16/main/pg_hba.conf
C:\\Users\\me\\AppData\\Roaming\\gcloud\\application_default_credentials.json
/Users/jane.doe/Downloads/service-account.json
/home/runner/work/_temp/key.pem
/root/.docker/config.json
/srv/app/shared/config/master.key
config/master.key
config/credentials.yml.enc
/etc/ssl/private/ssl-cert-snakeoil.key
/usr/local/etc/openvpn/client.key
~/.config/gcloud/application_default_credentials.json
~/.gnupg/private-keys-v1.d
/etc/ssh/ssh_host_ed25519_key
/etc/kubernetes/pki/apiserver.key
/etc/kubernetes/admin.conf
/var/snap/lxd/common/lxd/server.key
/home/ubuntu/.kube/config
$HOME/.netrc
${HOME}/.ssh/id_rsa
~/.netrc
~/.pgpass
/home/dev/.pgpass
/mnt/c/Users/Dev/keys/key.json
./secrets/jwt_private.pem
./keys/jwtRS256.key
/app/keys/private_key.pem
/etc/nginx/ssl/example_com.key
/etc/pki/tls/private/localhost.key
/home/dev/projects/my-app/.secrets/token.txt
/var/lib/jenkins/secrets/initialAdminPassword
/var/jenkins_home/secrets/master.key
/etc/gitlab/gitlab-secrets.json
/etc/rancher/k3s/k3s.yaml
/var/lib/rancher/k3s/server/token
/opt/vault/tls/tls.key
/vault/secrets/database-creds
/secrets/gcp/key.json
/workspace/sa.json
/tmp/key.json
/tmp/keyfile
./id_rsa
~/Downloads/my-project-1234-a1b2c3d4e5f6.json
/home/dev/Downloads/myproject-123456-8b6c4a2f1e3d.json
/etc/ssl/private/2024-01-15-example.key
/etc/ssl/private/example.com.2024.key
/data/backups/20240115/db.key
/home/user/.local/share/keyrings/login.keyring
/etc/wireguard/wg0.conf
/etc/wireguard/privatekey
/etc/openvpn/easy-rsa/pki/private/server.key
/home/dev/.config/sops/age/keys.txt
~/.config/sops/age/keys.txt
/run/user/1000/keyring/ssh
/run/user/1000/gnupg/S.gpg-agent
/Users/dev/Library/Application Support/Code/User/secrets.json
C:\\ProgramData\\ssh\\ssh_host_rsa_key
/etc/ipsec.secrets
/etc/ppp/chap-secrets
/var/lib/docker/swarm/certificates/swarm-node.key
/home/dev/.minikube/profiles/minikube/client.key
/home/dev/.terraform.d/credentials.tfrc.json
~/.terraform.d/credentials.tfrc.json
~/.docker/config.json
~/.npmrc
~/.pypirc
/home/dev/.git-credentials
~/.git-credentials
/etc/secrets/app.env
./.env.production
.env.local
../shared/.env
/usr/share/keyrings/docker-archive-keyring.gpg
/etc/apt/trusted.gpg.d/microsoft.gpg
/var/lib/acme/certs/example.org/key.pem""".splitlines()
# The tester's `.env` lines and its readers' probe (`t_paths_hidden.py`,
# `probe_real_paths_readers.py`), and kin of each new rule.
EVERYDAY_ASSIGNMENTS = {
    "SSH_KEY_PATH_A": "$HOME/.ssh/id_ed25519",
    "SSH_PRIVATE_KEY": "${HOME}/.ssh/id_rsa",
    "DEPLOY_KEY": "./id_rsa",
    "JWT_PRIVATE_KEY": "./keys/jwtRS256.key",
    "K3S_TOKEN": "/var/lib/rancher/k3s/server/token",
    "RAILS_CREDENTIALS": "config/credentials.yml.enc",
}
KIN_PATHS = [
    "${XDG_CONFIG_HOME}/gcloud/application_default_credentials.json",
    "$env:USERPROFILE\\.ssh\\id_ed25519",
    "%APPDATA%\\gcloud\\credentials.db.json",
    "$HOME/sa.json",
    "%USERPROFILE%\\.netrc",
    ".env.development.local",
    "../.env.staging",
    "~/.ssh/id_ed25519.bak",
    "secrets/jwt.pem.enc",
    "/etc/kubernetes/k8s/tls.key",
    "/opt/tools/sha256sum/keys/signer.pem",
    "/home/dev/certs/2024-backup/20231231/server.key",
    "C:\\Program Files\\Git\\etc\\ssh\\ssh_host_ed25519_key",
    "~/Library/Mobile Documents/keys/sa.json",
]
# Session 28's path-shaped secrets (tests/test_path_shaped_secrets.py and
# tests/test_credential_name_words.py) and kin of each new rule: a lone word after a
# variable, a word with digits among letters that names nothing, a hex stem or a
# random word under a double extension, a date-shaped digit run that is no date, a
# blank in a folder nobody knows.
PATH_SHAPED_SECRETS = [
    f"/api/webhook/{HEX32}{HEX32}",
    f"~/{HEX32}",
    "/Summer/2024",
    "~/correct-horse-battery-staple",
    "C:\\Summer2024",
    f"C:\\{HEX32}",
    "./hunter2024",
    "~/sk-proj-abcdefghijklmnop",
    f"secrets/{HEX32}.json",
    "C:/Winter2024",
    "~/hunter2",
    f"/hooks/{HEX32}",
    f"~/dop_v1_{HEX32}",
    "/home/dev/myproject-3f2a1b9c0d4e",
    f"/tmp/{HEX32}/key.json",
    "/credentials.json",
    "/Summer/Winter/2024",
    "/k9PqRt3Vw8NzYb4/Hc6Jd1xQ2vLkP4wTz8nB",
    "/zXkjHxrunfdejje/tscPyPrswAiAw",
    "/home/dev/my keys/sa.json",
    "deploy/s9YxQ2vLkP4wTz8nB",
    # kin of this session's rules
    "$HOME/hunter2024",
    "${HOME}/Summer2024",
    f"${{HOME}}/{HEX32}",
    "%APPDATA%\\correct-horse-battery-staple",
    "$HOME/correct-horse-battery-staple",
    "./p4ss-w0rd",
    "/p4ss/w0rd",
    "/home/dev/w0rd",
    "~/sha256sum",
    "$HOME/k3s",
    f"secrets/{HEX32}.json.enc",
    "secrets/a12b.json",  # short hex stems, lower and upper case
    "keys/AB12CD.pem",
    ".env.hunter2",
    "hunter2024.txt",  # alone without a mark, only a known file's name is a path
    "./id_rsa2024",
    "/backups/20241399/db.key",
    "/Summer/20240115",
    "~/Application Support",
    "/home/Correct Horse/battery.json",
]


def test_the_testers_everyday_paths_are_all_paths():
    """Before this session's rule, 16 of the 85 were hidden (the tester's count)."""
    assert [path for path in EVERYDAY_PATHS if not is_path_value(path)] == []


@pytest.mark.parametrize("path", KIN_PATHS)
def test_kin_of_the_everyday_paths_are_paths(path):
    assert is_path_value(path)


@pytest.mark.parametrize("name", sorted(EVERYDAY_ASSIGNMENTS))
def test_the_testers_assignments_are_no_secret_by_every_reader(name):
    assert secrets_by_every_reader(name, EVERYDAY_ASSIGNMENTS[name]) == [()] * 5


@pytest.mark.parametrize("value", PATH_SHAPED_SECRETS)
def test_a_path_shaped_secret_stays_a_secret_by_every_reader(value):
    assert not is_path_value(value)
    assert secrets_by_every_reader("GOOGLE_APPLICATION_CREDENTIALS", value) == [(value,)] * 5


@pytest.mark.e2e
def test_cat_env_of_everyday_key_paths_shows_them_and_hides_a_secret_beside_them(tmp_path):
    """The attack as it ran: `--yes`, the real SDK and the fake API, bash prints a `.env`
    of the tester's six key-file paths and a signing secret written after `${HOME}/`:
    each path reaches the model as written, the secret reaches no request, no file under
    AGENT_CLI_HOME and no terminal."""
    home, workspace = tmp_path / "home", tmp_path / "ws"
    workspace.mkdir()
    secret = f"${{HOME}}/{HEX32}"
    dotenv = {**EVERYDAY_ASSIGNMENTS, "SIGNING_SECRET": secret}
    (workspace / ".env").write_text("".join(f"{n}={v}\n" for n, v in dotenv.items()))
    replies = [
        Reply([tool_use_block("toolu_0", "bash", {"command": "cat .env"})], "tool_use"),
        Reply([text_block("Read.")]),
    ]
    done, bodies = run_scripted(home, workspace, "sk-ant-FAKE-everyday-0123456789abcdef", replies)
    assert done.returncode == 0, done.stderr
    (printed,) = tool_result_texts(bodies[-1])
    for name, path in EVERYDAY_ASSIGNMENTS.items():
        assert f"{name}={path}\n" in printed, printed
    assert f"SIGNING_SECRET={REDACTED_MARK}" in printed, printed
    _assert_sent_and_stored_without((secret,), bodies, home)
    assert secret not in done.stdout and secret not in done.stderr


# The review of round 29 (`b_paths.py`, `b_random.py`): this session's rule showed some
# secret shapes as paths. A known folder with a blank counted as a named segment; any
# `$word/` read as `~/`; a qualifier could be any word; a key file's stem could be
# random letters and digits (`kjhHGF123`, `kp9wz`), and lower case, capitals and digits
# passed as a mixed word (`jvFLU4`): of 40,000 generated 20-character passwords, 3 were
# shown (16 characters: 1). Main showed 27 of the reviewer's 58 shapes; 7 now, each a path
# by this rule (`./id_rsa`, `./jwtRS256.key`, `./x.pem.bak`) or as much one as `/Summer/
# Autumn` (`/my drive/Summer/Autumn`, `/v1/ab2cd3/ef.json`).
REVIEWED_SECRETS = [
    "/Program Files/Password1",
    "/Application Support/Summer2024",
    "~/Application Support/hunter",
    "/Application Support/correct",
    "$HOME/Application Support/x",
    "$a/Summer/Autumn",
    "$money/money/money",
    "${pw}/Summer/Autumn",
    "%a%\\Summer\\Autumn",
    "$env:money\\money\\money",
    ".env.hunter",
    ".env.Summer",
    ".env.correcthorse",
    ".netrc.password",
    "id_rsa.hunter",
    "./k3s.json.abc",
    "./ab.key.zz.qq",
    "./kjhHGF123.key",
    "./zqmXKW42.pem",
    "./zz9zz.pem",
    "~/xq3vb.json",
    "./kp9wz.json",
    "./abc123xyz.key",
    "/jvFLU4/acif/HWkiv.j",
    "$hKgSuG8SAKE/M/KZFRY",
    "$AMZxLRtxz/ahy_bk./P",
    "$vN/1mthmic./XLS",
]
# What stays a path beside them: variables that hold a folder by their well-known name or
# by a name that says so, in any case on Windows; known qualifiers; a key named for its
# algorithm, alone after a mark.
REVIEWED_KIN_PATHS = [
    "${CONFIG_DIR}/keys/sa.json",
    "$APP_HOME/conf/app.key",
    "$TMPDIR/keys/sa.json",
    "$PWD/secrets/db.key",
    "${XDG_DATA_HOME}/keyrings/login.keyring",
    "%appdata%\\gcloud\\credentials.db.json",
    "$env:UserProfile\\.ssh\\id_rsa",
    ".env.example",
    ".env.test.local",
    "~/.ssh/id_rsa.old",
    "secrets/db.key.gpg",
    "./jwtRS256.key",
    "./keys/hmacSHA512.key",
    "/Users/dev/Library/Application Support/gcloud/sa.json",
]


@pytest.mark.parametrize("value", REVIEWED_SECRETS)
def test_the_reviewers_secret_shapes_stay_secrets_by_every_reader(value):
    assert not is_path_value(value)
    assert secrets_by_every_reader("GOOGLE_APPLICATION_CREDENTIALS", value) == [(value,)] * 5


@pytest.mark.parametrize("path", REVIEWED_KIN_PATHS)
def test_paths_beside_the_reviewers_shapes_stay_paths(path):
    assert is_path_value(path)


@pytest.mark.parametrize("length", [16, 20])
def test_generated_passwords_with_path_characters_are_never_a_path(length):
    """The reviewer's generator, seeded: letters, digits and `!$%/._-@`; of 40,000 of 20
    characters 3 were shown, of 16 one. (Of 12 characters, 2 in 40,000 were and are, as
    session 28's rule let them: `/j/DC1.JZKUH`, two segments of names.)"""
    rng = random.Random(7 + length)
    alphabet = string.ascii_letters + string.digits + "!$%/._-@"
    shown = []
    for _ in range(40_000):
        password = "".join(rng.choice(alphabet) for _ in range(length))
        if is_path_value(password):
            shown.append(password)
    assert shown == []
