"""The one table of compaction layers: every place that names a layer derives from it,
and a transcript that named layers by function still resumes as one naming codes."""

from __future__ import annotations

import pytest
from compaction_support import assistant, user

from agent_cli.compaction.markers import SUMMARY_HEADER, is_summary_message
from agent_cli.compaction_layers import (
    LAYER_CODES,
    LAYERS,
    SUMMARY,
    layer_code,
    layer_numbered,
)
from agent_cli.repl.compact_lines import LAYER_NAMES, layer_name
from agent_cli.session.log import rebuild_from_records


def _compaction_record(sequence: int, layers: list[str]) -> dict:
    old_summary = user(f"{SUMMARY_HEADER}\nEarlier: the user tidied the repository.")
    return {
        "sequence": sequence,
        "session_id": "s",
        "recorded_at": "2026-01-01T00:00:00+00:00",
        "kind": "compaction",
        "payload": {
            "layers": layers,
            "tokens_before": 900,
            "tokens_after": 300,
            "view": [old_summary, assistant("ok"), user("next")],
        },
    }


def test_the_table_numbers_its_layers_in_order_with_their_codes_and_functions() -> None:
    assert [layer.number for layer in LAYERS] == [1, 2, 3, 4]
    assert LAYER_CODES == ("L1", "L2", "L3", "L4")
    assert layer_numbered(4) is SUMMARY and SUMMARY.function == "generate_summary"
    with pytest.raises(ValueError):
        layer_numbered(0)


def test_a_layer_is_read_by_its_code_or_by_the_function_older_records_name() -> None:
    for layer in LAYERS:
        assert layer_code(layer.code) == layer_code(layer.function) == layer.code
    assert layer_code("something else") == "something else"


def test_the_repl_words_every_layer_of_the_table_and_no_other() -> None:
    assert set(LAYER_NAMES) == set(LAYER_CODES)
    assert layer_name("L9") == "L9"


@pytest.mark.parametrize("named", [["L1", "L4"], ["truncate_tool_results", "generate_summary"]])
def test_a_summary_recorded_by_either_name_of_l4_resumes_as_the_summary(named) -> None:
    rebuilt = rebuild_from_records([_compaction_record(1, named)])
    assert is_summary_message(rebuilt.view[0])
    assert rebuilt.totals.compactions[0].layers == ("L1", "L4")


def test_a_compaction_that_did_not_summarize_adopts_no_summary() -> None:
    rebuilt = rebuild_from_records([_compaction_record(1, ["prune_old_messages"])])
    assert not is_summary_message(rebuilt.view[0])
    assert rebuilt.totals.compactions[0].layers == ("L3",)
