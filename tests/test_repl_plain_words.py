"""What the user reads says what is wrong in plain words, without reason codes or errno
names, and counts agree in number (issue 23 item 14)."""

from __future__ import annotations

from agent_cli.errors import StateDirUnavailable
from agent_cli.repl.error_text import (
    describe_error,
    describe_folder_problem,
    exit_code_for,
    startup_exit_code,
)


def test_an_unusable_state_folder_is_worded_without_codes_and_is_a_configuration_error():
    said = describe_error(StateDirUnavailable("/srv/home", "not_writable"))
    assert said == (
        "cannot use the state folder /srv/home: you have no permission to write there. "
        "Set AGENT_CLI_HOME to a folder you can write to"
    )
    assert startup_exit_code(StateDirUnavailable("/srv/home", "ENOTDIR")) == 2
    assert exit_code_for(StateDirUnavailable("/srv/home", "ENOSPC")) == 1  # while in use


def test_an_errno_without_words_of_its_own_is_said_as_the_system_says_it():
    assert describe_folder_problem("EIO") == "the system refused it (input/output error)"
    assert describe_folder_problem("whatever") == "the system refused it"
