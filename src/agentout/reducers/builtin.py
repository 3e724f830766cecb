"""The reducers agentout ships, in the order they are tried: TOML files, then Python."""

from __future__ import annotations

from functools import cache
from importlib import resources

from agentout.reducers import Reducer

__all__ = ["builtins"]


@cache
def builtins() -> tuple[Reducer, ...]:
    from agentout.reducers.spec import load_spec

    folder = resources.files("agentout.reducers") / "toml"
    found: list[Reducer] = []
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if entry.name.endswith(".toml"):
            found.append(load_spec(f"<agentout>/{entry.name}", entry.read_text("utf-8")))
    from agentout.reducers.git import GitDiff, GitLog, GitShow
    from agentout.reducers.lint import Lint

    found.extend((GitLog(), GitDiff(), GitShow(), Lint()))
    return tuple(found)
