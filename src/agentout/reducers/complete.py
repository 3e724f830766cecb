"""When a reducer's answer may stand alone, with no stored output behind it.

A reducer that says its answer is ``complete`` claims it keeps every line of the output
(in another form: grouped, re-indented, one line a list), so there is nothing to store
and no reference to give. The claim is checked on every answer, and an answer that does
not hold it is handled as any other reduction: the output is stored and the closing line
names it. No reducer, agentout's own or one a repository ships, can leave a line out
unseen.

A line is kept when a record that stands for it (its ``n`` to ``last`` output lines)
holds every word of it (runs of letters, digits and ``_``); a line with no word at all,
when that record holds the line's text. Blank lines need no keeping. The check runs on
the lines and the records once each: a record's words are gathered once, whatever the
number of lines it stands for.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from agentout.reducers.model import Reduced

__all__ = ["dropped_line", "proven"]

_WORD = re.compile(r"\w+")
_SPAN = 4  # records may stand for this many lines each, on average, before the check gives up


def _text(view: Any) -> str:
    text = view.get("text") if hasattr(view, "get") else None
    return text if isinstance(text, str) else ""


def dropped_line(lines: Sequence[str], reduced: Reduced) -> int | None:
    """The first line (from 1) of ``lines`` that no record of ``reduced`` keeps, or None
    when every line is kept (see the module docstring)."""
    kept = [not line.strip() for line in lines]
    budget = _SPAN * len(lines) + len(reduced.records)
    for record in reduced.records:
        view = record.fullest
        first, last = view.get("n"), view.get("last", view.get("n"))
        if not isinstance(first, int) or not isinstance(last, int):
            continue
        first, last = max(first, 1), min(last, len(lines))
        budget -= max(last - first + 1, 0)
        if budget < 0:
            return next((i + 1 for i, ok in enumerate(kept) if not ok), 1)  # too many to check
        text = _text(view)
        words: set[str] | None = None
        for i in range(first - 1, last):
            if kept[i]:
                continue
            if words is None:
                words = set(_WORD.findall(text))
            own = _WORD.findall(lines[i])
            kept[i] = all(w in words for w in own) if own else lines[i].strip() in text
    return next((i + 1 for i, ok in enumerate(kept) if not ok), None)


def proven(reduced: Reduced | None, lines: Sequence[str]) -> Reduced | None:
    """``reduced`` as it is, unless it claims to be complete and a line is not kept: then
    the same answer, not complete (the output is stored and named)."""
    if reduced is None or not reduced.complete or dropped_line(lines, reduced) is None:
        return reduced
    return Reduced(reduced.records, reduced.order, complete=False, notes=reduced.notes)
