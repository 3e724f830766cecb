"""``cleanup_temp_files``, called through the SDK's own client, in process."""

from __future__ import annotations

import os
from pathlib import Path

from mcp_support import (
    call,
    make_server,
    structured_tokens,
    text_tokens,
    texts,
)

from agentout.store.spill import SpillStore


def test_cleanup_reports_count_bytes_and_files(project: Path, store: SpillStore) -> None:
    kept = [
        store.write_text(f"output {i}\n" * (i + 1), kind="run", suffix=".log") for i in range(3)
    ]
    old = kept[0].path
    os.utime(old, (1_000_000, 1_000_000))
    server = make_server(project, store)
    dry = call(server, "cleanup_temp_files", dry_run=True)
    assert dry.structured_content == {
        "removed": 1,
        "bytes_freed": kept[0].size,
        "dry_run": True,
        "files": [kept[0].ref],
    }
    assert old.exists()
    done = call(server, "cleanup_temp_files", max_age_days=0)
    assert done.structured_content["removed"] == 3
    assert done.structured_content["bytes_freed"] == sum(ref.size for ref in kept)
    assert sorted(done.structured_content["files"]) == sorted(ref.ref for ref in kept)
    assert not any(ref.path.exists() for ref in kept)
    gone = call(server, "read_output", ref=kept[1].ref)
    assert gone.is_error
    assert "no such spilled file" in texts(gone)


def test_cleanup_of_many_files_fits_both_channels(project: Path, store: SpillStore) -> None:
    for i in range(300):
        store.write_text(f"file {i}\n", kind="run", suffix=".log")
    result = call(make_server(project, store), "cleanup_temp_files", max_age_days=0, max_tokens=300)
    assert not result.is_error
    assert text_tokens(result) <= 300
    assert structured_tokens(result) <= 300
    data = result.structured_content
    assert data["removed"] == 300
    assert 0 < len(data["files"]) < 300
    assert "read_output ref=" in data["_agentout"]["read_with"]
    assert result.meta["agentout"]["cut"] == [f"files: {len(data['files'])} of 300 items"]
