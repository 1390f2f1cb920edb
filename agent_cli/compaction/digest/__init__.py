"""The running digest: one message that names everything compaction took out of the view.

`what_left` finds what a layer step removed (`removed_items`: those items, one line per
interaction); `merge` adds them to the digest within its budget; `entries` is its stored
form, `render` its text and place; `layer_step` runs a layer step around it.
"""
