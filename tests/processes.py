"""Helpers for tests that watch processes (Linux: read from ``/proc``)."""

from __future__ import annotations

import os


def alive(pid: int) -> bool:
    """Whether ``pid`` runs: a zombie does not (it waits for a parent that is not us)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[-1].split()[0] != "Z"
    except OSError:
        return False
