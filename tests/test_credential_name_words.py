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
"""

from __future__ import annotations

import pytest
from hostile_support import McpServer

from agent_cli.tools.credential_names import is_credential_name
from agent_cli.tools.dotenv_syntax import Assignment
from agent_cli.tools.redaction import collect_mcp_secret_values, collect_secret_values
from agent_cli.tools.workspace_secrets import (
    DotenvFile,
    WorkspaceDotenv,
    find_dotenv_secrets,
)

VALUE = "Zq7Rk2mXv9LpW4tYc8Nb"


def secrets_by_every_reader(name: str) -> list[tuple[str, ...]]:
    """What the environment, a dotenv file, an MCP server's `env` and a flag of its
    `args` each take as secret of `name` holding `VALUE`."""
    dotenv = WorkspaceDotenv((DotenvFile(".env", (Assignment(name, (VALUE,)),)),))
    spelled = name.lower() if name == name.upper() else name  # `apiKey` keeps its parts
    flag = "--" + spelled.replace("_", "-")
    return [
        collect_secret_values({name: VALUE}),
        find_dotenv_secrets(dotenv, "").values,
        collect_mcp_secret_values([McpServer(env={name: VALUE})], {}),
        collect_mcp_secret_values([McpServer(args=(flag, VALUE))], {}),
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
    ],
)
def test_a_glued_or_tool_specific_credential_name_is_a_secret_by_every_reader(name):
    assert is_credential_name(name)
    assert secrets_by_every_reader(name) == [(VALUE,)] * 4


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
    ],
)
def test_a_name_that_holds_no_credential_stays_visible_by_every_reader(name):
    """Redacting these would blank a path, a desktop's name or a number in every result."""
    assert not is_credential_name(name)
    assert secrets_by_every_reader(name) == [()] * 4
