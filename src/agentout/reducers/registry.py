"""Where reducers come from, in order: the project, the user, installed packages, built-ins."""

from __future__ import annotations

import os
from collections.abc import Iterator

from agentout.reducers import Reducer

__all__ = ["reducers"]

ENTRY_POINT_GROUP = "agentout.reducers"


def reducers(cwd: str | os.PathLike[str] | None = None) -> Iterator[Reducer]:
    """Every reducer, first match wins: built-ins last."""
    from agentout.reducers.builtin import BUILTINS

    yield from BUILTINS
