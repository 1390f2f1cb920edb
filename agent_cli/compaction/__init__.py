"""compaction package."""
