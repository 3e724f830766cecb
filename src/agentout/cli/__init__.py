"""The ``agentout`` command: thin shells over the library. See ``agentout --help``."""

from __future__ import annotations

import sys

__all__ = ["main"]


def main() -> None:
    """``agentout``: ``agentout run -- CMD`` is read without click (it runs for every
    command an agent's hook routes); everything else goes to the click group."""
    if sys.argv[1:2] == ["run"]:
        from agentout.cli import quick

        if quick.run(sys.argv[2:]):
            return  # pragma: no cover - it exits
    from agentout.cli.main import main as full

    full()
