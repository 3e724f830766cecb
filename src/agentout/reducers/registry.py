"""Where reducers come from, first match wins: the project's ``.agentout/reducers/``
(this directory or the nearest parent that has one), once the user trusts them
(``agentout.reducers.trust``), the user's config directory (``$AGENTOUT_CONFIG_DIR`` or
platformdirs' ``agentout``, then ``reducers/``), packages that declare an
``agentout.reducers`` entry point, then agentout's own.

Every command pays for this lookup, so it stays cheap: a TOML file is parsed and checked
only when a command could match it, and its checked data is kept in the user cache by
its text; a project's files are hashed only when some are trusted; agentout's Python
reducers are imported only when their words match; and the installed entry points (a
scan of every package's metadata, slow) are remembered in the user cache, read again
only when ``sys.path`` changes.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator

from agentout.dirs import config_dir, config_folder
from agentout.reducers.builtin import Lazy, builtins
from agentout.reducers.cache import cache_file, load, save
from agentout.reducers.model import Reducer

TYPE_CHECKING = False  # pathlib is not imported while no folder is there: every command looks
if TYPE_CHECKING:
    from pathlib import Path

__all__ = ["ENTRY_POINT_GROUP", "config_dir", "entries", "project_dir", "reducers"]

ENTRY_POINT_GROUP = "agentout.reducers"


def project_dir(cwd: str | os.PathLike[str] | None = None) -> Path | None:
    """The nearest ``.agentout/reducers`` at or above ``cwd``."""
    found = _project_folder(cwd)
    if found is None:
        return None
    from pathlib import Path

    return Path(found)


def _project_folder(cwd: str | os.PathLike[str] | None) -> str | None:
    """``project_dir`` as a string, found without pathlib: ``cwd`` made absolute and each
    of its parents, read as pathlib reads them (empty and ``.`` parts dropped, ``..``
    kept); pathlib only where the separator is not ``/``."""
    if os.sep != "/" or os.altsep:
        from pathlib import Path

        here = Path(cwd if cwd is not None else os.getcwd()).absolute()
        for folder in (here, *here.parents):
            if (folder / ".agentout" / "reducers").is_dir():
                return str(folder / ".agentout" / "reducers")
        return None
    start = os.fspath(cwd) if cwd is not None else os.getcwd()
    if not os.path.isabs(start):
        start = os.path.join(os.getcwd(), start)
    root = "//" if start.startswith("//") and not start.startswith("///") else "/"
    parts = [part for part in start.split("/") if part and part != "."]
    for end in range(len(parts), -1, -1):
        candidate = root + "/".join([*parts[:end], ".agentout", "reducers"])
        if os.path.isdir(candidate):
            return candidate
    return None


def reducers(cwd: str | os.PathLike[str] | None = None) -> Iterator[Reducer]:
    """Every reducer, in the order they are tried (see the module docstring). A project
    file that is not trusted is among them as ``Ignored``: it matches nothing."""
    for reducer, _ in entries(cwd):
        yield reducer


def entries(cwd: str | os.PathLike[str] | None = None) -> Iterator[tuple[Reducer, str]]:
    """Every reducer with where it comes from: project, user, package or agentout. A file
    that cannot be used is named on stderr when a command could match it, and left out
    (the command still runs; ``agentout reducers verify`` says the same, exit 2)."""
    folder = project_dir(cwd)
    if folder is not None:
        from agentout.reducers.trust import project_files

        for found in project_files(folder):
            yield found, "project"
    from agentout.reducers.spec_file import files_in

    if os.path.isdir(os.path.join(config_folder(), "reducers")):  # else none: no pathlib
        for mine in files_in(config_dir() / "reducers"):
            yield mine, "user"
    for name, target in _entry_points():
        yield Lazy(target, [[]], name), "package"  # a plugin says itself what it matches
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
