"""Costs that must grow no faster than the input: note syntaxes, and `fit` on big JSONL.

**Notes.** Each syntax a note can hold, repeated with nothing to close it (`![[` x N,
`[[a|` x N, nested brackets...), parsed at N and at 4N (`agentout.sources.notes.parse`,
in this process, CPU time, best of the rounds, the cycle collector paused as
`load_vault` pauses it): 4x the input must cost at most 5x the time.
tests/adversarial/test_adversarial_growth.py holds the same bound in counted steps.

**fit on big JSONL.** `agentout fit --max-tokens 2000 FILE.jsonl` against a plain Python
loop of `json.loads` over the file's lines, each in fresh processes, interleaved rounds,
CPU time (user + system) of each process: fit must take at most 2x the loop, and its peak
RSS (the process's high-water mark) must stay under 100 MiB.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import quick, ratio, rounds, seconds, table, verdict
from agentout.sources.notes.parse import parse_note
from agentout.sources.notes.vault import paused_gc

SYNTAXES = [
    ("![[", b"![["),
    ("[[a|", b"[[a|"),
    ("[[a]", b"[[a]"),
    ("[[a]] text", b"[[a]] "),
    ("![[a|b]]", b"![[a|b]] "),
    ("[a](", b"[a]("),
    ("![a", b"![a"),
    ("nested: [ x N, then ] x N", b""),  # built by _note
    ("[[ and a newline", b"[[a\n"),
]
FIT_TARGET, RSS_TARGET = 2.0, 100 << 20
_LOOP = (
    "import json, sys\n"
    "with open(sys.argv[1], 'rb') as f:\n"
    "    for line in f:\n"
    "        json.loads(line)\n"
)
_FIT = [sys.executable, "-c", "from agentout.cli import main; main()", "fit"]


def _note(repeat: bytes, n: int) -> bytes:
    return b"[" * n + b"]" * n if not repeat else repeat * n


def _parse_seconds(data: bytes) -> float:
    """CPU seconds to parse one note, as the vault parses it (the cycle collector paused:
    it would rescan every token made so far, again and again, see ``paused_gc``)."""
    with paused_gc():
        start = time.process_time()
        parse_note(data, "note.md")
        return time.process_time() - start


def notes() -> tuple[list[list[object]], bool]:
    n = 4_000 if quick() else 16_000
    rows: list[list[object]] = []
    ok = True
    for name, repeat in SYNTAXES:
        small, large = _note(repeat, n), _note(repeat, 4 * n)
        times: dict[str, list[float]] = {"small": [], "large": []}
        for _ in range(rounds(3, 1)):
            times["small"].append(_parse_seconds(small))
            times["large"].append(_parse_seconds(large))
        growth = min(times["large"]) / max(min(times["small"]), 1e-6)
        ok = ok and growth <= 5
        rows.append(
            [
                name,
                f"{n:,}",
                seconds(min(times["small"])),
                seconds(min(times["large"])),
                ratio(growth),
            ]
        )
    return rows, ok


def _jsonl(path: Path, megabytes: int) -> int:
    chance = random.Random(28)
    lines = 0
    with path.open("w") as out:
        while out.tell() < megabytes << 20:
            lines += 1
            record = {
                "id": lines,
                "level": chance.choice(["INFO", "WARN", "ERROR"]),
                "msg": f"processed item {lines} in {chance.randint(1, 999)} ms",
                "tags": ["a", "b"],
                "ok": lines % 7 != 0,
                "score": chance.random(),
            }
            out.write(json.dumps(record) + "\n")
    return lines


def _child(command: list[str], env: dict[str, str]) -> tuple[float, int]:
    """CPU seconds (user + system) and peak RSS in bytes of one process running command."""
    probe = (
        "import resource, subprocess, sys\n"
        "done = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL)\n"
        "use = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
        "print(use.ru_utime + use.ru_stime, use.ru_maxrss, done.returncode)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe, *command], env=env, capture_output=True, text=True, check=True
    )
    cpu, peak, status = out.stdout.split()
    if status != "0":
        raise RuntimeError(f"{command[:4]} exited {status}")
    return float(cpu), int(peak) * 1024


def fit(work: Path) -> tuple[str, bool]:
    megabytes = 20 if quick() else 200
    data = work / "big.jsonl"
    lines = _jsonl(data, megabytes)
    env = {k: v for k, v in os.environ.items() if not k.startswith("AGENTOUT_")}
    env.update(HOME=str(work / "home"), AGENTOUT_LEDGER="0", AGENTOUT_SPILL_DIR=str(work / "s"))
    runs: dict[str, list[tuple[float, int]]] = {"fit": [], "loop": []}
    commands = {
        "fit": [*_FIT, "--max-tokens", "2000", str(data)],
        "loop": [sys.executable, "-c", _LOOP, str(data)],
    }
    for round_ in range(rounds(3, 1)):
        order = ["fit", "loop"] if round_ % 2 == 0 else ["loop", "fit"]
        for name in order:
            runs[name].append(_child(commands[name], env))
            shutil.rmtree(work / "s", ignore_errors=True)
    fit_cpu = min(cpu for cpu, _ in runs["fit"])
    loop_cpu = min(cpu for cpu, _ in runs["loop"])
    peak = max(rss for _, rss in runs["fit"])
    slower = fit_cpu / loop_cpu
    ok = slower <= FIT_TARGET and peak < RSS_TARGET
    rows = [
        ["`agentout fit --max-tokens 2000`", seconds(fit_cpu), f"{peak / (1 << 20):.1f}"],
        [
            "`json.loads` loop",
            seconds(loop_cpu),
            f"{max(rss for _, rss in runs['loop']) / (1 << 20):.1f}",
        ],
    ]
    text = "\n\n".join(
        [
            f"A JSONL file of {data.stat().st_size / (1 << 20):.0f} MiB, {lines:,} records; "
            f"CPU time (user + system) of each process, best of {len(runs['fit'])}, "
            "interleaved, each in fresh processes.",
            table(("reader", "CPU time", "peak RSS (MiB)"), rows),
            f"fit / loop: **{ratio(slower)}** (must be ≤ {FIT_TARGET:.0f}×); fit's peak RSS "
            f"**{peak / (1 << 20):.1f} MiB** (must be < 100 MiB).",
        ]
    )
    return text, ok


def main() -> str:
    note_rows, notes_ok = notes()
    work = Path(tempfile.mkdtemp(prefix="agentout-bench-growth-"))
    try:
        fit_text, fit_ok = fit(work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return "\n\n".join(
        [
            "## Growth: note syntaxes, and fit on big JSONL",
            "Each note syntax repeated N and 4N times with nothing to close it, parsed in "
            "this process as `load_vault` parses a note (the cycle collector paused; CPU "
            "time, best of the rounds):",
            table(("syntax", "N", "N times", "4N times", "4N / N"), note_rows),
            f"**4× the input costs at most 5× the time, every syntax: {verdict(notes_ok)}**",
            fit_text,
            f"**fit within 2× of a `json.loads` loop, under 100 MiB: {verdict(fit_ok)}**",
        ]
    )


if __name__ == "__main__":
    print(main())
