"""The banner says when the thresholds set pass the model's window and are lowered to fit
it (seventh attack: a config tuned for a 1M-token model was taken silently on a 200k one)."""

from __future__ import annotations

from repl_fakes import FakeSession

from agent_cli.compaction import CompactionPolicy
from agent_cli.repl.banner import build_banner

AS_SET = CompactionPolicy(soft_threshold=400_000, hard_limit=600_000)
FITTED = CompactionPolicy(soft_threshold=127_872, hard_limit=191_808)


def banner_of(session: FakeSession) -> str:
    lines = build_banner(session, offline_fallback=False, resumed=False)  # type: ignore[arg-type]
    return " ".join(" ".join(line.plain for line in lines).split())


def test_the_banner_says_the_thresholds_were_lowered_and_what_was_set() -> None:
    text = banner_of(FakeSession(policy=FITTED, policy_as_set=AS_SET))
    assert "Compaction thresholds lowered to soft 127,872 / hard 191,808" in text
    assert "(set: 400,000 / 600,000; --soft-threshold and --hard-limit change them)" in text


def test_the_banner_says_nothing_of_thresholds_that_fit() -> None:
    assert "lowered" not in banner_of(FakeSession(policy=AS_SET, policy_as_set=AS_SET))
