"""Shared helpers for the benchmarks: side-by-side timing, quick mode, Markdown tables.

Machines running the benchmarks are shared and noisy, so nothing here reports a lone
time: ``race`` runs the contenders in interleaved rounds (alternating who goes first),
and every section reports each contender's best and median beside their ratio. Pure
computation in this process is best timed with ``clock=CPU`` (``time.process_time``):
waiting for a core another job holds does not count, which wall time on a loaded
2-core machine would. Anything spanning other processes or I/O needs the wall clock.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import statistics
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SHARED_DATA = ROOT.parent / "shared" / "data"
QUICK_ENV = "AGENTOUT_BENCH_QUICK"
WALL = time.perf_counter
CPU = time.process_time


def reference_encoding(name: str, cache_dir: str) -> Any:
    """tiktoken's encoding ``name``, loaded offline by tests/reference_tiktoken.py."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from tests.reference_tiktoken import reference_encoding as load

    return load(name, cache_dir)


def quick() -> bool:
    """Smoke mode (``bench/run.py --quick``): smaller inputs, fewer rounds, same code paths."""
    return os.environ.get(QUICK_ENV, "") not in ("", "0")


def rounds(full: int, smoke: int = 2) -> int:
    return smoke if quick() else full


def per_call(
    fn: Callable[[], Any], min_seconds: float = 0.05, clock: Callable[[], float] = WALL
) -> float:
    """Seconds per call of ``fn``, looping so one sample lasts at least ``min_seconds``.

    Fast calls (microseconds) are timed over many loops, like ``timeit.autorange``.
    """
    loops = 1
    while True:
        start = clock()
        for _ in range(loops):
            fn()
        elapsed = clock() - start
        if elapsed >= min_seconds or loops >= 1 << 20:
            return elapsed / loops
        loops *= 2 if elapsed > min_seconds / 10 else 10


@dataclass(frozen=True)
class Timing:
    """All samples of one contender, in seconds per call."""

    samples: tuple[float, ...]

    @property
    def best(self) -> float:
        return min(self.samples)

    @property
    def median(self) -> float:
        return statistics.median(self.samples)


def race(
    contenders: dict[str, Callable[[], Any]], n: int, clock: Callable[[], float] = WALL
) -> dict[str, Timing]:
    """Time every contender ``n`` times in interleaved rounds, rotating who goes first.

    Each contender is called once first as a warm-up (tables loaded, caches filled).
    ``clock`` is ``WALL`` (the default) or ``CPU`` for pure in-process computation.
    """
    names = list(contenders)
    for fn in contenders.values():
        fn()
    samples: dict[str, list[float]] = {name: [] for name in names}
    for round_ in range(n):
        shift = round_ % len(names)
        for name in names[shift:] + names[:shift]:
            samples[name].append(per_call(contenders[name], clock=clock))
    return {name: Timing(tuple(values)) for name, values in samples.items()}


def paired_ratio(slow: Timing, fast: Timing) -> float:
    """Median over rounds of slow/fast, each round's pair timed back to back.

    Robust to the machine's load drifting between rounds, which a ratio of the two
    medians is not.
    """
    return statistics.median(s / f for s, f in zip(slow.samples, fast.samples, strict=True))


def seconds(value: float) -> str:
    """A time with a unit a reader can take in at a glance."""
    if value >= 1:
        return f"{value:.2f} s"
    if value >= 1e-3:
        return f"{value * 1e3:.1f} ms"
    return f"{value * 1e6:.1f} µs"


def ratio(value: float) -> str:
    return f"{value:,.0f}×" if value >= 100 else f"{value:.2f}×"


def rows_against(timings: Mapping[str, tuple[Timing, Timing]], bare: str) -> list[list[object]]:
    """A table row per command of ``interleaved_children``'s timings: wall median and
    best, CPU median, and its wall time over the ``bare`` command's, round by round."""
    floor = timings[bare][0]
    return [
        [f"`{name}`", seconds(wall.median), seconds(wall.best), seconds(cpu.median),
         ratio(paired_ratio(wall, floor))]
        for name, (wall, cpu) in timings.items()
    ]  # fmt: skip


def verdict(ok: bool) -> str:
    return "PASS" if ok else "FAIL"


def table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """A Markdown table; numbers right-aligned, everything else left-aligned."""

    def align(index: int) -> str:
        numeric = all(isinstance(row[index], (int, float)) for row in rows) and rows
        return "---:" if numeric else "---"

    def cell(value: object) -> str:
        if isinstance(value, int) and not isinstance(value, bool):
            return f"{value:,}"
        return str(value).replace("|", "\\|")

    lines = [
        "| " + " | ".join(headers) + " |",
        "| " + " | ".join(align(i) for i in range(len(headers))) + " |",
    ]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in rows]
    return "\n".join(lines)


def run_child(
    command: Sequence[str],
    data: bytes = b"",
    env: dict[str, str] | None = None,
    *,
    check: bool = True,
) -> tuple[float, float, bytes]:
    """Wall seconds, CPU seconds (user + system of it and what it started) and stdout of
    one run of ``command`` with ``data`` on its stdin."""
    import resource
    import subprocess

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(list(command), input=data, env=env, capture_output=True, check=check)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return wall, cpu, done.stdout


def interleaved_children(
    cases: dict[str, tuple[list[str], bytes]], rounds_: int, env: dict[str, str]
) -> tuple[dict[str, bytes], dict[str, tuple[Timing, Timing]]]:
    """Each case's answer (one warm-up run each), then ``rounds_`` rounds of every case,
    each round starting one case later so none always runs first: (answers, wall and CPU
    timings by case)."""
    answers = {
        name: run_child(cmd, data, env, check=False)[2] for name, (cmd, data) in cases.items()
    }
    walls: dict[str, list[float]] = {name: [] for name in cases}
    cpus: dict[str, list[float]] = {name: [] for name in cases}
    names = list(cases)
    for round_ in range(rounds_):
        shift = round_ % len(names)
        for name in names[shift:] + names[:shift]:
            command, data = cases[name]
            wall, cpu, _ = run_child(command, data, env, check=False)
            walls[name].append(wall)
            cpus[name].append(cpu)
    timings = {name: (Timing(tuple(walls[name])), Timing(tuple(cpus[name]))) for name in names}
    return answers, timings


@contextlib.contextmanager
def private_runtime() -> Iterator[str]:
    """A runtime folder of the bench run's own (``XDG_RUNTIME_DIR``): a warm server that
    any ``agentout run`` or hook call of a benchmark starts lives there, and is stopped
    with it at the end, so no bench leaves one behind or uses the user's."""
    import signal
    import tempfile

    base = tempfile.mkdtemp(prefix="ao-bench-run-", dir="/tmp")  # a socket's path is short
    os.chmod(base, 0o700)
    before = os.environ.get("XDG_RUNTIME_DIR")
    os.environ["XDG_RUNTIME_DIR"] = base
    try:
        yield base
    finally:
        if before is None:
            os.environ.pop("XDG_RUNTIME_DIR", None)
        else:
            os.environ["XDG_RUNTIME_DIR"] = before
        for lock in Path(base).glob("*/*.lock"):
            with contextlib.suppress(OSError, ValueError):
                os.kill(int(lock.read_text().strip()), signal.SIGTERM)
        shutil.rmtree(base, ignore_errors=True)


@contextlib.contextmanager
def installed_hook(env: dict[str, str]) -> Iterator[list[str]]:
    """The hook as ``agentout init`` installs it (``python -S .../hook_client.py``), its
    warm server started and listening in a private runtime folder of its own (set in
    ``env``), and stopped at the end: a call as an agent makes it once the server runs."""
    import signal
    import socket
    import subprocess
    import tempfile

    from agentout.agents import hook_client
    from agentout.agents._routing import hook_command

    base = tempfile.mkdtemp(prefix="ao-bench-", dir="/tmp")  # a socket's path is short
    os.chmod(base, 0o700)
    env.update(XDG_RUNTIME_DIR=base, AGENTOUT_HOOK_SERVER="1", AGENTOUT_HOOK_SERVER_IDLE="900")
    folder = os.path.join(base, f"agentout-{os.getuid()}")
    name = os.path.basename(hook_client.socket_path(sys.executable, hook_client.package_dir()))
    path = os.path.join(folder, name)
    command = hook_command()
    subprocess.run([*command, "hook", "claude"], input=b"{}", env=env, capture_output=True)
    deadline = time.monotonic() + 60
    while True:  # the first call answered cold and started the server: wait until it listens
        probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            probe.connect(path)
            break
        except OSError:
            if time.monotonic() > deadline:
                raise RuntimeError(f"no hook server listening on {path}") from None
            time.sleep(0.05)
        finally:
            probe.close()
    try:
        yield command
    finally:
        with contextlib.suppress(OSError, ValueError), open(path + ".lock") as lock:
            os.kill(int(lock.read().strip()), signal.SIGTERM)
        shutil.rmtree(base, ignore_errors=True)
