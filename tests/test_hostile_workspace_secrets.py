"""Secrets in the workspace's dotenv files, and credentials too plain to hide (14th attack).

The attack: `.env` held `STRIPE_SECRET_KEY`, a `DATABASE_URL` with its password and an
npm token, none of them in agent-cli's environment; `read_file .env` (never asked about)
and `cat .env` sent every value. The dotenv files at the root and one folder down are now
read at start and their credentials redacted by the environment's rule.

And the other way round: `POSTGRES_PASSWORD=postgres` (Docker's own example) blanked
`postgres` in every result, so grep said "No matches" for `postgres` and the image line
could not be edited; `DB_PASSWORD=hunter2` was never hidden and nothing said so. A value
that is one ordinary word is now left visible unless the user names its variable, and
one notice at start names every credential left visible, and why.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

from e2e_support import build_env, run_piped
from fake_anthropic import Reply, start_fake_server, text_block, tool_use_block
from hostile_support import recoverable_secrets

from agent_cli.secret_forms import REDACTED_MARK
from agent_cli.tools.dotenv_syntax import parse_dotenv
from agent_cli.tools.redaction import ORDINARY_WORD, SHORT, find_secrets
from agent_cli.tools.workspace_secrets import (
    CUT,
    LONG,
    MAX_DOTENV_BYTES,
    MAX_HIDDEN_CHARS,
    NOT_REGULAR,
    DotenvFile,
    WorkspaceDotenv,
    find_dotenv_secrets,
    is_dotenv_name,
    read_workspace_dotenv,
)

KEY = "sk-ant-FAKE-dotenv-0123456789abcdef"
STRIPE = "sk_live_51HqZ7Rk2mXv9LpW4tYc8Nb"
DB_PASSWORD = "hunter2pass-Zq7Rk2"
NPM = "npm_Zq7Rk2mXv9LpW4tYc8NbH3sJd6"
PEM_BODY = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7Zq7Rk2mXv9Lp"


def call(tool_id: str, name: str, **tool_input: str) -> Reply:
    return Reply([tool_use_block(tool_id, name, tool_input)], stop_reason="tool_use")


def test_the_workspace_dotenv_files_credentials_are_never_sent(tmp_path: Path) -> None:
    """As a user meets it: the installed agent-cli, the real SDK, the fake API; the
    model reads `.env` and a folder's `.env.local`, and cats `.env`."""
    home, workspace = tmp_path / "home", tmp_path / "ws"
    (workspace / "api").mkdir(parents=True)
    (workspace / ".env").write_text(
        f"STRIPE_SECRET_KEY={STRIPE}\n"
        f"DATABASE_URL=postgres://admin:{DB_PASSWORD}@db:5432/app\n"
        "DEBUG=true\n"
        f'SIGNING_KEY="-----BEGIN PRIVATE KEY-----\n{PEM_BODY}\n-----END PRIVATE KEY-----"\n'
    )
    (workspace / "api" / ".env.local").write_text(f"export NPM_TOKEN='{NPM}'\n")
    with start_fake_server(api_key=KEY) as fake:
        fake.enqueue(
            call("toolu_1", "read_file", path=".env"),
            call("toolu_2", "read_file", path="api/.env.local"),
            call("toolu_3", "bash", command="cat .env api/.env.local"),
        )
        fake.enqueue(Reply([text_block("Read them.")]))
        env = build_env(home, {"ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": fake.base_url})
        done = run_piped(["--yes"], cwd=workspace, env=env, stdin_text="read the env files\n")
        bodies = [request.body for request in fake.requests]
    assert done.returncode == 0, done.stderr
    sent = str(bodies[-1]["messages"])
    assert f"STRIPE_SECRET_KEY={REDACTED_MARK}" in sent
    assert f"postgres://admin:{REDACTED_MARK}@db:5432/app" in sent
    assert "DEBUG=true" in sent  # a setting, no secret
    secrets = (STRIPE, DB_PASSWORD, NPM, PEM_BODY)
    for where, body in enumerate(bodies):
        assert recoverable_secrets(str(body), secrets) == set(), f"request {where}"
    for path in home.rglob("*"):
        if path.is_file():
            text = path.read_bytes().decode("utf-8", "replace")
            assert recoverable_secrets(text, secrets) == set(), path
    assert recoverable_secrets(done.stdout + done.stderr, secrets) == set()


def test_an_ordinary_word_as_a_password_stays_searchable_and_the_start_says_so(
    tmp_path: Path,
) -> None:
    """`POSTGRES_PASSWORD=postgres`: the image line is shown and found; a short password
    and the word are named at start, once."""
    home, workspace = tmp_path / "home", tmp_path / "ws"
    workspace.mkdir()
    (workspace / "docker-compose.yml").write_text("services:\n  db:\n    image: postgres:16\n")
    with start_fake_server(api_key=KEY) as fake:
        fake.enqueue(call("toolu_1", "grep", pattern="postgres"))
        fake.enqueue(Reply([text_block("Found it.")]))
        extra = {
            "ANTHROPIC_API_KEY": KEY,
            "ANTHROPIC_BASE_URL": fake.base_url,
            "POSTGRES_PASSWORD": "postgres",
            "DB_PASSWORD": "hunter2",
        }
        done = run_piped([], cwd=workspace, env=build_env(home, extra), stdin_text="find it\n")
        bodies = [request.body for request in fake.requests]
    assert done.returncode == 0, done.stderr
    assert "docker-compose.yml:3:     image: postgres:16" in str(bodies[-1]["messages"])
    said = " ".join(done.stdout.split())
    assert said.count("Not hidden from the model:") == 1
    assert "DB_PASSWORD (under 8 characters" in said
    assert "POSTGRES_PASSWORD (the value is one ordinary word" in said


def test_which_credentials_are_left_visible_and_why() -> None:
    found = find_secrets(
        {
            "POSTGRES_PASSWORD": "postgres",
            "ADMIN_PASSWORD": "Changeme",
            "DB_PASSWORD": "hunter2",
            "RANDOM_TOKEN": "ab",  # too short to be worth a word
            "DATABASE_URL": "postgres://postgres:password@db/app",
            "APP_SECRET": "kXqZvBmTrPlW",  # mixed case: no word
            "NAMED_ONE": "letmeinnow",
            "AGENT_CLI_SECRET_NAMES": "NAMED_ONE",
        }
    )
    assert set(found.values) == {"kXqZvBmTrPlW", "letmeinnow"}
    assert found.unhidden == (
        ("ADMIN_PASSWORD", ORDINARY_WORD),
        ("DATABASE_URL", ORDINARY_WORD),
        ("DB_PASSWORD", SHORT),
        ("POSTGRES_PASSWORD", ORDINARY_WORD),
    )


def test_dotenv_lines_are_read_as_dotenv_tools_write_them() -> None:
    text = (
        "# a comment\n"
        "PLAIN=value # a note\n"
        "export EXPORTED=exp-value\n"
        "SINGLE='it is # not a note'\n"
        'DOUBLE="first\\nsecond"\n'
        'MULTI="-----BEGIN KEY-----\nbody\n-----END KEY-----"\n'
        "SPACED = spaced\n"
        "not an assignment\n"
        "PLAIN=later\n"
    )
    assert [(each.name, each.value) for each in parse_dotenv(text)] == [
        ("PLAIN", "value"),
        ("EXPORTED", "exp-value"),
        ("SINGLE", "it is # not a note"),
        ("DOUBLE", "first\nsecond"),
        ("MULTI", "-----BEGIN KEY-----\nbody\n-----END KEY-----"),
        ("SPACED", "spaced"),
        ("PLAIN", "later"),
    ]


def test_which_files_are_dotenv_files() -> None:
    for name in (".env", ".env.local", ".env.production", "prod.env", ".envrc"):
        assert is_dotenv_name(name), name
    for name in (".env.example", ".env.sample", ".env.template", "x.env.dist", "env", "a.txt"):
        assert not is_dotenv_name(name), name


DOTENV_NAMES_OF_TOOLS_AND_BACKUPS = (
    ".secrets",  # nektos/act's secrets file
    ".dev.vars",  # Cloudflare Wrangler's local secrets
    ".dev.vars.staging",  # ... for one environment
    ".env-production",
    ".env_staging",
    ".env~",  # an editor's backup
    ".env.bak",
    ".envrc.orig",
    "prod.env.old",
    ".secrets~",
    ".dev.vars.backup",
    "#.env#",  # Emacs' auto-save
)


def test_dotenv_files_of_other_tools_and_backups_of_them_are_dotenv_files() -> None:
    """Twenty-third outside attack: `.secrets`, `.dev.vars`, `.env-production` and `.env~`
    were not read, so read_file sent their values. Their templates, Vim's binary swap
    files and names that only start alike are no dotenv file."""
    for name in DOTENV_NAMES_OF_TOOLS_AND_BACKUPS:
        assert is_dotenv_name(name), name
    for name in (
        ".secrets.example",
        ".dev.vars.example",
        ".env-production.sample",
        ".env.example~",
        ".env.example.bak",
        ".env.swp",
        ".env.swo",
        ".envrc.swp",
        ".secrets.yml",
        "secrets",
        ".environment",
        ".dev.varsity",
        "#notes#",
        "notes.bak",
        "~",
    ):
        assert not is_dotenv_name(name), name


def test_dotenv_files_of_other_tools_are_read_at_the_root_and_one_level_down(
    tmp_path: Path,
) -> None:
    """Under the same bounds as `.env`: a large `.secrets` is cut at `MAX_DOTENV_BYTES`."""
    (tmp_path / "worker").mkdir()
    for index, name in enumerate(DOTENV_NAMES_OF_TOOLS_AND_BACKUPS):
        (tmp_path / name).write_text(f"ROOT_TOKEN_{index}=root-value-{index:04d}\n")
        (tmp_path / "worker" / name).write_text(f"WORKER_TOKEN_{index}=worker-{index:04d}\n")
    (tmp_path / ".env.swp").write_bytes(b"b0VIM 9.0\x00\x00SWAP_TOKEN=swap-value-0001\n")
    (tmp_path / "big").mkdir()
    (tmp_path / "big" / ".secrets").write_bytes(b"#" * MAX_DOTENV_BYTES + b"\nLATE_TOKEN=x\n")
    dotenv = read_workspace_dotenv(tmp_path)
    found = {
        each.path: (tuple(a.name for a in each.assignments), each.unread) for each in dotenv.files
    }
    expected = {"big/.secrets": ((), CUT)}
    for index, name in enumerate(DOTENV_NAMES_OF_TOOLS_AND_BACKUPS):
        expected[name] = ((f"ROOT_TOKEN_{index}",), None)
        expected[f"worker/{name}"] = ((f"WORKER_TOKEN_{index}",), None)
    assert found == expected


def test_regular_files_at_the_root_and_one_level_down_are_read(tmp_path: Path) -> None:
    """A FIFO is never waited on (and named as not read), a template is skipped, folders
    two levels down and node_modules are not looked in; a dot folder is, and a large
    file is read up to the bound."""
    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / "node_modules").mkdir()
    (tmp_path / ".devcontainer").mkdir()
    (tmp_path / ".env").write_text("ROOT_TOKEN=root-value-123\n")
    (tmp_path / "a" / ".env").write_text("A_TOKEN=a-value-12345\n")
    (tmp_path / "a" / "b" / ".env").write_text("DEEP_TOKEN=deep-value-123\n")
    (tmp_path / "node_modules" / ".env").write_text("NM_TOKEN=nm-value-12345\n")
    (tmp_path / ".devcontainer" / ".env").write_text("DOT_TOKEN=dot-value-1234\n")
    (tmp_path / ".env.example").write_text("EXAMPLE_TOKEN=placeholder-1\n")
    (tmp_path / "big.env").write_text("#" * 300_000 + "\nBIG_TOKEN=big-value-1234\n")
    os.mkfifo(tmp_path / ".env.fifo")
    result: list[WorkspaceDotenv] = []
    reader = threading.Thread(target=lambda: result.append(read_workspace_dotenv(tmp_path)))
    reader.start()
    reader.join(timeout=10)
    assert not reader.is_alive(), "a FIFO named like a dotenv file blocked the read"
    (dotenv,) = result
    assert {
        (each.path, tuple(a.name for a in each.assignments), each.unread) for each in dotenv.files
    } == {
        (".env", ("ROOT_TOKEN",), None),
        (".env.fifo", (), NOT_REGULAR),
        (".devcontainer/.env", ("DOT_TOKEN",), None),
        ("a/.env", ("A_TOKEN",), None),
        ("big.env", ("BIG_TOKEN",), None),
    }


def test_each_value_a_file_gives_a_credential_is_a_secret() -> None:
    """Both values of a name given twice; the notice names the first readings only, and
    a value too long to hide."""
    text = (
        "DB_PASSWORD=Dup0First1Secret2\n"
        "DB_PASSWORD=Dup9Second8Secret7\n"
        "A_TOKEN=abcde#fghij-klmno\n"  # Node reads `abcde`: short, but no notice of it
        "SHORT_TOKEN=abcdef\n"
        f"BIG_KEY={'k' * (MAX_HIDDEN_CHARS + 1)}\n"
    )
    dotenv = WorkspaceDotenv((DotenvFile("api/.env", tuple(parse_dotenv(text))),))
    found = find_dotenv_secrets(dotenv, "")
    assert {"Dup0First1Secret2", "Dup9Second8Secret7", "abcde#fghij-klmno"} == set(found.values)
    assert dict(found.unhidden) == {"api/.env: SHORT_TOKEN": SHORT, "api/.env: BIG_KEY": LONG}


def test_a_template_is_no_dotenv_file_whatever_separates_its_word() -> None:
    """Second round of the nineteenth attack: once `.env-<name>` and `.env_<name>` were
    read, `.env-example`, `.env_sample`, `.env-template` and `.env-dist` were too, and
    their placeholders (`your-api-key-here`, an example password) were blanked as secrets
    in every result, the README that quotes them included."""
    for name in (
        ".env-example",
        ".env_sample",
        ".env-template",
        ".env-dist",
        ".env_template",
        ".env-defaults",
        ".env-example~",
        ".ENV-EXAMPLE",
        "example.env",
        "sample.env",
        ".env.production-sample",
    ):
        assert not is_dotenv_name(name), name
    for name in (".env-distribution", ".env-examples-ci-prod", ".env_staging", "prod.env"):
        assert is_dotenv_name(name), name


def test_placeholders_of_a_dash_named_template_stay_visible(tmp_path: Path) -> None:
    (tmp_path / ".env-example").write_text("API_KEY=your-api-key-here-0000\n")
    (tmp_path / ".env").write_text(f"STRIPE_SECRET_KEY={STRIPE}\n")
    found = find_dotenv_secrets(read_workspace_dotenv(tmp_path), "")
    assert STRIPE in found.values
    assert not any("your-api-key-here" in value for value in found.values)


DOTENV_COPIES = (
    ".env copy",  # macOS Finder's Duplicate, VS Code's paste beside it
    ".env copy 2",
    ".env - Copy",  # Windows Explorer
    ".env - Copy (3)",
    ".env (1)",  # a browser's second download
    ".env(2)",  # Firefox's
    ".env.local copy",
    ".env copy.local",  # the mark before the last part, as Finder and VS Code put it
    ".env.production (2)",
    "Copy of .env",  # Google Drive
    ".env copy~",
)


def test_a_copy_of_a_dotenv_file_is_one_and_a_copy_of_a_template_is_a_template() -> None:
    """Twenty-fifth outside attack: `.env copy`, `.env - Copy` and `.env (1)` were no
    dotenv files, so their keys went out; `.env.bak` and `.env~` were."""
    for name in DOTENV_COPIES:
        assert is_dotenv_name(name), name
    for name in (
        ".env.example copy",
        ".env.example (1)",
        ".env.sample - Copy (2)",
        ".env copy.example",
        "example copy.env",
        ".env copy.swp",
        "notes copy",
        "report (1).pdf",
        "Copy of notes",
        ".environment copy",
        ".env copyright",
    ):
        assert not is_dotenv_name(name), name


def test_the_credentials_of_a_dotenv_files_copy_are_never_sent(tmp_path: Path) -> None:
    """As a user meets it: the model reads each copy; a copied template's placeholder
    stays as it is."""
    home, workspace = tmp_path / "home", tmp_path / "ws"
    workspace.mkdir()
    keys = {
        name: f"sk_live_Copy{index:02d}Zq7Rk2mXv9LpW4tY" for index, name in enumerate(DOTENV_COPIES)
    }
    for name, value in keys.items():
        (workspace / name).write_text(f"STRIPE_SECRET_KEY={value}\n")
    (workspace / ".env.example copy").write_text("API_KEY=your-api-key-here-0000\n")
    names = [*keys, ".env.example copy"]
    with start_fake_server(api_key=KEY) as fake:
        fake.enqueue(
            Reply(
                [
                    tool_use_block(f"toolu_{index}", "read_file", {"path": name})
                    for index, name in enumerate(names)
                ],
                stop_reason="tool_use",
            )
        )
        fake.enqueue(Reply([text_block("Read them.")]))
        env = build_env(home, {"ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": fake.base_url})
        done = run_piped(["--yes"], cwd=workspace, env=env, stdin_text="read the copies\n")
        bodies = [request.body for request in fake.requests]
    assert done.returncode == 0, done.stderr
    sent = str(bodies[-1]["messages"])
    assert sent.count(f"STRIPE_SECRET_KEY={REDACTED_MARK}") == len(keys)
    assert "API_KEY=your-api-key-here-0000" in sent
    secrets = tuple(keys.values())
    for where, body in enumerate(bodies):
        assert recoverable_secrets(str(body), secrets) == set(), f"request {where}"
    for path in home.rglob("*"):
        if path.is_file():
            text = path.read_bytes().decode("utf-8", "replace")
            assert recoverable_secrets(text, secrets) == set(), path
    assert recoverable_secrets(done.stdout + done.stderr, secrets) == set()


def test_dotenv_names_in_any_case_are_dotenv_files_and_templates_in_any_case_not(
    tmp_path: Path,
) -> None:
    """Second twenty-fifth outside attack: `.ENV`, `.ENV (2)` and `.Env copy` (names as
    Windows and macOS keep them, whose file systems let `dotenv` open `.ENV` as `.env`)
    were not read, so read_file sent their keys; an upper-case template is still one."""
    names = (".ENV", ".ENV (2)", ".Env copy", ".Env.Local", "PROD.ENV", ".ENVRC", "COPY OF .ENV")
    for name in names:
        assert is_dotenv_name(name), name
    for name in (".ENV.EXAMPLE", ".Env.Sample copy", "EXAMPLE.ENV", ".ENV.SWP", ".ENVIRONMENT"):
        assert not is_dotenv_name(name), name
    (tmp_path / "apps").mkdir()
    keys = {name: f"sk_live_Case{index:02d}Zq7Rk2mXv9LpW4tY" for index, name in enumerate(names)}
    for name, value in keys.items():
        (tmp_path / "apps" / name).write_text(f"STRIPE_SECRET_KEY={value}\n")
    (tmp_path / ".ENV.EXAMPLE").write_text("API_KEY=your-api-key-here-0000\n")
    dotenv = read_workspace_dotenv(tmp_path)
    assert sorted(file.path for file in dotenv.files) == sorted(f"apps/{name}" for name in names)
    assert set(find_dotenv_secrets(dotenv, "").values) == set(keys.values())
