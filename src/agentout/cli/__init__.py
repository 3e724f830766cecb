"""The ``agentout`` command: thin shells over the library. See ``agentout --help``."""

from __future__ import annotations

import sys

__all__ = ["main"]


def main() -> None:
    """``agentout``: the forms an agent's hook runs before and for every shell command
    (``agentout hook AGENT``, ``agentout run -- CMD``) are read without click; everything
    else goes to the click group."""
    if sys.argv[1:2] == ["hook"] and len(sys.argv) == 3 and not sys.argv[2].startswith("-"):
        from agentout.agents.hook import main as hook

        sys.exit(hook(sys.argv[2:]))
    if sys.argv[1:2] == ["run"]:
        from agentout.cli import quick

        if quick.run(sys.argv[2:]):
            return  # pragma: no cover - it exits
    from agentout.cli.main import main as full

    full()
