"""CLI start-up: ``agentout --help`` against a bare Python and against ``import click``;
``agentout run -- true``, served by the warm server, against a bare Python and against one
importing the standard-library modules the same run needs with no server.

Each run is a fresh process, timed from spawn to exit; the commands take turns. Which
modules ``--help`` imports comes from Python's own ``-X importtime`` report.
"""

from __future__ import annotations

import os
import re
import resource
import subprocess
import sys
import time
from pathlib import Path

from _common import Timing, installed_hook, paired_ratio, quick, ratio, seconds, table, verdict

HEAVY = ("bpe_openai", "rich", "toon_format", "tiktoken")
LIMIT_SECONDS = 0.200
_HEADERS = ["command", "wall median", "wall best", "CPU median"]
_HEADERS += ["agentout --help ÷ this (wall)", "(CPU)"]
_IMPORT_LINE = re.compile(r"import time:\s+(\d+) \|\s+(\d+) \| *(\S+)")


def agentout_command() -> list[str]:
    """The installed console script beside this interpreter (what a user runs)."""
    script = Path(sys.executable).parent / "agentout"
    if script.exists():
        return [str(script)]
    return [sys.executable, "-c", "from agentout.cli import main; main()"]


# What ``agentout run`` imports from the standard library on a small command's path when
# no warm server delivers it (not dataclasses: agentout.frozen says why;
# tests/cli/test_quick.py holds it out).
RUN_STDLIB = "re, json, subprocess, threading, typing"


def _commands() -> dict[str, list[str]]:
    return {
        "agentout --help": [*agentout_command(), "--help"],
        "python -c pass": [sys.executable, "-c", "pass"],
        'python -c "import click"': [sys.executable, "-c", "import click"],
    }


def _run_commands() -> dict[str, list[str]]:
    return {
        "agentout run -- true": [*agentout_command(), "run", "--", "true"],
        f'python -c "import {RUN_STDLIB}"': [sys.executable, "-c", f"import {RUN_STDLIB}"],
        "python -c pass": [sys.executable, "-c", "pass"],
    }


# As many frozen classes of a few fields as a run's path has, made as dataclasses and as
# agentout.frozen.Frozen subclasses: why the run path uses the latter.
_CLASSES = 17


def _class_commands() -> dict[str, list[str]]:
    fields = "    a: int\n    b: str = ''\n    c: tuple = ()\n    d: object = None\n"
    as_dataclasses = "import re\nfrom dataclasses import dataclass\n" + "".join(
        f"@dataclass(frozen=True)\nclass C{i}:\n{fields}" for i in range(_CLASSES)
    )
    init = "    def __init__(self, a, b='', c=(), d=None):\n        self._set(a=a, b=b, c=c, d=d)\n"
    as_values = "import re\nfrom agentout.frozen import Frozen\n" + "".join(
        f"class C{i}(Frozen):\n{init}" for i in range(_CLASSES)
    )
    return {
        f"{_CLASSES} frozen dataclasses": [sys.executable, "-c", as_dataclasses],
        f"{_CLASSES} `Frozen` classes": [sys.executable, "-c", as_values],
    }


def _environment() -> dict[str, str]:
    """As an installed package runs: bytecode cached, no import profiling, no ledger."""
    env = dict(os.environ)
    env.pop("PYTHONPROFILEIMPORTTIME", None)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["AGENTOUT_LEDGER"] = "0"
    return env


def _run(command: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall time and CPU time (user + system) of one run of ``command``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, check=True, env=env, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return wall, cpu


def time_commands(
    n: int, commands: dict[str, list[str]] | None = None, env: dict[str, str] | None = None
) -> dict[str, tuple[Timing, Timing]]:
    """(wall, CPU) times of each command, ``n`` runs each, in rotating interleaved order."""
    commands, env = commands or _commands(), env or _environment()
    names = list(commands)
    for name in names:  # warm the file cache
        _run(commands[name], env)
    walls: dict[str, list[float]] = {name: [] for name in names}
    cpus: dict[str, list[float]] = {name: [] for name in names}
    for round_ in range(n):
        shift = round_ % len(names)
        for name in names[shift:] + names[:shift]:
            wall, cpu = _run(commands[name], env)
            walls[name].append(wall)
            cpus[name].append(cpu)
    return {name: (Timing(tuple(walls[name])), Timing(tuple(cpus[name]))) for name in names}


def imported_modules() -> list[tuple[str, int, int]]:
    """(module, self µs, cumulative µs) for every import ``agentout --help`` makes."""
    env = {**_environment(), "PYTHONPROFILEIMPORTTIME": "1"}
    done = subprocess.run(
        [*agentout_command(), "--help"], env=env, capture_output=True, text=True, check=True
    )
    out = []
    for line in done.stderr.splitlines():
        match = _IMPORT_LINE.match(line)
        if match:
            out.append((match[3], int(match[1]), int(match[2])))
    return out


def main() -> str:
    n = 5 if quick() else 15
    timings = time_commands(n)
    ours, ours_cpu = timings["agentout --help"]
    rows: list[list[object]] = []
    for name, (wall, cpu) in timings.items():
        row: list[object] = [f"`{name}`", seconds(wall.median), seconds(wall.best)]
        row += [seconds(cpu.median), ratio(paired_ratio(ours, wall))]
        rows.append([*row, ratio(paired_ratio(ours_cpu, cpu))])
    modules = imported_modules()
    names = {name for name, _, _ in modules}
    heavy = sorted(h for h in HEAVY if any(n == h or n.startswith(h + ".") for n in names))
    top = sorted(modules, key=lambda m: -m[1])[:8]
    top_rows: list[list[object]] = [
        [f"`{name}`", seconds(own / 1e6), seconds(total / 1e6)] for name, own, total in top
    ]
    fast = ours.median <= LIMIT_SECONDS
    served = _environment()
    with installed_hook(served):  # as after an agent's first call: the warm server runs
        run_timings = time_commands(n, _run_commands(), served)
    run_wall = run_timings["agentout run -- true"][0]
    floor_wall = run_timings[f'python -c "import {RUN_STDLIB}"'][0]
    bare_wall = run_timings["python -c pass"][0]
    run_rows = [
        [f"`{name}`", seconds(wall.median), seconds(wall.best), seconds(cpu.median)]
        for name, (wall, cpu) in run_timings.items()
    ]
    class_timings = time_commands(n, _class_commands())
    as_dataclasses, as_values = (wall for wall, _ in class_timings.values())
    class_rows = [
        [name, seconds(wall.median), seconds(wall.best), seconds(cpu.median)]
        for name, (wall, cpu) in class_timings.items()
    ]
    return "\n\n".join(
        [
            "## CLI start-up",
            f"Wall time of a fresh process, median and best of {n} runs per command, the "
            "three commands taking turns, and its CPU time (user + system, which a busy "
            "machine inflates less). Ratios: `agentout --help` time / that command's time, "
            "median over the rounds.",
            table(_HEADERS, rows),
            f"**`agentout --help` wall median {seconds(ours.median)} ≤ "
            f"{seconds(LIMIT_SECONDS)}: {verdict(fast)}** (CPU median "
            f"{seconds(ours_cpu.median)})",
            f"Heavy modules imported by `agentout --help` (of {', '.join(HEAVY)}): "
            f"{', '.join(heavy) if heavy else 'none'} — {verdict(not heavy)}. "
            f"It imports {len(names)} modules in all; the costliest by their own import "
            "time (`-X importtime`, one run):",
            table(["module", "own import time", "with its imports"], top_rows),
            "### A small `agentout run`, and its floor",
            f"`agentout run -- true` (the ledger off; the warm server running, as after an "
            "agent's first call) beside a bare Python, and beside a bare Python importing "
            f"the standard-library modules the same run loads with no server ({RUN_STDLIB}), "
            f"{n} runs each, taking turns:",
            table(["command", "wall median", "wall best", "CPU median"], run_rows),
            f"Of the {seconds(run_wall.median)} a served run takes (median), the interpreter "
            f"is {seconds(bare_wall.median)}; agentout's client (built-in modules only), the "
            f"command and the server's answer are the other "
            f"{seconds(run_wall.median - bare_wall.median)}. Delivered in the process, with "
            f"no server, the standard-library imports alone would add "
            f"{seconds(floor_wall.median - bare_wall.median)} to the interpreter's start.",
            f"Why the run path's {_CLASSES} frozen classes are `agentout.frozen.Frozen`s, not "
            "dataclasses (a fresh Python defining them, four fields each, taking turns):",
            table(["program", "wall median", "wall best", "CPU median"], class_rows),
            f"Dataclasses would cost each command "
            f"{seconds(as_dataclasses.median - as_values.median)} more (median), "
            f"{ratio(paired_ratio(as_dataclasses, as_values))} the `Frozen` program's time.",
        ]
    )


if __name__ == "__main__":
    print(main())
