"""What compaction remembers so that its cost follows what changed, not the history.

- `view_memo`: the per-turn check, which validates and counts only the messages
  appended since the view it measured last (`count_view`, `measure_view`).
- `message_facts`, `facts`: what the layers and the digest read of each message, found
  once and recorded by the per-turn check.
- `running_reads`: L2's outcome kept up to date turn by turn, and moved onto the list L2
  is given.
- `savings`: what a layer saved, counted from the messages that changed only.

Issue 22 replaces these with one index owned by the conversation. This package exports
nothing itself: import from the module that holds a name.
"""
