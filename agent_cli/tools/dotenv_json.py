"""What a dotenv file written as JSON assigns (`.env.json`, env-cmd's `.env-cmdrc`). Pure.

Tools that read `.env.json` (`dotenv-json`, `env-cmd`) take a JSON object of names and
values, flat or one object per environment; App Service, ECS and Kubernetes write a
list of `{"name": ..., "value": ...}` objects. The line reader (`tools.dotenv_syntax`)
sees no `NAME=value` in it, so without this its keys would go out unredacted.

Contract: `json_pairs(text)` gives, for a text whose first character past blanks and
comments is `{` or `[`, a `(name, value)` pair for every string or number its JSON holds
at any depth. The JSON is read as JSONC (`tools.jsonc`: comments and trailing commas
taken out); a text no parser takes then (a file cut short, nested past the parser,
JSON5's bare keys) is read token by token (`tools.json_events.scanned_events`), keeping
under which keys each value stands; the `"key": "value"` pairs written in comments are
read too. A value is named:
- in an object that has a name member (`name`, `key`, `parameterKey`, any case) and a
  value member (`value`, `parameterValue`), the value member by the name member's text,
  which is then no value of its own (`{"name": "GITHUB_TOKEN", "value": "..."}`);
- by its own key when that key is credential-named (`tools.credential_names`), or when no
  key above it is: an array's item, which has no key, by the array's;
- under a credential-named key (`auth`, `secrets`, `tokens`, `credentials`), by that key
  only when it looks like a key (`_is_key_like`: its own key, if any, is no setting's
  word such as `url`, `host`, `region`, `audience`, `header`, `callback...`, `...Age`,
  `...Timeout`; the value is at least `MIN_SECRET_CHARS` long, holds no blank and no
  `://`, is no number, and is not words and numbers joined by `-_.:/@+,` each in one
  case or capitalized, as `us-east-1`, `primary-500`, `arn:aws:...`, `Authorization`
  are), so `{"credentials": {"github": "ghp_..."}}` is one and `{"auth": {"audience":
  "https://..."}}` none; otherwise by its own key, by the array's key when that is no
  credential's, or else `UNNAMED`, a name no rule takes for a credential's (its value is
  still searched for credentials inside it, as every value is).
Empty strings, `true`, `false` and `null` give none, and neither does any other text.
Never raises.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from agent_cli.secret_forms import MIN_SECRET_CHARS
from agent_cli.tools.credential_names import is_credential_name, name_parts, names_passwords
from agent_cli.tools.json_events import (
    CLOSE,
    OPEN,
    JsonEvent,
    document_events,
    scanned_events,
)
from agent_cli.tools.jsonc import split_jsonc

UNNAMED = "json value"
NAME_MEMBERS = frozenset({"name", "key", "parameterkey"})
VALUE_MEMBERS = frozenset({"value", "parametervalue"})
# The words of a key whose value is a setting, not a secret, under a credential-named key.
SETTING_KEY_WORDS = frozenset(
    {
        *("URL", "URLS", "URI", "URIS", "ENDPOINT", "ENDPOINTS", "HOST", "HOSTS"),
        *("HOSTNAME", "PORT", "DOMAIN", "DOMAINS", "PATH", "PATHS", "FILE", "FILES"),
        *("REGION", "ZONE", "AUDIENCE", "ISSUER", "HEADER", "HEADERS", "CALLBACK"),
        *("REDIRECT", "AGE", "TIMEOUT", "TTL", "EXPIRY", "EXPIRES", "EXPIRATION"),
        *("LIFETIME", "ALGORITHM", "ALG", "PROVIDER", "TYPE", "KIND", "MODE"),
        *("SCOPE", "SCOPES", "VERSION", "FORMAT"),
    }
)
_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
# Words of one case or capitalized and numbers, joined: a setting's shape, not a key's.
_WORDS = re.compile(r"(?:[A-Z]?[a-z]+|[A-Z]+|\d+)(?:[-_.:/@+,]+(?:[A-Z]?[a-z]+|[A-Z]+|\d+))*")


@dataclass(slots=True)
class _Open:
    """An object or array open in the walk: the key naming its items (its own, or for an
    array in an array the outer one's), the nearest credential-named key at or above it,
    and an object's name and value members, held until it closes."""

    name: str | None
    credential_key: str | None
    held: list[tuple[bool, str, str]] | None = None  # (a name member?, key, text)


def json_pairs(text: str) -> Iterator[tuple[str, str]]:
    """The names and values a JSON dotenv text assigns (module contract)."""
    if not text.lstrip().startswith(("{", "[", "/")):
        return
    json_text, comments = split_jsonc(text)
    if not json_text.lstrip().startswith(("{", "[")):
        return
    try:
        events: Iterable[JsonEvent] = document_events(json.loads(json_text))
    except (ValueError, RecursionError):
        events = scanned_events(json_text)
    yield from _named(events)
    yield from _named(scanned_events(comments))


def _named(events: Iterable[JsonEvent]) -> Iterator[tuple[str, str]]:
    """Each value of `events` with its name (module contract), walked with a stack of
    its own; what is still open at the end is closed."""
    stack: list[_Open] = []
    for event in events:
        if event.kind == OPEN:
            stack.append(_opened(stack[-1] if stack else None, event.key))
        elif event.kind == CLOSE:
            if stack and (done := stack.pop()).held:
                yield from _closed(done)
        elif stack and event.key is not None and _is_member(event.key):
            if stack[-1].held is None:
                stack[-1].held = []
            stack[-1].held.append((event.key.lower() in NAME_MEMBERS, event.key, event.text))
        else:
            yield from _name(stack[-1] if stack else None, event.key, event.text)
    while stack:
        if (done := stack.pop()).held:
            yield from _closed(done)


def _opened(outer: _Open | None, key: str | None) -> _Open:
    name = key if key is not None else (outer.name if outer else None)
    above = outer.credential_key if outer else None
    return _Open(name, name if name is not None and is_credential_name(name) else above)


def _closed(done: _Open) -> Iterator[tuple[str, str]]:
    """A closed object's held members: its value members named by its first name
    member's text, when it has both; else each by its own key."""
    held = done.held or []
    labels = [text for is_name, _, text in held if is_name]
    if labels and len(labels) < len(held):
        for is_name, _, text in held:
            if not is_name:
                yield from _name(done, labels[0], text)
        return
    for _, key, text in held:
        yield from _name(done, key, text)


def _is_member(key: str) -> bool:
    """A name or value member's key (`NAME_MEMBERS`, `VALUE_MEMBERS`), in any case."""
    return key.lower() in NAME_MEMBERS or key.lower() in VALUE_MEMBERS


def _name(where: _Open | None, key: str | None, value: str) -> Iterator[tuple[str, str]]:
    """`value`, under `key` (`None` for an array's item) in `where`, with its name."""
    own = key if key is not None else (where.name if where else None)
    above = where.credential_key if where else None
    if above is None:
        if own is not None:
            yield own, value
    elif key is not None and is_credential_name(key):
        yield key, value
    elif key is None and own is not None and names_passwords(own):
        yield own, value  # a list of passwords: each one, whatever it looks like
    elif _is_key_like(key, value):
        yield above, value
    else:
        yield (own if own is not None and not is_credential_name(own) else UNNAMED), value


def _is_key_like(key: str | None, value: str) -> bool:
    """Whether a value under a credential-named key, under its own `key` (`None` for an
    array's item), looks like a key rather than a setting (module contract)."""
    if key is not None and SETTING_KEY_WORDS.intersection(name_parts(key).split("_")):
        return False
    if len(value) < MIN_SECRET_CHARS or "://" in value or any(c.isspace() for c in value):
        return False
    return not (_NUMBER.fullmatch(value) or _WORDS.fullmatch(value))
