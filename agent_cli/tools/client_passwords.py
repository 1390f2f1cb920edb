"""The password a database or directory client is given on its command line. Pure.

A variable, a `.env` line or an MCP server's `env` holds a whole command
(`DB_CMD=mysql -u root -p<pw> app`, `redis-cli -h db -a <pw>`), so the password
is written there under a name that says nothing.

Contract: `client_passwords(value)` yields the passwords the arguments after a client's
name take, in `value` split into words as a shell splits it (quotes undone; at blanks
only when no shell could split it, an unclosed quote). The name counts as a word
anywhere (a path's last part too, `.exe` or not), so after `sudo`, `docker exec db` or
`kubectl exec pod --`; its arguments run to a word that is only `;`, `&` or `|`
characters, or to the next client's name. Each flag is read as its client reads it
(`CLIENT_FLAGS`):
- MySQL's and MariaDB's clients (`mysql`, `mysqldump`, ...): `-p<pw>` glued and
  `--password=<pw>`; a `-p` or `--password` alone prompts, so the next word is none;
- MongoDB's shell and tools (`mongosh`, `mongo`, `mongodump`, ...): `-p <pw>`,
  `-p<pw>`, `--password <pw>`, `--password=<pw>`;
- redis-cli (`valkey-cli`, `keydb-cli`): `-a <pw>`, `--pass <pw>`;
- OpenLDAP's tools (`ldapsearch`, `ldapmodify`, ...): `-w <pw>`, `-w<pw>`, and
  ldappasswd's old and new passwords `-a`, `-s` too;
- sshpass: `-p <pw>`, `-p<pw>`, before the command it runs (`ssh -p 2222` is no
  password); SQL Server's sqlcmd and bcp: `-P <pw>`, `-P<pw>`;
- Oracle's tools (`sqlplus`, `rman`, `expdp`, `impdp`, `exp`, `imp`, `sqlldr`,
  `dgmgrl`): the password of a logon `user/password` (`@connect` after it or not) that
  is the first argument not a flag, follows `target`, `catalog` or `auxiliary` (RMAN's),
  or is written `userid=` (or `target=`, ...) `user/password`.
psql takes no password on its command line (`PGPASSWORD=` is `tools.connection_credentials`'
keyword form). A spaced flag's next word that starts with `-` is the next flag (mongosh's
`-p` alone prompts). Each password is given as the client receives it and, when a `;`,
`&` or `|` is glued into it, also cut there, as a shell would; a placeholder
(`tools.placeholders`: `-p${MYSQL_PWD}`) is none.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from agent_cli.tools.placeholders import is_placeholder


@dataclass(frozen=True)
class PasswordFlags:
    """How a client takes its password: glued to a flag (`-pX`), as the word after a
    flag (`-p X`), after `=` (`--password=X`), or in an Oracle logon (`user/X`); and
    whether its own flags end at the command it runs (sshpass)."""

    glued: tuple[str, ...] = ()
    spaced: tuple[str, ...] = ()
    assigned: tuple[str, ...] = ()
    logon: bool = False
    runs_a_command: bool = False


_MYSQL = PasswordFlags(glued=("-p",), assigned=("--password",))
_MONGO = PasswordFlags(glued=("-p",), spaced=("-p", "--password"), assigned=("--password",))
_GROUPS: tuple[tuple[tuple[str, ...], PasswordFlags], ...] = (
    (
        (
            "mysql",
            "mysqldump",
            "mysqladmin",
            "mysqlimport",
            "mysqlshow",
            "mysqlcheck",
            "mysqlpump",
            "mysqlsh",
            "mariadb",
            "mariadb-dump",
            "mariadb-admin",
            "mariadb-import",
            "mariadb-show",
            "mariadb-check",
        ),
        _MYSQL,
    ),
    (
        (
            "mongosh",
            "mongo",
            "mongodump",
            "mongorestore",
            "mongoexport",
            "mongoimport",
            "mongostat",
            "mongotop",
            "mongofiles",
        ),
        _MONGO,
    ),
    (("redis-cli", "valkey-cli", "keydb-cli"), PasswordFlags(spaced=("-a", "--pass"))),
    (
        ("ldapsearch", "ldapmodify", "ldapadd", "ldapdelete", "ldapmodrdn", "ldapcompare")
        + ("ldapwhoami", "ldapexop"),
        PasswordFlags(glued=("-w",), spaced=("-w",)),
    ),
    (("ldappasswd",), PasswordFlags(glued=("-w", "-a", "-s"), spaced=("-w", "-a", "-s"))),
    (("sshpass",), PasswordFlags(glued=("-p",), spaced=("-p",), runs_a_command=True)),
    (("sqlcmd", "bcp"), PasswordFlags(glued=("-P",), spaced=("-P",))),
    (
        ("sqlplus", "rman", "expdp", "impdp", "exp", "imp", "sqlldr", "dgmgrl"),
        PasswordFlags(logon=True),
    ),
)
CLIENT_FLAGS: dict[str, PasswordFlags] = {name: flags for names, flags in _GROUPS for name in names}
_MENTIONS_A_CLIENT = re.compile(
    r"(?<![A-Za-z0-9_-])(?:"
    + "|".join(sorted(map(re.escape, CLIENT_FLAGS), key=len, reverse=True))
    + r")(?![A-Za-z0-9_-])",
    re.IGNORECASE,
)
_SEPARATOR = re.compile(r"[;&|]+")
_LOGON_KEYWORDS = frozenset({"target", "catalog", "auxiliary"})
_LOGON = re.compile(
    r"(?i:(?:userid|target|catalog|auxiliary)=)?[A-Za-z][A-Za-z0-9_$#]*/(?P<password>[^/@]+)(?:@.*)?",
    re.DOTALL,
)


def client_passwords(value: str) -> Iterator[str]:
    """The passwords given to the clients named in `value` (module contract)."""
    if not _MENTIONS_A_CLIENT.search(value):
        return
    for password in _passwords_in(_shell_words(value)):
        if is_placeholder(password):
            continue
        yield password
        cut = re.split(r"[;&|]", password, maxsplit=1)[0]
        if cut and cut != password:
            yield cut


def _shell_words(value: str) -> list[str]:
    """`value`'s words as a shell splits them, or at blanks when no shell could."""
    lexer = shlex.shlex(value, posix=True)
    lexer.whitespace_split = True
    lexer.commenters = ""
    try:
        return list(lexer)
    except ValueError:  # an unclosed quote
        return value.split()


def _passwords_in(words: Sequence[str]) -> Iterator[str]:
    """The passwords each client named in `words` takes in the arguments after it."""
    flags: PasswordFlags | None = None
    plain_arguments = 0
    for index, word in enumerate(words):
        client = CLIENT_FLAGS.get(_program_name(word))
        if client is not None or _SEPARATOR.fullmatch(word):
            flags, plain_arguments = client, 0
            continue
        if flags is None or _is_spaced_value(flags, words, index):
            continue
        if flags.runs_a_command and not word.startswith("-"):
            flags = None  # sshpass's own flags end where its command starts
            continue
        following = words[index + 1] if index + 1 < len(words) else None
        yield from _flag_passwords(flags, word, following)
        if flags.logon:
            previous = words[index - 1].lower()
            is_logon_place = plain_arguments == 0 or previous in _LOGON_KEYWORDS
            yield from _logon_password(word, is_logon_place)
        plain_arguments += not word.startswith("-")


def _is_spaced_value(flags: PasswordFlags, words: Sequence[str], index: int) -> bool:
    """Whether `words[index]` is the value of the spaced flag before it (`-p X`'s `X`)."""
    return index > 0 and words[index - 1] in flags.spaced and not words[index].startswith("-")


def _program_name(word: str) -> str:
    """`/usr/bin/mysql`, `mysql.exe`, `MySQL`: `mysql`."""
    name = re.split(r"[/\\]", word)[-1].lower()
    return name.removesuffix(".exe")


def _flag_passwords(flags: PasswordFlags, word: str, following: str | None) -> Iterator[str]:
    """The password `word` (and the word after it) gives a client that takes `flags`."""
    if word in flags.spaced and following is not None and not following.startswith("-"):
        yield following
    if not word.startswith("--"):
        for flag in flags.glued:
            if word.startswith(flag) and len(word) > len(flag):
                yield word[len(flag) :]
    name, equals, assigned = word.partition("=")
    if equals and assigned and name in flags.assigned:
        yield assigned


def _logon_password(word: str, is_logon_place: bool) -> Iterator[str]:
    """Of an Oracle logon `user/password[@connect]`, the password: where a logon goes,
    or written `userid=` (a relative path elsewhere, `scripts/backup.rman`, is none)."""
    found = _LOGON.fullmatch(word)
    if found is not None and (is_logon_place or "=" in word.partition("/")[0]):
        yield found.group("password")
