"""Dotenv values as bash and python-dotenv assign them, not only as written (22nd tester).

The attack: `.envrc` set a GitHub App key with a heredoc (`export GITHUB_APP_PEM=$(cat
<<'EOF'` ...), an AWS key as the default of `${AWS_SECRET_ACCESS_KEY:-...}`, a token
ending in `;`, others through `declare -x`, `readonly`, `eval`, `printf -v`, `read
<<EOF`, `+=` or `${P}` set earlier in the file; only the text as written was a secret,
so `set -a; . ./.envrc; printenv NAME` and even `read_file .envrc` sent the real value.

Here: a table of those forms checked against REAL bash (sourced in an empty
environment, never run at agent-cli's start) and python-dotenv: whatever either
assigns to a name is among the readings the parse records, and is redacted.
"""

from __future__ import annotations

import io
import subprocess
import time
from pathlib import Path

import pytest
from dotenv import dotenv_values

from agent_cli.tools.dotenv_syntax import parse_dotenv
from agent_cli.tools.redaction import SecretRedactor
from agent_cli.tools.shell_source import read_sourced_assignments
from agent_cli.tools.workspace_secrets import (
    MANY,
    MAX_FILE_SECRET_CHARS,
    DotenvFile,
    WorkspaceDotenv,
    find_dotenv_secrets,
)

PEM_LINES = (
    "MIIEowIBAAKCAQEAheredocLine1abcdefghijklmnopQRSTUVWX",
    "MIIEsecondLineOfKeyMaterialqrstuvwxyz0123456789ABCD",
)
PEM = "-----BEGIN RSA PRIVATE KEY-----\n" + "\n".join(PEM_LINES) + "\n-----END RSA PRIVATE KEY-----"

FORMS = {
    "heredoc_quoted": f"export GITHUB_APP_PEM=$(cat <<'EOF'\n{PEM}\nEOF\n)\n",
    "heredoc_plain": "export GITHUB_TOKEN=$(cat <<EOF\nghp_Here0Plain1Token2Value3abcdefgh\nEOF\n)\n",
    "heredoc_dash": 'export API_TOKEN=$(cat <<-"EOF"\n\tDash0Here1Doc2Token3Value\n\tEOF\n)\n',
    "heredoc_expands": "P=Pw0Inner1Secret2Value3\nexport DB_PASSWORD=$(cat <<EOF\n$P-x\nEOF\n)\n",
    "read_heredoc": "read -r -d '' SLACK_TOKEN <<'EOF'\nxoxb-Read0Here1Doc2Token3\nEOF\nexport SLACK_TOKEN\n",
    "read_here_string": "read -r API_TOKEN <<< 'Here0String1Token2Value'\n",
    "heredoc_unclosed": "export API_TOKEN=$(cat <<'EOF'\nNever0Closed1Heredoc2Body\n",
    "default_colon_dash": "export AWS_SECRET_ACCESS_KEY=${AWS_SECRET_ACCESS_KEY:-wJalrXUtnFEMIK7MDENGbPxRfiCYEXAMPLEKEY}\n",
    "default_quoted": 'export API_TOKEN="${API_TOKEN:-Quoted0Default1Token2}"\n',
    "default_dash": "API_TOKEN=${API_TOKEN-Dash0Default1Token2Value}\n",
    "default_assign": ": ${API_TOKEN:=Assign0Default1Secret2}\n",
    "default_equals": "X=${API_TOKEN=Equals0Default1Secret2}\n",
    "pydotenv_default": "STRIPE_SECRET_KEY=${STRIPE_SECRET_KEY:-sk_live_Def0ault1Stripe2Key3}\n",
    "expanded_earlier": "P=Pw0Secret1Value2xyzq\nDATABASE_URL=postgres://user:${P}@host/db\n",
    "expanded_plain": "BASE=Xyz0Base1Part2qq\nAPI_TOKEN=${BASE}Tail9Token8\nB_TOKEN=$BASE.x\n",
    "literal_braces": "DB_PASSWORD='Lit${x}Secret1Value2ab'\n",
    "trailing_semicolon": "export GITHUB_TOKEN=ghp_Semi0Trail1Token2Value3abcdefghij;\n",
    "several_commands": "API_TOKEN=Exp0Secret1Value2xyzw; export API_TOKEN\nA=1&&B_TOKEN=Amp0Token1Value2xyz\n",
    "word_ends": "C_TOKEN=Pipe0Token1Value2xyzab|cat\nD_TOKEN=Redir0Token1Value2xyz>/dev/null\n",
    "declare_x": "declare -x API_TOKEN=Decl0Secret1Value2xyz\n",
    "declare": "declare API_TOKEN=Decl1Secret1Value2xyz\n",
    "typeset": "typeset API_TOKEN=Type0Secret1Value2xyz\n",
    "local_in_function": "f(){ local A=1; }; API_TOKEN=Fn0Secret1Value2xyzab\n",
    "readonly": "readonly API_TOKEN=Ro0Secret1Value2xyzab\n",
    "export_n": "export -n X=1 API_TOKEN=Dash0Secret1Value2xyz\n",
    "eval": "eval API_TOKEN=Eval0Secret1Value2xyzab\n",
    "printf_v": "printf -v API_TOKEN '%s' Printf0Secret1Value2\n",
    "append": "API_TOKEN=Plus0Part1abc\nAPI_TOKEN+=Plus0Part2xyzdef\n",
    "in_a_block": "if true; then\n  API_TOKEN=If0Block1Secret2xyzw\nfi\n",
    "command_output": "API_TOKEN=$(echo CmdSub0Secret1Value2)\nB_TOKEN=`printf '%s' Tick0Secret1Value2`\n",
    "prefix_pair": "A=1 API_TOKEN=Prefix0Pair1Secret2xyz\n",
}


def bash_values(text: str, folder: Path) -> dict[str, str]:
    """What real bash holds after `set -a; . ./file` in an empty environment, every
    variable (an `export -n` one too) but those bash holds sourcing an empty file."""
    held = _bash_variables(text, folder)
    empty = _bash_variables("", folder)
    return {name: value for name, value in held.items() if name not in empty}


def _bash_variables(text: str, folder: Path) -> dict[str, str]:
    (folder / "sourced.env").write_text(text)
    script = (
        "set -a; . ./sourced.env >/dev/null 2>&1; "
        'for n in $(compgen -v); do printf "%s=%s\\0" "$n" "${!n}"; done'
    )
    done = subprocess.run(
        ["env", "-i", "PATH=/usr/bin:/bin", "bash", "-c", script],
        cwd=folder,
        capture_output=True,
        timeout=20,
        check=False,
    )
    pairs = (entry.partition("=") for entry in done.stdout.decode("utf-8", "replace").split("\0"))
    return {name: value for name, _, value in pairs if name and value}


def python_dotenv_values(text: str) -> dict[str, str]:
    return {k: v for k, v in dotenv_values(stream=io.StringIO(text)).items() if v}


def readings_of(text: str) -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for assignment in parse_dotenv(text):
        found.setdefault(assignment.name, set()).update(assignment.readings)
    return found


def redactor_for(text: str) -> SecretRedactor:
    dotenv = WorkspaceDotenv((DotenvFile(".envrc", tuple(parse_dotenv(text))),))
    return SecretRedactor(find_dotenv_secrets(dotenv, "").values)


IGNORED = {"PWD", "SHLVL", "_", "PATH", "OLDPWD", "n"}


@pytest.mark.parametrize("form", sorted(FORMS))
def test_what_bash_and_python_dotenv_assign_is_a_reading(form: str, tmp_path: Path) -> None:
    text = FORMS[form]
    readings = readings_of(text)
    oracles = {"bash": bash_values(text, tmp_path)}
    oracles["python-dotenv"] = python_dotenv_values(text)
    checked = 0
    for oracle, values in oracles.items():
        for name, value in values.items():
            if name in IGNORED or len(value) < 8:
                continue
            assert value in readings.get(name, set()), (oracle, name, value, readings)
            checked += 1
    assert checked, form  # the form assigns something long enough to be a credential


@pytest.mark.parametrize("form", sorted(FORMS))
def test_the_credential_bash_assigns_is_redacted(form: str, tmp_path: Path) -> None:
    text = FORMS[form]
    redactor = redactor_for(text)
    for name, value in bash_values(text, tmp_path).items():
        if name in IGNORED or not name.endswith(("TOKEN", "KEY", "PASSWORD", "PEM", "URL")):
            continue
        shown = redactor.redact(f"{name}={value}\n").text
        secret_lines = [
            line for line in value.splitlines() if len(line) >= 16 and "-----" not in line
        ]
        for line in secret_lines:
            assert line not in shown, (form, name, shown)
        assert line_free(redactor.redact(text).text, secret_lines), (form, text)


def line_free(shown: str, lines: list[str]) -> bool:
    return not any(line in shown for line in lines if "$" not in line and "{" not in line)


def test_a_heredoc_key_is_hidden_line_by_line_in_the_file() -> None:
    text = FORMS["heredoc_quoted"]
    shown = redactor_for(text).redact(text).text
    assert all(line not in shown for line in PEM_LINES), shown


def test_the_shell_reading_takes_what_bash_assigns() -> None:
    text = (
        "export A=one;B=two|C=three\n"
        "read -r -d '' D <<'EOF'\n  four  \nEOF\n"
        "E=x\nE+=y\n"
        "eval F=six\n"
        "printf -v G '%s-%s' a b\n"
        ": ${H:=eight}\n"
    )
    assert list(read_sourced_assignments(text)) == [
        ("A", "one"),
        ("B", "two"),
        ("C", "three"),
        ("D", "four"),
        ("E", "x"),
        ("E", "y"),
        ("E", "xy"),
        ("F", "six"),
        ("G", "a-b"),
        ("H", "eight"),
    ]


HOSTILE = {
    "nested_substitutions": "A=" + "$(" * 200_000,
    "nested_defaults": "A=" + "${X:-" * 200_000,
    "doubling": "A=abcdefghij\n" + "A=$A$A\n" * 20_000,
    "interpolated_large": "A=" + "x" * 30_000 + "\n" + "B_TOKEN=${A}\n" * 20_000,
    "unclosed_heredoc": "T=$(cat <<EOF\n" + "$T\n" * 100_000,
    "separators": ";|&" * 300_000,
    "evals": "eval eval eval eval eval A=1\n" * 5_000,
    # (second round) each unclosed heredoc read to the end, met the too-deep line there and
    # was read again from the next line: 29.6 s at 8,000 lines, quadratic; now 0.01 s
    "heredocs_then_too_deep": "a <<X\n" * 40_000 + "$(" * 45 + "\n",
}


@pytest.mark.parametrize("form", sorted(HOSTILE))
def test_hostile_text_is_read_in_bounded_time(form: str) -> None:
    """Nesting, doubling and a heredoc never closed cost time in the text's length (the
    bound is loose: the machine may be shared); nesting never exhausts the stack."""
    started = time.monotonic()
    for _ in parse_dotenv(HOSTILE[form]):
        pass
    assert time.monotonic() - started < 20


def test_a_chain_of_appends_hides_at_most_a_files_budget_and_names_the_file() -> None:
    """Second round: `API_TOKEN+=<64 characters>` 600 times gives each step's whole value,
    8 million characters of secrets: the redactor took minutes and 2.9 GB to build (or
    failed with RecursionError). A file's secrets stop at `MAX_FILE_SECRET_CHARS`, and the
    file is named as not hidden whole."""
    piece = "Zq7Rk2mXv9LpW4tYc8NbH3sJd6FgQ1aBcDeFgHiJkLmNoPqRsTuVwXyZ01234567"
    text = f"API_TOKEN={piece}\n" + f"API_TOKEN+={piece}x\n" * 600
    dotenv = WorkspaceDotenv((DotenvFile(".envrc", tuple(parse_dotenv(text))),))
    found = find_dotenv_secrets(dotenv, "")
    assert piece in found.values  # the first values are hidden
    assert sum(map(len, found.values)) <= MAX_FILE_SECRET_CHARS
    assert (".envrc", MANY) in found.unhidden
