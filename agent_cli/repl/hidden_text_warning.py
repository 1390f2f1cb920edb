"""The warnings an approval carries when it shows [REDACTED]: a hidden value, or the text.

Why: a diff hides the secrets agent-cli holds, in the lines a write or edit adds too. A
workspace `.env` held `DEPLOY_TOKEN=eval$(echo${IFS}...|base64${IFS}-d)` (shell code that
fetches and runs a script); the model added that text as a line of `build.sh`, the
question showed `7 │ +[REDACTED]` under a header that said nothing, and the user approved
code they could not see (a twenty-third outside attack). The value cannot be shown (it is
a secret), so the question says what it hides instead: which lines, that their text is a
value of the user's secrets written into the file, and to answer n unless that value is
expected there. Secret values carry no names (`SecretForms` holds forms only), so the
words name where secrets come from, not which variable.

Contract: `build_hidden_text_warning(numbers, asked, removed)` is that warning for the
added lines numbered `numbers` and the removed lines numbered `removed` (as the view
numbers them; at most `MAX_LISTED_LINES` listed, the rest counted): a removed line whose
text is hidden is a change the user cannot see either. With `asked=False` (a call an
"always" answer let through) it leaves out the advice to answer n. Never any of the
secret's text.

`build_literal_mark_warning(numbers, kind, asked)` is the warning for lines whose own text
holds `REDACTED_MARK` (the added lines of a diff, else any line): the question draws the
mark exactly as it draws a hidden value, so it says that these are the ten characters
written (or run, or sent) as they are. A model that read `.env` as `API_KEY=[REDACTED]`
and made `.env.production` of it got that file approved as if it held the key (session
26). Not refused, as an overwrite of a file holding a secret is (`tools.file_tools`):
there the mark would destroy the user's secret, while here the text may be meant (a
page about redaction, a test), and the user who reads the warning decides.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text

from agent_cli.secret_forms import REDACTED_MARK
from agent_cli.tools.approval import ApprovalKind

MAX_LISTED_LINES = 8
WARNING_STYLE = "bold red"
SECRET_SOURCES = "from your environment, a dotenv file of the workspace or your MCP settings"


def build_hidden_text_warning(
    numbers: Sequence[int], asked: bool = True, removed: Sequence[int] = ()
) -> Text:
    """The warning for added lines `numbers` and removed lines `removed` that show secret
    text as `REDACTED_MARK` (module contract); one paragraph, for the caller to hang under
    the header."""
    parts = []
    if numbers:
        parts.append(_added_words(numbers, asked))
    if removed:
        parts.append(_removed_words(removed, asked and not numbers))
    return Text("warning: " + " ".join(parts), style=WARNING_STYLE)


def _added_words(numbers: Sequence[int], asked: bool) -> str:
    if len(numbers) == 1:
        lines, what, those = f"added line {numbers[0]:,} shows", "a value", "that value"
    else:
        lines = f"{len(numbers):,} added lines ({_listed(numbers)}) show"
        what, those = "values", "those values"
    words = (
        f"{lines} text as {REDACTED_MARK}: {what} of your secrets ({SECRET_SOURCES}) "
        "written into the file; secrets are never shown."
    )
    return words + (f" Answer n unless you expect {those} there." if asked else "")


def _removed_words(numbers: Sequence[int], asked: bool) -> str:
    """Removed lines that show hidden text: what the change takes out cannot be seen (a
    planted value equal to a line of code, a check, would be deleted unseen)."""
    if len(numbers) == 1:
        lines, what = f"removed line {numbers[0]:,} shows", "it holds a value"
    else:
        lines, what = (
            f"{len(numbers):,} removed lines ({_listed(numbers)}) show",
            "they hold values",
        )
    words = (
        f"{lines} text as {REDACTED_MARK}: {what} of your secrets ({SECRET_SOURCES}), so "
        "what the change takes out of the file cannot be shown."
    )
    return words + (" Answer n unless you mean to remove it." if asked else "")


def build_literal_mark_warning(
    numbers: Sequence[int], kind: ApprovalKind, asked: bool = True
) -> Text:
    """The warning for the lines `numbers` whose own text holds `REDACTED_MARK` (module
    contract); one paragraph, for the caller to hang under the header."""
    which = "added line" if kind is ApprovalKind.DIFF else "line"
    if len(numbers) == 1:
        lines, holds = f"{which} {numbers[0]:,}", "holds"
    else:
        lines, holds = f"{len(numbers):,} {which}s ({_listed(numbers)})", "hold"
    done = "run" if kind is ApprovalKind.COMMAND else "written"
    words = (
        f"{lines} {holds} the text {REDACTED_MARK} itself, not a hidden value: those "
        f"{len(REDACTED_MARK)} characters are {done} as they are (a model that saw a secret "
        "hidden may have copied the mark in its place)."
    )
    return Text(
        "warning: " + words + (" Answer n unless you want that text there." if asked else ""),
        style=WARNING_STYLE,
    )


def _listed(numbers: Sequence[int]) -> str:
    """`7, 9, 12`; past `MAX_LISTED_LINES`, the first ones and how many more."""
    shown = ", ".join(f"{number:,}" for number in numbers[:MAX_LISTED_LINES])
    left = len(numbers) - MAX_LISTED_LINES
    return f"{shown} and {left:,} more" if left > 0 else shown
