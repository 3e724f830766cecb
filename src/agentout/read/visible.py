"""Text as a terminal, a person and an agent all see the same: nothing hidden, nothing driven.

Command output is meant for a terminal: colour and cursor escapes, carriage-return
redraws of a progress bar. ``terminal_text`` keeps what the terminal would end up showing
(escapes removed, a line redrawn with ``\\r`` reduced to its last state). ``visible``
then makes what no reader would see as text show up as an escape: C0 and C1 controls
(tab aside), DEL, bidi embeddings, overrides and isolates (text that reads one way and is
another), and Unicode's line and paragraph separators. ``\\u202e`` in the output is the
character U+202E in the input. ``own_line`` keeps a command from printing a line that
reads as one of agentout's own markers.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = [
    "INVISIBLE",
    "MARKS",
    "UNSHOWN",
    "is_terminal",
    "own_line",
    "terminal_text",
    "visible",
]

# How agentout's own lines in text output begin (gap markers, the closing line).
MARKS = ("[agentout", "[… ", "[exit ")

_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]")
# What no reader sees as text beyond C0 controls (a character class body, for every
# format): DEL and C1 controls, bidi marks, embeddings, overrides and isolates, and
# Unicode's line and paragraph separators.
INVISIBLE = "\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069"
UNSHOWN = re.compile(f"[\x00-\x08\x0b-\x1f{INVISIBLE}]")


def _escape(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def visible(text: str) -> str:
    """``text`` with every character no reader would see shown as ``\\uXXXX``."""
    return UNSHOWN.sub(_escape, text) if UNSHOWN.search(text) else text


def terminal_text(line: str) -> str:
    """One line as a terminal leaves it: escapes gone, a ``\\r`` redraw at its last state,
    then made ``visible``."""
    if "\x1b" in line:
        line = _ANSI.sub("", line)
    line = line.removesuffix("\r")
    if "\r" in line:
        line = line[line.rfind("\r") + 1 :]
    return visible(line)


def own_line(line: str) -> str:
    """A line of a command's output that begins as agentout's own lines do gets a
    backslash first (``\\[agentout: ...``), so output cannot pose as agentout."""
    return "\\" + line if line.startswith(MARKS) else line


def is_terminal(stream: Any) -> bool:
    """Whether ``stream`` is a terminal; False for a replaced or closed stream too."""
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False
