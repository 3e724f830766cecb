"""Every test here spills into its own temporary store, never the user's cache dir."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentout.store.spill import SpillStore


@pytest.fixture(autouse=True)
def spill_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "spill"
    monkeypatch.setenv("AGENTOUT_SPILL_DIR", str(root))
    monkeypatch.delenv("AGENTOUT_INLINE_THRESHOLD", raising=False)
    return root


@pytest.fixture
def store(spill_dir: Path) -> SpillStore:
    return SpillStore.default()
