r"""A URL's punctuation as JSON, HTML and shells escape it, read back. Pure.

Why: PHP's `json_encode`, `jq`, many APIs and loggers write `/` as `\/`, Go's and Rails'
JSON write `&` as `\u0026`, an HTML page writes `&amp;` and `&#x2F;`, a shell line escapes
`?`, `&` and `=` (`curl https://host/v1\?token\=X`); a JSON string of such JSON doubles
the backslash (`https:\\\/\\\/`). Written so, `https:\/\/user:pass@host\/db` holds no
`://` and `?a=1\u0026token=X` no `&`: the URL reader (`tools.url_credentials`) would
find no URL, or a query of one parameter, and its credential would be shown.

Contract: `read_url_escapes(value)` is `value` with each escape of a character a URL is
built of or ends at (`URL_PUNCTUATION`: `/ : @ ? # & = ;` and the quotes, so that a URL
in JSON of JSON, `\"https://...\"`, ends before its quote's backslash) read as that
character: a backslash before it (`\/`, `\&`, `\"`) or a `\u00NN` of it (`\u002f`,
`\u0026`), the backslash a run of up to `escaped_text.DEPTH` backslashes read from its
first (JSON of JSON: `\\/`, `\\\/`, `\\u0026`), and an HTML character reference to it
(`&#x2F;`, `&#47;`, `&sol;`, `&amp;`, `&colon;`, `&equals;`, `&quot;`, ...). Every other
character, and an escape of any other character, stays as written: a URL's own percent
escapes (`%2F` in a token) are its own, and a `\n` is no URL's. A value with no such
escape is returned as it is. Linear: one scan, a run of backslashes tried from its first
only.
"""

from __future__ import annotations

import re

from agent_cli.escaped_text import DEPTH

URL_PUNCTUATION = frozenset("/:@?#&=;\"'")
_NAMED = {
    "sol": "/",
    "colon": ":",
    "commat": "@",
    "quest": "?",
    "num": "#",
    "amp": "&",
    "equals": "=",
    "semi": ";",
    "quot": '"',
    "apos": "'",
}
_URL_ESCAPE = re.compile(
    rf"(?<!\\)\\{{1,{DEPTH}}}(?:(?P<plain>[/:@?#&=;\"'])|u(?P<unicode>00[0-9A-Fa-f]{{2}}))"
    rf"|&(?:#[Xx](?P<hex>0{{0,4}}[0-9A-Fa-f]{{1,2}})|#(?P<decimal>0{{0,4}}[0-9]{{1,2}})"
    rf"|(?P<named>{'|'.join(_NAMED)}));"
)


def read_url_escapes(value: str) -> str:
    """`value` with its escapes of URL punctuation read (module contract)."""
    if "\\" not in value and "&" not in value:
        return value
    return _URL_ESCAPE.sub(_read, value)


def _read(escape: re.Match[str]) -> str:
    """The character `escape` stands for when it is URL punctuation, else it as written."""
    plain, unicode, hex_code, decimal, named = escape.groups()
    if plain is not None:
        return str(plain)
    if named is not None:
        return _NAMED[named]
    if unicode is not None or hex_code is not None:
        character = chr(int(unicode or hex_code, 16))
    else:
        character = chr(int(decimal))
    return character if character in URL_PUNCTUATION else escape.group()
