"""Load: many runs at once into one store, each output kept byte for byte, no two sharing
a name; and a large output drained at pipe speed without holding it in memory."""

from __future__ import annotations

import os
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from adversarial_support import AGENTOUT, peak_rss_kib, stored

from agentout.formats.raw import closing_fields
from agentout.store.spill import SpillStore

RUNS = 16  # at once, on two cores: the store's atomic commits are what is tested
SIZE = 1 << 20


def test_parallel_runs_into_one_store_are_each_byte_exact(store: Path) -> None:
    def one(i: int) -> tuple[int, str]:
        lines = f"''.join(f'run {i} line {{n}}\\n' for n in range({SIZE // 20}))"
        code = f"import sys; sys.stdout.write({lines})"
        done = subprocess.run(
            [*AGENTOUT, "run", "--", "python3", "-c", code],
            env={**os.environ, "AGENTOUT_SPILL_DIR": str(store)},
            capture_output=True,
            timeout=120,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        return i, closing_fields(done.stdout.decode())["ref"]

    with ThreadPoolExecutor(max_workers=RUNS) as pool:
        refs = dict(pool.map(one, range(RUNS)))
    assert len(set(refs.values())) == RUNS
    spill = SpillStore(store)
    for i, ref in refs.items():
        expected = "".join(f"run {i} line {n}\n" for n in range(SIZE // 20)).encode()
        assert (spill.root / spill.find_id(ref)).read_bytes() == expected
    assert len(stored(store)) == RUNS
    assert not [p for p in store.iterdir() if p.name.startswith(".partial-")]


def test_a_large_output_is_stored_whole_in_bounded_memory(store: Path) -> None:
    command = "yes 'a fairly ordinary line of output' | head -c 200000000"
    peak, stdout = peak_rss_kib(["run", "--shell", command], {"AGENTOUT_SPILL_DIR": str(store)})
    ref = closing_fields(stdout.decode())["ref"]
    spill = SpillStore(store)
    assert (spill.root / spill.find_id(ref)).stat().st_size == 200_000_000
    assert peak < 150 * 1024, f"peak RSS {peak} KiB for 200 MB of output"
