"""Shared by the adversarial tests: how agentout is run, what the store holds."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

AGENTOUT = [sys.executable, "-c", "from agentout.cli import main; main()"]


def stored(store: Path) -> list[Path]:
    """The files agentout committed to the store (never a partial one)."""
    if not store.exists():
        return []
    return sorted(p for p in store.iterdir() if not p.name.startswith("."))


def peak_rss_kib(args: list[str], env: dict[str, str]) -> tuple[int, bytes]:
    """Run ``agentout ARGS`` under a fresh Python that reports the peak resident memory of
    its children (agentout and what agentout ran): (KiB, agentout's stdout)."""
    probe = (
        "import json, resource, subprocess, sys\n"
        f"done = subprocess.run({[*AGENTOUT, *args]!r}, capture_output=True)\n"
        "peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss\n"
        "sys.stdout.write(json.dumps([peak, done.stdout.decode('utf-8', 'replace')]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe],
        env={**os.environ, **env},
        capture_output=True,
        timeout=300,
        check=True,
    )
    peak, stdout = json.loads(done.stdout)
    return int(peak), stdout.encode()
