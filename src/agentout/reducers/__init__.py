"""Reducers: one command family's output in its compact form, keeping the family's facts.

What a reducer is, reads and answers (the command words it matches, its facts) is
``agentout.reducers.model``.

Reducers are found, first match wins, in: the project's ``.agentout/reducers/`` (once the
user trusts them: ``agentout reducers trust``), the
user's config directory, the ``agentout.reducers`` entry point group, the built-ins.
Output a reducer cannot read (it returns None) is handled by the generic reducer, and
so is output too large to read whole (``REDUCE_MAX_BYTES``).
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from agentout.reducers.model import (
    REDUCE_MAX_BYTES,
    Output,
    Reduced,
    Reducer,
    command_words,
)

__all__ = [
    "REDUCE_MAX_BYTES",
    "Output",
    "Reduced",
    "Reducer",
    "command_words",
    "find",
]

# -- finding the reducer for a command ------------------------------------------------------


def find(argv: Sequence[str], *, cwd: str | os.PathLike[str] | None = None) -> Reducer | None:
    """The reducer for ``argv``, first match in the order the module docstring gives."""
    words = command_words(argv)
    if not words:
        return None
    from agentout.reducers.registry import reducers

    for reducer in reducers(cwd):
        if reducer.matches(words):
            return reducer
    return None
