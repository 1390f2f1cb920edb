"""The key `file_seen` records are kept under: made once, private, never a reason to fail."""

from __future__ import annotations

import os
from pathlib import Path

from agent_cli.store.seen_key import SEEN_KEY_BYTES, SEEN_KEY_NAME, load_seen_key


def test_the_key_is_made_once_and_read_back(tmp_path: Path):
    first = load_seen_key(tmp_path)
    assert len(first) == SEEN_KEY_BYTES
    assert load_seen_key(tmp_path) == first
    assert (tmp_path / SEEN_KEY_NAME).stat().st_mode & 0o777 == 0o600


def test_a_damaged_key_is_replaced_by_a_whole_one(tmp_path: Path):
    (tmp_path / SEEN_KEY_NAME).write_bytes(b"x" * (SEEN_KEY_BYTES + 3))
    key = load_seen_key(tmp_path)
    assert len(key) == SEEN_KEY_BYTES
    assert (tmp_path / SEEN_KEY_NAME).read_bytes() == key


def test_a_fifo_or_a_link_in_its_place_is_never_read_through(tmp_path: Path):
    os.mkfifo(tmp_path / SEEN_KEY_NAME)  # opened non-blocking: no hang
    assert len(load_seen_key(tmp_path)) == SEEN_KEY_BYTES
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    target = elsewhere / "chosen"
    target.write_bytes(b"k" * SEEN_KEY_BYTES)
    (elsewhere / SEEN_KEY_NAME).symlink_to(target)
    assert load_seen_key(elsewhere) != b"k" * SEEN_KEY_BYTES  # a link is not a key
    assert target.read_bytes() == b"k" * SEEN_KEY_BYTES  # and what it names is untouched


def test_a_folder_where_no_key_can_be_kept_gives_a_key_for_this_run(tmp_path: Path):
    (tmp_path / SEEN_KEY_NAME).mkdir()
    assert len(load_seen_key(tmp_path)) == SEEN_KEY_BYTES
    assert load_seen_key(tmp_path) != load_seen_key(tmp_path)  # (each run its own)
