"""Task runners (docs/tasks.md): what the agent reads from `make check`, and what the line
shell costs for each recipe line, against make run plain, measured side by side.

Tokens: `make check` on examples/tasks (ruff finds five problems, three tests fail),
run plain (stdout and stderr merged, as an agent's shell tool reads them) and through
`agentout run --`, counted with the default tokenizer; both must end with make's status.

Overhead: a Makefile of recipe lines that each print one line, run with `make -s` plain,
through `agentout run --` with the line shell off (`AGENTOUT_TASKS=0`: agentout around
make only) and on. What the line shell adds to each line is (on - off) / lines. Bytecode
is cached as in an installed package (``PYTHONDONTWRITEBYTECODE`` is dropped).
"""

from __future__ import annotations

import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import ROOT, quick, ratio, seconds, table, verdict

LINES = 20


def _env(private: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "AGENTOUT_"))}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    env["AGENTOUT_SPILL_DIR"] = str(private / "spill")
    env["AGENTOUT_CONFIG_DIR"] = str(private / "config")
    env["AGENTOUT_CACHE_DIR"] = str(private / "cache")
    env["AGENTOUT_LEDGER"] = "0"
    return env


def _agentout() -> list[str]:
    return [sys.executable, "-m", "agentout", "run", "--"]


def _run(argv: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, int, str]:
    start = time.perf_counter()
    done = subprocess.run(
        argv, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, check=False
    )
    return time.perf_counter() - start, done.returncode, done.stdout.decode("utf-8", "replace")


def _timed(argv: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU seconds (of every process it started) of one run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    wall = _run(argv, cwd, env)[0]
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return wall, cpu


def tokens(work: Path, env: dict[str, str]) -> tuple[str, bool]:
    from agentout.tokens import count

    project = work / "tasks"
    shutil.copytree(ROOT / "examples" / "tasks", project, ignore=shutil.ignore_patterns("README*"))
    _, raw_status, raw = _run(["make", "check"], project, env)
    _, status, delivered = _run([*_agentout(), "make", "check"], project, env)
    raw_tokens, tokens_ = count(raw), count(delivered)
    ok = status == raw_status == 2 and tokens_ < raw_tokens
    rows = [
        ["`make check`", raw_status, raw_tokens, "1.00×"],
        ["`agentout run -- make check`", status, tokens_, ratio(tokens_ / raw_tokens)],
    ]
    text = table(["command", "exit", "tokens (o200k)", "÷ raw"], rows)
    return text, ok


def overhead(work: Path, env: dict[str, str]) -> tuple[str, float]:
    folder = work / "lines"
    folder.mkdir()
    recipe = "".join(f"\t@echo line {i}\n" for i in range(LINES))
    (folder / "Makefile").write_text(f"all:\n{recipe}")
    off = {**env, "AGENTOUT_TASKS": "0"}
    contenders = {
        "`make -s` plain": (["make", "-s"], env),
        "`agentout run -- make -s`, line shell off": ([*_agentout(), "make", "-s"], off),
        "`agentout run -- make -s`, line shell on": ([*_agentout(), "make", "-s"], env),
    }
    n = 2 if quick() else 7
    walls: dict[str, list[float]] = {name: [] for name in contenders}
    cpus: dict[str, list[float]] = {name: [] for name in contenders}
    for argv, environ in contenders.values():
        _run(argv, folder, environ)  # warm-up: bytecode written, caches filled
    for round_ in range(n):
        names = list(contenders)
        shift = round_ % len(names)
        for name in names[shift:] + names[:shift]:
            argv, environ = contenders[name]
            wall, cpu = _timed(argv, folder, environ)
            walls[name].append(wall)
            cpus[name].append(cpu)
    wall_m = {name: statistics.median(values) for name, values in walls.items()}
    cpu_m = {name: statistics.median(values) for name, values in cpus.items()}
    plain = wall_m["`make -s` plain"]
    rows = [
        [name, seconds(wall_m[name]), seconds(cpu_m[name]), ratio(wall_m[name] / plain)]
        for name in contenders
    ]
    off_name, on_name = list(contenders)[1:]
    per_wall = max(wall_m[on_name] - wall_m[off_name], 0.0) / LINES
    per_cpu = max(cpu_m[on_name] - cpu_m[off_name], 0.0) / LINES
    python = [_timed([sys.executable, "-c", "pass"], folder, env) for _ in range(n)]
    py_wall = statistics.median(w for w, _ in python)
    py_cpu = statistics.median(c for _, c in python)
    rows.append(["line shell, per recipe line: (on - off) / lines", seconds(per_wall),
                 seconds(per_cpu), ""])  # fmt: skip
    rows.append(["`python -c pass` (a bare Python start, for scale)", seconds(py_wall),
                 seconds(py_cpu), ""])  # fmt: skip
    headers = ["run (a recipe of 20 lines)", "wall median", "CPU median", "÷ make plain (wall)"]
    return table(headers, rows), per_cpu / py_cpu if py_cpu else 0.0


def main() -> str:
    if shutil.which("make") is None:
        return "## Task runners\n\nSkipped: make is not installed."
    with tempfile.TemporaryDirectory(prefix="agentout-bench-tasks-") as name:
        work = Path(name)
        env = _env(work / ".private")
        token_table, ok = tokens(work, env)
        time_table, per_python = overhead(work, env)
    return "\n\n".join(
        [
            "## Task runners (make, just, npm run)",
            (__doc__ or "").split("\n\n", 1)[1].strip(),
            token_table,
            f"Fewer tokens than make plain, same exit status: {verdict(ok)}",
            time_table,
            f"The line shell costs {ratio(per_python)} the CPU of a bare Python start per"
            " recipe line (CPU, not wall: wall time on a shared machine is mostly waiting).",
        ]
    )


if __name__ == "__main__":
    print(main())
