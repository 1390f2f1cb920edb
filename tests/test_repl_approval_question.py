"""The permission question says what each "always" answer covers, and takes only the
answers it offers; after an "always" a line says what now runs without asking."""

from __future__ import annotations

import io
import re
from pathlib import Path

from rich.console import Console

from agent_cli.repl.approval_question import build_question, parse_answer
from agent_cli.repl.wiring import build_interactive_asker
from agent_cli.tools.approval import build_command_approval, build_content_approval
from agent_cli.tools.approval_scope import command_target, file_target
from agent_cli.tools.permissions import PermissionDecision, PermissionRequest


def command_request(command: str) -> PermissionRequest:
    return PermissionRequest(
        "bash", command, build_command_approval(command), command_target(command)
    )


def write_request(shown: str) -> PermissionRequest:
    approval = build_content_approval("x\n")
    target = file_target(Path("/ws") / shown, shown)
    return PermissionRequest("write_file", f"create {shown} with 1 line", approval, target)


def ask_with_answers(request, answers: list[str]):
    """The interactive asker on a recording console: (decision, questions, printed)."""
    console = Console(file=io.StringIO(), width=120, height=40, record=True, color_system=None)
    questions: list[str] = []
    replies = iter(answers)

    def ask(question: str) -> str:
        questions.append(question)
        return next(replies)

    decision = build_interactive_asker(ask, console)(request)
    return decision, questions, console.export_text()


def test_a_compound_command_offers_always_for_that_exact_command_and_no_prefix():
    question = build_question(command_request("echo two; rm -f tall.txt"))
    assert question == "allow? [y] once · [a] always this exact command · [n] no: "


def test_a_plain_command_also_offers_its_prefix_shown_whole():
    question = build_question(command_request("npm test -- --watch"))
    assert question == (
        'allow? [y] once · [a] always this exact command · [p] always "npm test …" · [n] no: '
    )


def test_a_write_offers_always_for_that_file_with_its_name_written_out():
    assert build_question(write_request("notes.txt")) == (
        "allow? [y] once · [a] always for notes.txt · [n] no: "
    )
    assert "[a] always for notes<U+202E>txt.sh ·" in build_question(
        write_request("notes\u202etxt.sh")
    )


def test_a_request_with_nothing_to_scope_offers_no_always():
    request = PermissionRequest("bash", "true")
    assert build_question(request) == "allow? [y] once · [n] no: "
    assert parse_answer("a", ()) is None


def test_the_view_offer_comes_last():
    question = build_question(command_request("ls"), "[v] view every line")
    assert question.endswith("· [n] no · [v] view every line: ")


def test_p_is_refused_where_no_prefix_is_offered_and_the_question_asked_again():
    request = command_request("echo two; rm -f tall.txt")
    decision, questions, shown = ask_with_answers(request, ["p", "n"])
    assert decision is PermissionDecision.DENY
    assert len(questions) == 2 and "answer y, a or n" in shown


def test_p_allows_the_prefix_and_says_what_it_covers():
    decision, _, shown = ask_with_answers(command_request("npm test -- --watch"), ["p"])
    assert decision is PermissionDecision.ALLOW_PREFIX
    said = " ".join(shown.split())
    assert (
        'this command, and commands that start with "npm test" followed only by plain words;'
        in said
    )
    assert "an option (-x, --x), a path outside the workspace or into .git" in said
    assert "; & | ` $( ${ $[ < > ( ) \\ or a line break is still asked about" in said


def test_p_for_rm_says_it_covers_only_names_in_this_folder():
    decision, _, shown = ask_with_answers(command_request("rm out"), ["p"])
    assert decision is PermissionDecision.ALLOW_PREFIX
    said = " ".join(shown.split())
    assert '"rm out" followed only by plain words (names in this folder); an option' in said


def test_a_says_what_it_covers_for_a_file():
    decision, _, shown = ask_with_answers(write_request("notes.txt"), ["always"])
    assert decision is PermissionDecision.ALLOW_ALWAYS
    assert "writes and edits of notes.txt; other files are still asked about" in shown


def test_wrong_answers_name_the_letters_offered():
    decision, _, shown = ask_with_answers(command_request("npm test"), ["x", "y"])
    assert decision is PermissionDecision.ALLOW_ONCE
    assert "answer y, a, p or n" in shown
    assert "allowed without asking" not in shown


def test_a_long_path_keeps_its_file_name_in_the_question():
    shown = "docs/the-quick-brown-fox-jumps-over-the-lazy-dog/and-then-some-more-words/hook.sh"
    named = re.search(r"\[a\] always for (\S+) ·", build_question(write_request(shown)))
    assert named is not None and len(named.group(1)) <= 60
    assert named.group(1).startswith("docs/the-quick-") and named.group(1).endswith("/hook.sh")
    assert "…" in named.group(1)


def test_wrong_answers_name_v_when_the_question_offers_it():
    content = "".join(f"row {n}\n" for n in range(200))
    request = PermissionRequest(
        "write_file", "create f with 200 lines", build_content_approval(content)
    )
    decision, questions, shown = ask_with_answers(request, ["", "n"])
    assert decision is PermissionDecision.DENY
    assert "answer y or n" not in shown and "answer y, n or v (Enter alone is no answer)" in shown
    assert all("[v] view every line" in question for question in questions)
