"""agentout's user directories (config, cache, data), where platformdirs puts them.

Every command needs one, and importing platformdirs costs about as much as the rest of a
small ``agentout run``; on Linux the XDG base directories are read here instead, as
platformdirs reads them (a relative ``$XDG_*_HOME`` is ignored, as the spec says).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Literal

__all__ = ["user_dir"]

_XDG = {
    "config": ("XDG_CONFIG_HOME", ".config"),
    "cache": ("XDG_CACHE_HOME", ".cache"),
    "data": ("XDG_DATA_HOME", os.path.join(".local", "share")),
}


def user_dir(kind: Literal["config", "cache", "data"]) -> Path:
    """platformdirs' user ``kind`` directory for agentout."""
    if sys.platform.startswith("linux"):
        variable, default = _XDG[kind]
        base = os.environ.get(variable, "")
        if not os.path.isabs(base):
            base = os.path.join(os.path.expanduser("~"), default)
        return Path(base) / "agentout"
    import platformdirs

    found = {
        "config": platformdirs.user_config_dir,
        "cache": platformdirs.user_cache_dir,
        "data": platformdirs.user_data_dir,
    }[kind]
    return Path(found("agentout"))
