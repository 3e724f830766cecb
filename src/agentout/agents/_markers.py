"""Markers an agent can run: ``agentout show REF`` spelled as the agent's shell can start it.

agentout's markers and closing lines say ``agentout show REF``. An agent reached through a
hook runs its commands in a shell whose PATH may not hold ``agentout`` (a clone's virtual
environment, a venv never activated): the hook was started by the absolute path
``agentout init`` wrote. So output delivered through a hook names that path, or this
Python with ``-P -m agentout`` (never the current folder's ``agentout``: see
``agentout.process.python_module``), unless the ``agentout`` on PATH is this very one.

The delivery is made with that command in its raw format's pager
(``agentout.formats.raw.Pager``), so the markers name it and the budget and the closing
line's ``tokens=`` count it, by construction.
"""

from __future__ import annotations

import os
import re
import shlex
import sys

TYPE_CHECKING = False  # typing is not imported at run time: the hook is timed
if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["show_command"]

_TOKENS = re.compile(r"(?<= )tokens=(\d+)(?= |\]| ·)")


def _on_path(name: str) -> str | None:
    for directory in os.environ.get("PATH", "").split(os.pathsep):
        candidate = os.path.join(directory, name)
        if directory and os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    return None


def show_command(started: Sequence[str] | None = None) -> str:
    """How the agent's shell starts this agentout: ``agentout`` when that is this one on
    PATH, else the absolute path it was started by, else ``python -P -m agentout``."""
    if started is None:
        script = os.path.abspath(sys.argv[0]) if sys.argv else ""
        if os.path.basename(script) == "agentout" and os.path.isfile(script):
            started = [script]
        else:
            from agentout.process import python_module

            started = python_module("agentout")
    if len(started) == 1:
        found = _on_path("agentout")
        try:
            if found is not None and os.path.samefile(found, started[0]):
                return "agentout"
        except OSError:
            pass
    return shlex.join(started)
