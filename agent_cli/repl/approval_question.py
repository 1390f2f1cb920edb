"""The permission question, in words that say what each "always" answer covers.

Contract: `build_question(request, view_offer, width)` is the one line asked under an
approval view. Its "always" answers are the scopes the request offers
(`PermissionRequest.always_scopes`, see `tools.approval_scope`), so what the user reads is
what the gate remembers: `[a]` for the narrowest (this exact command; any write or edit
of this one file), `[p]` for a command prefix, shown whole (`[p] always "npm test …"`),
when one is offered; no `[a]` when the request offers no scope. A file is named by
`safe_text.show_path` (controls written out, quoted when it holds a space), cut in the
middle to fit one row of `width` so its file name stays, its spaces no-break ones: broken
at words, the question never starts a row with a piece of the name. `parse_answer` maps a reply to a decision name, None for
a reply that is not one of the answers offered (a bare Enter among them: the question is
asked again, after `describe_answers`, which names `v` too when it is offered).
`describe_always` is the line printed after an "always" answer: what now runs unasked
for the rest of the session, and what is still asked (for a command that runs git: only
while git's files stay as they are, `permissions.is_bound_to_git_files`). A reply that is no answer and not a
mistaken answer word (`is_answer_word`: `p` where no prefix is offered) is text the user
meant for somewhere (a `y` typed without Enter, then the next request): it is kept for the
next prompt, unsent, and `describe_kept_reply` says so. It is never read as an answer,
not even when it starts with one: `yes, and also delete the logs` allows nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text

from agent_cli.repl.safe_text import clip_line, sanitize_text, show_path
from agent_cli.tools.approval_scope import REMOVING_PROGRAMS, AlwaysScope, ScopeKind
from agent_cli.tools.permissions import is_bound_to_git_files

if TYPE_CHECKING:
    from agent_cli.tools.permissions import PermissionRequest

MAX_FILE_CHARS = 60
NO_BREAK_SPACE = "\u00a0"
_ANSWERS = {
    "y": "allow_once",
    "yes": "allow_once",
    "a": "allow_always",
    "always": "allow_always",
    "p": "allow_prefix",
    "prefix": "allow_prefix",
    "n": "deny",
    "no": "deny",
}  # no "": an Enter typed by accident (or ahead) must not answer a question unseen
_VIEW_WORDS = ("v", "view")
_LETTER = {"allow_always": "a", "allow_prefix": "p"}
NOT_PLAIN_WORDS = "; & | ` $( ${ $[ < > ( ) \\ or a line break"
GIT_FILES_KEPT = (
    "while git's configuration, hooks and attributes stay as they are now (a change to "
    "them can make git run programs, so it is asked about again)"
)


def offered_scopes(request: PermissionRequest) -> tuple[AlwaysScope, ...]:
    """The request's "always" scopes; () for a request that offers none."""
    return tuple(request.always_scopes())


def build_question(
    request: PermissionRequest, view_offer: str | None = None, width: int | None = None
) -> str:
    """`allow? [y] once · [a] always … · [n] no: `, with `view_offer` before the colon.
    With `width`, a file's name is cut to fit one row of it (see `_file_name`)."""
    room = MAX_FILE_CHARS if width is None else max(min(MAX_FILE_CHARS, width - 4), 12)
    choices = [
        "[y] once",
        *(_choice(scope, room) for scope in offered_scopes(request)),
        "[n] no",
    ]
    if view_offer:
        choices.append(view_offer)
    return "allow? " + " · ".join(choices) + ": "


def _choice(scope: AlwaysScope, file_room: int = MAX_FILE_CHARS) -> str:
    return f"[{_LETTER[_decision_of(scope)]}] {describe_scope(scope, file_room)}"


def describe_scope(scope: AlwaysScope, file_room: int = MAX_FILE_CHARS) -> str:
    """An "always" answer as the question offers it, without its letter: `always for
    notes.sh`, `always "npm test …"` (also how a call it lets through says why); a file's
    name cut to `file_room` characters (`_file_name`)."""
    if scope.kind is ScopeKind.EXACT_COMMAND:
        return "always this exact command"
    if scope.kind is ScopeKind.COMMAND_PREFIX:
        return f'always "{scope.shown} …"'
    if scope.kind is ScopeKind.MCP_TOOL:
        return f"always this tool ({scope.shown})"
    return f"always for {_file_name(scope, file_room)}"


def parse_answer(answer: str, scopes: tuple[AlwaysScope, ...]) -> str | None:
    """The decision name a reply gives, or None when it is not an answer offered here."""
    choice = _ANSWERS.get(answer.strip().lower())
    if choice == "allow_always" and not scopes:
        return None
    if choice == "allow_prefix" and not any(
        scope.kind is ScopeKind.COMMAND_PREFIX for scope in scopes
    ):
        return None
    return choice


def is_answer_word(answer: str) -> bool:
    """True when `answer` is a word some question takes (offered here or not, `v` too)."""
    word = answer.strip().lower()
    return word in _ANSWERS or word in _VIEW_WORDS


def describe_kept_reply(reply: str) -> str:
    """The line after a reply kept for the next prompt: quoted (one line, clipped)."""
    return (
        f'"{clip_line(sanitize_text(reply.strip()), 50)}" is not an answer, so nothing was '
        "allowed: it waits in the next prompt, unsent"
    )


def describe_answers(scopes: tuple[AlwaysScope, ...], view_offered: bool = False) -> str:
    """`answer y, a, n or v (Enter alone is no answer)`: the letters this question
    accepts, `v` among them when the question offers it."""
    letters = ["y", *(_LETTER[_decision_of(scope)] for scope in scopes), "n"]
    if view_offered:
        letters.append("v")
    return f"answer {', '.join(letters[:-1])} or {letters[-1]} (Enter alone is no answer)"


def describe_always(scope: AlwaysScope) -> Text:
    """What runs without asking from now on, after an "always" answer for `scope`."""
    if scope.kind is ScopeKind.EXACT_COMMAND:
        covered = "this exact command; any other command is still asked about"
    elif scope.kind is ScopeKind.COMMAND_PREFIX:
        covered = _prefix_covers(scope)
    elif scope.kind is ScopeKind.MCP_TOOL:
        covered = f"calls of {scope.shown}, any arguments; other tools are still asked about"
    else:
        covered = f"writes and edits of {_file_name(scope)}; other files are still asked about"
    if is_bound_to_git_files(scope):
        covered += f"; {GIT_FILES_KEPT}"
    return Text(f"allowed without asking for the rest of this session: {covered}", style="green")


def _prefix_covers(scope: AlwaysScope) -> str:
    """What a prefix scope covers, in the words of `approval_scope`'s contract."""
    where = "names in this folder" if scope.value.split(" ")[0] in REMOVING_PROGRAMS else ""
    plain = f"plain words ({where})" if where else "plain words"
    return (
        f'this command, and commands that start with "{scope.shown}" followed only by '
        f"{plain}; an option (-x, --x), a path outside the workspace or into .git, a quote, "
        f"glob or $, or {NOT_PLAIN_WORDS} is still asked about"
    )


def _decision_of(scope: AlwaysScope) -> str:
    return "allow_prefix" if scope.kind is ScopeKind.COMMAND_PREFIX else "allow_always"


def _file_name(scope: AlwaysScope, limit: int = MAX_FILE_CHARS) -> str:
    """The file as the user names it (`show_path`: controls written out, so a bidi
    override or a line feed cannot make it read as another name; quoted when it holds
    a space), cut in the middle to `limit` characters, so its file name stays. Its
    spaces are no-break ones: a question broken at words never breaks inside it, so no
    part of a name can start a row and pose as a numbered line (`2 │ …`). What the
    approval's header marks in a name is written out (`<U+0301>`, `<U+0261>`): a combining
    mark as the header writes it, and a look-alike of an ASCII character, which the
    header draws marked, since the question is plain text (`café.sh` must not read as
    the file the header names `cafe<U+0301>.sh`)."""
    from agent_cli.combining_marks import written_out_marks
    from agent_cli.lookalikes import lookalike_positions

    name = scope.shown
    written = written_out_marks(name, in_command=True) | lookalike_positions(name, in_command=True)
    return show_path(name, limit, written).replace(" ", NO_BREAK_SPACE)
