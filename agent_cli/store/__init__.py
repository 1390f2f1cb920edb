"""On-disk stores (adapters): where state lives, transcripts, artifacts, durable memory.

- `paths`: `resolve_state_paths`, `StatePaths`, `ensure_private_dir` (0700 / 0600 rule).
- `transcript`: `TranscriptStore`, `TranscriptWriter`, `SessionInfo` (append-only JSONL).
- `artifacts`: `ArtifactStore`, `ArtifactRef` (content-addressed, digest-verified).
- `memory`: `MemoryStore` (the durable state per workspace, damaged files kept aside).
- `fsutil.FileOps`: the disk operations every store takes as `fs=`, so tests inject faults.

Submodules are imported on use (`from agent_cli.store.transcript import TranscriptStore`);
this package file imports nothing so that loading one store does not load them all.
"""
