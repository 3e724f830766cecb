"""Run a command as an agent's shell tool does: no TTY, stdout and stderr through one pipe."""

from __future__ import annotations

import shlex
import subprocess
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

TIMEOUT = 300


@dataclass(frozen=True)
class Captured:
    output: bytes
    exit: int
    seconds: float


def capture(argv: Sequence[str], cwd: Path, env: Mapping[str, str]) -> Captured:
    """The merged output in the order it was written, the exit status as a shell reports it
    (127 not found, 128+N killed by signal N), and the wall time."""
    start = time.perf_counter()
    try:
        done = subprocess.run(
            list(argv),
            cwd=cwd,
            env=dict(env),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            timeout=TIMEOUT,
            check=False,
        )
    except FileNotFoundError:
        return Captured(b"", 127, time.perf_counter() - start)
    status = done.returncode if done.returncode >= 0 else 128 - done.returncode
    return Captured(done.stdout, status, time.perf_counter() - start)


def rtk_rewrite(argv: Sequence[str], cwd: Path, env: Mapping[str, str]) -> list[str] | None:
    """What rtk's hook would run instead of ``argv``, or None if it leaves it alone.

    As rtk's Claude Code hook: ``rtk rewrite "CMD"``; exit 0 (allow) or 3 (ask) with a
    different command on stdout is a rewrite, anything else is none.
    """
    command = shlex.join(argv)
    done = subprocess.run(
        ["rtk", "rewrite", command],
        cwd=cwd,
        env=dict(env),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        check=False,
    )
    rewritten = done.stdout.strip()
    if done.returncode in (0, 3) and rewritten and rewritten != command:
        return shlex.split(rewritten)
    return None
