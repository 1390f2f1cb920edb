"""Command-line arguments of `agent-cli`.

Contract: `parse_args(argv, stdout=..., stderr=...)` returns the parsed namespace or
raises `ArgumentsExit` with the exit code argparse chose (0 after `--help`/`--version`,
2 after a usage error), having written its text to the given streams. Only the standard
library is imported, so `--help` and `--version` answer before anything heavy loads.

Settings a flag leaves unset stay `None`, so the config file can supply them (see
`config.resolve_settings`: flags beat the file, the file beats built-in defaults).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any, NoReturn, TextIO

from agent_cli import __version__
from agent_cli.models import MODEL_ID_WORDS, is_model_id

PROVIDER_CHOICES = ("anthropic", "offline")

# Flag name of every setting a flag can carry (used to say where a bad value came from).
SETTING_FLAGS = {
    "provider": "--provider",
    "model": "--model",
    "soft_threshold": "--soft-threshold",
    "hard_limit": "--hard-limit",
    "low_water": "--low-water",
    "keep_recent": "--keep-recent",
    "yes": "--yes",
}

DESCRIPTION = (
    "An interactive terminal agent that keeps long sessions inside the model's context "
    "window: it compacts the prompt view before each request and never loses the "
    "transcript. Without ANTHROPIC_API_KEY it runs on an offline demo model."
)
EPILOG = (
    "Defaults can be set in config.toml (in AGENT_CLI_HOME when set, else the platform "
    "config folder for agent-cli); flags beat the file. At the prompt, /help lists "
    "commands and `stats` shows where the tokens go."
)


class ArgumentsExit(Exception):
    """argparse finished the run (help, version or a usage error); `code` is the exit code."""

    def __init__(self, code: int) -> None:
        self.code = code
        super().__init__(code)


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser that writes to given streams and raises instead of exiting."""

    def __init__(self, *, stdout: TextIO, stderr: TextIO, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._stdout = stdout
        self._stderr = stderr

    def _print_message(self, message: str, file: Any = None) -> None:
        if message:
            target = self._stderr if file is sys.stderr else self._stdout
            target.write(message)

    def exit(self, status: int = 0, message: str | None = None) -> NoReturn:
        if message:
            self._stderr.write(message)
        raise ArgumentsExit(status)


def whole_number(text: str) -> int:
    """An argparse type: a whole number (`_` and `,` as digit separators)."""
    try:
        return int(text.replace("_", "").replace(",", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None


def positive_int(text: str) -> int:
    """An argparse type: a whole number of at least 1 (thresholds and counts)."""
    value = whole_number(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


# The smallest soft threshold a user may set (flag or config.toml): the system prompt and
# the built-in tools' schemas alone take about 1,900 tokens of every request, and a
# message over a quarter of the threshold is stored as an artifact, so at `1` every
# message was "large" and every request over the threshold (an outside attack). Tests
# build smaller policies directly; `CompactionPolicy` itself takes any positive value.
MIN_SOFT_THRESHOLD = 2_000


def soft_threshold_problem(value: int) -> str | None:
    """Why `value` is too small for a soft threshold the user sets, or None."""
    if value >= MIN_SOFT_THRESHOLD:
        return None
    return (
        f"must be at least {MIN_SOFT_THRESHOLD:,}, got {value:,} (the system prompt and "
        "tools alone take about 1,900 tokens of every request)"
    )


def soft_threshold(text: str) -> int:
    """An argparse type: a soft threshold, at least `MIN_SOFT_THRESHOLD` (said for any
    smaller value, 0 and negatives too: one refusal, with the real minimum)."""
    value = whole_number(text)
    problem = soft_threshold_problem(value)
    if problem:
        raise argparse.ArgumentTypeError(problem)
    return value


def model_name(text: str) -> str:
    """An argparse type: a model name, never empty (an empty one used to mean the default
    silently, which hid a mistake such as `--model "$UNSET_VARIABLE"`), and a model id
    (`models.is_model_id`), as `/model` requires."""
    if not text.strip():
        raise argparse.ArgumentTypeError(
            "is empty; give a model name, or leave out --model for the default"
        )
    if not is_model_id(text.strip()):  # a line feed or an escape would draw on the banner
        raise argparse.ArgumentTypeError(f"is not a model id ({MODEL_ID_WORDS})")
    return text.strip()


def build_parser(*, stdout: TextIO, stderr: TextIO) -> argparse.ArgumentParser:
    parser = _Parser(
        prog="agent-cli", description=DESCRIPTION, epilog=EPILOG, stdout=stdout, stderr=stderr
    )
    parser.add_argument("--version", action="version", version=f"agent-cli {__version__}")
    _add_model_arguments(parser)
    _add_session_arguments(parser)
    _add_compaction_arguments(parser)
    return parser


def _add_model_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--provider",
        choices=PROVIDER_CHOICES,
        help="model provider (default: anthropic when ANTHROPIC_API_KEY is set, else offline)",
    )
    parser.add_argument(
        "--model",
        type=model_name,
        help="model id (default: config `model`, then ANTHROPIC_MODEL, then the current "
        "Sonnet; /model lists and switches mid-session)",
    )


def _add_session_arguments(parser: argparse.ArgumentParser) -> None:
    resume = parser.add_mutually_exclusive_group()
    resume.add_argument(
        "--resume",
        nargs="?",
        const="",
        metavar="SESSION",
        help="resume SESSION; without an id, list this workspace's sessions and resume the latest",
    )
    resume.add_argument(
        "--continue",
        dest="continue_latest",
        action="store_true",
        help="resume the latest session in this workspace",
    )
    parser.add_argument(
        "--yes",
        action="store_true",
        default=None,
        help="allow tools that write files, run commands or call MCP servers without asking",
    )
    parser.add_argument(
        "-p",
        "--print",
        dest="print_prompt",
        metavar="PROMPT",
        help="run one turn, print the answer alone on stdout and exit "
        "('-' reads the prompt from stdin)",
    )
    parser.add_argument(
        "--workspace", metavar="DIR", help="folder the tools work in (default: the current folder)"
    )


def _add_compaction_arguments(parser: argparse.ArgumentParser) -> None:
    thresholds = [
        ("--soft-threshold", "compact the prompt view when it is over N tokens"),
        ("--hard-limit", "never send a request over N tokens"),
        (
            "--low-water",
            "when compaction fires, compact down to under N tokens (default: halfway "
            "between what every request carries besides the conversation and the soft "
            "threshold)",
        ),
        ("--keep-recent", "messages that pruning and summaries always keep verbatim"),
    ]
    for flag, help_text in thresholds:
        kind = soft_threshold if flag == "--soft-threshold" else positive_int
        parser.add_argument(flag, type=kind, metavar="N", help=help_text)


def parse_args(
    argv: Sequence[str] | None, *, stdout: TextIO | None = None, stderr: TextIO | None = None
) -> argparse.Namespace:
    """Parse `argv` (default: `sys.argv[1:]`); see the module contract."""
    parser = build_parser(stdout=stdout or sys.stdout, stderr=stderr or sys.stderr)
    return parser.parse_args(list(sys.argv[1:] if argv is None else argv))


def flag_settings(args: argparse.Namespace) -> dict[str, object]:
    """The settings given as flags, keyed like the config file; unset ones are left out."""
    values = {name: getattr(args, name) for name in SETTING_FLAGS}
    return {name: value for name, value in values.items() if value is not None}
