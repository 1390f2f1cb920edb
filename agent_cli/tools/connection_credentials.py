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
  what follows an `&` (a form body, `password=X&remember=1`), a `,` or `&` before the
  next `key=` (a comma-separated list, `host=db,password=X,dbname=app`) or the quotes that
  close a longer quoted value. libpq's own `password`/`sslpassword` (lower case, as
  libpq spells them) is read on the next line too when `=` ends its line and that line
  holds no `=`; any other key's `=` at a line's end is an empty value. A bare `pwd=`
  whose value is an absolute path names the shell's working folder, no password.
- of the Go MySQL driver's DSN `user:password@tcp(host:3306)/db` (any protocol:
  `@unix(/path)`, `@tcp6(`, or none: `user:password@/db`, but not `@//`, an authority's
  start), the password, read as the driver reads it: from the first `:` to the last `@`
  before the protocol.
- of Oracle's EZConnect `user/password@//host:1521/service`, `user/password@host:port`
  or `user/password@host/service` (`sqlplus`, `rman`; the password may be in `"..."`),
  the password. Without `//` or a port, the user must be a plain name (no `.`) and the
  host no version (`v0.1.0`, `1.2.3`; an IPv4 address has four parts), and a password
  that is a version or a digest (`v1.2.3`, `sha256:...`) is none in any EZConnect form,
  so a module or image reference (`golang.org/x@v0.1.0/cmd`, `library/ubuntu@sha256:...`)
  is none. Oracle's bare `user/password@alias` is read only after an Oracle tool's name
  (`tools.client_passwords`).
- the passwords a client's command line takes (`tools.client_passwords`: `mysql -pX`,
  `redis-cli -a X`, `sqlplus scott/X`, ...).
A keyword with no value (`password=`), or text that only says `password` (`password:
see the vault`), holds none; nor does a placeholder written where the password goes
(`tools.placeholders`: `password=${PGPASSWORD}`, `app:${DB_PASS}@tcp(db)/app`,
`password=<password>`, `pwd=${PWD##*/}`), judged on the value as its reader takes it.
Nothing here checks length: the caller leaves out values too short to tell from text.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from agent_cli.tools.client_passwords import client_passwords
from agent_cli.tools.placeholders import is_placeholder

# Where a connection's text may start: the value's start, a blank, a quote, or the `=`
# of the assignment that holds it.
_STARTS = r"(?<![^\s\"'`=])"
_PASSWORD_KEYWORD = re.compile(
    r"(?i)(?<![A-Za-z0-9_.-])(?P<key>[A-Za-z0-9_.-]*passw(?:or)?d|(?:[A-Za-z0-9.-]*_)?pwd)"
    r"[ \t]*=(?P<gap>[ \t]*)"
    r"(?:'(?P<single>(?:[^'\\]|\\.)*)'|\"(?P<double>(?:[^\"\\]|\\.)*)\""
    r"|(?P<template>\{\{.*?\}\}|\$\{[^{}]*\}|\$\([^()]*\))"
    r"|\{(?P<braced>(?:[^}]|\}\})*)\}|(?P<bare>[^\s;'\"][^\s;]*))"
)
# After blanks, a `key=value` is the next keyword, not the value (`password= dbname=app`,
# what `password=${UNSET} dbname=app` reads as).
_KEYWORD_START = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]*=[^=\s]")
# libpq's own keywords read, as libpq reads them, across a line break after `=` (any
# other key's `=` at a line's end is an empty value, `DB_PASSWORD=` in a `.env`); a
# next line that holds a `=` is the next setting.
_LIBPQ_NEXT_LINE = re.compile(
    r"(?<![A-Za-z0-9_.-])(?:ssl)?password[ \t]*=[ \t]*\r?\n\s*(?P<bare>[^\s;'\"=][^\s;=]*)(?![^\s;])"
)
# A bare value's end where a comma-separated keyword list (`host=db,password=X,dbname=app`)
# or a form body (`password=X&remember=1`) goes on: a `,` or `&` before the next `key=`.
_NEXT_KEYWORD = re.compile(r"[,&](?=[A-Za-z_][A-Za-z0-9_.-]*=)")
_GO_MYSQL_DSN = re.compile(
    _STARTS + r"[^\s:@/\"'`()=]*:(?!//)(?P<password>[^\s\"'`]+)@(?:[A-Za-z][A-Za-z0-9]*\(|/(?!/))"
)
_EZCONNECT_PASSWORD = r"(?:\"(?P<quoted>[^\"]+)\"|(?P<bare>[^\s\"'`@/]+))"
_EZCONNECT = re.compile(
    _STARTS
    + r"[A-Za-z0-9_$#.]+/"
    + _EZCONNECT_PASSWORD
    + r"@(?://|[A-Za-z0-9.-]+:\d+(?![A-Za-z0-9]))"
)
# EZConnect with a service and no port, `user/password@host/service`: the user a plain
# name (no `.`: `golang.org/x@v0.1.0/cmd` is a module), the host no version (`v0.1.0`,
# `1.2.3`; an IPv4 address has four parts).
_EZCONNECT_SERVICE = re.compile(
    _STARTS
    + r"[A-Za-z][A-Za-z0-9_$#]*/"
    + _EZCONNECT_PASSWORD
    + r"@(?!v?\d+(?:\.\d+){0,2}(?![0-9.]))[A-Za-z0-9][A-Za-z0-9.-]*/[A-Za-z0-9_$#]"
)
# A version or a digest where a password would be: `x/v1.2.3@...`, `x/sha256:...@...`.
_NOT_A_PASSWORD = re.compile(r"v?\d+(?:\.\d+)+(?:[-+].*)?|sha\d+:.*", re.DOTALL)
_BACKSLASH_ESCAPE = re.compile(r"\\(.)")


def connection_passwords(value: str) -> Iterator[str]:
    """The passwords `value` holds in a connection form that is no URL (module contract)."""
    for readings in _password_readings(value):
        if not is_placeholder(readings[0]):
            yield from (reading for reading in readings if not is_placeholder(reading))
    yield from client_passwords(value)


def _password_readings(value: str) -> Iterator[list[str]]:
    """Of each password found, its readings: first as its reader takes it (what decides
    whether it is a placeholder), then as written and as other readers cut it."""
    yield from _keyword_passwords(value)
    for found in _GO_MYSQL_DSN.finditer(value):
        yield [found.group("password")]
    for ezconnect in (_EZCONNECT, _EZCONNECT_SERVICE):
        for found in ezconnect.finditer(value):
            password = found.group("quoted") or found.group("bare")
            if not _NOT_A_PASSWORD.fullmatch(password):
                yield [password]


def _keyword_passwords(value: str) -> Iterator[list[str]]:
    """Of each `password=`-like keyword, its value as written and as the driver reads it."""
    if "=" not in value:
        return
    for found in _PASSWORD_KEYWORD.finditer(value):
        quoted = found.group("single") or found.group("double")
        if quoted:
            yield [quoted, _BACKSLASH_ESCAPE.sub(r"\1", quoted)]
        elif found.group("template"):
            yield [found.group("template")]
        elif found.group("braced"):
            yield [found.group("braced"), found.group("braced").replace("}}", "}")]
        elif found.group("bare"):
            yield from _bare_readings(found)
    for found in _LIBPQ_NEXT_LINE.finditer(value):
        yield [found.group("bare")]


def _bare_readings(found: re.Match[str]) -> Iterator[list[str]]:
    """Of an unquoted value, first what the driver reads: up to a `,` or `&` before the
    next `key=` and without the quotes that close a longer quoted value; none when that
    is empty, the next keyword, or the working folder."""
    bare = found.group("bare")
    read = _NEXT_KEYWORD.split(bare, maxsplit=1)[0].rstrip("'\"")
    if not read or _is_working_folder(found.group("key"), bare):
        return
    if found.group("gap") and _KEYWORD_START.match(bare):
        return
    yield [read, bare, bare.partition("&")[0], bare.rstrip("'\"")]


def _is_working_folder(key: str, value: str) -> bool:
    """`PWD=/srv/app` (an environment's dump, `env -i PWD=...`): the shell's folder."""
    return key.lower() == "pwd" and value.startswith(("/", "~"))
