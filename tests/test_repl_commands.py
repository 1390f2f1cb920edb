"""Every command: how it is parsed, what it asks of the session, what it shows, its errors."""

from __future__ import annotations

import dataclasses
import io
import json
from dataclasses import dataclass, field
from typing import Any

import pytest
from repl_fakes import CONFIRMED_AT, FakeBackend, FakeSession, listed_session, make_console
from rich.console import Console

from agent_cli.durable import DurableContextState, DurableFact, PendingItem, PendingStatus
from agent_cli.errors import CommandUsageError, PendingTransitionError, UnknownCommand
from agent_cli.events import CompactionFired, LayerLine, TurnEnded
from agent_cli.repl.commands import (
    COMMANDS,
    message_text,
    run_command,
    split_command,
)
from agent_cli.repl.loop import Repl
from agent_cli.repl.pointer_handles import PointerHandles
from agent_cli.repl.render import EventRenderer
from agent_cli.repl.turns import drive_events
from agent_cli.session.instructions import ProjectInstructions
from agent_cli.sources import SourceResolution


@dataclass
class FakeContext:
    """The REPL side a command sees (command_context.CommandContext), recording what it did."""

    session: FakeSession = field(default_factory=FakeSession)
    console: Console = field(default_factory=make_console)
    plain: io.StringIO = field(default_factory=io.StringIO)
    switched_to: list[str | None] = field(default_factory=list)
    quit_requested: bool = False
    pointer_handles: PointerHandles = field(default_factory=PointerHandles)
    approvals_off_by: str | None = None
    questions: list[str] = field(default_factory=list)  # what `confirm` was asked
    answer_yes: bool = True

    def render_events(self, events: Any) -> None:
        drive_events(events, EventRenderer(self.console, live=False).render)

    def write_plain(self, text: str) -> None:
        self.plain.write(text)

    def switch_session(self, resume: str | None) -> None:
        self.switched_to.append(resume)

    def list_sessions(self) -> list[Any]:
        return [
            listed_session("s-1", "2026-12-03T09:00:00+00:00"),
            listed_session("s-0", "2026-12-02T09:00:00+00:00"),
        ]

    def request_quit(self) -> None:
        self.quit_requested = True

    def confirm(self, question: str) -> bool:
        self.questions.append(question)
        return self.answer_yes

    @property
    def shown(self) -> str:
        return self.console.export_text(clear=False)


def run(context: FakeContext, line: str) -> None:
    parsed = split_command(line)
    assert parsed is not None, f"{line!r} should be a command"
    run_command(context, *parsed)


# --- parsing -------------------------------------------------------------------------------


def test_a_slash_line_splits_into_name_and_arguments():
    assert split_command("/block T1  waiting for review ") == ("/block", "T1  waiting for review")
    assert split_command("  /HELP") == ("/help", "")
    assert split_command("/remember line one\nline two") == ("/remember", "line one\nline two")


def test_bare_stats_is_a_command_but_a_sentence_starting_with_stats_is_a_message():
    assert split_command("stats") == ("/stats", "")
    assert split_command(" stats --json ") == ("/stats", "--json")
    assert split_command("stats of this repo please") is None


def test_exit_or_quit_typed_bare_quits_but_a_sentence_with_them_is_a_message():
    assert split_command("exit") == ("/quit", "")
    assert split_command("  quit ") == ("/quit", "")
    assert split_command("Exit") == ("/quit", "") and split_command(" QUIT ") == ("/quit", "")
    assert split_command("Exit now please") is None
    assert split_command("exit the loop early in parse()") is None
    assert split_command("quit.") is None


def test_a_double_slash_sends_a_message_that_starts_with_a_slash():
    assert split_command("//etc/hosts is odd") is None
    assert message_text("//etc/hosts is odd") == "/etc/hosts is odd"
    assert message_text("  //x") == "/x"


def test_a_message_is_sent_exactly_as_typed_or_pasted():
    """LOSS-3: stripping it took a pasted snippet's first indent and its blank lines."""
    snippet = "\n    if retries > 3:\n        raise TooMany()\n\n"
    assert message_text(snippet) == snippet
    assert message_text("  hello  ") == "  hello  "


def test_an_unknown_command_raises_with_its_name():
    with pytest.raises(UnknownCommand) as caught:
        run(FakeContext(), "/frobnicate now")
    assert caught.value.name == "/frobnicate"


def test_every_command_has_a_usage_and_a_one_line_help():
    for name, command in COMMANDS.items():
        assert command.usage.startswith(name)
        assert command.summary and "\n" not in command.summary


# --- each command --------------------------------------------------------------------------


def test_help_lists_every_command_with_its_usage():
    context = FakeContext()
    run(context, "/help")
    for command in COMMANDS.values():
        assert command.usage in context.shown
    assert "Alt+Enter" in context.shown


def test_stats_prints_the_panel_and_stats_json_prints_only_json():
    context = FakeContext()
    run(context, "stats")
    assert "soft threshold 80,000" in context.shown
    run(context, "/stats --json")
    assert json.loads(context.plain.getvalue())["session_id"] == "20261202-150000-abcd"


def test_stats_with_an_unknown_option_is_a_usage_error():
    with pytest.raises(CommandUsageError) as caught:
        run(FakeContext(), "/stats --yaml")
    assert (caught.value.command, caught.value.reason) == ("/stats", "bad_option")


def test_compact_passes_the_focus_and_renders_what_the_session_yields():
    layer = LayerLine("L4", 9_000, 2_000, messages_removed=12)
    session = FakeSession(
        compact_script=[
            CompactionFired((layer,), 9_000, 2_000, 8_000, 12_000, forced=True),
            TurnEnded("ok"),
        ]
    )
    context = FakeContext(session=session)
    run(context, "/compact keep the db decisions")
    assert ("compact_now", "keep the db decisions") in session.calls
    assert "[compact] L4 summarize: 9,000 -> 2,000 tokens" in context.shown
    run(context, "/compact")
    assert ("compact_now", None) in session.calls


@pytest.mark.parametrize("flag", ["--help", "-h"])
@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_help_flag_shows_a_commands_usage_and_runs_nothing(name, flag):
    """Seventh attack: `/compact --help` compacted, with "--help" as the summary's focus."""
    context = FakeContext()
    run(context, f"{name} {flag}")
    assert context.session.calls == [] and not context.quit_requested
    assert not context.switched_to
    assert f"usage: {COMMANDS[name].usage}" in " ".join(context.shown.split())


def test_compact_with_a_focus_says_what_the_summary_focused_on():
    layer = LayerLine("L4", 9_000, 2_000, messages_removed=12)
    event = CompactionFired((layer,), 9_000, 2_000, 8_000, 12_000, forced=True, focus="db work")
    context = FakeContext(session=FakeSession(compact_script=[event]))
    run(context, "/compact db work")
    assert "[compact] L4 summarize: 9,000 -> 2,000 tokens (-7,000; summarized 12 messages)" in (
        context.shown
    )
    assert "[compact] summary focus: db work" in context.shown
    assert "requested with /compact" in context.shown


def test_summary_prints_the_last_summary_in_full_or_says_there_is_none():
    long_summary = "Goal: port the parser.\n" + "\n".join(f"- file{i}.py: done" for i in range(80))
    context = FakeContext(session=FakeSession(summary_text=long_summary))
    run(context, "/summary")
    assert "Goal: port the parser." in context.shown
    assert "file0.py: done" in context.shown and "file79.py: done" in context.shown
    empty = FakeContext(session=FakeSession())
    run(empty, "/summary")
    assert "No summary yet" in empty.shown
    with pytest.raises(CommandUsageError):
        run(empty, "/summary now")


def test_context_shows_the_durable_block_and_one_line_per_message():
    context = FakeContext()
    run(context, "/context")
    assert "F1 uses SQLite WAL" in context.shown
    assert "user: hello" in context.shown and "assistant: hi there" in context.shown
    assert "view: 2 messages" in context.shown
    assert "last summary" not in context.shown  # nothing summarized yet
    assert context.shown.index("context map") < context.shown.index("view: 2 messages")


def test_context_shows_the_last_summary_whole_not_cut_to_one_line():
    long_summary = "Goal: port the parser.\n" + "\n".join(f"- file{i}.py: done" for i in range(80))
    context = FakeContext(session=FakeSession(summary_text=long_summary))
    run(context, "/context")
    assert "last summary" in context.shown
    assert "file0.py: done" in context.shown and "file79.py: done" in context.shown


def test_remember_and_todo_record_text_and_show_the_pointer():
    context = FakeContext()
    run(context, "/remember the db uses SQLite WAL")
    run(context, "/todo write the migration")
    assert ("remember", "the db uses SQLite WAL") in context.session.calls
    assert ("add_pending", "write the migration") in context.session.calls
    shown = " ".join(context.shown.split())
    assert "remembered F1: the db uses SQLite WAL · source transcript:s-1:3 (/expand 1)" in shown
    assert "added P1: write the migration · source transcript:s-1:" in shown
    assert context.pointer_handles.pointer_for(1) == "transcript:s-1:3"


def test_remember_and_todo_warn_once_the_durable_block_passes_a_quarter_of_the_soft_threshold():
    """Found by an outside attack: facts grew the block every request carries until it
    alone filled the hard limit, with no word until every turn was blocked."""
    policy = dataclasses.replace(FakeSession().policy, soft_threshold=8_000)
    small = FakeContext(session=FakeSession(policy=policy, durable_tokens=2_000))
    run(small, "/remember the db uses SQLite WAL")
    assert "durable block" not in small.shown
    large = FakeContext(session=FakeSession(policy=policy, durable_tokens=2_001))
    run(large, "/remember the db uses SQLite WAL")
    run(large, "/todo write the migration")
    shown = " ".join(large.shown.split())
    assert shown.count("the durable block is now 2,001 tokens, over a quarter of the soft") == 2
    assert "/forget what is no longer needed (/facts lists it)" in shown


@pytest.mark.parametrize("line", ["/remember", "/todo   "])
def test_remember_and_todo_without_text_are_usage_errors(line):
    with pytest.raises(CommandUsageError) as caught:
        run(FakeContext(), line)
    assert caught.value.reason == "missing_argument"


def test_done_takes_exactly_one_id():
    context = FakeContext()
    run(context, "/done P1")
    assert ("mark_done", "P1") in context.session.calls
    with pytest.raises(CommandUsageError) as caught:
        run(context, "/done")
    assert caught.value.reason == "missing_argument"
    with pytest.raises(CommandUsageError) as caught:
        run(context, "/done P1 P2")
    assert caught.value.reason == "one_id_expected"


def test_done_on_an_unknown_item_lets_the_session_error_through():
    with pytest.raises(PendingTransitionError):
        run(FakeContext(), "/done P9")


def test_block_needs_an_id_and_a_reason():
    context = FakeContext()
    run(context, "/block P1 waiting for the API key")
    assert ("mark_blocked", "P1", "waiting for the API key") in context.session.calls
    with pytest.raises(CommandUsageError) as caught:
        run(context, "/block P1")
    assert caught.value.reason == "missing_reason"


def resolution(
    pointer: str, status: str, reason: str = "ok", excerpt: str | None = None
) -> SourceResolution:
    return SourceResolution(
        pointer=pointer,
        status=status,
        reason=reason,
        evidence_sha256="ab" * 32 if status == "available" else None,
        excerpt=excerpt,
        excerpt_truncated=False,
    )


def test_facts_shows_facts_and_pending_items_with_their_source_status():
    state = DurableContextState(
        facts=(DurableFact("F1", "uses WAL", "transcript:s:3", CONFIRMED_AT),),
        pending_items=(
            PendingItem(
                "P1",
                "migrate",
                "transcript:s:9",
                CONFIRMED_AT,
                status=PendingStatus.BLOCKED,
                blocked_reason="needs review",
            ),
        ),
    )
    session = FakeSession(
        durable_state=state,
        resolutions=(
            resolution("transcript:s:3", "available"),
            resolution("transcript:s:9", "missing", "not_found"),
        ),
    )
    context = FakeContext(session=session)
    run(context, "/facts")
    lines = context.shown.splitlines()
    assert any("F1" in ln and "uses WAL" in ln and "available" in ln for ln in lines)
    assert any("P1" in ln and "[blocked: needs review]" in ln and "missing" in ln for ln in lines)


def test_sources_lists_every_pointer_with_status_and_reason():
    session = FakeSession(resolutions=(resolution("artifact:s:out.txt:abcdef012345", "corrupt",
                                                  "digest_mismatch"),))  # fmt: skip
    context = FakeContext(session=session, console=make_console(width=120))  # with the # column
    run(context, "/sources")
    row = next(ln for ln in context.shown.splitlines() if "artifact out " in ln)
    assert "corrupt" in row and "no longer matches the pointer" in row
    assert "digest_mismatch" not in context.shown  # codes stay in --json and the logs


def test_sources_and_facts_agree_on_a_source_changed_since_its_fact_was_saved():
    # the record still reads and checks (available), but not what the fact was made from
    saved = DurableFact("F1", "deploy with make deploy-prod", "transcript:s:3", CONFIRMED_AT,
                        evidence_sha256="cd" * 32)  # fmt: skip
    intact = DurableFact(
        "F2", "uses WAL", "transcript:s:5", CONFIRMED_AT, evidence_sha256="ab" * 32
    )
    session = FakeSession(
        durable_state=DurableContextState(facts=(saved, intact)),
        resolutions=(
            resolution("transcript:s:3", "available"),
            resolution("transcript:s:5", "available"),
        ),
    )
    context = FakeContext(session=session, console=make_console(width=160))
    run(context, "/facts")
    facts_line = next(ln for ln in context.shown.splitlines() if "F1" in ln)
    assert "transcript:s:3 (/expand 1) changed" in facts_line
    run(context, "/sources")
    shown = [line.rstrip() for line in context.shown.splitlines() if "    transcript:" in line]
    rows = {line.split()[1]: line.split(None, 3)[2:] for line in shown}
    assert rows["transcript:s:3"][0] == "changed" and "not verified" in rows["transcript:s:3"][1]
    assert rows["transcript:s:5"] == ["available", "found and verified"]


def test_sources_with_no_pointers_says_so():
    context = FakeContext()
    run(context, "/sources")
    assert "no source pointers" in context.shown


def test_expand_shows_the_excerpt_safely():
    pointer = "transcript:s-1:4"
    hostile = "line one\n\x1b[2J[bold]not markup[/bold]\n[compact] total: fake"
    session = FakeSession(expansions={pointer: resolution(pointer, "available", excerpt=hostile)})
    context = FakeContext(session=session)
    run(context, f"/expand {pointer}")
    shown = context.shown
    assert "available" in shown and "[bold]not markup[/bold]" in shown
    assert "\x1b" not in shown
    assert "› [compact] total: fake" in shown


def test_expand_needs_one_pointer():
    with pytest.raises(CommandUsageError):
        run(FakeContext(), "/expand")


def test_sessions_lists_them_and_marks_the_current_one():
    context = FakeContext()
    run(context, "/sessions")
    current = next(ln for ln in context.shown.splitlines() if "s-1" in ln)
    other = next(ln for ln in context.shown.splitlines() if "s-0" in ln)
    assert "*" in current and "*" not in other


@pytest.mark.parametrize("days", ["1000000", "²", "3.5", "-1", ""])
def test_an_age_that_is_no_small_whole_number_of_days_is_a_usage_error_not_a_crash(days):
    """Found by an outside attack: `--older-than 1000000` overflowed the date and `²`
    passed `isdigit()` but not `int()`; both ended the REPL with a traceback."""
    with pytest.raises(CommandUsageError) as caught:
        run(FakeContext(), f"/sessions delete --older-than {days}".strip())
    assert caught.value.reason == "bad_days"


def test_the_largest_age_allowed_deletes_nothing_and_does_not_crash():
    context = FakeContext()
    run(context, "/sessions delete --older-than 99999")


@dataclass
class DeletingContext(FakeContext):
    """A context whose backend deletes every id it is given (records which)."""

    deleted: list[str] = field(default_factory=list)

    def delete_sessions(self, session_ids: list[str]) -> list[Any]:
        from agent_cli.session.catalog import DELETED, SessionDeletion

        self.deleted += session_ids
        return [SessionDeletion(session_id, DELETED) for session_id in session_ids]


@dataclass
class TwoFolderContext(DeletingContext):
    """Old sessions of this folder (`/work/project`) and of another one."""

    def list_sessions(self) -> list[Any]:
        elsewhere = [
            dataclasses.replace(
                listed_session(f"o-{n}", "2020-01-01T09:00:00+00:00"), workspace="/x"
            )
            for n in range(3)
        ]
        here = [listed_session(f"h-{n}", "2020-01-01T09:00:00+00:00") for n in range(2)]
        return [listed_session("s-1"), *here, *elsewhere]


def test_older_than_deletes_this_folders_sessions_and_says_what_it_left_elsewhere():
    """A loss found in review: `--older-than 0` deleted the sessions of every folder."""
    context = TwoFolderContext()
    run(context, "/sessions delete --older-than 0")
    assert context.deleted == ["h-0", "h-1"]
    assert context.questions == [
        "delete 2 sessions of this folder last changed over 0 days ago, transcripts and "
        "artifacts? [y/N] "
    ]
    shown = " ".join(context.shown.split())
    assert "deleted 2 sessions (transcript and artifacts): h-0, h-1" in shown
    assert "left 3 older sessions of other folders; add --all-folders to delete those too" in shown


@pytest.mark.parametrize(
    "line",
    [
        "/sessions delete --older-than 30 --all-folders",
        "/sessions delete --all-folders --older-than 30",
    ],
)
def test_all_folders_deletes_the_older_sessions_of_every_folder(line):
    context = TwoFolderContext()
    run(context, line)
    assert context.deleted == ["h-0", "h-1", "o-0", "o-1", "o-2"]
    assert "of every folder" in context.questions[0] and "left" not in context.shown


def test_older_than_deletes_nothing_unless_the_question_is_answered_yes():
    context = TwoFolderContext(answer_yes=False)
    run(context, "/sessions delete --older-than 0")
    assert context.deleted == [] and "nothing deleted" in context.shown


@pytest.mark.parametrize(
    "args", ["--older-than", "--all-folders", "--older-than 3 4", "--older-than 3 --al"]
)
def test_older_than_with_a_missing_or_extra_word_is_a_usage_error(args):
    context = TwoFolderContext()
    with pytest.raises(CommandUsageError) as caught:
        run(context, f"/sessions delete {args}")
    assert caught.value.reason == "bad_days" and context.deleted == []


def test_the_open_session_among_others_is_refused_alone_and_the_others_are_deleted():
    """The README: one refused does not stop the rest (the whole list was refused)."""
    context = DeletingContext()
    run(context, "/sessions delete s-0 s-1 s-2")  # s-1 is open
    assert context.deleted == ["s-0", "s-2"]
    shown = " ".join(context.shown.split())
    assert "deleted 2 sessions (transcript and artifacts): s-0, s-2" in shown
    assert "not deleted: s-1: the open session cannot be deleted" in shown


def test_the_open_session_named_alone_is_a_usage_error():
    context = DeletingContext()
    with pytest.raises(CommandUsageError) as caught:
        run(context, "/sessions delete s-1")
    assert caught.value.reason == "current_session" and context.deleted == []


def test_resume_and_new_ask_the_repl_to_switch_sessions():
    context = FakeContext()
    run(context, "/resume s-0")
    run(context, "/new")
    assert context.switched_to == ["s-0", None]


def test_resume_of_the_open_session_is_refused():
    with pytest.raises(CommandUsageError) as caught:
        run(FakeContext(), "/resume s-1")
    assert caught.value.reason == "already_current"


def test_quit_and_its_alias_end_the_loop():
    context = FakeContext()
    run(context, "/exit")
    assert context.quit_requested


def test_commands_that_take_no_arguments_refuse_them():
    for line in ["/help me", "/context x", "/sessions x", "/new x", "/quit now"]:
        with pytest.raises(CommandUsageError) as caught:
            run(FakeContext(), line)
        assert caught.value.reason == "unexpected_argument"


# --- errors as the loop shows them ---------------------------------------------------------


def make_repl(session: FakeSession | None = None) -> Repl:
    session = session or FakeSession()
    backend = FakeBackend(known={session.session_id: session}).factory(None, None)
    return Repl(
        session=session,
        backend=backend,
        reader=None,
        console=make_console(),
        live=False,
        offline_fallback=True,
    )


def test_a_bad_argument_is_one_line_with_the_usage():
    repl = make_repl()
    repl.handle_line("/block P1")
    lines = [ln for ln in repl.console.export_text().splitlines() if ln.strip()]
    assert lines == ["/block: needs a reason after the id · usage: /block <id> <reason>"]


def test_an_unknown_command_is_one_line_pointing_at_help():
    repl = make_repl()
    repl.handle_line("/nope")
    assert repl.console.export_text().strip() == "unknown command /nope: /help lists the commands"


@pytest.mark.parametrize("typed", ["/cost", "/usage", "/tokens", "/COST", "/costs", "/token"])
def test_another_agents_name_for_the_usage_command_suggests_stats(typed):
    """Claude Code's `/cost` (and `/usage`, `/tokens`) got "unknown command" with no hint;
    /stats is where tokens and dollars are shown."""
    repl = make_repl()
    repl.handle_line(typed)
    shown = repl.console.export_text().strip()
    said = f"unknown command {typed.lower()}: did you mean /stats? /help lists the commands"
    assert shown == said


@pytest.mark.parametrize("typed", ["/post", "/host", "/use", "/stage", "/usa"])
def test_a_word_merely_near_another_agents_name_gets_no_hint(typed):
    repl = make_repl()
    repl.handle_line(typed)
    assert (
        repl.console.export_text().strip() == f"unknown command {typed}: /help lists the commands"
    )


def test_a_session_error_from_a_command_is_one_line():
    repl = make_repl()
    repl.handle_line("/done P7")
    shown = repl.console.export_text().strip()
    assert shown == "there is no pending item P7; /facts lists them (T1, T2, ...)"


def test_table_cells_show_markup_from_outside_strings_literally():
    session = FakeSession(resolutions=(resolution("transcript:[bold]x[/bold]:1", "missing"),))
    context = FakeContext(session=session)
    run(context, "/sources")
    assert "transcript:[bold]x[/bold]:1" in context.shown


def test_done_with_a_bare_number_means_that_todo():
    context = FakeContext()
    run(context, "/done 1")
    assert context.session.calls[-1] == ("mark_done", "T1")


def test_expand_of_text_that_is_no_pointer_says_so_in_plain_words():
    session = FakeSession()
    session.expand = lambda pointer: resolution(pointer, "corrupt", "missing_scheme")
    context = FakeContext(session=session)
    run(context, "/expand garbage")
    assert "that is not a pointer: a pointer looks like transcript:<session>:<sequence>" in (
        " ".join(context.shown.split())
    )
    assert "missing_scheme" not in context.shown


def test_stats_and_context_say_in_words_why_an_instructions_file_is_not_used():
    session = FakeSession(
        project_instructions=ProjectInstructions(source="AGENTS.md", problem="hidden_target")
    )
    session.stats_value = dataclasses.replace(
        session.stats_value, project_instructions="AGENTS.md: not used (hidden_target)"
    )
    context = FakeContext(session=session)
    run(context, "/stats")
    run(context, "/context")
    shown = " ".join(context.shown.replace("│", " ").split())
    assert "hidden_target" not in shown
    assert shown.count("AGENTS.md is a link to a hidden file or folder") == 2, shown
    run(context, "/stats --json")
    assert "hidden_target" in context.plain.getvalue()  # scripts keep the code


def test_restarting_a_server_turned_off_in_config_says_so_and_restarts_nothing():
    from agent_cli.session.mcp_part import McpServerView

    context = FakeContext()
    context.session.mcp_views = (McpServerView("h", "disabled", "", (), (), 0),)
    run(context, "/mcp restart h")
    assert "turned off in config.toml" in context.shown and "Restarted" not in context.shown
    assert ("restart_mcp", "h") not in context.session.calls


def test_restarting_a_server_says_restarting_then_how_it_went():
    """`/mcp restart ghost` (command not found) said "Restarted MCP server ghost." and
    then the server was failed."""
    from agent_cli.session.mcp_part import McpServerView

    context = FakeContext()
    session = context.session
    session.mcp_views = (McpServerView("ghost", "failed", "old reason", (), (), 0),)

    def restart(name: str) -> bool:
        reason = "the command 'ghost' was not found (check command in config.toml)"
        session.mcp_views = (McpServerView(name, "failed", reason, (), (), 0),)
        return True

    session.restart_mcp = restart  # type: ignore[method-assign]
    run(context, "/mcp restart ghost")
    shown = " ".join(context.shown.split())
    assert "Restarting MCP server ghost…" in shown and "Restarted" not in shown
    assert "MCP server ghost did not start: the command 'ghost' was not found" in shown
    assert shown.index("Restarting") < shown.index("did not start")


def test_restarting_a_server_that_comes_up_says_it_is_ready_with_its_tools():
    from agent_cli.session.mcp_part import McpServerView

    context = FakeContext()
    context.session.mcp_views = (McpServerView("demo", "ready", "", ("a", "b"), (), 0),)
    run(context, "/mcp restart demo")
    assert "MCP server demo is ready (2 tools)." in context.shown


def test_mcp_restart_without_a_name_is_a_usage_error_with_the_mcp_usage():
    from agent_cli.repl.commands import usage_of

    with pytest.raises(CommandUsageError) as caught:
        run(FakeContext(), "/mcp restart")
    assert caught.value.command == "/mcp" and usage_of("/mcp") == "/mcp [restart <server>]"


def citing_state() -> DurableContextState:
    """F1 and P1 cite old session h-0; F2 cites the open one."""
    return DurableContextState(
        facts=(
            DurableFact("F1", "uses WAL", "transcript:h-0:3", CONFIRMED_AT),
            DurableFact("F2", "port 8080", "transcript:s-1:4", CONFIRMED_AT),
        ),
        pending_items=(
            PendingItem("P1", "migrate", "artifact:h-0:a.txt:" + "0" * 64, CONFIRMED_AT),
        ),
    )


def test_deleting_the_source_of_durable_items_asks_first_naming_them():
    """An outside attack: deleting a session removed the evidence behind a live fact
    without a word; the fact then showed as missing in every request."""
    context = TwoFolderContext(session=FakeSession(durable_state=citing_state()))
    run(context, "/sessions delete h-0 h-1")
    assert context.questions == [
        "durable F1, P1 cite these sessions as source: deleted, they show as missing in every "
        "request (/forget <id> drops one); delete anyway? [y/N] "
    ]
    assert context.deleted == ["h-0", "h-1"]
    assert "durable F1, P1: source deleted, shown as missing until /forget" in context.shown


def test_a_no_to_deleting_the_source_of_durable_items_deletes_nothing():
    context = TwoFolderContext(session=FakeSession(durable_state=citing_state()), answer_yes=False)
    run(context, "/sessions delete h-0")
    assert context.deleted == [] and "nothing deleted" in context.shown


def test_deleting_sessions_no_durable_item_cites_asks_nothing():
    context = TwoFolderContext(session=FakeSession(durable_state=citing_state()))
    run(context, "/sessions delete h-1")
    assert context.questions == [] and context.deleted == ["h-1"]
    assert "durable" not in context.shown


def test_older_than_names_the_durable_items_citing_what_it_would_delete():
    context = TwoFolderContext(session=FakeSession(durable_state=citing_state()))
    run(context, "/sessions delete --older-than 0")
    assert context.questions[0].startswith(
        "durable F1, P1 cite these sessions as source: deleted, they show as missing"
    )
    assert context.deleted == ["h-0", "h-1"]


def test_mcp_says_how_to_start_a_failed_server_again_now_that_reasons_give_no_advice():
    """A failure's reason is a fact (`-p` has no /mcp restart to offer); /mcp, which the
    REPL alone runs, says how to get a failed server back."""
    from agent_cli.session.mcp_part import McpServerView

    context = FakeContext()
    context.session.mcp_views = (McpServerView("demo", "ready", "", ("a",), (), 0),)
    run(context, "/mcp")
    assert "/mcp restart <server>" not in context.shown
    context.session.mcp_views = (McpServerView("gone", "failed", "it exited", (), (), 0),)
    run(context, "/mcp")
    assert "gone failed: it exited" in context.shown
    assert "/mcp restart <server> starts a failed server again." in context.shown
