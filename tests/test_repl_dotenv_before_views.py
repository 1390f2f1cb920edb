"""`/context`, `/last`, `/summary` and `/expand` check the dotenv files before they show
(session 29's left item).

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
}


@pytest.mark.parametrize("line", list(VIEWS))
def test_a_view_of_what_the_model_gets_checks_the_dotenv_files_and_says_so_before_it_shows(
    line: str,
) -> None:
    found = SourceResolution(POINTER, "available", "ok", "ab" * 32, "the parser is in src/", False)
    session = FakeSession(
        learn_script=[LEARNED], summary_text="Goal: port the parser.", expansions={POINTER: found}
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
