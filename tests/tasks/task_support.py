"""Helpers of the task runner tests."""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

BIN = str(Path(sys.executable).parent)


def needs(program: str) -> None:
    if shutil.which(program, path=BIN + os.pathsep + os.environ.get("PATH", "")) is None:
        pytest.skip(f"{program} is not installed")


def write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def subsequence(needles: Sequence[str], haystack: Sequence[str]) -> bool:
    """Every line of ``needles`` in ``haystack``, in order."""
    it = iter(haystack)
    return all(any(line == other for other in it) for line in needles)


LABEL = "[agentout task"


def reduced_line(root: Path) -> str:
    """A recipe line whose output agentout's form is smaller for (a long listing, which
    the ls reducer shortens): its label in the routed output shows that the line shell ran
    the recipe's lines. A line printing a little is printed as it was, with no label."""
    listing = root / "listing"
    listing.mkdir(parents=True, exist_ok=True)
    for i in range(40):
        (listing / f"file_{i:02d}.txt").write_text("x" * i)
    return "\t@ls -la listing\n"
