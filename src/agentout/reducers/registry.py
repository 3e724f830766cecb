"""Where reducers come from, first match wins: the project's ``.agentout/reducers/``
(this directory or the nearest parent that has one), the user's config directory
(``$AGENTOUT_CONFIG_DIR`` or platformdirs' ``agentout``, then ``reducers/``), packages
that declare an ``agentout.reducers`` entry point, then agentout's own.

Every command pays for this lookup, so it stays cheap: TOML files are read but their
patterns compiled only when used, agentout's Python reducers are imported only when
their words match, and the installed entry points (a scan of every package's metadata,
slow) are remembered in the user cache, read again only when ``sys.path`` changes.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator, Sequence
from importlib import import_module
from pathlib import Path
from typing import Any

from agentout.dirs import user_dir
from agentout.reducers import Reducer
from agentout.reducers.cache import cache_file, load, save

__all__ = ["ENTRY_POINT_GROUP", "Lazy", "config_dir", "entries", "project_dir", "reducers"]

ENTRY_POINT_GROUP = "agentout.reducers"
ENV_CONFIG = "AGENTOUT_CONFIG_DIR"


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


def project_dir(cwd: str | os.PathLike[str] | None = None) -> Path | None:
    """The nearest ``.agentout/reducers`` at or above ``cwd``."""
    here = Path(cwd if cwd is not None else os.getcwd()).absolute()
    for folder in (here, *here.parents):
        candidate = folder / ".agentout" / "reducers"
        if candidate.is_dir():
            return candidate
    return None


def config_dir() -> Path:
    """The user's agentout config directory (``$AGENTOUT_CONFIG_DIR`` wins)."""
    configured = os.environ.get(ENV_CONFIG)
    if configured:
        return Path(configured).expanduser()
    return user_dir("config")


def _toml_in(folder: Path | None) -> Iterator[Reducer]:
    """The reducer files in ``folder``; one that cannot be used is named on stderr and left
    out (the command still runs; ``agentout reducers verify`` says the same, exit 2)."""
    if folder is None or not folder.is_dir():
        return
    from agentout.reducers.spec import SpecFile

    for path in sorted(folder.glob("*.toml")):
        yield SpecFile(path)


def reducers(cwd: str | os.PathLike[str] | None = None) -> Iterator[Reducer]:
    """Every reducer, in the order they are tried (see the module docstring)."""
    for reducer, _ in entries(cwd):
        yield reducer


def entries(cwd: str | os.PathLike[str] | None = None) -> Iterator[tuple[Reducer, str]]:
    """Every reducer with where it comes from: project, user, package or agentout."""
    for reducer in _toml_in(project_dir(cwd)):
        yield reducer, "project"
    for reducer in _toml_in(config_dir() / "reducers"):
        yield reducer, "user"
    for name, target in _entry_points():
        yield Lazy(target, [[]], name), "package"  # a plugin says itself what it matches
    from agentout.reducers.builtin import builtins

    for reducer in builtins():
        yield reducer, "agentout"


def _entry_points() -> list[tuple[str, str]]:
    """(name, "module:attr") of the installed ``agentout.reducers`` entry points, sorted,
    from the cache while ``sys.path`` is unchanged."""
    key = []
    for entry in sys.path[1:]:  # sys.path[0] is the script's directory (or ""), not a site
        if not entry or entry == os.getcwd():
            continue
        try:
            key.append([entry, os.stat(entry or ".").st_mtime_ns])
        except OSError:
            key.append([entry, None])
    path = cache_file("entry-points.json")
    saved = load(path)
    try:
        if saved.get("key") == key:
            return [(str(n), str(t)) for n, t in saved["entry_points"]]
    except (AttributeError, KeyError, TypeError, ValueError):
        pass
    from importlib.metadata import entry_points

    found = sorted((ep.name, ep.value) for ep in entry_points(group=ENTRY_POINT_GROUP))
    save(path, {"key": key, "entry_points": found})
    return found
