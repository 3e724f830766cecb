"""``agentout clean``: only agentout's own old files go; the count and bytes are reported."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from agentout.cli.clean import parse_age
from agentout.cli.main import cli
from agentout.spill import SpillStore


@pytest.fixture(autouse=True)
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> SpillStore:
    monkeypatch.setenv("AGENTOUT_SPILL_DIR", str(tmp_path / "spill"))
    return SpillStore.default()


def clean(*args: str) -> Any:
    return CliRunner().invoke(cli, ["clean", *args])


def age(path: Path, days: float) -> None:
    then = time.time() - days * 86400
    os.utime(path, (then, then), follow_symlinks=False)


def test_old_files_go_new_and_foreign_stay(store: SpillStore, tmp_path: Path) -> None:
    old = [store.write_text("x" * n, kind="run", suffix=".log") for n in (10, 20)]
    new = store.write_text("fresh", kind="run", suffix=".log")
    for ref in old:
        age(ref.path, 10)
    mine = store.root / "my-notes.txt"
    mine.write_text("keep me")
    age(mine, 100)
    outside = tmp_path / "20250101-run-0123456789abcdef.log"
    outside.write_text("outside the store")
    age(outside, 100)
    link = store.root / "20250101-run-0123456789abcdef.log"
    link.symlink_to(outside)

    dry = clean("--dry-run")
    assert dry.exit_code == 0
    assert dry.stdout.splitlines()[-1] == f"2 files, would free 30 bytes in {store.root}"
    assert all(ref.path.exists() for ref in old)

    done = clean()
    assert done.exit_code == 0
    assert done.stdout.splitlines()[-1] == f"2 files, freed 30 bytes in {store.root}"
    assert not any(ref.path.exists() for ref in old)
    assert new.path.exists()
    assert mine.read_text() == "keep me"
    assert outside.read_text() == "outside the store"
    assert link.is_symlink()


def test_older_than_zero_removes_all_of_agentouts(store: SpillStore) -> None:
    refs = [store.write_text("x", kind="run") for _ in range(3)]
    result = clean("--older-than", "0")
    assert result.stdout.splitlines()[-1].startswith("3 files, freed 3 bytes")
    assert not any(ref.path.exists() for ref in refs)


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("7d", 604800), ("12h", 43200), ("90s", 90), ("2", 172800), ("1.5m", 90), ("1w", 604800)],
)
def test_ages(text: str, seconds: float) -> None:
    assert parse_age(text) == seconds


def test_a_bad_age_is_exit_2() -> None:
    result = clean("--older-than", "soon")
    assert result.exit_code == 2
    assert (
        result.stderr
        == "agentout: --older-than 'soon': expected a number and a unit: 7d, 12h, 30m\n"
    )
