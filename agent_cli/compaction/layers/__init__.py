"""The four layers, cheapest first, each a pure function of a valid view.

- `truncate`: L1 cuts tool results over the per-result budget to a head and a tail;
  `shared_truncation` is L1 again with the results sharing the room left, the step
  before a request would be blocked.
- `dedup`: L2 keeps only the newest read of a file (`read_keys`: what a read reads).
- `prune`: L3 removes the oldest messages, whole interactions at a time.
- `summary`: L4 folds the older part of the view into one summary message.

Each layer has a `build_*_outcome` that the pipeline runs and a public function
(`truncate_tool_results`, ...) that runs it alone (`entry_point`). The public names are
imported from `agent_cli.compaction`; this package exports nothing itself.
"""
