"""Text written where a password goes that stands for one instead of being one. Pure.

A compose file, a README or a script writes `password=${PGPASSWORD}`,
`app:${DB_PASS}@tcp(db)/app` or `password=<password>`; learned as a secret, that text
would be blanked in every result (the file, its diff, grep's lines), and the real
password is found where it is set, not here.

Contract: `is_placeholder(value)` is whether `value`, whole (in one pair of quotes or
none), is
- a variable's reference: `$NAME`, `${...}` (any expansion, `${PWD##*/}` too, but not one
  with a default or alternative word, `${NAME:-word}`, `${NAME+word}`, whose word may be
  the password), `$(...)` or
  `` `...` `` (a command's output), PowerShell's `$env:NAME`, cmd's `%NAME%`;
- a template's slot: `{{ ... }}` (Jinja, Helm, Go templates), `<...>` (`<password>`,
  `<your-password>`);
- a name in capitals: letters, digits and `_` starting with a letter and holding at
  least one `_` (`YOUR_PASSWORD`, `DB_PASS`, `CHANGE_ME`), or one word of at most 12
  capital letters (`PASSWORD`, `CHANGEME`): an identifier's shape, which a generated
  password hardly has. A longer run of capitals alone (`QXJZKLMWPRTVBN`) or capitals
  with `-` (`QXJZ-KLMW-PRTV`, a product key's shape) can be a real one and is no
  placeholder; nor is a lower-case name (`your_password` reads as a passphrase too);
- a mask: only `*` or `•` (`********`, what a log prints in a password's place).
"""

from __future__ import annotations

import re

_PLACEHOLDER = re.compile(
    r"\$[A-Za-z_][A-Za-z0-9_]*"
    r"|\$\{(?![A-Za-z_][A-Za-z0-9_]*:?[-=+][^}])[^{}]*\}"
    r"|\$\(.*\)|`[^`]*`"
    r"|\$env:[A-Za-z_][A-Za-z0-9_]*"
    r"|%[A-Za-z_][A-Za-z0-9_]*%"
    r"|\{\{.*\}\}|<[^<>]+>"
    r"|[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+|[A-Z]{1,12}"
    r"|[*\u2022]+",
    re.DOTALL,
)


def is_placeholder(value: str) -> bool:
    """Whether `value`, whole, stands for a password rather than being one (module
    contract)."""
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        value = value[1:-1]
    return bool(_PLACEHOLDER.fullmatch(value))
