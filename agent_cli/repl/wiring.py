"""The one place that wires real I/O together: paths, provider, permissions, sessions.

Contract: `build_backend(settings, ask_permission, paths=..., env=..., workspace=...)`
returns a `SessionBackend`, the small interface the REPL uses to open, list and find
sessions; tests hand the REPL a fake backend instead (through `main`'s
`backend_factory`). Heavy modules (the session, providers, token counting, and rich) are
imported here, inside functions, only once the REPL knows it needs them.

Permissions: `build_interactive_asker` asks y/a/p/n at the prompt (allow once / always
for this exact command or file / always for a command prefix / deny); `build_refusing_asker` is for `-p` and piped stdin, where no
one can answer: it denies and says so (`--yes` allows everything without asking).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from agent_cli.repl.args import SETTING_FLAGS
from agent_cli.repl.config import Settings, build_policy, uses_demo_soft_threshold
from agent_cli.repl.safe_text import clip_line, defuse_fake_compact_lines

if TYPE_CHECKING:
    from rich.console import Console

    from agent_cli.repl.approval_view import ApprovalView
    from agent_cli.repl.port import SessionPort
    from agent_cli.session.catalog import SessionDeletion, SessionSummary
    from agent_cli.store.paths import StatePaths
    from agent_cli.tools.approval_scope import AlwaysScope
    from agent_cli.tools.permissions import PermissionAsker, PermissionDecision, PermissionRequest

API_KEY_VARIABLE = "ANTHROPIC_API_KEY"


@dataclass(frozen=True)
class SessionBackend:
    """How the REPL reaches sessions; `open_session(None)` starts a new one."""

    open_session: Callable[[str | None], SessionPort]
    list_sessions: Callable[[bool], list[SessionSummary]]  # True: only this workspace's
    latest_session_id: Callable[[], str | None]  # the one --continue opens here
    # deletes sessions (transcript and artifacts), returns one SessionDeletion per id
    delete_sessions: Callable[[list[str]], list[SessionDeletion]] | None = None


BackendFactory = Callable[[Settings, "PermissionAsker"], SessionBackend]


def resolve_paths(env: Mapping[str, str]) -> StatePaths:
    """The state locations (created 0700); raises `StateDirUnavailable` when unusable."""
    from agent_cli.store.paths import resolve_state_paths

    return resolve_state_paths(env)


def choose_provider_name(settings: Settings, env: Mapping[str, str]) -> str:
    """The configured provider, else anthropic when an API key is set, else offline."""
    if settings.provider:
        return settings.provider
    return "anthropic" if env.get(API_KEY_VARIABLE, "").strip() else "offline"


def is_offline_fallback(settings: Settings, env: Mapping[str, str]) -> bool:
    """True when the offline model runs only because no API key was found."""
    return settings.provider is None and choose_provider_name(settings, env) == "offline"


def build_backend(
    settings: Settings,
    ask_permission: PermissionAsker,
    *,
    paths: StatePaths,
    env: Mapping[str, str],
    workspace: Path | None,
) -> SessionBackend:
    """The real backend: one provider for the run, sessions opened through the session API.
    `workspace` None: the current folder was deleted and its name is unknown
    (`startup.resolve_workspace`): no session is this folder's, a resumed one goes on in
    its recorded folder, and a new one is refused (`WorkspaceMissing`)."""
    from agent_cli import session as sessions
    from agent_cli.provider.factory import create_provider

    policy = build_policy(settings)
    provider = create_provider(choose_provider_name(settings, env), settings.model, env)
    # `--model` is said for the session this run opens first (`--continue`, `--resume`):
    # there it wins over a `/model` choice recorded in the session. A later `/resume`
    # goes on with its own choice, as `/model` may have been used since.
    model_flag = settings.model if settings.origins.get("model") == SETTING_FLAGS["model"] else None

    def open_session(resume: str | None) -> SessionPort:
        nonlocal model_flag
        command_line_model, model_flag = model_flag, None
        session = sessions.open_session(
            paths=paths,
            provider=provider,
            workspace=workspace,
            policy=policy,
            ask_permission=ask_permission,
            auto_approve=settings.yes,
            resume=resume,
            environment=env,
            mcp_servers=settings.mcp_servers,
            command_line_model=command_line_model,
        )
        if uses_demo_soft_threshold(settings):  # tuned to the built-in tools alone
            session.measure_thresholds_above_added_context()
        opened: SessionPort = session  # mypy checks here that a real Session fits the port
        return opened

    def list_sessions(this_workspace_only: bool = False) -> list[SessionSummary]:
        from agent_cli.session.catalog import summarize_sessions

        if this_workspace_only and workspace is None:
            return []
        return summarize_sessions(paths, workspace if this_workspace_only else None)

    def delete_sessions(session_ids: list[str]) -> list[SessionDeletion]:
        from agent_cli.session.catalog import delete_sessions as delete

        return delete(paths, session_ids)

    return SessionBackend(
        open_session=open_session,
        list_sessions=list_sessions,
        latest_session_id=lambda: (
            None if workspace is None else sessions.latest_session_id(paths, workspace)
        ),
        delete_sessions=delete_sessions,
    )


def _decisions() -> type[PermissionDecision]:
    from agent_cli.tools.permissions import PermissionDecision

    return PermissionDecision


def build_interactive_asker(
    ask: Callable[[str], str],
    console: Console,
    keep_reply: Callable[[str], None] | None = None,
    started_in: str | None = None,
) -> PermissionAsker:
    """Ask at the prompt. Ctrl-C propagates as `PermissionQuestionInterrupted` (the session
    cancels the turn, saying the tool never ran), SIGTERM/SIGHUP as
    `PermissionQuestionTerminated` (recorded as never run, then the process ends); Ctrl-D
    denies. Both hold from the first line of the view to the answer: while the view, or
    the full listing `v` asks for, is printing, the tool has not started either.

    What is approved is shown in full before the question (`approval_view`), laid out to
    leave room for the question as it wraps on this screen; when it is too tall for the
    screen, `v` prints every line (a text over `FULL_VIEW_PAGE_LINES`: one page, and `v`
    again the next), then the header and question again. An answer not offered (a bare
    Enter) prints the view again, then what the answers are and the question, so the
    header and both ends stay on the screen however often it happens. A reply that is no
    answer and no answer word (`approval_question.is_answer_word`) goes to `keep_reply`
    (the next prompt holds it, unsent) and a line says so: typed text is never lost at a
    question, and never approves. The question names
    what each "always" answer covers (`approval_question`), and after one a line says
    again what now runs without asking.

    `started_in`: the folder agent-cli was started in ("" when it was deleted). A call
    that runs in another folder (a session resumed from elsewhere goes on in its own) is
    asked about with that folder in the header, so a command is not approved for the
    folder the user stands in; None names no folder.
    """
    from agent_cli.errors import (
        PermissionQuestionInterrupted,
        PermissionQuestionTerminated,
        TerminationRequested,
    )
    from agent_cli.repl import approval_question as question
    from agent_cli.repl.approval_view import view_offer
    from agent_cli.repl.word_wrap import break_at_words, print_at_words

    def ask_permission(request: PermissionRequest) -> PermissionDecision:
        scopes = question.offered_scopes(request)
        first_offer = view_offer(request)
        folder = folder_elsewhere(request, started_in)
        below = [question.build_question(request, first_offer, console.width)]
        rows_below = _rows_below(below, console)
        view = _show_approval(console, request, reserved_rows=rows_below, folder=folder)
        paging = _Paging(first_offer if view.is_shortened else None, folder=folder)
        while True:
            asked = question.build_question(request, paging.offer, console.width)
            rows = defuse_fake_compact_lines(break_at_words(asked, console.width))
            answer = _answer(ask, rows, request)
            if paging.offer is not None and answer.strip().lower() in ("v", "view"):
                _list_next_page(console, request, paging)
                continue
            choice = question.parse_answer(answer, scopes)
            if choice is None:
                kept = _keep(answer, keep_reply)
                _show_again_with_hint(console, request, paging, first_offer, kept)
                continue
            decision = _decisions()(choice)
            chosen = _remembered_scope(request, decision)
            if chosen is not None:
                print_at_words(console, question.describe_always(chosen))
            return decision

    def ask_before_it_starts(request: PermissionRequest) -> PermissionDecision:
        """`ask_permission`, whose views (the `v` listing too) are part of the question:
        Ctrl-C or a termination signal while one prints is one at the question, since
        the tool has not started."""
        try:
            return ask_permission(request)
        except PermissionQuestionTerminated:
            raise
        except KeyboardInterrupt:
            raise PermissionQuestionInterrupted(str(request.tool)) from None
        except TerminationRequested as stop:
            raise PermissionQuestionTerminated(stop.signal_number, str(request.tool)) from None

    return AskerShowingUnasked(ask_before_it_starts, console, started_in)


def folder_elsewhere(request: PermissionRequest, started_in: str | None) -> str | None:
    """The folder `request` runs in when it is not `started_in` (the folder agent-cli was
    started in; "" when that was deleted), else None; None too when `started_in` is None
    or the request names no folder."""
    if started_in is None or request.folder is None:
        return None
    if started_in and Path(request.folder) == Path(started_in):
        return None
    return request.folder


class AskerShowingUnasked:
    """An asker (`ask`) that also shows the calls an "always" answer lets through without
    a question (`permissions.ShowingAsker`): the view the question would have shown (the
    diff of an edit, a new file's content, the command), headed by the answer that
    allowed it, so a file written unasked is still seen being written."""

    def __init__(
        self, ask: PermissionAsker, console: Console, started_in: str | None = None
    ) -> None:
        self._ask = ask
        self._console = console
        self._started_in = started_in  # (`build_interactive_asker`)

    def __call__(self, request: PermissionRequest) -> PermissionDecision:
        return self._ask(request)

    def show_unasked(self, request: PermissionRequest, scope: AlwaysScope) -> None:
        from agent_cli.repl.approval_question import describe_scope
        from agent_cli.repl.approval_view import build_approval_view

        console = self._console
        view = build_approval_view(
            request,
            console.width,
            console.height,
            unasked_by=describe_scope(scope),
            folder=folder_elsewhere(request, self._started_in),
        )
        console.print(view.header)
        for line in view.lines:
            console.print(line, overflow="fold")


@dataclass
class _Paging:
    """What `v` offers now (None: nothing), the line its listing starts at, and the folder
    the views name (`folder_elsewhere`)."""

    offer: str | None
    next_line: int = 0
    folder: str | None = None


def _answer(ask: Callable[[str], str], asked: str, request: PermissionRequest) -> str:
    """The reply to `asked`: "n" at Ctrl-D; Ctrl-C and SIGTERM/SIGHUP as the errors that
    say the tool never ran."""
    from agent_cli.errors import (
        PermissionQuestionInterrupted,
        PermissionQuestionTerminated,
        TerminationRequested,
    )

    try:
        return ask(asked)
    except EOFError:
        return "n"
    except KeyboardInterrupt:
        raise PermissionQuestionInterrupted(str(request.tool)) from None
    except TerminationRequested as stop:
        raise PermissionQuestionTerminated(stop.signal_number, str(request.tool)) from None


def _keep(reply: str, keep_reply: Callable[[str], None] | None) -> str | None:
    """Keep a reply that is text, not a mistaken answer word nor blank; the line that
    says so, or None when nothing was kept."""
    from agent_cli.repl import approval_question as question

    if keep_reply is None or not reply.strip() or question.is_answer_word(reply):
        return None
    keep_reply(reply)
    return question.describe_kept_reply(reply)


def _list_next_page(console: Console, request: PermissionRequest, paging: _Paging) -> None:
    """Print the page of the full listing `paging` offers, then the header again; the
    offer becomes the next page, or nothing once the listing reached the end."""
    from agent_cli.repl.approval_view import view_offer

    listed = _show_approval(
        console, request, full=True, from_line=paging.next_line, folder=paging.folder
    )
    _show_header_again(console, request, paging.folder)
    if listed.next_line is None:  # everything is on screen now
        paging.offer, paging.next_line = None, 0
    else:
        paging.offer, paging.next_line = view_offer(request, listed.next_line), listed.next_line


def _show_again_with_hint(
    console: Console,
    request: PermissionRequest,
    paging: _Paging,
    first_offer: str,
    kept: str | None = None,
) -> None:
    """After an answer not offered: the view again, fitted above the hint and the
    question (so its header and both ends stay on screen however often it happens),
    then `kept` (the line saying a reply waits in the next prompt) and the hint that
    names the answers, `v` among them when offered."""
    from rich.text import Text

    from agent_cli.repl import approval_question as question
    from agent_cli.repl.word_wrap import print_at_words

    scopes = question.offered_scopes(request)
    below = [
        *([kept] if kept else []),
        question.describe_answers(scopes, view_offered=True),
        question.build_question(request, paging.offer or first_offer, console.width),
    ]
    rows_below = _rows_below(below, console)
    view = _show_approval(console, request, reserved_rows=rows_below, folder=paging.folder)
    if view.is_shortened and paging.offer is None:
        paging.offer, paging.next_line = first_offer, 0
    hint = question.describe_answers(scopes, view_offered=paging.offer is not None)
    if kept:
        print_at_words(console, Text(kept, style="yellow"))
    print_at_words(console, Text(hint, style="yellow"))


def _rows_below(texts: list[str], console: Console) -> int:
    """The rows to keep free under a view for `texts` and the answer typed after them."""
    return sum(_rows_of(text, console.width) for text in texts) + 1


def _rows_of(plain: str, width: int) -> int:
    """The rows `plain` takes when broken at words for `width` cells (a word wider than
    a row is folded by the terminal onto more)."""
    from rich.cells import cell_len

    from agent_cli.repl.word_wrap import break_at_words

    rows = break_at_words(plain, width).split("\n")
    return sum(max(1, -(-cell_len(row) // max(width, 1))) for row in rows)


def _remembered_scope(
    request: PermissionRequest, decision: PermissionDecision
) -> AlwaysScope | None:
    """The scope an "always" decision remembers for `request` (the gate's own rule)."""
    from agent_cli.tools.permissions import chosen_scope

    if request.target is None:
        return None
    return chosen_scope(request, decision)


def _show_approval(
    console: Console,
    request: PermissionRequest,
    *,
    full: bool = False,
    reserved_rows: int = 0,
    from_line: int = 0,
    folder: str | None = None,
) -> ApprovalView:
    """Print the header (naming `folder`, when given) and what is approved; the
    `ApprovalView` printed (its `is_shortened` says whether something had to be left
    out, its `next_line` where a listing's next page starts)."""
    from agent_cli.repl.approval_view import build_approval_view

    view = build_approval_view(
        request,
        console.width,
        console.height,
        full=full,
        reserved_rows=reserved_rows,
        from_line=from_line,
        folder=folder,
    )
    console.print(view.header)
    for line in view.lines:
        console.print(line, overflow="fold")
    return view


def _show_header_again(console: Console, request: PermissionRequest, folder: str | None) -> None:
    """After the full listing: the header once more, right above the question."""
    from agent_cli.repl.approval_view import build_approval_header

    console.print(build_approval_header(request, console.width, folder))


class RefusingAsker:
    """Denies every request and says so: nobody is there to answer. `refused` lists the
    tools it turned down, so `-p` can end with a non-zero exit code."""

    def __init__(self, console: Console, why: str) -> None:
        self._console = console
        self._why = why
        self.refused: list[str] = []

    def __call__(self, request: PermissionRequest) -> PermissionDecision:
        from rich.text import Text

        from agent_cli.repl.word_wrap import print_at_words

        self.refused.append(request.tool)
        print_at_words(
            self._console,
            Text(
                f"{clip_line(request.tool, 40)} was not run: {self._why}. Run again with --yes "
                "to allow tools that write files, run commands or call MCP servers, or run "
                "agent-cli interactively.",
                style="yellow",
            ),
        )
        return _decisions().DENY_UNASKED


def build_refusing_asker(console: Console, why: str) -> RefusingAsker:
    """Deny every request and say so: nobody is there to answer."""
    return RefusingAsker(console, why)
