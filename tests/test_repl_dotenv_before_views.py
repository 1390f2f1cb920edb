"""`/context`, `/last`, `/summary`, `/expand`, `/sources` and the recap of a resumed session
check the dotenv files before they show (session 29's and session 30's left items).

They show what the next request carries, what the last call returned, the summary every
request carries and a record's text, and send nothing, so no request's check ran before
them: a value written to `.env` in another shell since the last request was shown (the
excerpt of `/expand` and a stored output `/last` reads back are redacted of the secrets
known, which did not yet hold it). Now each asks the session to check first
(`SessionPort.learn_dotenv_changes`), shows the notice a request would be preceded by,
and `/last` shows what it kept of the result redacted of the secrets known then
(`SessionPort.redact_known_secrets`). The session's side is in
`test_dotenv_between_turns.py`; the whole, in a real terminal, in
`test_e2e_dotenv_before_views.py`.
"""

from __future__ import annotations

import pytest
from repl_fakes import FakeBackend, FakeSession, make_console

from agent_cli.events import Notice, ToolFinished, ToolStarted
from agent_cli.repl.loop import Repl
from agent_cli.secret_forms import REDACTED_MARK
from agent_cli.session.catalog import Call, Exchange
from agent_cli.sources import SourceResolution

TOKEN = "ghp_UsErEdIt8Wv2Xy4Za6Bc8De0Fg2Hi4Jk6Lm8"
LEARNED = Notice("info", "dotenv_learned", {"files": ".env", "names": "GITHUB_TOKEN", "count": 1})
SAID = ".env changed during the session"


def make_repl(session: FakeSession) -> Repl:
    backend = FakeBackend(known={session.session_id: session}).factory(None, None)
    return Repl(
        session=session,
        backend=backend,
        reader=None,  # type: ignore[arg-type]
        console=make_console(width=120),
        live=False,
        offline_fallback=True,
    )


def shown(repl: Repl) -> str:
    return " ".join(repl.console.export_text(clear=True).split())


POINTER = "transcript:s-1:4"
VIEWS = {  # each view of what the model got or will get, and a line of what it shows
    "/context": "view: 2 messages",
    "/summary": "Goal: port the parser.",
    f"/expand {POINTER}": "the parser is in src/",
    "/last": "plain words",
    "/sources": POINTER,
}


@pytest.mark.parametrize("line", list(VIEWS))
def test_a_view_of_what_the_model_gets_checks_the_dotenv_files_and_says_so_before_it_shows(
    line: str,
) -> None:
    found = SourceResolution(POINTER, "available", "ok", "ab" * 32, "the parser is in src/", False)
    session = FakeSession(
        learn_script=[LEARNED],
        summary_text="Goal: port the parser.",
        expansions={POINTER: found},
        resolutions=(found,),
    )
    repl = make_repl(session)
    run_cat(repl, "Exit code: 0\nplain words\n")
    repl.handle_line(line)
    printed = shown(repl)
    assert session.calls.count(("learn_dotenv_changes",)) == 1
    assert SAID in printed and "(GITHUB_TOKEN)" in printed, printed
    assert printed.index(SAID) < printed.index(VIEWS[line]), printed


def test_last_checks_first_and_shows_the_kept_output_redacted_of_the_secrets_known_now() -> None:
    session = FakeSession(learn_script=[LEARNED], known_secrets=(TOKEN,))
    repl = make_repl(session)
    run_cat(repl, f"Exit code: 0\ntemp token {TOKEN}\n")
    repl.handle_line("/last")
    printed = shown(repl)
    assert ("learn_dotenv_changes",) in session.calls
    assert TOKEN not in printed and f"temp token {REDACTED_MARK}" in printed, printed
    assert printed.index(SAID) < printed.index("temp token")


def test_last_with_nothing_learned_shows_the_output_as_it_was() -> None:
    session = FakeSession()
    repl = make_repl(session)
    run_cat(repl, "Exit code: 0\nplain words\n")
    repl.handle_line("/last")
    printed = shown(repl)
    assert "plain words" in printed and SAID not in printed and REDACTED_MARK not in printed


def run_cat(repl: Repl, output: str) -> None:
    """A `cat notes.txt` call that returned `output`, as the REPL saw it (then cleared)."""
    finished = ToolFinished("t1", "bash", False, "exit 0", len(output), output=output)
    started = ToolStarted("t1", "bash", {"command": "cat notes.txt"})
    repl.render_events(iter([started, finished]))
    shown(repl)


class RecappedSession(FakeSession):
    """A session with one earlier exchange, which notes when its recap is read: the fake
    redacts nothing, so the order of the calls is what shows the check came first."""

    def recent_exchanges(self, limit: int = 3) -> list[Exchange]:
        self.calls.append(("recent_exchanges",))
        return super().recent_exchanges(limit)


class EndedReader:
    """Input that has ended at once: `run` prints the banner and the recap, then closes."""

    shows_gauge = False
    can_ask = False

    def read_line(self, gauge_source: object = None) -> str:
        raise EOFError


def recapped_session(session_id: str) -> RecappedSession:
    earlier = Exchange("show notes", "notes.txt holds a temporary token.", (Call("bash", "ran"),))
    return RecappedSession(session_id=session_id, learn_script=[LEARNED], exchanges=[earlier])


def assert_checked_and_said_before_the_recap(session: RecappedSession, printed: str) -> None:
    assert session.calls.count(("learn_dotenv_changes",)) == 1, session.calls
    order = session.calls.index(("learn_dotenv_changes",))
    assert order < session.calls.index(("recent_exchanges",)), session.calls
    assert SAID in printed and "where you left off" in printed, printed
    assert printed.index(SAID) < printed.index("where you left off") < printed.index("show notes")


def test_the_recap_of_a_session_resumed_by_slash_resume_comes_after_the_dotenv_check() -> None:
    current, other = FakeSession(session_id="s-now"), recapped_session("s-earlier")
    backend = FakeBackend(known={"s-now": current, "s-earlier": other}).factory(None, None)
    repl = Repl(
        session=current,
        backend=backend,
        reader=None,  # type: ignore[arg-type]
        console=make_console(width=120),
        live=False,
        offline_fallback=True,
    )
    repl.handle_line("/resume s-earlier")
    assert repl.session is other
    assert_checked_and_said_before_the_recap(other, shown(repl))


def test_the_recap_at_start_up_with_resume_comes_after_the_dotenv_check() -> None:
    session = recapped_session("s-earlier")
    repl = Repl(
        session=session,
        backend=FakeBackend(known={"s-earlier": session}).factory(None, None),
        reader=EndedReader(),  # type: ignore[arg-type]
        console=make_console(width=120),
        live=False,
        offline_fallback=True,
        resumed=True,
    )
    assert repl.run() == 0
    assert_checked_and_said_before_the_recap(session, shown(repl))
