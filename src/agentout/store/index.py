"""The line index beside an object in a remote store: how ``show`` reads one page.

Paging counts lines: the header says how many the object has, and a page of lines
1200:1280 must know where line 1200 starts. Locally the file is read through; from an
object store that would download all of it for one page. So the uploader, which sees
every byte anyway, writes ``NAME.idx`` beside the object once the object is complete.

The index is binary, fixed-width, so a reader fetches only the few records it needs with
ranged reads: a header (size, line count, record count), then one record for every
``STEP`` bytes of the object in which a line starts: the number and offset of the first
line starting there, the longest line starting there, and the longest line starting
there or anywhere after (so a reader knows that no later line needs to be shown in
parts). Lines are found with ``bytes.split`` a slice at a time: no per-line Python.
"""

from __future__ import annotations

import struct
from bisect import bisect_left
from collections.abc import Callable
from itertools import accumulate

__all__ = ["INDEX_SUFFIX", "IndexBuilder", "LineIndex"]

INDEX_SUFFIX = ".idx"
STEP = 16 << 10
_MAGIC = b"AOIDX\x00\x00\x01"
_HEADER = struct.Struct("<8sQQQ")  # magic, size, lines, records
_RECORD = struct.Struct("<QQII")  # first line, its offset, longest here, longest from here
_SLICE = 1 << 20
_WINDOW = 96  # records fetched at a time (about 2 KiB)
_CAP = (1 << 32) - 1

Fetch = Callable[[int, int], bytes]  # (start, end) -> the index's bytes


class LineIndex:
    """An index read in ranges through ``fetch``; records are fetched as needed."""

    def __init__(self, fetch: Fetch, size: int, lines: int, count: int) -> None:
        self._fetch, self.size, self.lines, self.count = fetch, size, lines, count
        self._records: dict[int, tuple[int, int, int, int]] = {}

    @classmethod
    def open(cls, fetch: Fetch) -> LineIndex | None:
        """The index, or None if it is not one this version writes (then read through).
        The first read takes the header and the first records with it."""
        head = fetch(0, _HEADER.size + _WINDOW * _RECORD.size)
        if len(head) < _HEADER.size:
            return None
        magic, size, lines, count = _HEADER.unpack_from(head)
        if magic != _MAGIC:
            return None
        index = cls(fetch, size, lines, count)
        index._keep(0, head[_HEADER.size :])
        return index

    def _keep(self, first: int, data: bytes) -> None:
        for i in range(len(data) // _RECORD.size):
            if first + i < self.count:
                self._records[first + i] = _RECORD.unpack_from(data, i * _RECORD.size)

    def _record(self, i: int) -> tuple[int, int, int, int]:
        if i not in self._records:
            low = max(0, min(i - _WINDOW // 2, self.count - _WINDOW))
            start = _HEADER.size + low * _RECORD.size
            self._keep(low, self._fetch(start, start + _WINDOW * _RECORD.size))
        return self._records[i]

    def _segment(self, line: int) -> int:
        """The last record whose first line is at or before ``line`` (-1: none)."""
        low, high = 0, self.count  # the answer is in [low - 1, high - 1]
        guess = (self.count - 1) * max(0, line - 1) // max(1, self.lines)  # lines spread evenly
        while low < high:
            self._record(min(max(guess, low), high - 1))
            # every record fetched so far narrows it, the whole window with the probe
            for i, record in self._records.items():
                if record[0] <= line:
                    low = max(low, i + 1)
                else:
                    high = min(high, i)
            guess = (low + high) // 2
        return low - 1

    def start(self, line: int) -> tuple[int, int]:
        """(line number, offset) of the last indexed line at or before ``line``."""
        at = self._segment(line)
        if at < 0:
            return 1, 0
        first, offset, _, _ = self._record(at)
        return first, offset

    def longest_from(self, line: int) -> int:
        """An upper bound, in bytes, on the length of line ``line`` and every later one."""
        at = max(0, self._segment(line))
        return self._record(at)[3] if self.count else 0


class IndexBuilder:
    """Fed the object's bytes in order, in any pieces; ``finish`` gives the index's bytes."""

    def __init__(self, step: int = STEP) -> None:
        self.step = step
        self.size = 0
        self.lines = 0  # complete lines so far
        self._line_start = 0  # where the line being read started
        self._records: list[list[int]] = []  # [first line, offset, longest], by offset

    def feed(self, data: bytes) -> None:
        for at in range(0, len(data), _SLICE):
            self._feed(data[at : at + _SLICE])

    def _feed(self, data: bytes) -> None:
        if not data:
            return
        parts = data.split(b"\n")
        before = self.size
        self.size += len(data)
        if len(parts) == 1:
            return  # the line goes on
        lengths = list(map(len, parts))
        # where each part starts; part 0 goes on with the line that started before
        starts = list(accumulate((n + 1 for n in lengths[:-1]), initial=before))
        lengths[0] += before - self._line_start
        starts[0] = self._line_start
        self._add(starts[:-1], lengths[:-1], self.lines + 1)
        self.lines += len(parts) - 1
        self._line_start = starts[-1]

    def _add(self, starts: list[int], lengths: list[int], first_line: int) -> None:
        step = self.step
        segment = starts[0] // step
        last = starts[-1] // step
        while segment <= last:
            i = bisect_left(starts, segment * step)
            j = bisect_left(starts, (segment + 1) * step)
            if i < j:
                longest = max(lengths[i:j])
                if self._records and self._records[-1][1] // step == segment:
                    self._records[-1][2] = max(self._records[-1][2], longest)
                else:
                    self._records.append([first_line + i, starts[i], longest])
                segment += 1
            else:  # no line starts in this segment: go to the next one that has one
                segment = starts[j] // step if j < len(starts) else last + 1

    def finish(self) -> bytes:
        lines = self.lines
        if self.size > self._line_start:  # a last line without a newline counts
            self._add([self._line_start], [self.size - self._line_start], lines + 1)
            lines += 1
        out = bytearray(_HEADER.pack(_MAGIC, self.size, lines, len(self._records)))
        after = 0
        tail: list[bytes] = []
        for first, offset, longest in reversed(self._records):
            after = max(after, longest)
            tail.append(_RECORD.pack(first, offset, min(longest, _CAP), min(after, _CAP)))
        out += b"".join(reversed(tail))
        return bytes(out)
