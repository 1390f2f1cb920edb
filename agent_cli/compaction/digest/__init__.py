"""The running digest: one message naming everything compaction took out of the view. `what_left`
finds what a step removed (`removed_items`), `merge` fits it into the digest, `entries` is its
stored form, `render` its text and place, `layer_step` runs a layer step around it.
"""
