"""Which names say that what they hold is a credential. Pure.

Why its own module: every reader of names asks this one rule (the environment, dotenv
files, MCP `env` and flags, header names, JSON keys), and the JSON reader
(`tools.dotenv_json`) that `tools.credentials` reads JSON values with asks it too.

Contract:
- `is_credential_name(name)`: a variable (or JSON key, or flag) name that looks like it
  holds a credential. A credential word as a part of the name, parts split at `_`, `-`,
  `.`, a blank or a lower-to-upper case change (`apiKey`), in the singular or the plural
  (`API_KEYS`, `SLACK_TOKENS`, `APP_SECRETS`, `DB_PASSWORDS`): `KEY` (`STRIPE_KEY`,
  `RAILS_MASTER_KEY`, `APP_KEY`, `AZURE_OPENAI_KEY`, `API_KEY`, `SECRET_KEY`,
  `PRIVATE_KEY`...), `TOKEN` and `SECRET`, each of these three also glued to the word
  before that says which (`GLUED_QUALIFIERS`: `APIKEY`, `SECRETKEY`, `PRIVATEKEY`,
  `APITOKEN`, `ACCESSTOKEN`, `AUTHTOKEN`, `REFRESHTOKEN`, `CLIENTSECRET`, so ngrok's
  `NGROK_AUTHTOKEN`, Azure Pipelines' `SYSTEM_ACCESSTOKEN`, `BW_CLIENTSECRET`),
  `CREDENTIAL` and its short forms `CREDS`, `CRED` (`REGISTRY_CREDS`, `GCP_SA_CREDS`),
  `AUTHORIZATION`, `BEARER`, `WEBHOOK` (`SLACK_WEBHOOK_URL`:
  the URL is the credential), `DSN` (`SENTRY_DSN`), `JWT` (GitLab's `CI_JOB_JWT`,
  `CI_JOB_JWT_V2`), a connection string (`*_CONNECTION_STRING`, `*_CONN_STR`), the seed
  of one-time codes or of a wallet (`TOTP_SEED`, `OTP_SEED`, `MFA_SEED`, `2FA_SEED`,
  `WALLET_SEED`, `SEED_PHRASE`), a `MNEMONIC` (`WALLET_MNEMONIC`), a pre-shared key
  (`PSK`: `WIFI_PSK`) and keytool's passwords glued (`STOREPASS`, `KEYPASS`,
  `KEYSTOREPASS`, `TRUSTSTOREPASS`, `SSHPASS`), a `PASSCODE`, an OAuth client's or a
  SAML assertion (`CLIENT_ASSERTION`, a signed token); `PASSWORD`/`PASSWD`/`PASSPHRASE`
  also glued to what comes before (`PGPASSWORD`, `GPGPASSPHRASE`), `PRIVKEY` anywhere
  (`SSH_PRIVKEY`, `TLS_PRIVKEY_PEM`; `SSH_PRIV_KEY` by its `KEY`); as the last part only,
  `AUTH` (`REDISCLI_AUTH`), a `SALT` or a `PEPPER` (WordPress's `AUTH_SALT`,
  `HASHIDS_SALT`, `PASSWORD_PEPPER`: what a hash is keyed with; `SALT_ROUNDS` is a
  count), `PAT` (`GITHUB_PAT`), `COOKIE`, an Azure shared access signature
  (`AZURE_STORAGE_SAS`, `*_SAS_URL`), a kubeconfig's content (`KUBECONFIG_DATA`,
  `KUBE_CONFIG_DATA`, `*_B64`; `KUBECONFIG` itself is a path) and SonarQube's token (`SONAR_LOGIN`; no other `*_LOGIN`, which names a user);
  `PWD`/`PW`/`PASS`/`PSWD`/`PSWRD` only as the last part after another (`MYSQL_PWD`,
  `LDAP_BIND_PW`, `SMTP_PASS`, `DB_PSWD`), so the shell's `PWD` and `OLDPWD` are no
  secret; and the session keys of password managers' command-line tools (Bitwarden's
  `BW_SESSION`, 1Password's `OP_SESSION_<account>`), though no other `*_SESSION`
  (`DESKTOP_SESSION` names a desktop) nor a bare `SEED` (`RANDOM_SEED` seeds a test run).
  A name that describes a credential rather than holding it is none: its last
  part says where or what it is (`*_FILE`, `*_PATH`, `*_DIR`, `*_NAME`, `*_ID` after
  `KEY`, `*_ARN`, `*_TYPE`, `*_HOST`, `*_COMMAND`, `*_ENV`, `*_ISSUER`, ... see
  `DESCRIBES_A_CREDENTIAL`: `SSH_KEY_PATH`, `GPG_KEY_ID`, `POSTGRES_PASSWORD_FILE`,
  `JWT_ISSUER`), it is a public key (`SSH_PUBLIC_KEY`, `STRIPE_PUBLISHABLE_KEY`,
  `SSH_AUTHORIZED_KEYS`), or it counts a model's tokens (`MAX_TOKENS`,
  `MAX_OUTPUT_TOKENS`). Names where `KEY` is only part of a word (`KEYBOARD`, `KEYMAP`,
  `TOKENIZERS_PARALLELISM`, `SSH_AUTH_SOCK`) are none either. `collect_secret_values`
  and `collect_mcp_secret_values` (an MCP server's `env`, a flag in its `args`) both ask
  this one rule. Its value is still no secret when it is a setting word, plainly a path
  (`tools.credentials.holds_no_secret`: `GOOGLE_APPLICATION_CREDENTIALS=~/keys/sa.json`)
  or a setting its name's last part says it is (`tools.setting_values`: a plain URL
  under `OAUTH_TOKEN_URL`, digits under `JWT_EXPIRATION_MS`, a column's name under
  `DYNAMODB_SORT_KEY` or `PASSWORD_FIELD`).
- `names_passwords(name)`: a credential name whose word is a password's (`PASSWORD`,
  `PASSWD`, `PASSPHRASE`, `PASSCODE`, singular or plural, glued or apart; `PWD`, `PW`,
  `PASS`, `PSWD`, `PSWRD` as the last part after another): what such a name holds is a
  password whatever it looks like (a list of words is a list of passwords), unlike
  `TOKENS` or `AUTH`, which also name design tokens and settings.
- `name_parts(name)`: `name` upper-cased with its parts joined by `_` (`apiKey`,
  `api-key`: `API_KEY`), the form the rules above read.
"""

from __future__ import annotations

import re

# The words that say which key, token or secret, written glued to it as often as apart
# (`APIKEY`, ngrok's `AUTHTOKEN`, `ACCESSTOKEN`, `CLIENTSECRET`); a closed list, so
# `MONKEY` or `TURNKEY` is no credential.
GLUED_QUALIFIERS = (
    "API|ACCESS|APP|AUTH|BOT|CLIENT|ENCRYPTION|ID|MASTER|PRIVATE|REFRESH|SECRET|SESSION|SIGNING"
)
# A credential word as a whole part of an upper-cased name whose parts `_` separates.
# Each word also in the plural (`API_KEYS`, `SLACK_TOKENS`, `DB_PASSWORDS`): a list of
# credentials is credentials. Not a connection string: ASP.NET's `ConnectionStrings__X`
# names a setting whose credential is found inside it (`credentials_inside`).
CREDENTIAL_NAME = re.compile(
    rf"(?:^|_)(?:(?:{GLUED_QUALIFIERS})?(?:KEYS?|TOKENS?|SECRETS?)"
    r"|CREDENTIALS?|CREDS?|AUTHORIZATION|BEARERS?|WEBHOOKS?|DSNS?|JWTS?"
    r"|CONN(?:ECTION)?_?STR(?:ING)?"
    r"|(?:SSH|KEY|STORE|KEYSTORE|TRUSTSTORE)PASS|(?:T?OTP|MFA|2_?FA|WALLET)_SEEDS?"
    r"|SEED_?PHRASES?|MNEMONICS?|PSKS?|PASSCODES?|(?:CLIENT|SAML)_?ASSERTIONS?)(?:$|_)"
    r"|PASSW(?:OR)?DS?(?:$|_)|PASSPHRASES?(?:$|_)|PRIVKEYS?|_(?:PWDS?|PWS?|PASS|PSWR?DS?)$"
    r"|(?:^|_)(?:AUTH|PAT|COOKIES?|SALTS?|PEPPERS?)$"
    r"|(?:^|_)SAS(?:_URLS?|_URIS?)?$|(?:^|_)KUBE_?CONFIG_(?:DATA|CONTENTS?|B64|BASE64)$"
    r"|^BW_SESSION$|^OP_SESSION_|(?:^|_)SONAR_LOGIN$"
)
# The last part of a name that describes a credential (where it is, what kind, who
# issues it) instead of holding it; public keys (`SSH_AUTHORIZED_KEYS` too); and a count
# of a model's tokens (`MAX_TOKENS`, `MAX_OUTPUT_TOKENS`).
DESCRIBES_A_CREDENTIAL = re.compile(
    r"_(?:FILES?|PATHS?|DIRS?|DIRECTORY|FOLDER|NAMES?|ALIAS|ARN|REF|TYPE|KIND|ALGORITHM|ALG"
    r"|SIZE|BITS|LENGTH|LEN|VERSION|FORMAT|FINGERPRINT|PREFIX|SUFFIX|HEADER|REGION|HOST"
    r"|PORT|ENDPOINT|COMMAND|CMD|HELPER|PROVIDER|BACKEND|MODE|POLICY|ENABLED|DISABLED"
    r"|REQUIRED|EXPIRY|EXPIRES|EXPIRATION|TTL|TIMEOUT|LIFETIME|SOCK|SOCKET|ENV|VAR|STDIN"
    r"|ISSUER|AUDIENCE|LEEWAY|IDENTITY)$"
    rf"|(?:^|_)(?:{GLUED_QUALIFIERS})?KEY_IDS?$|(?:^|_)(?:PUBLIC|PUBLISHABLE|AUTHORIZED)_KEYS?$"
    r"|(?:^|_)(?:MAX|MIN|NUM)(?:_[A-Z0-9]+)*_TOKENS$"
)
_PART_BREAK = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|[-.\s]+")


def name_parts(name: str) -> str:
    """`name` upper-cased with its parts joined by `_` (`apiKey`, `api-key`: `API_KEY`)."""
    return _PART_BREAK.sub("_", name.strip()).upper()


_PASSWORD_WORD = re.compile(
    r"(?:^|_)[A-Z0-9]*(?:PASSWORD|PASSWD|PASSPHRASE|PASSCODE)S?(?:_|$)|_(?:PWD|PW|PASS|PSWR?D)S?$"
)


def names_passwords(name: str) -> bool:
    """Whether `name` is a credential name for passwords (module contract)."""
    return is_credential_name(name) and _PASSWORD_WORD.search(name_parts(name)) is not None


def is_credential_name(name: str) -> bool:
    """Whether `name` looks like it holds a credential (module contract)."""
    parts = name_parts(name)
    return bool(CREDENTIAL_NAME.search(parts)) and not DESCRIBES_A_CREDENTIAL.search(parts)
