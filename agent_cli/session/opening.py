"""Opening a session: the one place that builds its stores, toolbox and resolver.

`open_session` starts a new session or rebuilds one from its transcript (`resume`): the
view is the last compaction's view plus every message after it. A transcript that ends
inside a tool call (a crash while the tool ran) is repaired by answering the dangling
calls with error results, recorded like any other message, so the resumed view is one
the API accepts; a call the transcript shows was still at its permission question
(`question_marks`) is answered as never run, the others as ones that may have run. Tool ids an earlier version recorded outside the API's grammar (empty,
odd characters, too long) are renamed in the view (`rename_malformed_tool_ids`, said in
a notice); the transcript keeps them. A transcript that cannot be made valid is refused,
never half-loaded.

A resumed session keeps working in the folder it was started in: its conversation names
files there, so running its tools in whatever folder agent-cli was started from would
act on the wrong files. The switch is announced; when that folder is gone, the tools
run in the current one and that is announced instead. When both are gone (a current
folder deleted under the shell, `workspace` None or naming no folder) the session is not
opened (`WorkspaceMissing`): its tools must not run in no folder. A new session needs an
existing workspace folder just the same.

A resumed session's facts and pending items kept for another folder than the one it works
in (the project moved or renamed, or a copy) are pointed at, never moved (`durable_folder`).

A resumed session's toolbox knows what the model saw of files in the runs before (the
transcript's `file_seen` records, `tools.seen_files`), so a write over a file the user
changed between two runs is refused as it would be within one run.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_cli.compaction import CompactionPolicy
from agent_cli.durable import cited_pointers
from agent_cli.errors import (
    MemoryFileDamaged,
    ModelSwitchRefused,
    SessionNotFound,
    StoreError,
    TranscriptWriteFailed,
    WorkspaceMissing,
)
from agent_cli.events import Notice
from agent_cli.protocol import answer_dangling_tool_uses, rename_malformed_tool_ids
from agent_cli.session.core import Session
from agent_cli.session.durable_folder import note_durable_elsewhere
from agent_cli.session.log import (
    SESSION_STARTED,
    RebuiltSession,
    SessionLog,
    rebuild_from_records,
)
from agent_cli.session.model_choice import switch_model
from agent_cli.session.question_marks import AT_QUESTION_TEXT, RESUMED_TOOL_TEXT, resumed_texts
from agent_cli.session.resume_check import check_message_shapes, check_sendable_view
from agent_cli.session.resumed_secrets import redact_resumed_view
from agent_cli.session.same_folder import is_same_folder, is_session_folder
from agent_cli.store.path_text import path_fields

if TYPE_CHECKING:
    from agent_cli.mcp_servers.settings import McpServerSettings
    from agent_cli.provider.base import Provider
    from agent_cli.recall import Recall
    from agent_cli.store.artifacts import ArtifactStore
    from agent_cli.store.fsutil import FileOps
    from agent_cli.store.paths import StatePaths
    from agent_cli.store.transcript import SessionInfo
    from agent_cli.tokens import TokenCounter
    from agent_cli.tools import Toolbox
    from agent_cli.tools.dotenv_watch import DotenvWatch
    from agent_cli.tools.permissions import PermissionAsker
    from agent_cli.tools.seen_roots import SeenRecord
    from agent_cli.tools.toolbox import ToolRunner

    # (workspace, artifacts, session_id, ask_permission, auto_approve, recall) -> tools
    ToolboxFactory = Callable[
        [Path, ArtifactStore, str, PermissionAsker | None, bool, Recall], ToolRunner
    ]


def utc_now() -> datetime:
    return datetime.now(UTC)


def open_session(
    *,
    paths: StatePaths,
    provider: Provider,
    workspace: Path | None,
    policy: CompactionPolicy,
    ask_permission: PermissionAsker | None = None,
    auto_approve: bool = False,
    resume: str | None = None,
    clock: Callable[[], datetime] = utc_now,
    counter: TokenCounter | None = None,
    toolbox_factory: ToolboxFactory | None = None,
    transcript_fs: FileOps | None = None,
    artifact_fs: FileOps | None = None,
    environment: Mapping[str, str] | None = None,
    mcp_servers: Sequence[McpServerSettings] = (),
    command_line_model: str | None = None,
) -> Session:
    """Build a ready session (see module contract); typed store errors propagate.

    `workspace`: the folder agent-cli was started in (or `--workspace`); None when it was
    deleted and its name is unknown. `WorkspaceMissing` when the session would have no
    existing folder to work in (module contract).

    `command_line_model`: the model `--model` named for this run (None without the
    flag). A resumed session goes on with the model chosen with `/model` in it, unless
    the flag names another: the flag wins and is recorded as the session's new choice
    (the 404 advice for a model that does not exist names `--model`, and in `-p` it is
    the only way to choose).

    `environment` is where the toolbox finds the secrets it keeps out of tool results
    (default: this process's environment).

    `transcript_fs` and `artifact_fs` are the stores' `FileOps` (default: the real disk);
    fault tests pass ones that fail on purpose, e.g. with ENOSPC.

    `mcp_servers`: the MCP servers config.toml names; their tools join the toolbox once
    `Session.start_mcp` has started them (nothing of the MCP SDK is loaded without any).
    """
    from agent_cli.prompts import load_prompt
    from agent_cli.recall import Recall, recall_page_chars
    from agent_cli.sources import SourcePointerResolver
    from agent_cli.store.artifacts import ArtifactStore
    from agent_cli.store.memory import MemoryStore
    from agent_cli.store.seen_key import load_seen_key
    from agent_cli.store.transcript import TranscriptStore
    from agent_cli.tokens import TokenCounter

    started_in = None if workspace is None else Path(workspace).resolve()
    transcripts = TranscriptStore(paths.transcripts, fs=transcript_fs)
    if resume and not transcripts.exists(resume):
        raise SessionNotFound(resume)
    session_id = resume or transcripts.new_session_id(clock())
    writer = transcripts.open_writer(session_id)
    try:
        rebuilt = rebuild_from_records(transcripts.replay(session_id)) if resume else None
        totals = rebuilt.totals if rebuilt else None
        log = SessionLog(writer, clock, totals, model_of=lambda: provider.model)
        if rebuilt is None:  # (refused here, the new transcript is discarded below)
            workspace, workspace_notice = _workspace_for_new(started_in), None
        else:
            workspace, workspace_notice = _workspace_for_resume(
                started_in, rebuilt.workspace, session_id
            )
        learned, workspace_notices, dotenv_watch = _workspace_secrets(workspace, environment)
        extra_secrets = (*_mcp_secrets(mcp_servers, environment), *learned)
        _refuse_secret_model(provider.model, environment, extra_secrets)
        if rebuilt is None:
            log.append(
                SESSION_STARTED,
                {
                    **path_fields("workspace", str(workspace)),
                    "provider": provider.name,
                    "model": provider.model,
                },
            )
        artifacts = ArtifactStore(paths.artifacts_root, fs=artifact_fs)
        recall = Recall(
            session_id, paths.transcripts, paths.artifacts_root, recall_page_chars(policy)
        )
        recall.written_from = writer.next_sequence  # what this run writes (`recall` contract)
        make_toolbox = toolbox_factory or partial(
            _default_toolbox,
            environment=environment,
            extra_secrets=extra_secrets,
            state_folders=paths.own_folders(),
        )
        toolbox = make_toolbox(
            workspace, artifacts, session_id, ask_permission, auto_approve, recall
        )
        recall.secrets = toolbox.secret_forms
        seen_key = load_seen_key(paths.transcripts)
        _keep_files_seen(toolbox, log, rebuilt, seen_key)
        session = Session(
            log=log,
            provider=provider,
            toolbox=toolbox,
            resolver=SourcePointerResolver(
                transcript_root=paths.transcripts, artifact_root=paths.artifacts_root
            ),
            memory=MemoryStore(paths.memory),
            workspace=workspace,
            policy=policy,
            counter=counter or TokenCounter(),
            system_prompt=load_prompt("system"),
            clock=clock,
            artifacts=artifacts,
            recall=recall,
        )
        recall.cited = lambda: cited_pointers(session.durable_state)
        _watch_dotenv(session, toolbox, dotenv_watch)
        if mcp_servers:
            _attach_mcp(session, toolbox, mcp_servers, workspace, session.counter)
        if workspace_notice is not None:
            session.announce(workspace_notice)
        for notice in workspace_notices:
            session.announce(notice)
        if writer.torn_tail is not None:
            kept_at, size = writer.torn_tail
            fields = {"kept_at": str(kept_at), "bytes": size}
            session.announce(Notice("warning", "torn_record_set_aside", fields))
        _load_memory(session)
        if rebuilt is not None:
            note_durable_elsewhere(session, rebuilt)
        _load_project_instructions(session)
        session.render_durable()  # so the first gauge already counts the durable block
        if rebuilt is not None:
            _restore_view(session, rebuilt.view, rebuilt.origins, rebuilt.questions)
            _restore_model(session, rebuilt.chosen_model, command_line_model)
            _restore_calibration(session, rebuilt.calibration_sample)
            if rebuilt.guard_hold is not None:
                session.compactor.restore_guard(*rebuilt.guard_hold)
        return session
    except BaseException as error:
        # a new session that could not start leaves no empty file, nor an id to resume
        discarded = resume is None and transcripts.discard_if_empty(session_id)
        writer.close()
        if discarded and isinstance(error, TranscriptWriteFailed):
            raise TranscriptWriteFailed(session_id, error.errno_name, session_kept=False) from error
        raise


def _keep_files_seen(
    toolbox: ToolRunner, log: SessionLog, rebuilt: RebuiltSession | None, key: bytes
) -> None:
    """Give the toolbox what the model saw of files in the runs before (from the
    transcript `rebuilt`, put back under the folder the tools run in now, `tools.
    seen_roots`) and the key its fingerprints are kept under (`store.seen_key`), and record
    what it sees from now on, keyed, except a path holding a secret (`tools.seen_files`).
    A toolbox of another kind (a test's) keeps nothing."""
    from agent_cli.tools import Toolbox

    if not isinstance(toolbox, Toolbox):
        return
    recorded = rebuilt.workspace if rebuilt else None
    workspace = None if recorded is None else Path(recorded)
    toolbox.restore_seen_files(rebuilt.files_seen if rebuilt else (), key, workspace)

    def record(seen: SeenRecord) -> None:
        whole = str(seen.absolute)
        if toolbox.secret_forms.redact(whole) == whole:
            log.append_file_seen(seen)

    toolbox.record_seen_files(record)


def _attach_mcp(
    session: Session,
    toolbox: ToolRunner,
    servers: Sequence[McpServerSettings],
    workspace: Path,
    counter: TokenCounter,
) -> None:
    """Give the session its MCP servers and the toolbox their tools (not started yet);
    what the servers say is redacted of the toolbox's secrets."""
    from agent_cli.session.mcp_part import McpPart
    from agent_cli.tools import Toolbox

    mcp = McpPart(servers, workspace, counter, toolbox.secret_forms)
    if isinstance(toolbox, Toolbox):
        toolbox.attach_mcp(mcp)
    session.use_mcp(mcp)


def _mcp_secrets(
    servers: Sequence[McpServerSettings], environment: Mapping[str, str] | None
) -> tuple[str, ...]:
    """The credentials config.toml gives the MCP servers: secrets like the environment's
    (`redaction.collect_mcp_secret_values`), for every server, a disabled one too."""
    if not servers:
        return ()
    import os

    from agent_cli.tools.redaction import collect_mcp_secret_values

    return collect_mcp_secret_values(servers, os.environ if environment is None else environment)


def _refuse_secret_model(
    model: str, environment: Mapping[str, str] | None, extra: Sequence[str]
) -> None:
    """Raise `ModelSwitchRefused("secret_model_id")` before anything is recorded when the
    model id holds a secret of the session (an API key given as `--model`): the id goes
    into the transcript, the banner and `stats`."""
    import os

    from agent_cli.tools.redaction import collect_secret_values

    found = collect_secret_values(os.environ if environment is None else environment)
    if any(secret and secret in model for secret in (*found, *extra)):
        raise ModelSwitchRefused("secret_model_id")


def _workspace_secrets(
    workspace: Path, environment: Mapping[str, str] | None
) -> tuple[tuple[str, ...], tuple[Notice, ...], DotenvWatch]:
    """The secrets of the workspace's dotenv files, the notices about them and the watch
    that sees them change (`session.dotenv_secrets`; imported here, off the prompt's
    path)."""
    from agent_cli.session.dotenv_secrets import load_dotenv_secrets

    return load_dotenv_secrets(workspace, environment)


def _watch_dotenv(session: Session, toolbox: ToolRunner, watch: DotenvWatch) -> None:
    """Have the toolbox check the dotenv files around every call and before every request
    the session sends, hide what they gain and tell the session, which hands the grown
    secrets to their other holders (`Session.note_dotenv_change`). A toolbox of another
    kind (a test's) is not watched."""
    from agent_cli.tools import Toolbox

    if isinstance(toolbox, Toolbox):
        toolbox.watch_dotenv(watch, session.note_dotenv_change)
        session.check_dotenv_before_requests(toolbox.check_dotenv)


def _default_toolbox(
    workspace: Path,
    artifacts: ArtifactStore,
    session_id: str,
    ask_permission: PermissionAsker | None,
    auto_approve: bool,
    recall: Recall | None = None,
    environment: Mapping[str, str] | None = None,
    extra_secrets: tuple[str, ...] = (),
    state_folders: tuple[Path, ...] = (),
) -> Toolbox:
    from agent_cli.tools import Toolbox

    return Toolbox(
        workspace,
        artifacts,
        session_id,
        ask_permission=ask_permission,
        auto_approve=auto_approve,
        recall=recall,
        secret_environment=environment,
        extra_secrets=extra_secrets,
        state_folders=state_folders,
    )


def _workspace_for_new(started_in: Path | None) -> Path:
    """The folder a new session's tools work in: the one agent-cli was started in, which
    must exist (`WorkspaceMissing`: it was deleted, e.g. before `/new`)."""
    if started_in is None or not started_in.is_dir():
        raise WorkspaceMissing(None if started_in is None else str(started_in))
    return started_in


def _workspace_for_resume(
    started_in: Path | None, recorded: str | None, session_id: str
) -> tuple[Path, Notice | None]:
    """The folder a resumed session's tools work in, and what to tell the user about it:
    the recorded one while it exists, else the one agent-cli was started in; neither
    existing, `WorkspaceMissing` (the session is not opened). Nothing is said when the
    two are the same folder (the recorded path now a link to the one started in)."""
    started = "" if started_in is None else str(started_in)
    where = {"recorded": recorded or "", "current": started}
    if recorded is not None and Path(recorded).is_dir():
        if started_in is not None and is_same_folder(Path(recorded), started_in):
            return started_in, None
        current_gone = started_in is None or not started_in.is_dir()
        return Path(recorded), Notice(
            "warning", "workspace_switched", {**where, "current_gone": current_gone}
        )
    if started_in is None or not started_in.is_dir():
        raise WorkspaceMissing(recorded or started or None, session_id)
    if recorded is None:
        return started_in, None
    return started_in, Notice("warning", "workspace_missing", where)


def _load_memory(session: Session) -> None:
    try:
        session.durable.load()
    except MemoryFileDamaged as error:
        session.announce(Notice("error", "memory_damaged", error=error))


def _load_project_instructions(session: Session) -> None:
    """AGENTS.md (or CLAUDE.md) into every request; a file that cannot be used is said
    once, here, and the session goes on without it."""
    found = session.reload_project_instructions()
    if found.problem is not None:
        problem = {"source": found.source, "problem": found.problem}
        session.announce(Notice("warning", "project_instructions_unusable", problem))
    if found.redacted:
        redacted = {"source": found.source, "redacted": found.redacted}
        session.announce(Notice("warning", "project_instructions_redacted", redacted))


def _restore_model(session: Session, chosen: str | None, command_line_model: str | None) -> None:
    """Go on with the model chosen with `/model` in this session, and say so; a model
    `--model` names wins over it, recorded as the new choice (see `open_session`)."""
    provider = session.provider
    if not chosen or provider.name == "offline" or chosen == provider.model:
        return
    provider.model = chosen
    if command_line_model is None:
        session.announce(Notice("info", "model_restored", {"model": chosen}))
        return
    with contextlib.suppress(StoreError, ModelSwitchRefused):  # it runs on, unrecorded
        switch_model(provider, session.log, command_line_model)
    provider.model = command_line_model
    fields = {"model": command_line_model, "chosen": chosen}
    session.announce(Notice("info", "model_flag_over_choice", fields))


def _restore_calibration(session: Session, sample: tuple[int, int] | None) -> None:
    """Measure the estimate as the last recorded request did, so the resumed gauge and
    thresholds read as they did before quitting (not uncalibrated until the next reply)."""
    if sample is not None:
        session.compactor.calibrate(*sample)


def _restore_view(
    session: Session,
    view: list[dict[str, Any]],
    origins: list[int],
    questions: Mapping[str, str] | None = None,
) -> None:
    """Adopt a replayed view, answering dangling tool calls first (recorded), with any
    oversized user message stored and previewed (`session.oversized`). A dangling call
    whose permission question was never answered (`questions`, `question_marks`) is
    answered as not run, and so are the calls after it; the others may have run.

    The view is checked as a request would be (`resume_check`) before anything is
    recorded, so a transcript that cannot be resumed is refused untouched. What tools and
    the model wrote is redacted of the secrets known now (`resumed_secrets`): one named
    since it was recorded is not sent again; the transcript keeps it as written.
    """
    check_message_shapes(session.session_id, view, origins)
    view, renames = rename_malformed_tool_ids(view)
    view, _ = redact_resumed_view(view, session.toolbox.secret_forms)
    not_run = resumed_texts(_last_tool_uses(view), questions or {})
    repaired, answers = answer_dangling_tool_uses(view, RESUMED_TOOL_TEXT, not_run)
    check_sendable_view(session.session_id, repaired, origins)
    session.conversation.restore(session.runner.shrinker().shrink_view(view))
    if renames:
        session.announce(Notice("warning", "tool_ids_renamed", {"count": len(renames)}))
    if answers is not None:
        session.conversation.append(answers)
        _announce_answered_calls(session, _last_tool_uses(view), answers, not_run)


def _last_tool_uses(view: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The tool_use blocks of the view's last message, when it is the model's."""
    last = view[-1] if view else {}
    content = last.get("content") if last.get("role") == "assistant" else None
    if not isinstance(content, list):
        return []
    return [b for b in content if isinstance(b, dict) and b.get("type") == "tool_use"]


def _announce_answered_calls(
    session: Session,
    tool_uses: Sequence[dict[str, Any]],
    answers: dict[str, Any],
    not_run: Mapping[str, str],
) -> None:
    """Say how the calls the resume answered were left: at the permission question
    (never run), or while a tool may have run."""
    answered = [r.get("tool_use_id") for r in answers["content"]]
    if any(tool_use_id not in not_run for tool_use_id in answered):
        session.announce(Notice("warning", "resumed_mid_tool"))
    asked = [b for b in tool_uses if not_run.get(str(b.get("id"))) == AT_QUESTION_TEXT]
    if asked:
        tool = str(asked[0].get("name"))
        session.announce(Notice("warning", "resumed_at_question", {"tool": tool}))


def list_sessions(paths: StatePaths, workspace: Path | None = None) -> list[SessionInfo]:
    """Sessions on disk, newest first; only those of `workspace` when given."""
    from agent_cli.store.transcript import TranscriptStore

    sessions = TranscriptStore(paths.transcripts).list_sessions()
    if workspace is None:
        return sessions
    wanted = Path(workspace).resolve()
    return [s for s in sessions if is_session_folder(s.workspace, wanted)]


def latest_session_id(paths: StatePaths, workspace: Path) -> str | None:
    """The session `--continue` opens: the newest of this workspace holding a request of
    the user's (answered or not), else the newest of this workspace, else None
    (`catalog.pick_session_to_continue`)."""
    from agent_cli.session.catalog import pick_session_to_continue

    return pick_session_to_continue(paths, workspace)
