"""``agentout clean``: only agentout's own old files go; the count and bytes are reported."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from agentout.cli.clean import parse_age
from agentout.cli.main import cli
from agentout.formats.raw import closing_fields
from agentout.store.spill import SpillStore


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


def test_a_run_still_writing_keeps_its_output_through_a_clean(
    store: SpillStore, tmp_path: Path
) -> None:
    """Review finding 1: `clean --older-than 0` during a run removed its partial file."""
    ready, go = tmp_path / "ready", tmp_path / "go"
    child = (
        "import pathlib, sys, time\n"
        "sys.stdout.write('a' * 3_000_000 + '\\n'); sys.stdout.flush()\n"
        f"pathlib.Path({str(ready)!r}).touch()\n"
        "deadline = time.monotonic() + 30\n"
        f"while not pathlib.Path({str(go)!r}).exists() and time.monotonic() < deadline:\n"
        "    time.sleep(0.02)\n"
        "print('ERROR: done')\n"
    )
    agentout = [sys.executable, "-c", "from agentout.cli import main; main()"]
    process = subprocess.Popen(
        [*agentout, "run", "--", sys.executable, "-c", child],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 30
        while not ready.exists():
            assert time.monotonic() < deadline, "the command never started"
            time.sleep(0.02)
        time.sleep(0.2)  # agentout has read it and written the partial file
        partial = [p for p in store.root.iterdir() if p.name.startswith(".partial-")]
        assert len(partial) == 1
        cleaned = clean("--older-than", "0")
        assert cleaned.exit_code == 0
        assert cleaned.stdout.splitlines()[-1].startswith("0 files, freed 0 bytes")
        assert partial[0].exists()
    finally:
        go.touch()
        out, err = process.communicate(timeout=60)
    assert process.returncode == 0
    assert err == b""
    text = out.decode()
    spilled = (store.root / store.find_id(closing_fields(text)["ref"])).read_bytes()
    assert spilled == b"a" * 3_000_000 + b"\nERROR: done\n"
    assert "\nERROR: done\n" in text
