"""Every MCP test spills into its own store and serves a small project of its own."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from agentout.store.spill import SpillStore
from project_venv import with_this_environment

REPO = Path(__file__).parents[2]


@pytest.fixture(autouse=True)
def spill_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "spill"
    monkeypatch.setenv("AGENTOUT_SPILL_DIR", str(root))
    monkeypatch.setenv("AGENTOUT_CACHE_DIR", str(tmp_path / "cache"))  # the notes cache
    monkeypatch.delenv("AGENTOUT_INLINE_THRESHOLD", raising=False)
    return root


@pytest.fixture
def store(spill_dir: Path) -> SpillStore:
    return SpillStore.default()


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project root: records (kb/), a notes vault (vault/), a small test suite."""
    root = tmp_path / "project"
    shutil.copytree(REPO / "examples" / "kb", root / "kb")
    shutil.copytree(REPO / "examples" / "vault", root / "vault")
    rows = [
        {"id": i, "level": "error" if i % 7 == 0 else "info", "msg": f"event number {i}"}
        for i in range(400)
    ]
    (root / "events.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    suite = root / "suite"
    suite.mkdir()
    (suite / "test_small.py").write_text(
        "def test_ok():\n    assert 1 + 1 == 2\n\n"
        "def test_bad():\n    assert {'a': 1} == {'a': 2}\n"
    )
    with_this_environment(root)  # run_tests runs the project's Python: this one, with agentout
    return root
