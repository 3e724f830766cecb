"""Markers an agent can run: ``agentout show REF`` spelled as the agent's shell can start it.

agentout's markers and closing lines say ``agentout show REF``. An agent reached through a
hook runs its commands in a shell whose PATH may not hold ``agentout`` (a clone's virtual
environment, a venv never activated): the hook was started by the absolute path
``agentout init`` wrote. So output delivered through a hook names that path, or this
Python with ``-m agentout``, unless the ``agentout`` on PATH is this very one.

Only the delivery's own markers are changed: bracketed lines naming its own reference. The
closing line's ``tokens=`` is counted again on the new text (to the fixed point, as pack
counts it), so it stays exact.
"""

from __future__ import annotations

import os
import re
import shlex
import sys

TYPE_CHECKING = False  # typing is not imported at run time: the hook is timed
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

__all__ = ["show_command", "with_command"]

_TOKENS = re.compile(r"(?<= )tokens=(\d+)(?= |\]| ·)")


def _on_path(name: str) -> str | None:
    for directory in os.environ.get("PATH", "").split(os.pathsep):
        candidate = os.path.join(directory, name)
        if directory and os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    return None


def show_command(started: Sequence[str] | None = None) -> str:
    """How the agent's shell starts this agentout: ``agentout`` when that is this one on
    PATH, else the absolute path it was started by, else ``python -m agentout``."""
    if started is None:
        script = os.path.abspath(sys.argv[0]) if sys.argv else ""
        if os.path.basename(script) == "agentout" and os.path.isfile(script):
            started = [script]
        else:
            started = [sys.executable, "-m", "agentout"]
    if len(started) == 1:
        found = _on_path("agentout")
        try:
            if found is not None and os.path.samefile(found, started[0]):
                return "agentout"
        except OSError:
            pass
    return shlex.join(started)


def with_command(text: str, ref: str, command: str, tokenizer: Any = None) -> str:
    """``text`` with its markers for ``ref`` naming ``command show REF``; ``tokens=`` of the
    closing line counted again when there is one."""
    if command == "agentout" or f"agentout show {ref}" not in text:
        return text
    lines = text.split("\n")
    for index, line in enumerate(lines):
        if line.startswith("[") and line.endswith("]") and f"agentout show {ref}" in line:
            lines[index] = line.replace(f"agentout show {ref}", f"{command} show {ref}")
    changed = "\n".join(lines)
    closing = changed.rstrip("\n").rsplit("\n", 1)[-1]
    if not closing.startswith("[agentout:") or _TOKENS.search(closing) is None:
        return changed
    from agentout.tokens import get_tokenizer

    counter = get_tokenizer(tokenizer)
    head, _, last = changed.rstrip("\n").rpartition("\n")
    ending = changed[len(changed.rstrip("\n")) :]
    for _ in range(4):  # the count is part of what is counted: to the fixed point
        whole = (head + "\n" if head else "") + last + ending
        tokens = counter.count(whole)
        again = _TOKENS.sub(f"tokens={tokens}", last, count=1)
        if again == last:
            return whole
        last = again
    return (head + "\n" if head else "") + last + ending
