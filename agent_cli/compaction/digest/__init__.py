"""The running digest: one message that names everything compaction took out of the view.

- `what_left`: what a layer step removed (user texts, tool interactions), with pointers;
  `removed_items`: those items and how an interaction reads as one line.
- `entries`: the digest's entries and their stored form under the private `DIGEST_KEY`.
- `merge`: adding removed items to the digest within its budget, and counting it.
- `fit`: fitting every entry again into one part when the budget is reached.
- `render`: how the digest reads, and where it sits in the view.
- `layer_step`: running one layer step with the digest taken out and put back, holding
  what the step removed.

This package exports nothing itself: import from the module that holds a name.
"""
