"""Shared by the collection tests: a private spill store per test, the example KB."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]
KB = ROOT / "examples" / "kb"


@pytest.fixture(autouse=True)
def spill_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "spill"
    monkeypatch.setenv("AGENTOUT_SPILL_DIR", str(path))
    monkeypatch.delenv("AGENTOUT_INLINE_THRESHOLD", raising=False)
    return path


@pytest.fixture
def kb() -> Path:
    return KB
