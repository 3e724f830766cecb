"""Paths and types the notes tests share (fixtures are in conftest.py)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).parents[2]
EXAMPLE = ROOT / "examples" / "vault"

MakeVault = Callable[[dict[str, str | bytes]], Path]
