"""The compaction layers' one table: number -> code -> the function that runs it.

Contract: `LAYERS` lists layers 1 to 4 in layer order (`TRUNCATE`, `DEDUP`, `PRUNE`,
`SUMMARY`). Every other place derives from it: the pipeline names its reports by
`function`, events and compaction records carry the `code`, and the REPL alone words
codes in its plain names (`repl.compact_lines`). Compaction records written before
records carried codes name a layer by its function: `layer_code` reads either.
Pure values. It imports nothing and sits outside the `compaction` package, so events and
the REPL read it without loading the layers.
"""

from __future__ import annotations

from typing import NamedTuple


class CompactionLayer(NamedTuple):
    """One layer: its number (1 runs first when cheapest), its code, its function."""

    number: int
    code: str
    function: str


TRUNCATE = CompactionLayer(1, "L1", "truncate_tool_results")
DEDUP = CompactionLayer(2, "L2", "dedup_file_reads")
PRUNE = CompactionLayer(3, "L3", "prune_old_messages")
SUMMARY = CompactionLayer(4, "L4", "generate_summary")
LAYERS = (TRUNCATE, DEDUP, PRUNE, SUMMARY)
LAYER_CODES = tuple(layer.code for layer in LAYERS)
_BY_NAME = {name: layer for layer in LAYERS for name in (layer.code, layer.function)}


def layer_numbered(number: int) -> CompactionLayer:
    """The layer with `number` (1 to 4); ValueError for any other number."""
    if not 1 <= number <= len(LAYERS):
        raise ValueError(f"no compaction layer {number}")
    return LAYERS[number - 1]


def layer_code(name: str) -> str:
    """The code of the layer `name` names, by code or by function (as older records
    name it); a name of no layer stands for itself."""
    layer = _BY_NAME.get(name)
    return name if layer is None else layer.code
