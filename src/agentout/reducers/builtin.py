"""The reducers agentout ships, in the order they are tried: TOML files, then Python.

The Python ones are listed with the words they may match, so a command that is none of
theirs never imports them (``Lazy``); their own ``matches`` decides the rest.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from agentout.reducers import Reducer

__all__ = ["LINT_TOOLS", "builtins"]

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


@cache
def builtins() -> tuple[Reducer, ...]:
    from agentout.reducers.registry import Lazy
    from agentout.reducers.spec import load_spec

    folder = Path(__file__).parent / "toml"  # installed beside this module, always a directory
    found: list[Reducer] = []
    for entry in sorted(folder.glob("*.toml")):
        found.append(load_spec(f"<agentout>/{entry.name}", entry.read_text("utf-8")))
    found.extend(Lazy(target, prefixes, name) for name, target, prefixes in _PYTHON)
    return tuple(found)
