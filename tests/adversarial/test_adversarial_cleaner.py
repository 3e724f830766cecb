"""The cleaner and the writers agree: the cleaner at age 0 (``SpillStore.clean(0)``, what
``agentout clean --older-than 0`` calls) looping beside parallel runs never makes a run
fail or lose its output, and removes only what no live process holds.

Sized for CI (``RUNS`` runs on ``WORKERS`` workers, ``CLEANERS`` cleaner loops, a few
seconds); ``AGENTOUT_STRESS_RUNS=200`` runs the issue's full size.
"""

from __future__ import annotations

import os
import subprocess
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from adversarial_support import AGENTOUT

from agentout.formats.raw import closing_fields
from agentout.store.spill import SpillStore

RUNS = int(os.environ.get("AGENTOUT_STRESS_RUNS", "24"))
WORKERS = 8
CLEANERS = 3


def _run(store: Path, n: int) -> str | None:
    """One run whose output is spilled and cut; what is wrong with it, or None."""
    lines = 20_000 + n  # each run its own output: no two share a content-named file
    done = subprocess.run(
        [*AGENTOUT, "run", "--", "seq", "1", str(lines)],
        env={**os.environ, "AGENTOUT_SPILL_DIR": str(store), "AGENTOUT_LEDGER": "0"},
        capture_output=True,
        timeout=120,
        check=False,
    )
    text = done.stdout.decode()
    if done.returncode != 0 or done.stderr:
        return f"run {n}: exit {done.returncode}, stderr {done.stderr.decode()[-300:]!r}"
    shown = text.splitlines()
    fields = closing_fields(text)
    if shown[:3] != ["1", "2", "3"] or str(lines) not in shown[-3:]:
        return f"run {n}: output not complete: {shown[:3]} ... {shown[-3:]}"
    if fields.get("lines") != str(lines) or "ref" not in fields:
        return f"run {n}: closing line {shown[-1]!r}"
    return None


def test_clean_at_any_age_beside_parallel_runs_loses_nothing(store: Path) -> None:
    store.mkdir(mode=0o700)
    stop = threading.Event()
    removed = [0] * CLEANERS
    failures: list[str] = []

    def clean(i: int) -> None:
        spill = SpillStore(store)
        while not stop.is_set():
            try:
                removed[i] += len(spill.clean(0))
            except Exception as exc:  # the cleaner must not fail either
                failures.append(f"cleaner {i}: {type(exc).__name__}: {exc}")
                return

    cleaners = [threading.Thread(target=clean, args=(i,)) for i in range(CLEANERS)]
    for cleaner in cleaners:
        cleaner.start()
    try:
        with ThreadPoolExecutor(WORKERS) as pool:
            problems = [p for p in pool.map(lambda n: _run(store, n), range(RUNS)) if p]
    finally:
        stop.set()
        for cleaner in cleaners:
            cleaner.join()
    assert problems == [], f"{len(problems)} of {RUNS} runs failed: {problems[:3]}"
    assert failures == []
    assert sum(removed) >= 1  # the cleaners did remove what the runs had finished with


def test_clean_leaves_a_file_a_live_writer_holds(tmp_path: Path) -> None:
    """Committed, and still being read back: the file stays; released, it goes."""
    spill = SpillStore(tmp_path / "spill")
    writer = spill.open(kind="run", suffix=".log")
    writer.write(b"held\n" * 1000)
    ref = writer.commit()
    assert spill.clean(0) == []
    assert ref.path.read_bytes() == b"held\n" * 1000
    assert b"".join(writer.read_back()) == b"held\n" * 1000
    writer.close()
    assert [f.name for f in spill.clean(0)] == [ref.ref]
    assert not ref.path.exists()


def test_a_capture_reads_its_output_back_after_the_file_is_removed(tmp_path: Path) -> None:
    """What the run reads back after its commit comes through its own descriptor."""
    from agentout.store.capture import Capture

    spill = SpillStore(tmp_path / "spill")
    capture = Capture(threshold=10, store=spill)
    data = b"".join(b"line %d\n" % i for i in range(10_000))
    capture.feed(data)
    capture.close()
    ref = capture.commit()
    assert ref is not None
    ref.path.unlink()  # what a cleaner that ignored the lock would do
    assert capture.whole(len(data)) == data
    scan = capture.scan().finish()
    assert scan is not None
