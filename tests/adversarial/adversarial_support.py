"""Shared by the adversarial tests: how agentout is run, what the store holds."""

from __future__ import annotations

import sys
from pathlib import Path

AGENTOUT = [sys.executable, "-c", "from agentout.cli import main; main()"]


def stored(store: Path) -> list[Path]:
    """The files agentout committed to the store (never a partial one)."""
    if not store.exists():
        return []
    return sorted(p for p in store.iterdir() if not p.name.startswith("."))
