"""What compaction remembers so that its cost follows what changed, not the history.

- `message_facts`, `facts`: what the layers and the digest read of each message, found
  once and recorded by the per-turn check.
- `running_reads`: L2's outcome kept up to date turn by turn, and moved onto the list L2
  is given.
- `savings`: what a layer saved, counted from the messages that changed only.

The index that holds them per view is `compaction.view_index`; issue 22 folds these into it. This package exports
nothing itself: import from the module that holds a name.
"""
