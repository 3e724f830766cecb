"""The user's agentout config file: ``config.toml`` in the config directory
(``$AGENTOUT_CONFIG_DIR``, else platformdirs' ``agentout``: ``~/.config/agentout`` on
Linux), the same directory that holds the user's reducers. A missing file is an empty
config; one that is not valid TOML is an ``InputError`` at ``FILE:LINE:COL``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

__all__ = ["FILE_NAME", "config_path", "load"]

FILE_NAME = "config.toml"


def config_path() -> Path:
    from agentout.reducers.registry import config_dir

    return config_dir() / FILE_NAME


def load(path: Path | None = None) -> dict[str, Any]:
    """The config's tables, JSON-shaped; {} when there is no file."""
    from agentout.errors import InputError
    from agentout.inputs import toml_value

    where = config_path() if path is None else path
    try:
        text = where.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read ({exc})", str(where)) from None
    return toml_value(text, str(where))
