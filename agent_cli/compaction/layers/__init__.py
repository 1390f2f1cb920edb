"""The four layers, cheapest first, each a pure function of a valid view.

L1 `truncate` (and `build_shared_truncation`, L1 with the results sharing the room left),
L2 `dedup` (with `read_keys`), L3 `prune`, L4 `summary`. Each has a `build_*_outcome`
that the pipeline runs and a public function that runs it alone; the public names are
imported from `agent_cli.compaction`.
"""
