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


def without_agentout_settings() -> dict[str, str]:
    """This process's environment without agentout's settings (``AGENTOUT_*``), but for
    ``AGENTOUT_HOOK_SERVER``: the suite's hook calls and runs are answered cold, and a
    child started from this environment starts no warm server (tests/conftest.py)."""
    return {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("AGENTOUT_") or k == "AGENTOUT_HOOK_SERVER"
    }
