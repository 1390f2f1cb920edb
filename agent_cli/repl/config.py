"""Settings: flags, then the TOML config file, then built-in defaults.

Contract: `load_config_file(path)` reads and checks the file (a missing file is an empty
one); `resolve_settings(flags, file_values, config_path)` merges them into a frozen
`Settings`; `build_policy(settings)` turns its thresholds into a `CompactionPolicy`.
Every bad value, unknown key or inconsistent policy raises `ConfigError` naming the key
and where the value came from (the file's path or the flag), so the REPL can print one
line that says what to fix. Compaction defaults are owned by `CompactionPolicy`; this
module only passes on what the user set.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent_cli.errors import ConfigError, PolicyError
from agent_cli.models import MODEL_ID_WORDS, is_model_id
from agent_cli.repl.args import PROVIDER_CHOICES, SETTING_FLAGS, soft_threshold_problem

# Config-file key -> the type its value must have.
CONFIG_KEYS: dict[str, type] = {
    "provider": str,
    "model": str,
    "soft_threshold": int,
    "hard_limit": int,
    "low_water": int,
    "keep_recent": int,
    "max_tool_result_tokens": int,
    "summary_keep_recent": int,
    "yes": bool,
    "mcp_servers": dict,  # [mcp_servers.<name>] tables: `mcp_servers.settings`
}
# Config key -> CompactionPolicy field, for the keys that tune compaction.
POLICY_FIELDS = {
    "soft_threshold": "soft_threshold",
    "hard_limit": "hard_limit",
    "low_water": "low_water",
    "max_tool_result_tokens": "max_tool_result_tokens",
    "keep_recent": "keep_recent_messages",
    "summary_keep_recent": "summary_keep_recent",
}
BUILT_IN = "built-in default"
MAX_CONFIG_BYTES = 2**20  # a settings file is a few lines; a bigger one is the wrong file
# On the offline demo model, settings small enough that the README's sequence (read
# README.md, docs/architecture.md, docs/reliability.md, README.md again) shows every layer
# fire (the built-in 80k would never be reached in a demo). Flags and the config file
# still win, key by key. How: each read is cut by L1 to 280 tokens, and with the ~1,800
# tokens every request carries, three cut reads stay under the soft threshold, so the
# first three compactions stop after L1 (the cut result is the newest: no cache lost).
# The fourth read goes over it even once cut, so the run goes on: L2 drops the first
# README read, L4 summarizes all but the last 6 messages, and L3 keeps the last 4. The
# cut size leaves room both ways (about 100 tokens under the soft threshold after three
# reads, 240 over it after the fourth, on this repository's docs): at 300 the third read
# ended within 30 tokens of it, and a docs edit of a few tokens made L4 fire a read early.
# MCP servers' tool schemas, project instructions and durable facts would eat into that
# room, so with the demo's soft threshold the thresholds are measured above them
# (`Session.measure_thresholds_above_added_context`).
DEMO_THRESHOLDS = {
    "soft_threshold": 3_200,
    "hard_limit": 60_000,
    "keep_recent": 4,
    "max_tool_result_tokens": 280,
    "summary_keep_recent": 6,
}
DEMO_TUNED_TO_SOFT = ("max_tool_result_tokens", "summary_keep_recent")
DEMO_ORIGIN = "offline demo default"


@dataclass(frozen=True)
class Settings:
    """The merged settings of one run. `None` means "the owner's default".

    `provider=None` means anthropic when ANTHROPIC_API_KEY is set, else offline.
    `origins` maps each key that was set to where it came from (flag or file path).
    """

    provider: str | None = None
    model: str | None = None
    soft_threshold: int | None = None
    hard_limit: int | None = None
    low_water: int | None = None
    keep_recent: int | None = None
    max_tool_result_tokens: int | None = None
    summary_keep_recent: int | None = None
    yes: bool = False
    mcp_servers: tuple[Any, ...] = ()  # `McpServerSettings`, from config.toml only
    origins: Mapping[str, str] = field(default_factory=dict)

    def policy_overrides(self) -> dict[str, Any]:
        """CompactionPolicy keyword arguments for every compaction setting that was set."""
        values = {key: getattr(self, key) for key in POLICY_FIELDS}
        return {POLICY_FIELDS[key]: value for key, value in values.items() if value is not None}


def load_config_file(path: Path) -> dict[str, Any]:
    """The checked contents of the config file at `path`; `{}` when there is none.

    A UTF-8 byte-order mark at its start is skipped. Every file that cannot be read as
    settings (not UTF-8, not TOML, nested deeper than the parser can follow, a bad key or
    value) raises `ConfigError`, never anything else."""
    raw = _read_config_bytes(path)
    if raw is None:
        return {}
    import tomllib  # here, not at the top: most starts have no file, and it costs time

    try:
        values = tomllib.loads(raw.decode("utf-8-sig"))  # a byte-order mark, as Notepad saves
    except UnicodeDecodeError:
        raise ConfigError("config file", "is not UTF-8 text", source=str(path)) from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError("config file", f"is not valid TOML ({exc})", source=str(path)) from None
    except RecursionError:  # tomllib reads nested arrays and tables by recursion
        reason = "is not valid TOML (its arrays or tables nest too deeply to read)"
        raise ConfigError("config file", reason, source=str(path)) from None
    return check_config_values(values, source=str(path))


def _read_config_bytes(path: Path) -> bytes | None:
    """The file's bytes, None when there is none; a FIFO or folder there is refused
    without being waited on or opened for real (it would hang the start), and a file over
    `MAX_CONFIG_BYTES` is refused after reading no more than that."""
    from agent_cli.errors import StoreFileNotRegular
    from agent_cli.store.fsutil import open_regular_file

    try:
        with open(open_regular_file(path, os.O_RDONLY, follow_links=True), "rb") as handle:
            raw = handle.read(MAX_CONFIG_BYTES + 1)
    except FileNotFoundError:
        return None
    except StoreFileNotRegular as refused:
        reason = f"is not a regular file ({refused.kind}); move it out of the way"
        raise ConfigError("config file", reason, source=str(path)) from None
    except OSError as exc:
        raise ConfigError(
            "config file", f"cannot be read ({exc.strerror})", source=str(path)
        ) from None
    if len(raw) > MAX_CONFIG_BYTES:
        reason = (
            f"is over {MAX_CONFIG_BYTES // 2**20} MiB, far more than any settings; check the path"
        )
        raise ConfigError("config file", reason, source=str(path))
    return raw


def check_config_values(values: Mapping[str, Any], *, source: str) -> dict[str, Any]:
    """`values` if every key is known and every value has the right type and range; the
    `mcp_servers` tables come back parsed (`McpServerSettings`, sorted by name)."""
    checked = dict(values)
    for key, value in values.items():
        expected = CONFIG_KEYS.get(key)
        if expected is None:
            raise ConfigError(key, _unknown_key_reason(key), source=source)
        if key == "mcp_servers":
            from agent_cli.mcp_servers.settings import parse_mcp_servers

            checked[key] = parse_mcp_servers(value, source)
            continue
        reason = _value_problem(key, value, expected)
        if reason:
            raise ConfigError(key, reason, source=source)
    return checked


def _unknown_key_reason(key: str) -> str:
    """Names the closest known key when one is close (a typo), and every known key."""
    import difflib

    known = ", ".join(CONFIG_KEYS)
    closest = difflib.get_close_matches(str(key), CONFIG_KEYS, n=1)
    guess = f"; did you mean {closest[0]}?" if closest else ""
    return f"unknown key{guess} (known keys: {known})"


def _value_problem(key: str, value: Any, expected: type) -> str | None:
    """Why `value` is not acceptable for `key`, or None when it is."""
    # bool is a subclass of int in Python; a threshold of `true` is a mistake.
    if not isinstance(value, expected) or (expected is int and isinstance(value, bool)):
        return f"must be {_type_words(expected)}, got {_toml_type(value)}"
    if key == "provider" and value not in PROVIDER_CHOICES:
        return f"must be one of {', '.join(PROVIDER_CHOICES)}, got {str(value)[:40]!r}"
    if key == "model" and not str(value).strip():
        return "must not be empty"
    if key == "model" and not is_model_id(str(value).strip()):
        return f"must be a model id ({MODEL_ID_WORDS})"
    # a key's own minimum first: "at least 1" would send a user to a second refusal
    if key == "soft_threshold" and isinstance(value, int):
        return soft_threshold_problem(value)
    if key == "max_tool_result_tokens" and isinstance(value, int):
        return _result_budget_problem(value)
    if isinstance(value, int) and not isinstance(value, bool) and value < 1:
        return f"must be at least 1, got {value}"
    return None


def _result_budget_problem(value: int) -> str | None:
    """Why `value` is too small a per-result budget, or None: a cut result keeps a head,
    the cut's marker and a tail, and under `MIN_SHARED_RESULT_TOKENS` the marker alone
    would be left, so the model would see none of any large result."""
    from agent_cli.compaction.layers.truncate import MIN_SHARED_RESULT_TOKENS

    if value >= MIN_SHARED_RESULT_TOKENS:
        return None
    return (
        f"must be at least {MIN_SHARED_RESULT_TOKENS}, got {value:,} (a cut result keeps "
        "its head, a note of what was cut and its tail; less would leave only the note)"
    )


def _type_words(expected: type) -> str:
    return {int: "a whole number", str: "a string", bool: "true or false"}[expected]


def _toml_type(value: Any) -> str:
    names = {
        bool: "a boolean",
        int: "a whole number",
        float: "a decimal number",
        str: "a string",
        list: "an array",
        dict: "a table",
    }
    return next(
        (words for kind, words in names.items() if type(value) is kind), type(value).__name__
    )


def resolve_settings(
    flags: Mapping[str, Any], file_values: Mapping[str, Any], config_path: Path | str
) -> Settings:
    """Merge flag values over config-file values; see the module contract."""
    merged: dict[str, Any] = {}
    origins: dict[str, str] = {}
    for key, value in file_values.items():
        merged[key], origins[key] = value, str(config_path)
    for key, value in flags.items():
        merged[key], origins[key] = value, SETTING_FLAGS.get(key, key)
    return Settings(**merged, origins=origins)


def with_demo_thresholds(settings: Settings) -> Settings:
    """`settings` with `DEMO_THRESHOLDS` for every threshold the user left unset (only
    for the offline model; the caller decides that). A user's soft threshold above the
    demo hard limit takes the built-in hard limit instead, so the pair stays valid; with
    a soft threshold of the user's, the cut and summary settings tuned to the demo's
    (`DEMO_TUNED_TO_SOFT`) are not applied either."""
    import dataclasses

    values: dict[str, Any] = {
        key: value for key, value in DEMO_THRESHOLDS.items() if getattr(settings, key) is None
    }
    if "hard_limit" in values and (settings.soft_threshold or 0) >= values["hard_limit"]:
        del values["hard_limit"]
    if settings.soft_threshold is not None:  # the cut and the summary's window are tuned
        for key in DEMO_TUNED_TO_SOFT:  # to the demo's soft threshold, not the user's
            values.pop(key, None)
    origins = {**settings.origins, **dict.fromkeys(values, DEMO_ORIGIN)}
    return dataclasses.replace(settings, **values, origins=origins)


def uses_demo_soft_threshold(settings: Settings) -> bool:
    """True when the soft threshold is the demo's (not a flag's or the config file's):
    then the banner calls the thresholds the demo's, and it is measured above what MCP
    tool schemas add (`DEMO_THRESHOLDS`). A soft threshold the user set is theirs, whatever
    other demo values fill in."""
    return settings.origins.get("soft_threshold") == DEMO_ORIGIN


def build_policy(settings: Settings) -> Any:
    """The CompactionPolicy for `settings`; an inconsistent one raises `ConfigError`."""
    from agent_cli.compaction import CompactionPolicy

    overrides = settings.policy_overrides()
    try:
        return CompactionPolicy(**overrides)
    except PolicyError as exc:
        if exc.field == "soft_threshold" and "hard_limit" in exc.reason:
            raise _thresholds_out_of_order(settings, CompactionPolicy) from None
        if exc.field == "low_water" and "soft_threshold" in exc.reason:
            raise _low_water_not_below_soft(settings, CompactionPolicy) from None
        key = _config_key_for_policy_field(exc.field)
        raise ConfigError(key, exc.reason, source=settings.origins.get(key, BUILT_IN)) from None


def _thresholds_out_of_order(settings: Settings, policy_type: Any) -> ConfigError:
    """Soft at or over hard: name both values and where each came from, keyed on the one
    the user set (the hard limit when both were)."""
    defaults = policy_type.__dataclass_fields__
    soft = settings.soft_threshold or defaults["soft_threshold"].default
    hard = settings.hard_limit or defaults["hard_limit"].default
    soft_origin = settings.origins.get("soft_threshold", BUILT_IN)
    hard_origin = settings.origins.get("hard_limit", BUILT_IN)
    if hard_origin in (BUILT_IN, DEMO_ORIGIN):
        soft_name, hard_name = _setting_names(soft_origin, "soft_threshold", "hard_limit")
        reason = (
            f"the soft threshold {soft:,} must be below the hard limit {hard:,} "
            f"({hard_origin}); lower {soft_name} below {hard:,} or raise {hard_name}"
        )
        return ConfigError("soft_threshold", reason, source=soft_origin)
    hard_name, soft_name = _setting_names(hard_origin, "hard_limit", "soft_threshold")
    reason = (
        f"the hard limit {hard:,} must be above the soft threshold {soft:,} "
        f"({soft_origin}); raise {hard_name} above {soft:,} or lower {soft_name}"
    )
    return ConfigError("hard_limit", reason, source=hard_origin)


def _low_water_not_below_soft(settings: Settings, policy_type: Any) -> ConfigError:
    """Low-water at or over the soft threshold: name both values, where the soft threshold
    came from, and what to change (in the words of where the low-water mark was set)."""
    soft = settings.soft_threshold or policy_type.__dataclass_fields__["soft_threshold"].default
    low = settings.low_water or 0
    low_origin = settings.origins.get("low_water", BUILT_IN)
    soft_origin = settings.origins.get("soft_threshold", BUILT_IN)
    hard = settings.hard_limit or policy_type.__dataclass_fields__["hard_limit"].default
    names = _setting_names(low_origin, "low_water", "soft_threshold", "hard_limit")
    low_name, soft_name, hard_name = names
    hard_too = f" (and {hard_name}, now {hard:,}, above that)" if low + 1 >= hard else ""
    reason = (
        f"the low-water mark {low:,} must be below the soft threshold {soft:,} "
        f"({soft_origin}); lower {low_name} below {soft:,} or raise {soft_name} above "
        f"{low:,}{hard_too}"
    )
    return ConfigError("low_water", reason, source=low_origin)


def _setting_names(origin: str, *keys: str) -> list[str]:
    """How the user changes `keys`, in the language of `origin` (where the value being
    complained about came from): config keys for a value from the config file, flags
    for one from a flag or a default."""
    from_flag_or_default = origin in (BUILT_IN, DEMO_ORIGIN) or origin.startswith("--")
    return [SETTING_FLAGS.get(key, key) if from_flag_or_default else key for key in keys]


def _config_key_for_policy_field(policy_field: str) -> str:
    return next((key for key, name in POLICY_FIELDS.items() if name == policy_field), policy_field)
