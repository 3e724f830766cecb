"""The line index beside an object in a remote store: how ``show`` reads one page.

Paging counts lines: the header says how many the object has, and a page of lines
1200:1280 must know where line 1200 starts. Locally the file is read through; from an
object store that would download all of it for one page. So the uploader, which sees
every byte anyway, writes ``NAME.idx`` beside the object once the object is complete:
its size and line count, and for every segment of about ``STEP`` bytes the number and
offset of the first line that starts in it and the length of its longest line (so a
reader knows where no line needs to be shown in parts). Newlines are found with numpy a
chunk at a time: no per-line Python.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

__all__ = ["INDEX_SUFFIX", "IndexBuilder", "LineIndex"]

INDEX_SUFFIX = ".idx"
STEP = 1 << 18  # 256 KiB segments while building ...
MAX_POINTS = 256  # ... merged two by two until at most this many remain
_VERSION = 1


@dataclass(frozen=True)
class LineIndex:
    """``points``: (first line starting in the segment, its byte offset, longest line in
    the segment in bytes), by offset."""

    size: int
    lines: int
    points: tuple[tuple[int, int, int], ...]

    def start(self, line: int) -> tuple[int, int]:
        """(line number, offset) of the last indexed line at or before ``line``."""
        best = (1, 0)
        for first, offset, _ in self.points:
            if first > line:
                break
            best = (first, offset)
        return best

    def longest_from(self, line: int) -> int:
        """An upper bound, in bytes, on the length of line ``line`` and every later one."""
        # from the segment that holds line ``line``: the last one starting at or before it
        at = 0
        for i, (first, _, _) in enumerate(self.points):
            if first > line:
                break
            at = i
        return max((length for _, _, length in self.points[at:]), default=0)

    def dumps(self) -> bytes:
        body = {"v": _VERSION, "size": self.size, "lines": self.lines, "points": self.points}
        return json.dumps(body, separators=(",", ":")).encode("ascii")

    @classmethod
    def loads(cls, data: bytes) -> LineIndex | None:
        """The index, or None if it is not one this version writes (then read through)."""
        try:
            body: Any = json.loads(data)
            if body.get("v") != _VERSION:
                return None
            points = tuple((int(a), int(b), int(c)) for a, b, c in body["points"])
            return cls(int(body["size"]), int(body["lines"]), points)
        except (ValueError, TypeError, KeyError, AttributeError):
            return None


class IndexBuilder:
    """Fed the object's bytes in order, in any pieces; ``finish`` gives its index."""

    def __init__(self, step: int = STEP) -> None:
        self.step = step
        self.size = 0
        self._line = 1  # the number of the line the next byte belongs to
        self._line_start = 0
        # segment -> [first line, its offset, longest line]
        self._segments: dict[int, list[int]] = {}

    def feed(self, data: bytes) -> None:
        import numpy as np

        if not data:
            return
        ends = np.flatnonzero(np.frombuffer(data, dtype=np.uint8) == 10) + self.size
        self.size += len(data)
        if not len(ends):
            return
        starts = np.empty_like(ends)
        starts[0] = self._line_start
        starts[1:] = ends[:-1] + 1
        self._add(starts, ends - starts, self._line)
        self._line += len(ends)
        self._line_start = int(ends[-1]) + 1

    def _add(self, starts: Any, lengths: Any, first_line: int) -> None:
        import numpy as np

        segments = starts // self.step
        keys, at = np.unique(segments, return_index=True)
        longest = np.maximum.reduceat(lengths, at)
        for key, i, length in zip(keys.tolist(), at.tolist(), longest.tolist(), strict=True):
            known = self._segments.get(key)
            if known is None:
                self._segments[key] = [first_line + i, int(starts[i]), length]
            else:
                known[2] = max(known[2], length)

    def finish(self) -> LineIndex:
        import numpy as np

        lines = self._line - 1
        if self.size > self._line_start:  # a last line without a newline counts
            start = np.array([self._line_start])
            self._add(start, np.array([self.size - self._line_start]), self._line)
            lines += 1
        step, segments = self.step, self._segments
        while len(segments) > MAX_POINTS:  # coarser segments: each pair merged into one
            merged: dict[int, list[int]] = {}
            for key in sorted(segments):
                point = segments[key]
                known = merged.get(key // 2)
                if known is None:
                    merged[key // 2] = list(point)
                else:
                    known[2] = max(known[2], point[2])
            segments, step = merged, step * 2
        points = tuple((p[0], p[1], p[2]) for _, p in sorted(segments.items()))
        return LineIndex(self.size, lines, points)
