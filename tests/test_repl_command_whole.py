"""A command runs only when the user could see all of it (sixteenth outside attack: a
12-line paste whose first line was `/sessions delete <id>` showed as `[pasted 460
characters]` and deleted that session on Enter, its other lines taken as more ids)."""

from __future__ import annotations

import pytest

from agent_cli.errors import CommandNotWhole
from agent_cli.events import Gauge
from agent_cli.repl.commands import MULTI_LINE_COMMANDS, check_command_whole
from agent_cli.repl.error_text import describe_error

LOG = "".join(f"log line {n}: something the user copied\n" for n in range(1, 12))
PASTE = "/sessions delete 20261206-043614-16c234\n" + LOG


def gauge() -> Gauge:
    return Gauge(tokens=1, soft_threshold=2, hard_limit=3, estimator="e")


def refusal(line: str, placeholder: str | None = None) -> CommandNotWhole:
    with pytest.raises(CommandNotWhole) as caught:
        check_command_whole(line, placeholder)
    return caught.value


def test_a_command_over_several_lines_is_refused_unless_it_takes_free_text():
    refused = refusal(PASTE)
    assert (refused.name, refused.lines, refused.placeholder) == ("/sessions", 12, None)
    assert refusal("/new\nand a note").lines == 2
    assert refusal("/exit\nbye").name == "/quit"  # named as the command it would have run
    assert refusal("/nosuchcommand a\nb").name == "/nosuchcommand"


def test_the_free_text_commands_take_several_lines_when_all_of_them_are_on_screen():
    assert {"/compact", "/remember", "/todo", "/block"} == MULTI_LINE_COMMANDS
    for line in ("/compact focus on the parser\nand its tests", "/remember a\nb", "/todo x\ny"):
        check_command_whole(line)  # nothing raised
    check_command_whole("\n  /new  \n\n")  # blank lines around one line are one line


def test_no_command_runs_with_a_paste_shown_only_as_its_placeholder():
    refused = refusal("/remember " + "z" * 900, "[pasted 900 characters]")
    assert (refused.name, refused.lines, refused.placeholder) == (
        "/remember",
        1,
        "[pasted 900 characters]",
    )
    refusal("/compact " + "z" * 900, "[pasted 900 characters]")


def test_messages_are_never_refused():
    check_command_whole("//sessions delete x\n" + LOG, "[pasted 460 characters]")
    check_command_whole("look at this log\n" + PASTE, "[pasted 460 characters]")
    check_command_whole("exit\nnow")  # not the bare `exit`: a message of two lines


def test_the_refusal_says_nothing_ran_why_and_how_to_send_it_as_a_message():
    hidden = describe_error(refusal(PASTE, "[pasted 460 characters]"))
    assert hidden.startswith("nothing was run: that input starts with /sessions but holds a ")
    assert "[pasted 460 characters]" in hidden and "all of it is on screen" in hidden
    assert "back in the prompt" in hidden and "//" in hidden
    lines = describe_error(refusal(PASTE))
    assert "nothing was run: /sessions takes one line, and that input has 12" in lines


def test_a_long_paste_starting_with_a_command_is_refused_and_given_back_to_the_prompt(
    pipe_reader,
):
    pipe, reader = pipe_reader
    pipe.send_text("\x1b[200~" + PASTE + "\x1b[201~\r")
    with pytest.raises(CommandNotWhole) as caught:
        reader.read_line(lambda: gauge())
    assert caught.value.placeholder == f"[pasted {len(PASTE):,} characters]"
    pipe.send_text("\r")  # the next prompt holds it: Enter again is refused again
    with pytest.raises(CommandNotWhole):
        reader.read_line(lambda: gauge())
    pipe.send_text("\x01/\r")  # Ctrl-A, `/` before it: `//...`, a message, sent whole
    assert reader.read_line(lambda: gauge()) == "/" + PASTE


def test_a_typed_command_of_several_lines_is_given_back_to_the_prompt_to_edit(pipe_reader):
    pipe, reader = pipe_reader
    pipe.send_text("/new\x1b\rmy notes\r")  # Alt+Enter between the two lines
    with pytest.raises(CommandNotWhole):
        reader.read_line(lambda: gauge())
    pipe.send_text("\x08" * len("\nmy notes") + "\r")  # Backspace over the second line
    assert reader.read_line(lambda: gauge()) == "/new"


def test_a_free_text_command_typed_over_several_lines_is_read_whole(pipe_reader):
    pipe, reader = pipe_reader
    pipe.send_text("/compact keep the parser\x1b\rand its tests\r")
    assert reader.read_line(lambda: gauge()) == "/compact keep the parser\nand its tests"


def test_a_one_line_paste_too_long_to_show_is_not_run_as_a_command(pipe_reader):
    pipe, reader = pipe_reader
    pasted = "/remember pasted-fact " + "z" * 1_000  # one line, shown as its placeholder
    pipe.send_text("\x1b[200~" + pasted + "\x1b[201~\r")
    with pytest.raises(CommandNotWhole) as caught:
        reader.read_line(lambda: gauge())
    assert caught.value.placeholder == f"[pasted {len(pasted):,} characters]"
    pipe.send_text("/remember \x1b[200~" + "y" * 900 + "\x1b[201~\r")  # typed, then pasted
    with pytest.raises(CommandNotWhole):
        reader.read_line(lambda: gauge())
