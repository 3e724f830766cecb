"""How much faster ``make test``'s parallel run is than the same suite run serially.

Not part of ``make bench`` (it runs the whole suite twice, about ten minutes on two
cores); run it by hand on a quiet machine:

    .venv/bin/python bench/suite_speed.py            # serial, then -n auto
    .venv/bin/python bench/suite_speed.py -n 3       # another worker count

Each run is ``python -m pytest -q -p no:cacheprovider`` in this checkout; it prints the
wall time and CPU time (user + system of pytest and everything it started) of each run,
the tests they passed, and the speed-up.
"""

from __future__ import annotations

import argparse
import re
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
_SUMMARY = re.compile(r"(\d+) passed")


def timed(extra: list[str]) -> tuple[float, float, str]:
    """Wall seconds, CPU seconds and pytest's last line for one run of the suite."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *extra],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    lines = done.stdout.strip().splitlines()
    return wall, cpu, lines[-1] if lines else f"exit {done.returncode}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", default="auto", help="pytest-xdist workers (default auto)")
    args = parser.parse_args()
    serial = timed(["-p", "no:xdist"])
    parallel = timed(["-n", args.n])
    for name, (wall, cpu, last) in (("serial", serial), (f"-n {args.n}", parallel)):
        share = f"{cpu / wall:.0%} of one core"
        print(f"{name:>10}: {wall:7.1f} s wall, {cpu:7.1f} s CPU ({share}); {last}")
    print(f"speed-up: {serial[0] / parallel[0]:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
