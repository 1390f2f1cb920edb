"""Credential words glued together, and the names of tools that hold a session key, a
seed or a keystore's password, are credential names (twenty-third outside attack).

The attack: `env` printed `NGROK_AUTHTOKEN` (ngrok's documented name),
`SYSTEM_ACCESSTOKEN` (Azure Pipelines), `BW_SESSION` (the Bitwarden CLI's unlocked
vault), `LDAP_BIND_PW` and `TOTP_SEED` to the model and the transcript: `KEY` counted
glued to `API` or `SECRET` (`APIKEY`), but `TOKEN` and `SECRET` glued to the word that
says which did not, nor `*_PW`, a seed or a mnemonic. The same rule decides for
agent-cli's environment, the workspace's dotenv files and what config.toml gives an MCP
server (its `env` and its flags), so each name is checked through all three.

A twenty-fourth attack found six more a tool documents: `AZURE_STORAGE_SAS`,
`SONAR_LOGIN` (SonarQube's token), `PRIVKEY`, `KUBECONFIG_DATA`, `PASSCODE`,
`CLIENT_ASSERTION`.

A twenty-seventh attack: `REGISTRY_CREDS=deploy:<password>`, `GCP_SA_CREDS=<base64>` and
WordPress's `AUTH_SALT` reached the model (`CREDS` is how `CREDENTIALS` is most often
cut short); and the path `GOOGLE_APPLICATION_CREDENTIALS` and `SSH_KEY` held was hidden
wherever it stood (`- [REDACTED]:/creds/sa.json:ro` in docker-compose.yml), though a path
says where a credential is, as a `*_FILE` name's value does.
"""

from __future__ import annotations

import pytest
from hostile_support import McpServer

from agent_cli.tools.credential_names import is_credential_name, names_passwords
from agent_cli.tools.dotenv_syntax import Assignment
from agent_cli.tools.path_values import is_path_value
from agent_cli.tools.redaction import (
    SECRET_NAMES_VARIABLE,
    collect_mcp_secret_values,
    collect_secret_values,
)
from agent_cli.tools.workspace_secrets import (
    DotenvFile,
    WorkspaceDotenv,
    find_dotenv_secrets,
)

VALUE = "Zq7Rk2mXv9LpW4tYc8Nb"


def secrets_by_every_reader(name: str, value: str = VALUE) -> list[tuple[str, ...]]:
    """What the environment, a dotenv file, an MCP server's `env` and a flag of its
    `args` (apart and with `=`) each take as secret of `name` holding `value`."""
    dotenv = WorkspaceDotenv((DotenvFile(".env", (Assignment(name, (value,)),)),))
    spelled = name.lower() if name == name.upper() else name  # `apiKey` keeps its parts
    flag = "--" + spelled.replace("_", "-")
    return [
        collect_secret_values({name: value}),
        find_dotenv_secrets(dotenv, "").values,
        collect_mcp_secret_values([McpServer(env={name: value})], {}),
        collect_mcp_secret_values([McpServer(args=(flag, value))], {}),
        collect_mcp_secret_values([McpServer(args=(f"{flag}={value}",))], {}),
    ]


@pytest.mark.parametrize(
    "name",
    [
        # the attack's names
        "NGROK_AUTHTOKEN",
        "SYSTEM_ACCESSTOKEN",
        "BW_SESSION",
        "BW_CLIENTSECRET",
        "LDAP_BIND_PW",
        "TOTP_SEED",
        # the credential words glued to the word that says which, as `APIKEY` was
        "APITOKEN",
        "ACCESSTOKEN",
        "AUTHTOKEN",
        "CLIENTSECRET",
        "REFRESHTOKEN",
        "PRIVATEKEY",
        "APIKEY",
        "SECRETKEY",
        "IDTOKEN",
        "BOTTOKEN",
        "APPSECRET",
        "OPENWEATHER_APIKEY",
        "GITHUB_ACCESSTOKENS",
        "ngrokAuthtoken",
        "refreshtoken",
        # a password as `PW`, keytool's passwords glued
        "DB_PW",
        "ADMIN_PW",
        "BIND_PW",
        "STOREPASS",
        "KEYPASS",
        "ANDROID_KEYSTOREPASS",
        "TRUSTSTOREPASS",
        "SSHPASS",
        # seeds of one-time codes and of wallets, mnemonics, pre-shared keys
        "MFA_SEED",
        "OTP_SEED",
        "2FA_SEED",
        "WALLET_SEED",
        "SEED_PHRASE",
        "MNEMONIC",
        "WALLET_MNEMONIC",
        "WIFI_PSK",
        # 1Password CLI's session key, one per account
        "OP_SESSION_my",
        # a twenty-fourth attack's names: an Azure SAS, SonarQube's token, a key glued,
        # a kubeconfig's content, a passcode, an OAuth client assertion; and their kin
        "AZURE_STORAGE_SAS",
        "AZURE_STORAGE_SAS_URL",
        "SONAR_LOGIN",
        "sonar.login",
        "PRIVKEY",
        "SSH_PRIVKEY",
        "TLS_PRIVKEY_PEM",
        "KUBECONFIG_DATA",
        "KUBE_CONFIG_DATA",
        "KUBECONFIG_B64",
        "PASSCODE",
        "VPN_PASSCODE",
        "CLIENT_ASSERTION",
        "AZURE_CLIENT_ASSERTION",
        "SAML_ASSERTION",
        # a twenty-seventh attack's names: credentials cut short, a hash's salt; and kin
        "REGISTRY_CREDS",
        "GCP_SA_CREDS",
        "DOCKER_CRED",
        "CREDS",
        "AUTH_SALT",
        "SECURE_AUTH_SALT",
        "NONCE_SALT",
        "HASHIDS_SALT",
        "SECURITY_PASSWORD_SALT",
        "SALT",
        "PASSWORD_PEPPER",
        "GPG_PASSPHRASE",
        "GPGPASSPHRASE",
        "SSH_PRIV_KEY",
        "DB_PSWD",
        "MYSQL_PSWRD",
    ],
)
def test_a_glued_or_tool_specific_credential_name_is_a_secret_by_every_reader(name):
    assert is_credential_name(name)
    assert secrets_by_every_reader(name) == [(VALUE,)] * 5


@pytest.mark.parametrize("name", ["GPG_PASSPHRASE", "GPGPASSPHRASE", "DB_PSWD", "MYSQL_PSWRD"])
def test_a_passphrase_or_a_password_cut_short_names_passwords(name):
    """What such a name holds is a password whatever it looks like (`names_passwords`)."""
    assert names_passwords(name)


@pytest.mark.parametrize(
    "name",
    [
        # words that hold a credential word only as part of another
        "MONKEY",
        "TURNKEY_MODE",
        "HOCKEY_TEAM",
        "WHISKEY",
        "KEYBOARD",
        "TOKENIZERS_PARALLELISM",
        "PASSWORDLESS_LOGIN",
        "BYPASS_CACHE",
        "COMPASS_HOME",
        "KEEPASS_DB",
        # names that say where or what a credential is
        "NGROK_AUTHTOKEN_FILE",
        "SYSTEM_ACCESSTOKEN_PATH",
        "ACCESSKEY_ID",
        "APIKEY_HEADER",
        "STOREPASS_FILE",
        "MNEMONIC_PATH",
        "TLS_PSK_IDENTITY",
        # sessions and seeds that are none
        "DESKTOP_SESSION",
        "XDG_SESSION_ID",
        "XDG_SESSION_TYPE",
        "SESSION",
        "SEED",
        "RANDOM_SEED",
        "PYTHONHASHSEED",
        "HYPOTHESIS_SEED",
        # the shell's folders and look-alikes of `PW`
        "PWD",
        "OLDPWD",
        "PW",
        "PWA_MANIFEST",
        "DB_PWA",
        # kin of the twenty-fourth attack's names that hold none: a path, a user name, a
        # setting, SAS the analytics suite
        "KUBECONFIG",
        "KUBECONFIG_PATH",
        "DOCKER_LOGIN",
        "PRIVKEY_PATH",
        "PASSCODE_LENGTH",
        "ENABLE_ASSERTIONS",
        "ASSERTION",
        "SAS_HOME",
        "SASL_MECHANISM",
        # kin of the twenty-seventh attack's names that hold none: a count, a path,
        # words that hold `CRED` or `SALT` only as a part, a bare `PSWD`
        "BCRYPT_SALT_ROUNDS",
        "SALT_LENGTH",
        "SALTSTACK_MASTER",
        "CREDS_FILE",
        "CREDIT_CARD_COUNTRY",
        "INCREDIBLE",
        "ACCREDITATION",
        "PSWD",
    ],
)
def test_a_name_that_holds_no_credential_stays_visible_by_every_reader(name):
    """Redacting these would blank a path, a desktop's name or a number in every result."""
    assert not is_credential_name(name)
    assert secrets_by_every_reader(name) == [()] * 5


@pytest.mark.parametrize(
    "path",
    [
        "/home/dev/keys/gcp-sa-prod-2024.json",
        "/home/dev/.ssh/id_ed25519_deploy2024",
        "/run/secrets/postgres-password",
        "/Users/JohnSmith/Library/gcloud/application_default_credentials.json",
        "/var/run/secrets/eks.amazonaws.com/serviceaccount/token",
        "/opt/app/config/serviceAccountKey.json",
        "/home/dev/Downloads/myproject-3f2a1b9c0d4e.json",
        "/home/dev/.config/gcloud/legacy_credentials/me@example.com/adc.json",
        "/etc/ssl/private/",
        "~/.aws/credentials",
        "./secrets/service-account.json",
        "../keys/deploy_key",
        "C:\\Users\\dev\\keys\\HTTPServerKey.pem",
        "D:/keys/sa.json",
        "keys/myproject-3f2a1b9c0d4e.json",
    ],
)
def test_a_path_under_a_credential_name_is_no_secret_by_every_reader(path):
    """The path says where the credential is, as a `*_FILE` name's value does: hidden, it
    blanked every line that named it, and the model wrote `[REDACTED]` back."""
    assert is_path_value(path)
    for name in ("GOOGLE_APPLICATION_CREDENTIALS", "SSH_KEY", "REGISTRY_CREDS"):
        assert secrets_by_every_reader(name, path) == [()] * 5


@pytest.mark.parametrize(
    "value",
    [
        "/Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFiY2RlZmdoaWprbG1u",  # base64 starting with `/`
        "/k9PqRt3Vw8NzYb4/Hc6Jd1xQ2vLkP4wTz8nB",  # base64 holding `/` twice
        "/zXkjHxrunfdejje/tscPyPrswAiAw",  # letters in random case
        "//hAwdgmth/wKeysX",  # a token's doubled `/`, a network share
        "/Zq7Rk2mXv9LpW4tYc8Nb",  # one segment after `/`
        "~/keys/a+b/c==",  # base64's `+` and `=`
        "/home/dev/my keys/sa.json",  # a blank: no path here, so kept hidden
        "Zm9vYmFy/YmF6cXV4MTIzNDU2.json5x",  # relative, without a key file's extension
        "deploy/s9YxQ2vLkP4wTz8nB",  # relative, no extension at all
    ],
)
def test_a_value_that_is_not_plainly_a_path_stays_a_secret_by_every_reader(value):
    """The rule errs towards hiding: a token that starts with `/` or holds one is no
    path, since its segments are no words a person gives."""
    assert not is_path_value(value)
    assert secrets_by_every_reader("GOOGLE_APPLICATION_CREDENTIALS", value) == [(value,)] * 5


def test_a_path_named_in_agent_cli_secret_names_is_hidden_all_the_same():
    path = "/home/dev/keys/gcp-sa-prod-2024.json"
    environment = {"SA_CREDS": path, SECRET_NAMES_VARIABLE: "SA_CREDS"}
    assert collect_secret_values(environment) == (path,)
    named = collect_mcp_secret_values([McpServer(env={"SA_CREDS": path})], environment)
    assert named == (path,)


def test_a_json_or_header_list_credential_that_is_a_path_is_no_secret():
    """The same rule inside a value: a JSON key and a header list's credential header."""
    token = "Zq7Rk2mXv9LpW4tYc8Nb"
    settings = f'{{"credentials": "/home/dev/keys/sa.json", "token": "{token}"}}'
    headers = f"x-api-key=/etc/otel/keys/api.key,authorization=Bearer%20{token}"
    environment = {"APP_SETTINGS": settings, "OTEL_EXPORTER_OTLP_HEADERS": headers}
    assert "/home/dev/keys/sa.json" not in collect_secret_values(environment)
    assert "/etc/otel/keys/api.key" not in collect_secret_values(environment)
    assert token in collect_secret_values(environment)
