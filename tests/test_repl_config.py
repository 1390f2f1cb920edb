"""Arguments and settings: flags beat the config file, the file beats built-in defaults,
and every bad value is one clear error naming the key and where it came from."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from agent_cli.compaction.policy import CompactionPolicy
from agent_cli.errors import ConfigError
from agent_cli.repl.args import ArgumentsExit, flag_settings, parse_args
from agent_cli.repl.config import (
    Settings,
    build_policy,
    check_config_values,
    load_config_file,
    resolve_settings,
)
from agent_cli.repl.error_text import describe_error


def parse(*argv: str):
    return parse_args(list(argv), stdout=io.StringIO(), stderr=io.StringIO())


def write_config(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "config.toml"
    path.write_text(text, encoding="utf-8")
    return path


# --- arguments -----------------------------------------------------------------------------


def test_flags_that_are_not_given_stay_unset_so_the_file_can_supply_them():
    args = parse()
    assert flag_settings(args) == {}
    assert args.resume is None and args.continue_latest is False and args.print_prompt is None


def test_setting_flags_are_keyed_like_the_config_file():
    args = parse("--provider", "offline", "--model", "m", "--soft-threshold", "3_000",
                 "--hard-limit", "4,000", "--keep-recent", "4", "--yes")  # fmt: skip
    assert flag_settings(args) == {
        "provider": "offline",
        "model": "m",
        "soft_threshold": 3_000,
        "hard_limit": 4_000,
        "keep_recent": 4,
        "yes": True,
    }


def test_resume_without_an_id_means_the_latest_and_with_an_id_that_session():
    assert parse("--resume").resume == ""
    assert parse("--resume", "20261202-1500-ab").resume == "20261202-1500-ab"
    assert parse("--continue").continue_latest is True


def test_resume_and_continue_cannot_be_combined():
    with pytest.raises(ArgumentsExit) as caught:
        parse("--resume", "x", "--continue")
    assert caught.value.code == 2


def test_a_bad_number_is_a_usage_error_naming_the_flag():
    stderr = io.StringIO()
    with pytest.raises(ArgumentsExit) as caught:
        parse_args(["--hard-limit", "lots"], stdout=io.StringIO(), stderr=stderr)
    assert caught.value.code == 2
    assert "--hard-limit" in stderr.getvalue() and "'lots'" in stderr.getvalue()


def test_a_zero_threshold_is_refused():
    with pytest.raises(ArgumentsExit):
        parse("--soft-threshold", "0")


def test_an_unknown_provider_is_refused():
    with pytest.raises(ArgumentsExit) as caught:
        parse("--provider", "gpt")
    assert caught.value.code == 2


def test_version_and_help_write_to_stdout_and_exit_zero():
    stdout = io.StringIO()
    with pytest.raises(ArgumentsExit) as caught:
        parse_args(["--version"], stdout=stdout, stderr=io.StringIO())
    assert caught.value.code == 0 and stdout.getvalue().startswith("agent-cli ")
    stdout = io.StringIO()
    with pytest.raises(ArgumentsExit):
        parse_args(["--help"], stdout=stdout, stderr=io.StringIO())
    assert "--soft-threshold" in stdout.getvalue() and "--resume" in stdout.getvalue()


def test_help_readme_and_policy_agree_on_the_low_water_default():
    stdout = io.StringIO()
    with pytest.raises(ArgumentsExit):
        parse_args(["--help"], stdout=stdout, stderr=io.StringIO())
    said = "halfway between what every request carries besides the conversation"
    assert said in " ".join(stdout.getvalue().split())
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    assert f"mark sits {said}" in " ".join(readme.split())
    # and that is what the policy does: a 1,000-token fixed part, a 3,000 soft threshold
    assert CompactionPolicy(soft_threshold=3_000).low_water_mark_over(1_000) == 2_000


# --- config file ---------------------------------------------------------------------------


def test_a_missing_config_file_is_an_empty_one(tmp_path):
    assert load_config_file(tmp_path / "absent.toml") == {}


def test_every_known_key_is_read_from_the_file(tmp_path):
    path = write_config(
        tmp_path,
        'provider = "offline"\nmodel = "m"\nsoft_threshold = 3000\nhard_limit = 4000\n'
        "keep_recent = 5\nmax_tool_result_tokens = 300\nsummary_keep_recent = 2\nyes = true\n",
    )
    values = load_config_file(path)
    assert values["soft_threshold"] == 3000 and values["yes"] is True


def test_flags_beat_the_file_and_the_file_beats_defaults(tmp_path):
    path = write_config(tmp_path, "soft_threshold = 3000\nhard_limit = 5000\nyes = true\n")
    args = parse("--soft-threshold", "2500")
    settings = resolve_settings(flag_settings(args), load_config_file(path), path)
    assert settings.soft_threshold == 2500
    assert settings.hard_limit == 5000
    assert settings.yes is True
    assert settings.keep_recent is None  # left to CompactionPolicy's own default
    assert settings.origins == {
        "soft_threshold": "--soft-threshold",
        "hard_limit": str(path),
        "yes": str(path),
    }


def test_an_unknown_key_names_the_key_and_the_file(tmp_path):
    path = write_config(tmp_path, "soft_treshold = 1000\n")
    with pytest.raises(ConfigError) as caught:
        load_config_file(path)
    assert caught.value.key == "soft_treshold"
    assert caught.value.source == str(path)
    line = describe_error(caught.value)
    assert "soft_treshold" in line and str(path) in line and "unknown key" in line


@pytest.mark.parametrize(
    ("text", "key", "reason_part"),
    [
        ('hard_limit = "lots"', "hard_limit", "must be a whole number, got a string"),
        ("hard_limit = true", "hard_limit", "must be a whole number, got a boolean"),
        ("keep_recent = 2.5", "keep_recent", "got a decimal number"),
        ("soft_threshold = 0", "soft_threshold", "at least 2,000, got 0"),
        ("hard_limit = 0", "hard_limit", "at least 1, got 0"),
        ('provider = "gpt"', "provider", "must be one of anthropic, offline"),
        ('model = "  "', "model", "must not be empty"),
        ('yes = "sure"', "yes", "must be true or false"),
    ],
)
def test_a_bad_value_names_its_key_and_why(tmp_path, text, key, reason_part):
    path = write_config(tmp_path, text + "\n")
    with pytest.raises(ConfigError) as caught:
        load_config_file(path)
    assert caught.value.key == key
    assert reason_part in caught.value.reason


def test_a_file_that_is_not_toml_says_so_with_the_line(tmp_path):
    path = write_config(tmp_path, "soft_threshold = = 3\n")
    with pytest.raises(ConfigError) as caught:
        load_config_file(path)
    assert "not valid TOML" in caught.value.reason and "line 1" in caught.value.reason


@pytest.mark.parametrize(
    "value",
    ["[" * 5000 + "]" * 5000, "{ b = " * 5000 + "1" + " }" * 5000],
    ids=["arrays", "inline-tables"],
)
def test_a_file_nested_deeper_than_the_parser_follows_is_a_config_error(tmp_path, value):
    path = write_config(tmp_path, f"a = {value}\n")
    with pytest.raises(ConfigError) as caught:
        load_config_file(path)
    assert "not valid TOML" in caught.value.reason and "nest too deeply" in caught.value.reason
    assert caught.value.source == str(path)


def test_check_config_values_accepts_good_values():
    assert check_config_values({"hard_limit": 10}, source="x") == {"hard_limit": 10}


# --- policy ---------------------------------------------------------------------------------


def test_policy_gets_only_the_settings_the_user_gave():
    policy = build_policy(Settings(soft_threshold=1_000, keep_recent=3))
    defaults = CompactionPolicy()
    assert policy.soft_threshold == 1_000
    assert policy.keep_recent_messages == 3
    assert policy.hard_limit == defaults.hard_limit


def test_an_inconsistent_policy_becomes_a_config_error_naming_the_flag():
    settings = resolve_settings({"soft_threshold": 500_000}, {}, "config.toml")
    with pytest.raises(ConfigError) as caught:
        build_policy(settings)
    assert caught.value.key == "soft_threshold"
    assert caught.value.source == "--soft-threshold"
    assert describe_error(caught.value) == (
        "config error: soft_threshold (from --soft-threshold): the soft threshold 500,000 "
        "must be below the hard limit 120,000 (built-in default); lower --soft-threshold "
        "below 120,000 or raise --hard-limit"
    )


def test_a_policy_error_on_a_renamed_field_names_the_config_key():
    settings = resolve_settings({"keep_recent": 0}, {}, "config.toml")
    with pytest.raises(ConfigError) as caught:
        build_policy(settings)
    assert caught.value.key == "keep_recent"  # the policy calls it keep_recent_messages
    assert caught.value.source == "--keep-recent"


def test_the_low_water_mark_comes_from_the_flag_or_the_file_and_reaches_the_policy(tmp_path):
    assert flag_settings(parse("--low-water", "9,000")) == {"low_water": 9_000}
    path = write_config(tmp_path, "soft_threshold = 20000\nhard_limit = 60000\nlow_water = 7000\n")
    settings = resolve_settings({}, load_config_file(path), path)
    policy = build_policy(settings)
    assert (policy.low_water, policy.low_water_mark) == (7_000, 7_000)


def test_a_low_water_mark_at_or_over_the_soft_threshold_is_a_config_error_naming_the_flag():
    settings = resolve_settings({"soft_threshold": 1_000, "low_water": 1_000}, {}, "config.toml")
    with pytest.raises(ConfigError) as caught:
        build_policy(settings)
    assert (caught.value.key, caught.value.source) == ("low_water", "--low-water")
    assert describe_error(caught.value) == (
        "config error: low_water (from --low-water): the low-water mark 1,000 must be below "
        "the soft threshold 1,000 (--soft-threshold); lower --low-water below 1,000 or raise "
        "--soft-threshold above 1,000"
    )


def test_a_low_water_mark_over_the_built_in_soft_threshold_names_both_values_and_the_fix():
    """Twenty-second tester: `--low-water 99999` said only that it must be below
    soft_threshold, without the numbers or the fix."""
    settings = resolve_settings({"low_water": 99_999}, {}, "config.toml")
    with pytest.raises(ConfigError) as caught:
        build_policy(settings)
    assert describe_error(caught.value) == (
        "config error: low_water (from --low-water): the low-water mark 99,999 must be below "
        "the soft threshold 80,000 (built-in default); lower --low-water below 80,000 or "
        "raise --soft-threshold above 99,999"
    )


def test_a_low_water_mark_past_the_hard_limit_in_the_file_says_to_raise_both(tmp_path):
    path = write_config(tmp_path, "low_water = 90000\n")
    flags = {"soft_threshold": 5_000, "hard_limit": 9_000}
    with pytest.raises(ConfigError) as caught:
        build_policy(resolve_settings(flags, load_config_file(path), path))
    assert describe_error(caught.value) == (
        f"config error: low_water (from {path}): the low-water mark 90,000 must be below the "
        "soft threshold 5,000 (--soft-threshold); lower low_water below 5,000 or raise "
        "soft_threshold above 90,000 (and hard_limit, now 9,000, above that)"
    )


def test_the_offline_demo_fills_only_the_thresholds_left_unset():
    from agent_cli.repl.config import uses_demo_soft_threshold, with_demo_thresholds

    demo = with_demo_thresholds(Settings())
    policy = build_policy(demo)
    assert (policy.soft_threshold, policy.hard_limit, policy.keep_recent_messages) == (
        3_200,
        60_000,
        4,
    )
    assert (policy.max_tool_result_tokens, policy.summary_keep_recent) == (280, 6)
    assert uses_demo_soft_threshold(demo)

    flags = resolve_settings({"soft_threshold": 9_000}, {"keep_recent": 7}, "/c.toml")
    mixed = build_policy(with_demo_thresholds(flags))
    assert (mixed.soft_threshold, mixed.hard_limit, mixed.keep_recent_messages) == (
        9_000,
        60_000,
        7,
    )
    # thirteenth attack: a soft threshold of the user's is no demo threshold, whatever
    # else the demo fills in (the banner called `--soft-threshold 100` the demo's)
    assert not uses_demo_soft_threshold(with_demo_thresholds(flags))
    built_in = CompactionPolicy()  # tuned to the demo's soft threshold, not to the user's
    assert (mixed.max_tool_result_tokens, mixed.summary_keep_recent) == (
        built_in.max_tool_result_tokens,
        built_in.summary_keep_recent,
    )
    # a soft threshold above the demo hard limit keeps the built-in hard limit
    high = build_policy(with_demo_thresholds(resolve_settings({"soft_threshold": 90_000}, {}, "")))
    assert (high.soft_threshold, high.hard_limit) == (90_000, CompactionPolicy().hard_limit)
    every = resolve_settings({"soft_threshold": 1, "hard_limit": 2, "keep_recent": 3}, {}, "")
    assert not uses_demo_soft_threshold(with_demo_thresholds(every))


def test_a_hard_limit_under_the_soft_threshold_names_both_values_and_their_origins():
    settings = resolve_settings({"hard_limit": 10}, {}, "/c.toml")
    with pytest.raises(ConfigError) as raised:
        build_policy(settings)
    assert describe_error(raised.value) == (
        "config error: hard_limit (from --hard-limit): the hard limit 10 must be above the "
        "soft threshold 80,000 (built-in default); raise --hard-limit above 80,000 or lower "
        "--soft-threshold"
    )


def test_an_unknown_key_close_to_a_known_one_gets_a_did_you_mean(tmp_path):
    path = write_config(tmp_path, "soft_treshold = 1000\n")
    with pytest.raises(ConfigError) as caught:
        load_config_file(path)
    assert "unknown key; did you mean soft_threshold? (known keys: " in describe_error(caught.value)
    path = write_config(tmp_path, "colour = 1\n")
    with pytest.raises(ConfigError) as caught:
        load_config_file(path)
    assert "did you mean" not in describe_error(caught.value)


def test_thresholds_out_of_order_in_the_config_file_name_the_keys_not_the_flags(tmp_path):
    path = write_config(tmp_path, "soft_threshold = 5000\nhard_limit = 4000\n")
    settings = resolve_settings({}, load_config_file(path), path)
    with pytest.raises(ConfigError) as raised:
        build_policy(settings)
    said = describe_error(raised.value)
    assert said == (
        f"config error: hard_limit (from {path}): the hard limit 4,000 must be above the "
        f"soft threshold 5,000 ({path}); raise hard_limit above 5,000 or lower soft_threshold"
    )
    assert "--" not in said
    path = write_config(tmp_path, "soft_threshold = 500000\n")
    with pytest.raises(ConfigError) as raised:
        build_policy(resolve_settings({}, load_config_file(path), path))
    assert describe_error(raised.value).endswith(
        "lower soft_threshold below 120,000 or raise hard_limit"
    )


def test_a_config_file_saved_with_a_byte_order_mark_is_read(tmp_path: Path):
    """Twelfth attack: Notepad's UTF-8 starts with an invisible mark, and the file was
    refused as 'not valid TOML (at line 1, column 1)' with nothing to see there."""
    path = tmp_path / "config.toml"
    path.write_bytes(b"\xef\xbb\xbfsoft_threshold = 9000\n")
    assert load_config_file(path)["soft_threshold"] == 9000


def test_a_config_file_far_larger_than_any_settings_is_refused_unread(tmp_path: Path):
    """An outside tester's 200 MB config.toml (one comment line) took 1.8 s and 600 MB to
    read at start: a file over a MiB is the wrong file, said so before it is parsed."""
    from agent_cli.repl.config import MAX_CONFIG_BYTES

    path = tmp_path / "config.toml"
    path.write_bytes(b"# " + b"x" * MAX_CONFIG_BYTES + b"\n")
    with pytest.raises(ConfigError) as raised:
        load_config_file(path)
    assert describe_error(raised.value) == (
        f"config error: config file (from {path}): is over 1 MiB, far more than any "
        "settings; check the path"
    )
    path.write_bytes(b"# " + b"x" * (MAX_CONFIG_BYTES - 100) + b"\nsoft_threshold = 9000\n")
    assert load_config_file(path)["soft_threshold"] == 9000
