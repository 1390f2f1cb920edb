"""The session's compactor: policy, calibration, loop guard and the notices they give.

Contract: `Compactor.compact` is the one way the view is compacted, run before every
request and by `/compact`. It compacts the conversation's view against the calibrated
policy (forced, i.e. `/compact [focus]`: the summary runs first, whatever the size, with
the focus in its instructions, then a soft threshold low enough that something goes;
while the loop guard holds: only the hard limit), has the conversation record the
compaction before adopting its view (write-ahead: a store error propagates and the
uncompacted view is never sent), and yields what the REPL shows: notices for failed
layers, one `CompactionFired` with a line per layer that fired, or a `CompactionSkipped`
saying why nothing was done (`/compact` whose summary was not smaller than what it would
replace, the digest lines it adds included: `summary_not_smaller`, and the view is left as
it was; no compaction ever makes the context bigger; `nothing_to_compact` when no layer
changed anything).
A `/compact` whose view is exactly what the last compaction left, after a summary that
was adopted or found not smaller (so nothing is new since; also after `--resume`, when
the view is the summary and the tail it kept: L4's rule), runs no layer and asks for no
summary, whatever the focus: `nothing_to_compact` with `held` "nothing_new_to_summarize".
`MessageViewLimitExceeded` propagates, after the notices of
the layers that failed (a summary that failed says so). Every token figure it yields is
in request tokens (calibrated). An explicit low-water mark at or under the reserved
tokens is replaced by the default one (`CompactionPolicy.low_water_mark_over`); a notice
says so once per session. When the reserved tokens alone (system prompt, instructions,
tool schemas, durable block) reach the hard limit, no layer can help: it raises
`MessageViewLimitExceeded` at once, before any layer runs, so no summary is paid for.
Unless only the calibration puts them there and their characters / 4 do not: a ratio
measured on a request whose view held content the API counted far above its estimate is
one the frame never showed, and a refusal on it would hold for good (nothing sent, so
nothing measured again). The frame is then weighed at its characters
(`_frame_held_to_its_characters`), so the layers cut that content and the next request
measures a ratio again; a ratio measured on images or documents keeps its refusal.

After a compaction that made no room (it ended over the soft threshold or freed too
little: `LoopGuard.made_no_room`, kept past the hold's end until a compaction makes room
or `/compact` fires; a resumed hold without an aim is one), an automatic run under the
hard limit first runs the layers that cost no request alone (L1, L2; L3 keeps every
message), and asks for a summary (the full run, from the view as it was) only when what a
summary of the view they leave would replace (`summary_reach`: the messages before the
recent window, without the digest and the previous summary) is at least
`budget.worthwhile_summary_tokens`: a quarter of the soft threshold, or of what the hard
limit leaves above the fixed part when that is less. Otherwise the free layers' run is
the run (L3 and L4 are not tried, so no notice of theirs); when it changed nothing the
guard holds again (`nothing_freed`). Why: when the fixed part (system prompt,
instructions, tool schemas, durable block) is most of the soft threshold, no run gets
under it, and each run the guard let through asked for a summary of the little that came
since the last (200 MCP tool schemas at 88,000 of 80,000 tokens: 6 summary requests in
30, each saving under 100 tokens). A room-making run (`density`) and a run at the hard
limit are never held so.

A summary that failed (its request ran out of retries, timed out or brought nothing
usable: `FAILED_SUMMARY_OUTCOMES`) holds the guard for the rest of the turn
(`LoopGuard.summary_failed`, lifted by `begin_turn`): later automatic runs of the turn get
no summarizer, so L3 prunes as when none is offered, and no `skipped_no_summarizer`
warning is given for it; `/compact` asks all the same. Why: each compaction of a turn
of tool calls asked again, a series of five billed attempts and half a minute under a
spinner each time, against an API that had just failed. The failure's warning carries
what the summarizer raised (`SummarizerFailed`, redacted of the session's secrets:
`shown_errors`) and whether `/compact` asked, for the REPL to word; each retry of a
summary request is told to `summary_retry_watcher` as it comes.

`make_room_for_uncounted` runs after it before every request: the calibration holds for
content the API has counted, and what the last turn added may be denser (a padded table
counted at twice our estimate sent a request 8% over the hard limit). When that content,
weighed at its characters / 4 where that is more than its estimate
(`budget.uncounted_excess`; characters as the wire carries them, an image or document
weighing none), would take the request over the hard limit, the view is compacted again
with the calibration scaled by how much denser the bound says the request is (so L1
cuts the dense results and the deeper layers remove more), up to `MAX_ROOM_RUNS` times.
The frame (system prompt, instructions, durable block, tool schemas) is weighed so too
while no counted request carried it as it is (the first request, after `/reload`); what
the API counted is weighed at the ratio the last request measured, where that is over
the clamp the thresholds use (content that bills six times its estimate). The hard limit
there is held by the highest ratio of the last `RECENT_RATIOS` requests, not the last one
alone: a request's mix of content changes from turn to turn, and its ratio with it. When
the frame alone may pass the hard limit, `MessageViewLimitExceeded` is raised and nothing
is sent (the frame held to its characters as above).
Otherwise the bound, by characters, can overstate what the API will count (English
words run about five characters a token), so it never blocks a turn: when a run makes
no more room (the rest is the user's own words, the step in progress), the request goes
as estimated, under the hard limit by the calibrated estimate.

The policy carries the secrets the toolbox redacts (`CompactionPolicy.secret_forms`), so
no layer cuts one in two; `use_policy` keeps them when the policy changes, and
`use_secret_forms` takes the grown set when the toolbox learns a secret mid-session. With a
`threshold_lift` (the offline demo's: what MCP tool schemas, project instructions and the
durable block add), the thresholds are
measured above those tokens: `policy` and every figure the compactor yields carry the
lifted thresholds, so the toolbar and the `[compact]` lines agree with when it fires.
"""

from __future__ import annotations

import dataclasses
import math
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from datetime import datetime
from typing import TYPE_CHECKING, Any

from agent_cli.compaction import (
    CompactionPolicy,
    compact_context,
    has_older_messages_to_summarize,
)
from agent_cli.compaction.firing import find_first_change
from agent_cli.compaction.policy import with_thresholds
from agent_cli.compaction.results import (
    APPLIED,
    NOTHING_NEW_TO_SUMMARIZE,
    NOTHING_TO_SUMMARIZE,
    SKIPPED_NO_SUMMARIZER,
    SUMMARY_BLANK,
    SUMMARY_FAILED,
    SUMMARY_NOT_SMALLER,
    SUMMARY_NOT_UNICODE,
    SUMMARY_TOO_LARGE,
    CompactionResult,
)
from agent_cli.compaction_layers import layer_numbered
from agent_cli.durable import DurableContextState
from agent_cli.errors import MessageViewLimitExceeded
from agent_cli.events import (
    CompactionFired,
    CompactionRecord,
    CompactionSkipped,
    LayerLine,
    Notice,
    RequestBlocked,
    RetryNotice,
    SessionEvent,
    StreamRestarted,
)
from agent_cli.provider.summary_reuse import CachedPrefix, is_still_cached
from agent_cli.secret_forms import SecretForms
from agent_cli.session.budget import (
    CHARS_PER_TOKEN,
    NOTHING_FREED,
    SUMMARY_NOT_WORTH_IT,
    LoopGuard,
    calibrated_policy,
    calibration_ratio,
    fit_to_window,
    to_request_tokens,
    uncounted_excess,
    wire_characters,
    worthwhile_summary_tokens,
)
from agent_cli.session.conversation import Conversation
from agent_cli.session.request_context import RequestFrame
from agent_cli.session.shown_errors import shown_summary_failure
from agent_cli.session.summary_reach import summary_reach
from agent_cli.session.summary_watch import WatchedSummarizer

if TYPE_CHECKING:
    from agent_cli.provider.base import Provider, ProviderSummarizer
    from agent_cli.tokens import TokenCounter

MIN_FORCED_SOFT = 256
PRUNE_LAYER = 3  # this layer and the summary after it are a run's deep steps
MAX_ROOM_RUNS = 3  # compactions that try to bring the request's bound under the hard limit
# How many of the last requests' ratios the hard limit is held by (the highest of them): a
# request's mix of content changes from turn to turn, and so does its ratio (in a session of
# reads, numbers and commands it went 0.95, 1.02, 0.95... with a six-turn cycle).
RECENT_RATIOS = 8
# What L4 may say of a view that leaves nothing for a summary asked for again to do.
SETTLED_SUMMARY_OUTCOMES = frozenset(
    {APPLIED, SUMMARY_NOT_SMALLER, NOTHING_TO_SUMMARIZE, NOTHING_NEW_TO_SUMMARIZE}
)
# Outcomes of a layer that tried and failed (the view was left as it was); each is a
# notice code the REPL words.
FAILED_LAYER_OUTCOMES = frozenset(
    {
        SUMMARY_FAILED,
        SUMMARY_BLANK,
        SUMMARY_NOT_UNICODE,
        SUMMARY_NOT_SMALLER,
        SUMMARY_TOO_LARGE,
        SKIPPED_NO_SUMMARIZER,
    }
)
# Outcomes of a summary asked for that failed (no usable text came back): no later
# automatic run of the same turn asks again (`LoopGuard.summary_failed`).
FAILED_SUMMARY_OUTCOMES = frozenset({SUMMARY_FAILED, SUMMARY_BLANK, SUMMARY_NOT_UNICODE})


class Compactor:
    """Keeps one session's view within its budget; see the module contract."""

    def __init__(
        self,
        *,
        conversation: Conversation,
        provider: Provider,
        counter: TokenCounter,
        policy: CompactionPolicy,
        clock: Callable[[], datetime],
        secret_forms: SecretForms | None = None,
        answer_tokens: int = 0,
    ) -> None:
        self.conversation = conversation
        self.answer_tokens = answer_tokens  # each request's `max_tokens`: room the window keeps
        self.provider = provider
        self.counter = counter
        self.clock = clock
        self._secret_forms = secret_forms
        self._policy = _with_secret_forms(policy, secret_forms)
        self._recent_ratios: deque[float] = deque(maxlen=RECENT_RATIOS)  # clamped, oldest first
        # whether the last ratio was measured on a view holding images or documents (billed
        # by the API's own sizing, which the estimate may get wrong), and the last ratio
        # measured on a view without any: the one that holds for the frame's text
        self._measured_on_sized = False
        self._text_ratio: float | None = None
        self._last_counted = (0, 0)  # the API's count of the last request and our estimate
        self._guard = LoopGuard()
        self._counted_frame: RequestFrame | None = None  # of the last request counted
        self._low_water_noticed = False  # an unreachable --low-water is said once
        self._settled_view: tuple[Any, ...] | None = None  # left by the last summary's run
        self.summary_watcher: Callable[[], None] | None = None  # told before each summary
        # told of each retry of a summary request, as it comes
        self.summary_retry_watcher: Callable[[StreamRestarted], None] | None = None
        # tokens the thresholds are measured above (the offline demo: MCP tool schemas)
        self.threshold_lift: Callable[[], int] | None = None

    @property
    def policy(self) -> CompactionPolicy:
        """The policy as the user set it (uncalibrated), with the toolbox's secrets, its
        thresholds raised by `threshold_lift()` tokens when one is set, and lowered to fit
        the model's window beside the answer when they would pass it (`fit_to_window`)."""
        window = self.provider.context_window
        return fit_to_window(self.policy_as_set, window, self.answer_tokens)

    @property
    def policy_as_set(self) -> CompactionPolicy:
        """`policy` before it is fitted to the model's window."""
        lift = 0 if self.threshold_lift is None else self.threshold_lift()
        return _lifted(self._policy, lift)

    @property
    def guard_hold(self) -> tuple[int, int | None] | None:
        """(held_at, aim) while the loop guard holds compaction back, else None."""
        held_at = self._guard.held_at
        return None if held_at is None else (held_at, self._guard.aim)

    @property
    def calibration(self) -> float | None:
        """API tokens per estimated token, measured on the last request; None before."""
        return self._calibration

    def use_policy(self, policy: CompactionPolicy) -> None:
        """Compact by `policy` from now on, keeping the secrets no cut may split."""
        self._policy = _with_secret_forms(policy, self._secret_forms)

    def use_secret_forms(self, forms: SecretForms) -> None:
        """Keep `forms` (the toolbox's, grown by a secret learned mid-session) whole in
        every cut from now on."""
        self._secret_forms = forms
        self._policy = _with_secret_forms(self._policy, forms)

    def calibrate(
        self, api_prompt_tokens: int, estimated_prompt_tokens: int, *, view_sized: bool = False
    ) -> None:
        """Measure the estimate against the API's count of the same request (the offline
        model's figures are its own estimate, so they calibrate nothing). `view_sized`: the
        request's view held images or documents, which the API sizes itself; a ratio
        measured so may be the estimate of one of them gone wrong, and is not taken to hold
        for the frame's text (`_frame_at_its_own_ratio`)."""
        ratio = calibration_ratio(api_prompt_tokens, estimated_prompt_tokens)
        if ratio is not None and self.provider.name != "offline":
            self._recent_ratios.append(ratio)
            self._last_counted = (api_prompt_tokens, estimated_prompt_tokens)
            self._measured_on_sized = view_sized
            if not view_sized:
                self._text_ratio = ratio

    @property
    def _calibration(self) -> float | None:
        """The ratio the last counted request measured, clamped; None before one."""
        return self._recent_ratios[-1] if self._recent_ratios else None

    @property
    def _measured_ratio(self) -> float | None:
        """The same ratio as measured, unclamped."""
        api, estimated = self._last_counted
        return api / estimated if estimated else None

    def view_tokens(self) -> int:
        """The conversation's view counted by the estimator under the policy's read rule."""
        return self.conversation.measure_view(self._policy)

    def to_request_tokens(self, tokens: int) -> int:
        """An estimate shown in calibrated (API) tokens."""
        return to_request_tokens(tokens, self._calibration)

    def compact(
        self,
        frame: RequestFrame,
        durable_state: DurableContextState,
        *,
        forced: bool,
        focus: str | None = None,
        density: float = 1.0,
    ) -> Iterator[SessionEvent]:
        """Compact the view if needed (or `forced`); see the module contract. `density`
        scales the calibration for this run (`make_room_for_uncounted`)."""
        ratio = (self._calibration or 1.0) * density
        policy = calibrated_policy(self.policy, ratio)
        frame = self._frame_held_to_its_characters(frame, policy.hard_limit, ratio)
        reserved = frame.reserved_tokens
        policy = policy.with_digest_under_soft(reserved)
        tokens = reserved + self.view_tokens()
        self._refuse_if_frame_fills_limit(frame, tokens, policy.hard_limit)
        yield from self._unreachable_low_water_notice(policy, reserved)
        if forced and self._is_settled():
            shown = self.to_request_tokens(tokens)
            yield CompactionSkipped("nothing_to_compact", shown, NOTHING_NEW_TO_SUMMARIZE)
            return
        held = False
        if forced:
            policy = _forced_policy(policy, tokens)
        elif tokens >= policy.soft_threshold and self._guard.is_holding(
            tokens, policy.soft_threshold, policy.hard_limit
        ):
            policy, held = _guarded_policy(policy), True  # said once, when it began to hold
        free_only = None  # the run of the free layers, when a summary would not be worth it
        if not (forced or held or density != 1.0) and self._may_hold_summary(policy, tokens):
            # under the hard limit, and no layer makes a view larger: this run is never refused
            view = self.conversation.view
            free_run = compact_context(
                view,
                durable_state,
                policy=dataclasses.replace(policy, keep_recent_messages=len(view) + 1),
                index=self.conversation.index,
                reserved_tokens=reserved,
            )
            free_only = self._unless_summary_worth_it(free_run, policy, reserved)
        summarizer: ProviderSummarizer | None = None
        wanted = free_only is None and (forced or tokens >= policy.soft_threshold)
        held_back = wanted and not forced and self._guard.summary_failed  # failed this turn
        if wanted and not held_back:  # (below soft no layer runs)
            summarizer = self._build_summarizer(focus, frame)
        try:
            result = free_only or compact_context(
                self.conversation.view,
                durable_state,
                policy=policy,
                summarizer=summarizer,
                index=self.conversation.index,
                reserved_tokens=reserved,
                force_summary=forced,
            )
        except MessageViewLimitExceeded as blocked:  # say first why the layers could not help
            blocked.durable_tokens = blocked.durable_tokens or frame.durable_tokens
            blocked.instructions_tokens = frame.instructions_tokens
            blocked.instructions_source = frame.instructions_source
            self._note_failed_summary(blocked.reports)
            yield from self._failed_layer_notices(blocked.reports, forced, held_back)
            raise
        finally:  # a summary request was paid for even if the view still cannot fit
            if summarizer is not None:
                self.conversation.log.append_summary_usage(summarizer.reported_usage)
        fired = [r for r in result.reports if r.outcome == APPLIED]
        # `/compact` whose summary was refused says so in its one line, not in two
        refused = forced and not fired and _has_outcome(result.reports, SUMMARY_NOT_SMALLER)
        self._note_failed_summary(result.reports)
        said = [r for r in result.reports if not refused or r.layer != 4]
        yield from self._failed_layer_notices(said, forced, held_back)
        if fired:
            yield from self._adopt(result, fired, policy, forced, focus, reserved)
        elif refused:
            yield CompactionSkipped(SUMMARY_NOT_SMALLER, self.to_request_tokens(tokens))
        elif forced:
            nothing_new = _has_outcome(result.reports, NOTHING_NEW_TO_SUMMARIZE)
            why = NOTHING_NEW_TO_SUMMARIZE if nothing_new else None
            yield CompactionSkipped("nothing_to_compact", self.to_request_tokens(tokens), why)
        elif (free_only or _has_failed_layer(result.reports)) and self._guard.note_compaction(
            tokens, tokens, policy.soft_threshold
        ):  # else each request pays a futile L4 (or runs the free layers again for nothing)
            self._record_hold()
            yield self._held(
                SUMMARY_NOT_WORTH_IT if free_only else NOTHING_FREED, tokens, 0, policy
            )
        settled = any(
            r.layer == 4 and r.outcome in SETTLED_SUMMARY_OUTCOMES for r in result.reports
        )
        self._settled_view = tuple(self.conversation.view) if settled else None

    def begin_turn(self) -> None:
        """A turn begins: its compactions may ask for a summary again, though one failed
        in the last turn (`LoopGuard.summary_failed`)."""
        self._guard.new_turn()

    def _note_failed_summary(self, reports: Iterable[Any]) -> None:
        """After a summary that failed, no automatic run of this turn asks for one again:
        L3 prunes instead, as when no summarizer is offered (`LoopGuard.summary_failed`)."""
        if any(report.outcome in FAILED_SUMMARY_OUTCOMES for report in reports):
            self._guard.note_summary_failed()

    def _failed_layer_notices(
        self, reports: Iterable[Any], forced: bool, held_back: bool
    ) -> Iterator[Notice]:
        """One warning per layer that tried and failed (the view was left as it was); a
        failed summary's with what the summarizer raised (its cause, redacted of the
        session's secrets) and whether `/compact` asked for it. A summary held back after
        one failed this turn (`held_back`) is not said again as one no summarizer could
        write."""
        for report in reports:
            if report.outcome not in FAILED_LAYER_OUTCOMES:
                continue
            if held_back and report.outcome == SKIPPED_NO_SUMMARIZER:
                continue
            if report.outcome not in FAILED_SUMMARY_OUTCOMES:
                yield Notice("warning", report.outcome)
                continue
            cause = shown_summary_failure(report.failure, self._secret_forms)
            yield Notice("warning", report.outcome, {"forced": forced}, error=cause)

    def _may_hold_summary(self, policy: CompactionPolicy, tokens: int) -> bool:
        """True when a run of `tokens` (over the soft threshold, under the hard limit, where
        every layer may be needed to fit) comes after a compaction that made no room
        (`LoopGuard.made_no_room`): the layers that cost no request and keep every message
        (L1, L2; L3 told to keep all) run first, alone (`_unless_summary_worth_it`)."""
        within = policy.soft_threshold <= tokens < policy.hard_limit
        return within and self._guard.made_no_room

    def _unless_summary_worth_it(
        self, free_run: CompactionResult, policy: CompactionPolicy, reserved: int
    ) -> CompactionResult | None:
        """`free_run` with the reports of its free layers alone when a summary of the view it
        leaves would replace less than `worthwhile_summary_tokens` (`summary_reach`); None
        when it would replace more: the full run goes on, from the view as it was."""
        reach = summary_reach(
            free_run.messages, policy.summary_keep_recent, self.counter.count_message
        )
        if reach >= worthwhile_summary_tokens(policy, reserved):
            return None
        reports = tuple(r for r in free_run.reports if r.layer < PRUNE_LAYER)
        return dataclasses.replace(free_run, reports=reports)

    def make_room_for_uncounted(
        self, frame: RequestFrame, durable_state: DurableContextState
    ) -> Iterator[SessionEvent]:
        """Compact again while the request's bound passes the hard limit (module
        contract): at most `MAX_ROOM_RUNS` runs, each with the calibration scaled by how
        much denser the bound says the request is, so L1 cuts dense results and the deeper
        layers remove more; a run that cannot make that much room is followed by one asking
        for half as much; it stops when a run made no room."""
        if self.provider.name == "offline":  # its counts are our estimate: nothing uncounted
            return
        # held by the highest recent ratio, as the calibration's thresholds are by the last
        spread = max(self._recent_ratios, default=1.0) / (self._calibration or 1.0)
        hard = calibrated_policy(self.policy, (self._calibration or 1.0) * spread).hard_limit
        made_room_from: int | None = None
        asked: float | None = None  # the density a run that could not make it asks for next
        for run in range(MAX_ROOM_RUNS):
            weighed = self._frame_held_to_its_characters(
                frame, hard, (self._calibration or 1.0) * spread
            )
            estimate = weighed.reserved_tokens + self.view_tokens()
            frame_excess = self._uncounted_frame_excess(frame, weighed.reserved_tokens)
            bound = estimate + frame_excess + self._view_excess(estimate)
            if bound <= hard or (made_room_from is not None and estimate >= made_room_from):
                return  # under the limit, or no layer can take more: send as estimated
            if run == 0:
                shown = self.to_request_tokens
                figures = {"estimate": shown(estimate), "bound": shown(math.ceil(bound * spread))}
                yield Notice(
                    "info", "uncounted_denser", {**figures, "hard": self.policy.hard_limit}
                )
                # what every request carries may alone pass the limit: no layer can help
                alone = dataclasses.replace(
                    weighed, reserved_tokens=weighed.reserved_tokens + frame_excess
                )
                self._refuse_if_frame_fills_limit(alone, bound, hard)
            density = bound / estimate * spread if asked is None else asked
            try:
                yield from self.compact(frame, durable_state, forced=False, density=density)
            except MessageViewLimitExceeded:
                # that much room cannot be made (the step in progress is all that is left):
                # ask for half as much, so what can be cut still is; the last: send as it is
                asked = 1 + (density - 1) / 2
                continue
            made_room_from, asked = estimate, None

    def note_counted_frame(self, frame: RequestFrame) -> None:
        """The API counted a request carrying `frame` (its usage arrived)."""
        self._counted_frame = frame

    def _view_excess(self, estimate: int) -> int:
        """What the view may take beyond its calibrated estimate (the request holding
        `estimate` estimated tokens): the messages the API has not counted yet at their
        `uncounted_excess`, and, when the last request measured a ratio over the clamp
        the thresholds use (`budget.MAX_CALIBRATION`), the rest at that ratio: the hard
        limit holds by the ratio as measured."""
        count, ratio = self.counter.count_message, self._calibration
        uncounted = self.conversation.uncounted()
        excess = sum(
            uncounted_excess(count(message), wire_characters(message.get("content")), ratio)
            for message in uncounted
        )
        measured = self._measured_ratio
        if measured is not None and ratio is not None and measured > ratio:
            counted = max(0, estimate - sum(map(count, uncounted)))
            excess += math.ceil(counted * (measured / ratio - 1))
        return excess

    def _refuse_if_frame_fills_limit(
        self, frame: RequestFrame, tokens: int, hard_limit: int
    ) -> None:
        """`_refuse_if_frame_fills_limit`, with the frame's tokens in the error at the
        frame's own ratio (`_frame_at_its_own_ratio`): when only a ratio measured on a
        view holding images or documents puts the frame over the limit, the error says so
        (`sized_content_over`) rather than that the frame alone fills it."""
        try:
            _refuse_if_frame_fills_limit(frame, tokens, hard_limit)
        except MessageViewLimitExceeded as refused:
            own = self._frame_at_its_own_ratio(frame)
            if own.reserved_tokens >= hard_limit:
                raise
            refused.reserved_tokens = own.reserved_tokens
            refused.durable_tokens = own.durable_tokens
            refused.instructions_tokens = own.instructions_tokens
            refused.sized_content_over = True
            raise

    def _frame_at_its_own_ratio(self, frame: RequestFrame) -> RequestFrame:
        """`frame` with its tokens scaled so that, calibrated like the view, they come to
        what the frame's own ratio gives them. The same frame unless the last ratio was
        measured on a view holding images or documents and a ratio measured on text (or,
        before one, the frame's bound by characters) is lower: an image whose estimate
        went wrong must not make the fixed part look larger than it is."""
        calibration = self._calibration or 1.0
        if not self._measured_on_sized:
            return frame
        own = self._text_ratio
        if own is None:
            characters = _frame_characters(frame)
            own = max(1.0, characters / CHARS_PER_TOKEN / max(1, frame.reserved_tokens))
        if own >= calibration:
            return frame
        scale = own / calibration
        return dataclasses.replace(
            frame,
            reserved_tokens=math.ceil(frame.reserved_tokens * scale),
            durable_tokens=math.ceil(frame.durable_tokens * scale),
            instructions_tokens=math.ceil(frame.instructions_tokens * scale),
        )

    def _uncounted_frame_excess(self, frame: RequestFrame, tokens: int) -> int:
        """`uncounted_excess` of the frame (system prompt, instructions, durable block,
        tool schemas; weighed `tokens`) when no request the API counted carried it as it is
        now: the first request, after `/reload` or a change to the durable block or the tools."""
        if frame == self._counted_frame:
            return 0
        return uncounted_excess(tokens, _frame_characters(frame), self._calibration)

    def _frame_held_to_its_characters(
        self, frame: RequestFrame, hard_limit: int, ratio: float
    ) -> RequestFrame:
        """`frame` as the layers weigh it at `ratio` (estimator units, like `hard_limit`),
        unless that puts it alone at the hard limit while its characters / 4 (what an
        uncounted frame is held to, at least its estimate) do not: then scaled to them.

        Why: a ratio measured on a request whose view held content the API counted far
        above its estimate is one the frame never showed. Refusing on it sends nothing, so
        no ratio is measured again and every later turn, `/compact` and `--continue` are
        refused too (one dense read blocked a session for good). Held to its characters,
        the frame leaves the layers room to cut that content, and the next request measures
        a ratio again. A ratio measured on a view holding images or documents keeps its own
        refusal (`_refuse_if_frame_fills_limit`, `sized_content_over`)."""
        if frame.reserved_tokens < hard_limit or self._measured_on_sized:
            return frame
        own = max(frame.reserved_tokens, _frame_characters(frame) / CHARS_PER_TOKEN)
        held = math.ceil(own / ratio)
        if held >= hard_limit or held >= frame.reserved_tokens:
            return frame
        scale = held / frame.reserved_tokens
        durable = math.ceil(frame.durable_tokens * scale)
        return dataclasses.replace(frame, reserved_tokens=held, durable_tokens=durable)

    def _is_settled(self) -> bool:
        """True when the view is, message for message, what the last run that summarized
        (or found a summary not worth it) left: nothing new since."""
        settled, view = self._settled_view, self.conversation.view
        return (
            settled is not None
            and len(settled) == len(view)
            and all(a is b for a, b in zip(settled, view, strict=True))
        )

    def _build_summarizer(
        self, focus: str | None, frame: RequestFrame
    ) -> ProviderSummarizer | None:
        """The provider's summarizer, offered the cached prefix and, when someone watches,
        announcing each summary it asks for (`summary_watch`)."""
        summarizer = self.provider.build_summarizer(focus)
        if summarizer is None:
            return None
        self.offer_cached_prefix(summarizer, frame)
        retries = self.summary_retry_watcher
        if retries is not None:
            summarizer.watch_retries(lambda notice: retries(_restarted(notice)))
        if self.summary_watcher is None:
            return summarizer
        return WatchedSummarizer(summarizer, self.summary_watcher)

    def offer_cached_prefix(self, summarizer: ProviderSummarizer, frame: RequestFrame) -> None:
        """Let a model summarizer reuse what the last request the API processed left in the
        prompt cache, when the view still starts with that request's messages and the
        cache still keeps them (`provider.summary_reuse`: `is_still_cached`), and the
        request stays under the hard limit."""
        written, view = self.conversation.cache_write, self.conversation.view
        cached = 0
        if written is not None and is_still_cached(self.clock() - written.at):
            sent = written.messages
            cached = len(sent) if sent and find_first_change(sent, view) == len(sent) else 0
        instructions, hard = frame.project_instructions, self.policy.hard_limit
        summarizer.use_cached_prefix(
            CachedPrefix(frame.system, frame.tools, tuple(view), cached, instructions, hard)
        )

    def _unreachable_low_water_notice(
        self, policy: CompactionPolicy, reserved: int
    ) -> Iterator[SessionEvent]:
        """Say once per session that an explicit low-water mark at or under the reserved
        tokens is replaced by the default mark (`CompactionPolicy.low_water_mark_over`)."""
        if self._low_water_noticed or not policy.is_low_water_unreachable(reserved):
            return
        self._low_water_noticed = True
        shown = self.to_request_tokens
        low, fixed = shown(policy.low_water or 0), shown(reserved)
        aim = shown(policy.low_water_mark_over(reserved))
        yield Notice("warning", "low_water_under_reserve", {"low": low, "fixed": fixed, "aim": aim})

    def blocked_event(self, error: MessageViewLimitExceeded) -> RequestBlocked:
        """The hard-limit refusal in the terms of every other `[compact]` figure: the codes
        (in layer order) of every layer that was tried, changed the view or not, tokens
        calibrated to the API's count, and the hard limit the user set rather than its
        estimator-scaled form."""
        reports: tuple[Any, ...] = error.reports
        tried = sorted({r.layer for r in reports if r.outcome != SKIPPED_NO_SUMMARIZER})
        largest = error.largest_message_tokens  # with its results cut to the floor
        shown = self.to_request_tokens
        return RequestBlocked(
            shown(error.tokens_before),
            shown(error.tokens_after),
            self.policy.hard_limit,
            tuple(layer_numbered(layer).code for layer in tried),
            shown(largest),
            shown(error.reserved_tokens),
            shown(error.durable_tokens),
            self._last_counted if error.sized_content_over else None,
            shown(error.instructions_tokens),
            error.instructions_source,
        )

    def _adopt(
        self,
        result: Any,
        fired: list[Any],
        policy: CompactionPolicy,
        forced: bool,
        focus: str | None,
        reserved: int,
    ) -> Iterator[SessionEvent]:
        entry = CompactionRecord(
            at=self.clock().isoformat(),
            layers=tuple(layer_numbered(r.layer).code for r in fired),
            tokens_before=self.to_request_tokens(result.tokens_before),
            tokens_after=self.to_request_tokens(result.tokens_after),
            forced=forced,
        )
        removed = [i for r in fired for i in r.removed_tool_use_ids]
        # write-ahead; a StoreError propagates: the uncompacted view must not be sent
        self.conversation.adopt_compaction(entry, removed, result.messages)
        held = None
        if forced:  # as the compaction record ends a hold on resume
            self._guard.release()
        else:
            deep = any(report.layer >= PRUNE_LAYER for report in fired)
            held = self._guard.note_compaction(
                result.tokens_before,
                result.tokens_after,
                policy.soft_threshold,
                deep_aim=policy.low_water_mark_over(reserved) if deep else None,
            )
        yield CompactionFired(
            tuple(self._layer_line(r) for r in fired),
            entry.tokens_before,
            entry.tokens_after,
            self.policy.soft_threshold,
            self.policy.hard_limit,
            forced=forced,
            focus=" ".join((focus or "").split()) or None,
        )
        if held:
            self._record_hold()
            freed = result.tokens_before - result.tokens_after
            yield self._held(held, result.tokens_after, freed, policy)

    def restore_guard(self, held_at: int, aim: int | None) -> None:
        """Hold compaction as the resumed session's guard held it when it ended: a hold
        without an aim is one after a compaction that made no room (`LoopGuard`)."""
        self._guard = LoopGuard(held_at=held_at, aim=aim, made_no_room=aim is None)

    def _record_hold(self) -> None:
        """Put the guard's hold in the transcript, so a resume holds where this did."""
        if self._guard.held_at is not None:
            self.conversation.log.append_guard_hold(self._guard.held_at, self._guard.aim)

    def _held(
        self, why: str, tokens: int, freed: int, run_policy: CompactionPolicy
    ) -> CompactionSkipped:
        """The notice that the loop guard now holds (estimates under the run's policy),
        in the figures the toolbar shows."""
        hard = self.policy.hard_limit
        retry_at = self.to_request_tokens(self._guard.retry_at(run_policy.soft_threshold))
        return CompactionSkipped(
            "loop_guard",
            self.to_request_tokens(tokens),
            held=why,
            freed=self.to_request_tokens(freed),
            retry_at=min(retry_at, hard),
            soft_threshold=self.policy.soft_threshold,
            hard_limit=hard,
            summary_would_help=has_older_messages_to_summarize(
                self.conversation.view, run_policy.summary_keep_recent
            ),
        )

    def _layer_line(self, report: Any) -> LayerLine:
        return LayerLine(
            layer=layer_numbered(report.layer).code,
            tokens_before=self.to_request_tokens(report.tokens_before),
            tokens_after=self.to_request_tokens(report.tokens_after),
            results_truncated=report.results_truncated,
            interactions_removed=report.interactions_removed,
            messages_removed=report.messages_removed,
        )


def _refuse_if_frame_fills_limit(frame: RequestFrame, tokens: int, hard_limit: int) -> None:
    """Raise `MessageViewLimitExceeded` (no layer tried) when what the request carries
    besides the view is alone at or over `hard_limit` (estimator units, like `frame`):
    emptying the view would not fit it, so running a layer, a paid summary above all, is
    waste. The error names the durable block's and the project instructions' parts so the
    user learns what to forget or shorten."""
    if frame.reserved_tokens < hard_limit:
        return
    refused = MessageViewLimitExceeded(
        tokens_before=tokens,
        tokens_after=tokens,
        hard_limit=hard_limit,
        applied_layers=(),
        reserved_tokens=frame.reserved_tokens,
        durable_tokens=frame.durable_tokens,
    )
    refused.instructions_tokens = frame.instructions_tokens
    refused.instructions_source = frame.instructions_source
    raise refused


def _has_outcome(reports: Iterable[Any], outcome: str) -> bool:
    return any(report.outcome == outcome for report in reports)


def _has_failed_layer(reports: Iterable[Any]) -> bool:
    return any(report.outcome in FAILED_LAYER_OUTCOMES for report in reports)


def _restarted(notice: RetryNotice) -> StreamRestarted:
    """A summary request's retry, as the REPL is told of an ordinary request's."""
    return StreamRestarted(notice.attempt, notice.delay_seconds, notice.kind)


def _with_secret_forms(policy: CompactionPolicy, forms: SecretForms | None) -> CompactionPolicy:
    """`policy` holding the secrets the toolbox redacts, so compaction cuts none of them."""
    if not isinstance(forms, SecretForms) or not forms:
        return policy
    return dataclasses.replace(policy, secret_forms=forms)


def _lifted(policy: CompactionPolicy, lift: int) -> CompactionPolicy:
    """`policy` with its soft threshold, hard limit and an explicit low-water mark all
    `lift` tokens higher: the room they leave the conversation stays what it was."""
    if lift <= 0:
        return policy
    low_water = None if policy.low_water is None else policy.low_water + lift
    return dataclasses.replace(
        policy,
        soft_threshold=policy.soft_threshold + lift,
        hard_limit=policy.hard_limit + lift,
        low_water=low_water,
    )


def _forced_policy(policy: CompactionPolicy, view_tokens: int) -> CompactionPolicy:
    soft = max(MIN_FORCED_SOFT, min(policy.soft_threshold, view_tokens // 4))
    return with_thresholds(policy, min(soft, policy.hard_limit - 1))


def _guarded_policy(policy: CompactionPolicy) -> CompactionPolicy:
    """While the guard holds, only the hard limit matters: soft moves just under it."""
    return with_thresholds(policy, policy.hard_limit - 1)


def _frame_characters(frame: RequestFrame) -> int:
    """The characters the frame's texts and tool schemas take on the wire."""
    texts = (frame.system, frame.project_instructions, frame.durable_text)
    return sum(map(wire_characters, texts)) + wire_characters(list(frame.tools))
