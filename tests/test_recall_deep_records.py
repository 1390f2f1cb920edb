"""A transcript record nested past Python's JSON parser (a hand-edited or damaged file)
is shown raw by recall, never a RecursionError out of the tool or `/expand`."""

from __future__ import annotations

from agent_cli.recall import Recall
from agent_cli.recall_render import render_evidence
from agent_cli.sources.resolution import SourceResolution, SourceResolutionStatus

DEEP = '{"kind": "message", "payload": ' + "[" * 20_000 + "]" * 20_000 + "}"


def test_a_record_nested_past_the_parser_is_rendered_as_it_is() -> None:
    assert render_evidence("transcript:s1:1", DEEP) == DEEP


def test_a_record_nested_past_the_parser_is_no_withheld_command(tmp_path) -> None:
    recall = Recall("s1", tmp_path, tmp_path)
    resolution = SourceResolution(
        "transcript:s1:1",
        SourceResolutionStatus.AVAILABLE,
        "available",
        evidence_sha256="0" * 64,
        excerpt=DEEP,
    )
    assert recall._is_withheld_command(resolution) is False
