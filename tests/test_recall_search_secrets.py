"""recall's search is no oracle: its answer is the same for any two secrets of one length.

A fifth outside attack: a big pasted CI log is stored whole as an artifact, and every read
of it redacts the token; but `recall`'s `pattern` matched the raw text, so
`GITHUB_TOKEN=<prefix><c>`, hit or miss, spelled the token out with no approval. And an
excerpt at the artifact's 400,000-character read limit showed a key's start, cut where
redaction could no longer see it. The search now matches only redacted text, and an
artifact the limit cut ends before anything that may have been a secret's start.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from hostile_support import PROBE_AT, SECRET_PAIR, fuzz_settings, probe_class, same_length
from hypothesis import given
from session_support import ScriptedProvider, drain, make_session

from agent_cli.recall import RESOLVER_EXCERPT_CHARS
from agent_cli.recall_search import SearchQuery, render_search_page, search_records
from agent_cli.secret_forms import SecretForms

ARTIFACT = "artifact:s1:log.txt:0123456789ab"
TOKEN = "ghp_Zq7Rk2mXv9LpW4tYc8NbH3sJd6FgQ1"
OTHER = "ghp_AAAAbbbbCCCCdddd0000111122223333"


def message(sequence: int, text: str) -> dict[str, Any]:
    return {
        "kind": "message",
        "event_id": f"transcript:s1:{sequence}",
        "payload": {"message": {"role": "user", "content": text}},
    }


def search_page(token: str, query: SearchQuery) -> str:
    """The search's text over two messages and an artifact, each holding `token`."""
    log = "".join(f"step {n}: ok\n" for n in range(300)) + f"+ export GITHUB_TOKEN={token}\n"
    records = [
        message(1, f"deploy notes\nGITHUB_TOKEN={token}\nend"),
        message(2, f"the log is {ARTIFACT}"),
    ]
    page = search_records(
        records,
        query,
        read_artifact=lambda pointer: log if pointer == ARTIFACT else None,
        secrets=SecretForms.from_values([token]),
    )
    return render_search_page(page)


@fuzz_settings(0.2)
@given(
    **SECRET_PAIR,
    at=PROBE_AT,
)
def test_no_search_tells_two_secrets_of_one_length_apart(first, second, at, chars):
    second = same_length(first, second)
    klass = probe_class(chars)
    queries = [
        SearchQuery(f"GITHUB_TOKEN=.{{{at}}}[{klass}]", is_regex=True),
        SearchQuery(f"(?s)export GITHUB_TOKEN=.{{{at}}}[{klass}]|step 299", is_regex=True),
        SearchQuery(f"[{klass}]{{{at + 1}}}", is_regex=True),
        *(SearchQuery(f"GITHUB_TOKEN={token[: at + 1]}") for token in (first, second)),
        *(SearchQuery(token[at:]) for token in (first, second)),
    ]
    assert [search_page(first, q) for q in queries] == [search_page(second, q) for q in queries]


def test_a_token_prefix_finds_nothing_and_the_line_still_shows_redacted():
    prefixes = [SearchQuery(f"GITHUB_TOKEN={TOKEN[:n]}", is_regex=True) for n in range(4, 12)]
    assert all("no match" in search_page(TOKEN, query) for query in prefixes)
    found = search_page(TOKEN, SearchQuery("export GITHUB_TOKEN"))
    assert "GITHUB_TOKEN=[REDACTED]" in found and "ghp_Z" not in found


def normalized(text: str, session: Any) -> str:
    text = text.replace(session.session_id, "<session>")
    return re.sub(r"(artifact:<session>:)\S+?:[0-9a-f]{12,64}", r"\1<artifact>", text)


def test_a_pasted_log_in_an_artifact_answers_patterns_the_same_for_any_token(
    tmp_path: Path,
) -> None:
    """The attack's shape: a log over the per-message limit, stored whole as an artifact;
    the model probes the token character by character with recall's pattern."""
    log = "".join(f"step {n}: compiling module_{n}.c ok\n" for n in range(2_000))
    probes = [f"GITHUB_TOKEN={re.escape(t[:n])}" for t in (TOKEN, OTHER) for n in (4, 5, 9)]
    answers = []
    for name, token in (("a", TOKEN), ("b", OTHER)):
        workspace = tmp_path / name
        workspace.mkdir()
        session = make_session(
            workspace,
            ScriptedProvider([[{"type": "text", "text": "ok"}]]),
            soft=20_000,
            message_limit=0,
            environment={"GITHUB_TOKEN": token},
        )
        drain(session.run_turn(f"why did it fail?\n{log}+ export GITHUB_TOKEN={token}\n{log}"))
        assert "stored whole as artifact:" in str(session.view[0]["content"])
        results = [session.toolbox.run("recall", {"pattern": probe}) for probe in probes]
        answers.append([normalized(result.content, session) for result in results])
    assert answers[0] == answers[1]
    assert all("no match" in answer for answer in answers[0])


def test_an_excerpt_at_the_artifact_read_limit_shows_no_start_of_a_key(tmp_path: Path) -> None:
    """The key straddles the 400,000th character, where recall stops reading an artifact:
    a hit beside it ends before the key, however much of it the read kept."""
    head = "why did the deploy fail?\n" + "INFO worker heartbeat ok\n" * 15_000
    lead = "DEPLOY TOKEN GITHUB_TOKEN="
    for kept in (1, 4, 12, len(TOKEN) - 1):
        workspace = tmp_path / f"w{kept}"
        workspace.mkdir()
        body = head + "x" * (RESOLVER_EXCERPT_CHARS - len(head) - len(lead) - kept)
        body += lead + TOKEN + "\n" + "INFO worker heartbeat ok\n" * 4_000
        assert body.index(TOKEN) + kept == RESOLVER_EXCERPT_CHARS
        session = make_session(
            workspace,
            ScriptedProvider([[{"type": "text", "text": "ok"}]]),
            message_limit=0,
            environment={"GITHUB_TOKEN": TOKEN},
        )
        drain(session.run_turn(body))
        found = session.toolbox.run("recall", {"pattern": "DEPLOY TOKEN"})
        assert not found.is_error and "DEPLOY TOKEN GITHUB_TOKEN=" in found.content
        assert TOKEN[: max(kept, 2)] not in found.content, kept
        assert "ghp_" not in found.content, kept
