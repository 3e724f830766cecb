"""The same speed before and after a restructuring: two trees of agentout's sources (git
revisions) run side by side, in turns, with the same interpreter and dependencies.

    .venv/bin/python bench/house_speed.py 7246ba0 c65ab9a     # before and after the house

Each revision's ``src/`` is exported with ``git archive`` into a private folder and put
first on ``PYTHONPATH``; every case is a fresh process, the cases take turns (none always
first), and the table gives each case's median wall and CPU time for both trees and the
ratio after ÷ before. By hand, not part of ``make bench``: it needs the repository's
history.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tarfile
import tempfile
from io import BytesIO
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import ROOT, interleaved_children, paired_ratio, seconds, table

CASES = {
    "agentout run -- true": ["run", "--", "true"],
    "agentout run -- git status": ["run", "--", "git", "status"],
    "agentout run -- seq 1 100000": ["run", "--", "seq", "1", "100000"],
    "agentout fit incidents.json --max-tokens 200": [
        "fit",
        str(ROOT / "examples" / "data" / "incidents.json"),
        "--max-tokens",
        "200",
    ],
    "agentout --help": ["--help"],
}


def export(revision: str, into: Path) -> Path:
    """``src/`` of ``revision`` in ``into``; the folder to put on ``PYTHONPATH``."""
    archive = subprocess.run(
        ["git", "archive", revision, "src"], cwd=ROOT, capture_output=True, check=True
    ).stdout
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    return into / "src"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before")
    parser.add_argument("after")
    parser.add_argument("--rounds", type=int, default=21)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="agentout-house-") as tmp:
        trees = {
            name: export(revision, Path(tmp) / name)
            for name, revision in (("before", args.before), ("after", args.after))
        }
        cases = {}
        for label, words in CASES.items():
            for name, src in trees.items():
                command = ["env", f"PYTHONPATH={src}", sys.executable, "-c"]
                command += ["from agentout.cli import main; main()", *words]
                cases[f"{label} ({name})"] = (command, b"")
        env = {**os.environ, "AGENTOUT_SPILL_DIR": str(Path(tmp) / "spill")}
        env["AGENTOUT_LEDGER"] = "0"
        _, timings = interleaved_children(cases, args.rounds, env)
    rows = []
    for label in CASES:
        before, after = timings[f"{label} (before)"], timings[f"{label} (after)"]
        rows.append(
            [
                label,
                seconds(before[0].median),
                seconds(after[0].median),
                f"{paired_ratio(after[0], before[0]):.3f}",
                seconds(before[1].median),
                seconds(after[1].median),
                f"{paired_ratio(after[1], before[1]):.3f}",
            ]
        )
    headers = ["case", "wall before", "wall after", "after ÷ before", "CPU before"]
    headers += ["CPU after", "after ÷ before (CPU)"]
    print(f"{args.before} → {args.after}, {args.rounds} rounds, load {os.getloadavg()[0]:.2f}")
    print(table(headers, rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
