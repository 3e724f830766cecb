"""The user's agentout config file: ``config.toml`` in the config directory
(``$AGENTOUT_CONFIG_DIR``, else platformdirs' ``agentout``: ``~/.config/agentout`` on
Linux), the same directory that holds the user's reducers. A missing file is an empty
config; one that is not valid TOML is an ``InputError`` at ``FILE:LINE:COL``, and so is
one that is not a regular file or is larger than ``MAX_BYTES`` (read no further).
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # pathlib and typing are not imported: the hook reads this file
if TYPE_CHECKING:
    from typing import Any

__all__ = ["FILE_NAME", "MAX_BYTES", "config_path", "load"]

FILE_NAME = "config.toml"
MAX_BYTES = 1 << 20  # a config of a few tables is a few KiB


def config_path() -> str:
    """Where the file is: ``agentout.dirs.config_dir()``'s, found here
    without pathlib on Linux (the XDG base directory), which the hook would pay for."""
    configured = os.environ.get("AGENTOUT_CONFIG_DIR")
    if configured:
        return os.path.join(os.path.expanduser(configured), FILE_NAME)
    if sys.platform.startswith("linux"):
        base = os.environ.get("XDG_CONFIG_HOME", "").strip()
        if not os.path.isabs(base):
            base = os.path.join(os.path.expanduser("~"), ".config")
        return os.path.join(base, "agentout", FILE_NAME)
    from agentout.dirs import config_dir

    return str(config_dir() / FILE_NAME)


def load(path: str | os.PathLike[str] | None = None) -> dict[str, Any]:
    """The config's tables, JSON-shaped; {} when there is no file."""
    from agentout.errors import InputError
    from agentout.read.regular import read_regular

    where = os.fspath(config_path() if path is None else path)
    try:
        text = read_regular(where, MAX_BYTES).decode("utf-8")
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read ({exc})", str(where)) from None
    from agentout.read.structured import toml_value  # deferred: most users have no config file

    try:
        return toml_value(text, where)
    except RecursionError:  # tomllib reads nested arrays and tables by recursion
        raise InputError("nested too deeply (TOML)", str(where)) from None
