"""agentout's user directories (config, cache, data), where platformdirs puts them, and
the private directories it keeps its files in.

Every command needs one, and importing platformdirs costs about as much as the rest of a
small ``agentout run``; on Linux the XDG base directories are read here instead, as
platformdirs reads them (a relative ``$XDG_*_HOME`` is ignored, as the spec says).
"""

from __future__ import annotations

import os
import stat
import sys

from agentout.errors import SpillError

TYPE_CHECKING = False  # pathlib and typing are not imported: every command finds a folder
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Literal

ENV_CONFIG = "AGENTOUT_CONFIG_DIR"

__all__ = ["ENV_CONFIG", "config_dir", "config_folder", "private_dir", "user_dir", "user_folder"]

_XDG = {
    "config": ("XDG_CONFIG_HOME", ".config"),
    "cache": ("XDG_CACHE_HOME", ".cache"),
    "data": ("XDG_DATA_HOME", os.path.join(".local", "share")),
}


def user_folder(kind: Literal["config", "cache", "data"]) -> str:
    """platformdirs' user ``kind`` directory for agentout, as a string (no pathlib: the
    hot paths only join a name to it and look)."""
    if sys.platform.startswith("linux"):
        variable, default = _XDG[kind]
        base = os.environ.get(variable, "")
        if not os.path.isabs(base):
            base = os.path.join(os.path.expanduser("~"), default)
        return os.path.join(base, "agentout")
    import platformdirs

    found = {
        "config": platformdirs.user_config_dir,
        "cache": platformdirs.user_cache_dir,
        "data": platformdirs.user_data_dir,
    }[kind]
    return str(found("agentout"))


def user_dir(kind: Literal["config", "cache", "data"]) -> Path:
    """platformdirs' user ``kind`` directory for agentout."""
    from pathlib import Path

    return Path(user_folder(kind))


def config_folder() -> str:
    """``config_dir()`` as a string, without pathlib (the same folder)."""
    configured = os.environ.get(ENV_CONFIG)
    if configured:
        expanded = os.path.expanduser(configured)
        if configured.startswith("~") and expanded.startswith("~"):
            raise RuntimeError("Could not determine home directory.")  # as pathlib says
        return expanded
    return user_folder("config")


def config_dir() -> Path:
    """The user's agentout config directory (``$AGENTOUT_CONFIG_DIR`` wins)."""
    from pathlib import Path

    return Path(config_folder())


def private_dir(path: Path, what: str) -> None:
    """Make ``path`` a private directory agentout may use: create it (and its parents)
    0700, refuse a symlink, a non-directory or another user's folder, tighten its mode.

    Raises SpillError naming ``what`` ("the spill store", "the notes cache").
    """
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        try:
            path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            path.mkdir(mode=0o700)
        except FileExistsError:
            pass  # another process made it first; checked below like any existing one
        except OSError as exc:
            raise SpillError(f"{path}: cannot create {what}: {exc.strerror}") from exc
        info = os.lstat(path)
    if stat.S_ISLNK(info.st_mode):
        raise SpillError(f"{path}: {what} is a symlink; refusing to use it")
    if not stat.S_ISDIR(info.st_mode):
        raise SpillError(f"{path}: {what} is not a directory")
    if hasattr(os, "getuid") and info.st_uid != os.getuid():
        raise SpillError(f"{path}: {what} is not owned by you; refusing to use it")
    if stat.S_IMODE(info.st_mode) & 0o077:
        try:
            os.chmod(path, 0o700)
        except OSError as exc:
            raise SpillError(f"{path}: cannot make {what} private: {exc}") from exc
