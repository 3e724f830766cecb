"""A task runner's output as records: one block per recipe line, one per run of the
runner's own lines, so a budget keeps or leaves out a recipe line's output whole.

A block runs from a label to the next one. The lines reach here with agentout's own
lines (labels, closing lines) already told apart: a line a command printed that reads
like one of them was escaped (``agentout.read.visible.own_line``), so a label here is always
one the line shell wrote.
Blocks that failed, and the runner's error lines, matter most; then the last block;
then the rest in order. A block's terse view is its label, one marker for the line's
output, and its closing line (which names where that output is kept).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from agentout.reducers import Output, Reduced

if TYPE_CHECKING:
    from agentout.records import Record

__all__ = ["TaskBlocks"]

_LABEL = "[agentout task"
_CLOSING = ("[exit ", "[agentout: ")
_FAILED = ("[exit ", "[agentout: exit=", "S status=FAIL", "S status=ERROR")


class TaskBlocks:
    """The reducer ``agentout run`` gives a task runner whose lines it wrapped."""

    name = "tasks"
    facts: tuple[str, ...] = ()

    def matches(self, words: Sequence[str]) -> bool:
        return True

    def reduce(self, output: Output) -> Reduced | None:
        from agentout.records import Record

        spans = _spans(output.lines)
        records: list[Record] = []
        failed: list[int] = []
        for index, (first, last, labelled) in enumerate(spans):
            lines = output.lines[first:last]
            full = {"text": "\n".join(lines), "n": first + 1, "last": last}
            views = [full]
            terse = _terse(lines, first + 1) if labelled else None
            if terse is not None:
                views.insert(0, {**full, "text": terse})
            records.append(Record.of(*views, kind="B"))
            if any(line.startswith(_FAILED) or "***" in line for line in lines):
                failed.append(index)
        rest = [i for i in range(len(records)) if i not in failed]
        order = failed + rest[-1:] + rest[:-1]
        return Reduced(records, order)


def _terse(lines: Sequence[str], n: int) -> str | None:
    """The label, a marker for the line's output, and from its closing line on (the
    reference to the line's own output, and what the runner said after it)."""
    end = next(
        (i for i in range(len(lines) - 1, 0, -1) if lines[i].startswith(_CLOSING)),
        len(lines) - 1,
    )
    if end <= 1:
        return None
    noun = "line" if end == 2 else "lines"
    marker = f"[… {end - 1} {noun} · --lines {n + 1}:{n + end - 1}]"
    return "\n".join((lines[0], marker, *lines[end:]))


def _spans(lines: Sequence[str]) -> list[tuple[int, int, bool]]:
    """(first, end, labelled) of each block: from a label to the next one (the runner's
    lines before the first label are a block of their own)."""
    spans: list[tuple[int, int, bool]] = []
    start, labelled = 0, False
    for i, line in enumerate(lines):
        if line.startswith(_LABEL):
            if i > start:
                spans.append((start, i, labelled))
            start, labelled = i, True
    if start < len(lines):
        spans.append((start, len(lines), labelled))
    return spans
