"""The reducers agentout ships, in the order they are tried: TOML files, then Python.

The Python ones are listed with the words they may match, so a command that is none of
theirs never imports them (``Lazy``); their own ``matches`` decides the rest.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from functools import cache
from importlib import import_module
from typing import Any

from agentout.reducers.model import Reducer

__all__ = ["LINT_TOOLS", "Lazy", "builtins"]

LINT_TOOLS = (
    "ruff", "flake8", "pycodestyle", "pyflakes", "pylint", "mypy", "dmypy", "pyright",
    "basedpyright", "eslint", "tsc", "vue-tsc", "golangci-lint",
)  # fmt: skip

_PYTHON: tuple[tuple[str, str, tuple[tuple[str, ...], ...]], ...] = (
    ("git/log", "agentout.reducers.git:GitLog", (("git", "log"),)),
    ("git/diff", "agentout.reducers.git:GitDiff", (("git", "diff"),)),
    ("git/show", "agentout.reducers.git:GitShow", (("git", "show"),)),
    ("lint", "agentout.reducers.lint:Lint", (*((t,) for t in LINT_TOOLS), ("cargo", "clippy"))),
)


class Lazy:
    """A reducer imported on first use: ``words`` prefixes say when it may match."""

    def __init__(self, target: str, prefixes: Sequence[Sequence[str]], name: str) -> None:
        self.target, self.prefixes, self._name = target, prefixes, name
        self._loaded: Reducer | None = None

    @property
    def name(self) -> str:
        return self._name

    def load(self) -> Reducer:
        if self._loaded is None:
            module, _, attribute = self.target.partition(":")
            made = getattr(import_module(module), attribute)
            self._loaded = made() if isinstance(made, type) else made
        return self._loaded

    @property
    def facts(self) -> tuple[str, ...]:
        return self.load().facts

    @property
    def description(self) -> str:
        """The first line of the reducer's own docstring (or its module's)."""
        loaded = self.load()
        doc = type(loaded).__doc__ or sys.modules[type(loaded).__module__].__doc__ or ""
        return doc.strip().splitlines()[0] if doc.strip() else ""

    def matches(self, words: Sequence[str]) -> bool:
        if not any(tuple(words[: len(p)]) == tuple(p) for p in self.prefixes):
            return False
        return self.load().matches(words)

    def reduce(self, output: Any) -> Any:
        return self.load().reduce(output)


@cache
def builtins() -> tuple[Reducer, ...]:
    from agentout.reducers.spec_file import SpecFile

    # installed beside this module, always a directory (os, not pathlib: every command)
    folder = os.path.join(os.path.dirname(__file__), "toml")
    found: list[Reducer] = []
    for name in sorted(n for n in os.listdir(folder) if n.endswith(".toml")):
        with open(os.path.join(folder, name), encoding="utf-8") as file:
            found.append(SpecFile(f"<agentout>/{name}", file.read()))
    found.extend(Lazy(target, prefixes, name) for name, target, prefixes in _PYTHON)
    return tuple(found)
