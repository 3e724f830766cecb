"""The ``agentout`` command: thin shells over the library. See ``agentout --help``."""

from agentout.cli.main import main

__all__ = ["main"]
