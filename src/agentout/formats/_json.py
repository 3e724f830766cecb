"""What every format shares: JSON text as agentout writes it, and the marks in the header.

``dumps`` writes compact JSON (RFC 8259: a number JSON cannot hold is written as its
text in a string, never as ``NaN`` or ``Infinity``), UTF-8 as is except for the
characters that can hide, reorder or break text: C0 and C1 controls, DEL, the bidi
controls U+202A-U+202E and U+2066-U+2069, the line breaks U+2028, U+2029 and U+0085, and
the characters shown as nothing (zero-width spaces and joiners, the BOM, tag characters:
``agentout.read.visible.INVISIBLE``). Those are written as JSON escapes (``\\u001b``,
``\\u202e``, ``\\u200b``) in every format, so no format hands a terminal an escape
sequence, an editor a reordered line, or a reader text it cannot see.

``Marks`` is what the header says about the records shown: how many numbers are
written as text (``numbers_as_text``) and which fields were cut (``cut``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from agentout.formats._memo import recall
from agentout.read.visible import INVISIBLE, escape_match
from agentout.records.values import Cut, json_safe

__all__ = ["UNSAFE", "Marks", "dumps", "escape", "has_unsafe"]

# Characters no format writes raw (see the module doc): C0 controls and what
# agentout.read.visible calls invisible.
UNSAFE = "\x00-\x1f" + INVISIBLE
_UNSAFE = re.compile(f"[{UNSAFE}]")
_LEFT_RAW_BY_JSON = re.compile(f"[{INVISIBLE}]")


_escaped = escape_match


def escape(text: str) -> str:
    """``text`` with every character no format writes raw as a JSON escape."""
    return _UNSAFE.sub(_escaped, text)


def has_unsafe(text: str) -> bool:
    return _UNSAFE.search(text) is not None


# One encoder for every call: ``json.dumps`` with options builds a new one each time,
# which costs more than encoding a short value (every value of every record shown).
_ENCODE = json.JSONEncoder(
    ensure_ascii=False, separators=(",", ":"), allow_nan=False, default=str
).encode


def dumps(value: Any) -> str:
    """Compact JSON, RFC 8259, with the unsafe characters escaped (see the module doc)."""
    try:
        text = _ENCODE(value)
    except ValueError:  # a non-finite float, or an integer too long to print
        text = json.dumps(
            json_safe(value),
            ensure_ascii=False,
            separators=(",", ":"),
            allow_nan=False,
            default=str,
        )
    return _LEFT_RAW_BY_JSON.sub(_escaped, text)


@dataclass
class Marks:
    """The header's account of the values shown: numbers written as text, fields cut.

    ``cut`` maps a record's position among those shown (from 0) to its cut fields and
    how many characters each lost.
    """

    numbers: int = 0
    cut: dict[int, dict[str, int]] = field(default_factory=dict)

    @classmethod
    def of(cls, views: Iterable[Mapping[str, Any]], *, cuts: bool = True) -> Marks:
        marks = cls()
        for index, view in enumerate(views):
            numbers, cut = recall("marks", view, None, partial(_view_marks, view))
            marks.numbers += numbers
            if cuts and cut:
                marks.cut[index] = dict(cut)
        return marks

    def fields(self) -> dict[str, Any]:
        """The header fields: ``numbers_as_text`` and ``cut``, each only when there is one."""
        out: dict[str, Any] = {}
        if self.numbers:
            out["numbers_as_text"] = self.numbers
        if self.cut:
            out["cut"] = {str(index): fields for index, fields in self.cut.items()}
        return out


def _view_marks(view: Mapping[str, Any]) -> tuple[int, dict[str, int]]:
    """One view's numbers written as text, and its cut fields with what each lost."""
    found = [0]
    cut: dict[str, int] = {}
    for key, value in view.items():
        json_safe(value, found)
        if isinstance(value, Cut):
            cut[str(key)] = value.more
    return found[0], cut
