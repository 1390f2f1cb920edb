"""The password of a database connection written in a form that is no URL. Pure.

URLs (`postgres://user:password@host`, `jdbc:...`) are `tools.url_credentials`'; a
`key=value;` connection string's credential-named keys are `tools.credentials`'. These
are the other forms database drivers and their tools take, each found anywhere in a
value (a variable, a command, a line of a `.env` file).

Contract: `connection_passwords(value)` yields:
- the value of each `password=`, `passwd=` or `pwd=` keyword, in any case, also after a
  qualifier (libpq's `sslpassword=`, `PGPASSWORD=` or `MYSQL_PWD=` in a command), with
  blanks around `=` or none: libpq's keyword/value conninfo (`host=db user=app
  password=X dbname=app`), ODBC's and ADO.NET's `Pwd=X;`. The value ends at a blank or
  `;`, or is quoted: `'...'` (libpq's, `\\'` and `\\\\` inside), `"..."`, ODBC's `{...}`
  (`}}` inside); it is given as written and unescaped, and, when unquoted, also without
  what follows an `&` (a form body, `password=X&remember=1`) or the quotes that close a
  longer quoted value. A bare `pwd=` whose value is an absolute path names the shell's
  working folder, no password.
- of the Go MySQL driver's DSN `user:password@tcp(host:3306)/db` (any protocol:
  `@unix(/path)`, `@tcp6(`, or none: `user:password@/db`, but not `@//`, an authority's
  start), the password, read as the driver reads it: from the first `:` to the last `@`
  before the protocol.
- of Oracle's EZConnect `user/password@//host:1521/service` or `user/password@host:port`
  (`sqlplus`, `rman`; the password may be in `"..."`), the password. Without `//` the
  port is required, so a module or image reference (`golang.org/x@v0.1.0/cmd`,
  `library/ubuntu@sha256:...`) is none; Oracle's bare `user/password@alias` is not read.
A keyword with no value (`password=`), or text that only says `password` (`password:
see the vault`), holds none. Nothing here checks length: the caller leaves out values
too short to tell from text.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

# Where a connection's text may start: the value's start, a blank, a quote, or the `=`
# of the assignment that holds it.
_STARTS = r"(?<![^\s\"'`=])"
_PASSWORD_KEYWORD = re.compile(
    r"(?i)(?<![A-Za-z0-9_.-])(?P<key>[A-Za-z0-9_.-]*passw(?:or)?d|(?:[A-Za-z0-9.-]*_)?pwd)"
    r"[ \t]*=[ \t]*"
    r"(?:'(?P<single>(?:[^'\\]|\\.)*)'|\"(?P<double>(?:[^\"\\]|\\.)*)\""
    r"|\{(?P<braced>(?:[^}]|\}\})*)\}|(?P<bare>[^\s;'\"][^\s;]*))"
)
_GO_MYSQL_DSN = re.compile(
    _STARTS + r"[^\s:@/\"'`()=]*:(?!//)(?P<password>[^\s\"'`]+)@(?:[A-Za-z][A-Za-z0-9]*\(|/(?!/))"
)
_EZCONNECT = re.compile(
    _STARTS + r"[A-Za-z0-9_$#.]+/(?:\"(?P<quoted>[^\"]+)\"|(?P<bare>[^\s\"'`@/]+))"
    r"@(?://|[A-Za-z0-9.-]+:\d+(?![A-Za-z0-9]))"
)
_BACKSLASH_ESCAPE = re.compile(r"\\(.)")


def connection_passwords(value: str) -> Iterator[str]:
    """The passwords `value` holds in a connection form that is no URL (module contract)."""
    yield from _keyword_passwords(value)
    for found in _GO_MYSQL_DSN.finditer(value):
        yield found.group("password")
    for found in _EZCONNECT.finditer(value):
        yield found.group("quoted") or found.group("bare")


def _keyword_passwords(value: str) -> Iterator[str]:
    """Of each `password=`-like keyword, its value as written and as the driver reads it."""
    if "=" not in value:
        return
    for found in _PASSWORD_KEYWORD.finditer(value):
        quoted = found.group("single") or found.group("double")
        if quoted:
            yield quoted
            yield _BACKSLASH_ESCAPE.sub(r"\1", quoted)
        elif found.group("braced"):
            yield found.group("braced")
            yield found.group("braced").replace("}}", "}")
        elif found.group("bare") and not _is_working_folder(found.group("key"), found["bare"]):
            bare = found.group("bare")
            yield bare
            yield bare.partition("&")[0]
            yield bare.rstrip("'\"")


def _is_working_folder(key: str, value: str) -> bool:
    """`PWD=/srv/app` (an environment's dump, `env -i PWD=...`): the shell's folder."""
    return key.lower() == "pwd" and value.startswith(("/", "~"))
