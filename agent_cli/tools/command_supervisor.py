"""The supervisor of one `bash` command: if agent-cli dies while the command runs (SIGKILL
included), it kills the command's whole process group.

Why a process of its own: a killed agent-cli runs no code at all, and a parent-death
signal (prctl PR_SET_PDEATHSIG) reaches only the direct child, and fires when the
creating *thread* ends, not the process. So `tools.shell` starts this supervisor as the
leader of a new session and process group; the supervisor starts the command in that
same group and holds the read end of a pipe, the lifeline, whose only write end stays in
agent-cli. The kernel closes that write end however agent-cli ends, and the end of file
it sees makes the supervisor SIGKILL the group (itself included). agent-cli never writes
into the lifeline, so "readable" means "agent-cli is gone".

Contract (argv): `LIFELINE_FD SHELL COMMAND HAD_LC_CTYPE`. The command runs as
`SHELL -c COMMAND`, with the supervisor's stdin, stdout, stderr, working folder and
environment. The supervisor exits as the command did: with its exit code, or killed by
the same signal, so it stands in for the command's shell. Once the command has exited the
supervisor is gone too: what the command left running in the background is not watched
(as before). It ignores SIGTERM (the command does not), so that it outlives the command
and reaps it when `tools.shell` ends the group. It runs as `python -I -S` to start
quickly and imports only the standard library. `HAD_LC_CTYPE` is "1" when LC_CTYPE was in
the environment agent-cli gave; otherwise the variable is removed again, since Python's
locale coercion (PEP 538) may have added it to this process's environment.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import sys

# Without pidfds (Linux before 5.3) the command's exit is polled this often.
_POLL_SECONDS = 0.05
_SHELL_FAILED_EXIT = 127  # what shells answer for a program they could not start


def main(argv: list[str]) -> int:
    lifeline, shell, command, had_lc_ctype = int(argv[1]), argv[2], argv[3], argv[4] == "1"
    os.set_inheritable(lifeline, False)  # the command must not hold it
    if _is_readable(lifeline, 0):  # agent-cli already died: start nothing
        return _SHELL_FAILED_EXIT
    environment = dict(os.environ)
    if not had_lc_ctype:
        environment.pop("LC_CTYPE", None)
    # The group's SIGTERM (`tools.shell` ending the command) must leave the supervisor
    # alive to reap the command's shell: an orphan's zombie lingers where PID 1 does not
    # reap. The shell starts with SIGTERM, and what Python ignores, at the defaults.
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    try:
        child = os.posix_spawn(
            shell,
            [shell, "-c", command],
            environment,
            setsigdef=(signal.SIGTERM, signal.SIGPIPE, signal.SIGXFSZ),
        )
    except OSError as error:
        sys.stderr.write(f"agent-cli: could not start {shell}: {error.strerror or error}\n")
        return _SHELL_FAILED_EXIT
    return _exit_code_or_signal(_watch(child, lifeline))


def _watch(child: int, lifeline: int) -> int:
    """Wait for the command to exit (its wait status) or for agent-cli to die."""
    pidfd = open_pidfd(child)
    watched = [lifeline] if pidfd is None else [lifeline, pidfd]
    timeout = _POLL_SECONDS if pidfd is None else None
    while True:
        ready, _, _ = select.select(watched, [], [], timeout)
        if lifeline in ready:
            os.killpg(os.getpgrp(), signal.SIGKILL)  # agent-cli is gone: end the group
        pid, status = os.waitpid(child, os.WNOHANG)
        if pid == child:
            return status


def _exit_code_or_signal(status: int) -> int:
    """Return the command's exit code; if a signal killed it, die of that signal too."""
    code = os.waitstatus_to_exitcode(status)
    if code >= 0:
        return code
    number = -code
    with contextlib.suppress(OSError, ValueError):
        import resource

        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # a relayed SIGSEGV dumps no core
    with contextlib.suppress(OSError, ValueError):
        signal.signal(number, signal.SIG_DFL)
    os.kill(os.getpid(), number)
    return 128 + number  # only if the signal did not end us (it is blocked or ignored)


def open_pidfd(pid: int) -> int | None:
    """A pidfd of `pid` (readable once it exits), or None when there is none to have: no
    pidfds on this OS (Linux before 5.3), or the process is already reaped."""
    opener = getattr(os, "pidfd_open", None)
    if opener is None:
        return None
    try:
        return int(opener(pid))
    except OSError:
        return None


def _is_readable(descriptor: int, timeout: float) -> bool:
    return bool(select.select([descriptor], [], [], timeout)[0])


if __name__ == "__main__":
    sys.exit(main(sys.argv))
