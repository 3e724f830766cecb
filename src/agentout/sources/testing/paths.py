"""Paths as the report shows them: relative to the run's common root, each file once.

Runners name files every way: jest writes a test file once absolute (in its trace) and
once relative (as its suite name), Go absolute in a panic and relative in its own lines.
``relative_paths`` makes every absolute path of a run relative: to the root that a
relative path of the same run reveals (``/home/ci/shop/`` for ``/home/ci/shop/src/a.js``
beside ``src/a.js``), else to the working directory when they are all under it, else to
their common directory; so one file is listed once, under one name.
"""

from __future__ import annotations

import os
import posixpath
from dataclasses import replace
from pathlib import Path

from agentout.sources.testing.model import Counts, Failure, Run, origin_file

__all__ = ["relative_paths"]


def _absolute(path: str) -> bool:
    return path.startswith("/") or (len(path) > 2 and path[1] == ":" and path[2] in "\\/")


def _root(files: set[str], cwd: str) -> str | None:
    absolute = sorted(f.replace("\\", "/") for f in files if _absolute(f))
    if not absolute:
        return None
    relative = sorted(f for f in files if f and not _absolute(f) and "/" in f)
    for path in absolute:
        for rel in relative:
            if path.endswith("/" + rel):
                return path[: -len(rel)]
    if all(p.startswith(cwd.rstrip("/") + "/") for p in absolute):
        return cwd.rstrip("/") + "/"
    common = posixpath.commonpath([posixpath.dirname(p) for p in absolute])
    return common.rstrip("/") + "/"


def _shown(path: str, root: str | None) -> str:
    if root is None or not _absolute(path):
        return path
    posix = path.replace("\\", "/")
    return posix[len(root) :] if posix.startswith(root) and len(posix) > len(root) else path


def _origin(origin: str | None, root: str | None) -> str | None:
    if origin is None:
        return None
    path = origin_file(origin)
    return _shown(path, root) + origin[len(path) :]


def relative_paths(run: Run, cwd: str | os.PathLike[str] | None = None) -> Run:
    """``run`` with its failures' files and origins relative to their common root."""
    here = Path(cwd if cwd is not None else os.getcwd()).as_posix()
    origins = {origin_file(f.origin) for f in run.failures if f.origin}
    root = _root({f.file for f in run.failures} | origins, here)
    if root is None:
        return run
    failures: list[Failure] = [
        replace(f, file=_shown(f.file, root), origin=_origin(f.origin, root)) for f in run.failures
    ]
    failures.sort(key=lambda f: (f.file, f.position))
    counts = run.file_counts
    if counts is not None:  # a file named both ways is one file: its counts added up
        merged: dict[str, Counts] = {}
        for file, found in counts.items():
            shown = _shown(file, root)
            merged[shown] = _added(merged[shown], found) if shown in merged else found
        counts = merged
    return replace(run, failures=tuple(failures), file_counts=counts)


def _added(a: Counts, b: Counts) -> Counts:
    return Counts(**{name: getattr(a, name) + getattr(b, name) for name in vars(a)})
