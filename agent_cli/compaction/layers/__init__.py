"""The four layers, cheapest first, each a pure function of a valid view: L1 `truncate`, L2 `dedup`
(keys: `read_keys`), L3 `prune`, L4 `summary`. Each has a `build_*_outcome` the pipeline runs and a
public function that runs it alone.
"""
