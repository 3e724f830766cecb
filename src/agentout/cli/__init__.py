"""The ``agentout`` command: thin shells over the library. See ``agentout --help``."""

from __future__ import annotations

import sys

__all__ = ["main"]


def main() -> None:
    # The hook runs before every shell command an agent starts: it skips click entirely.
    if sys.argv[1:2] == ["hook"] and len(sys.argv) == 3 and not sys.argv[2].startswith("-"):
        from agentout.agents.hook import main as hook

        sys.exit(hook(sys.argv[2:]))
    from agentout.cli.main import main as run_cli

    run_cli()
