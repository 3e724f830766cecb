"""The reducers agentout ships, in the order they are tried."""

from __future__ import annotations

from agentout.reducers import Reducer

__all__ = ["BUILTINS"]

BUILTINS: tuple[Reducer, ...] = ()
