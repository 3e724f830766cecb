"""Names a package exports but imports on first use (PEP 562).

``agentout`` and ``agentout.mcp`` export names from their modules without importing
them: every pytest run imports the plugin inside ``agentout``, and ``agentout.mcp`` must
import without the ``mcp`` extra.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False  # typing is not imported at run time: `agentout hook` is timed
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import Any

__all__ = ["attach"]


def attach(
    package: str, home_of: Mapping[str, str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``__getattr__`` and ``__dir__`` for ``package``: each name is imported from the
    module ``home_of[name]`` the first time it is used, then kept as a plain attribute."""

    def __getattr__(name: str) -> Any:
        module = home_of.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        __import__(module)
        value = getattr(sys.modules[module], name)
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        return sorted({*vars(sys.modules[package]), *home_of})

    return __getattr__, __dir__
