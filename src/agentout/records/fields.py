"""A streaming summary of records' fields: what a file reference tells an agent up front.

For each field, in first-seen order: how many records have it, the counts of its values
when there are few distinct ones (``status: error 450, ok 1050``), and the min and max of
its numbers. Memory is bounded (at most 64 fields and 12 distinct values each) whatever
the number of records, and the work is done a batch at a time with C-level builtins
(``Counter``, ``min``, ``max``, ``set(map(type, ...))``), so summarising costs a fraction
of parsing the JSON.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from typing import Any

from agentout.records import Record

__all__ = ["FieldSummary"]

MAX_FIELDS = 64
MAX_DISTINCT = 12
MAX_VALUE_CHARS = 40  # longer strings are text, not categories

_MAX_MORE = 1000  # fields past MAX_FIELDS are only counted, up to this many
_MISSING: Any = object()
_NUMBER = frozenset({int, float})
_COUNTABLE = frozenset({str, bool, type(None)})


class _Field:
    __slots__ = ("counts", "high", "low", "present")

    def __init__(self) -> None:
        self.present = 0
        self.counts: Counter[Any] | None = Counter()
        self.low: float | None = None
        self.high: float | None = None

    def add_many(self, values: list[Any]) -> None:
        self.present += len(values)
        kinds = set(map(type, values))
        if kinds & _NUMBER:
            numbers = values if kinds <= _NUMBER else [v for v in values if type(v) in _NUMBER]
            self._numbers(numbers, kinds)
        if self.counts is not None and kinds & _COUNTABLE:
            countable = (
                values if kinds <= _COUNTABLE else [v for v in values if type(v) in _COUNTABLE]
            )
            self._count(countable)

    def _numbers(self, numbers: list[Any], kinds: set[type]) -> None:
        # NaN and infinities have no place in a range. Ints are always finite, and may be
        # too big for a float, so only the floats are summed to find out cheaply.
        if float in kinds:
            floats = numbers if int not in kinds else [v for v in numbers if type(v) is float]
            if not math.isfinite(sum(floats)):
                numbers = [v for v in numbers if type(v) is int or math.isfinite(v)]
            if not numbers:
                return
        low, high = min(numbers), max(numbers)
        if self.low is None or low < self.low:
            self.low = low
        if self.high is None or high > self.high:
            self.high = high

    def _count(self, values: list[Any]) -> None:
        assert self.counts is not None
        batch = Counter(values)
        longest = max((len(v) for v in batch if type(v) is str), default=0)
        self.counts.update(batch)
        if longest > MAX_VALUE_CHARS or len(self.counts) > MAX_DISTINCT:
            self.counts = None  # too many distinct values to be worth counting

    def view(self, name: str) -> dict[str, Any]:
        out: dict[str, Any] = {"field": name, "n": self.present}
        if self.counts:
            ranked = sorted(self.counts.items(), key=lambda kv: (-kv[1], _key(kv[0])))
            out["counts"] = {_key(value): count for value, count in ranked}
        if self.low is not None:
            out.update(min=self.low, max=self.high)
        return out


def _key(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)


class FieldSummary:
    """Fields in first-seen order; counts of low-cardinality values; numeric min and max."""

    def __init__(self) -> None:
        self.count = 0
        self.fields: dict[str, _Field] = {}
        self.more_fields: set[str] = set()

    def add(self, row: Any) -> None:
        self.add_many([row])

    def add_many(self, rows: Sequence[Any]) -> None:
        """Add a batch of records; anything not a mapping counts as a record with no fields."""
        self.count += len(rows)
        dicts = [row for row in rows if type(row) is dict]
        if len(dicts) != len(rows):
            dicts += [
                dict(row) for row in rows if type(row) is not dict and isinstance(row, Mapping)
            ]
        keys: set[str] = set().union(*dicts)
        if not keys <= self.fields.keys():
            self._register(dicts, keys)
        for name, stats in self.fields.items():
            if name in keys:
                values = [row.get(name, _MISSING) for row in dicts]
                if _MISSING in values:
                    values = [v for v in values if v is not _MISSING]
                stats.add_many(values)

    def _register(self, dicts: list[dict[str, Any]], keys: set[str]) -> None:
        for row in dicts:  # first-seen order, deterministic whatever set order is
            for name in row:
                if name in self.fields or name in self.more_fields:
                    continue
                if len(self.fields) < MAX_FIELDS:
                    self.fields[name] = _Field()
                elif len(self.more_fields) < _MAX_MORE:
                    self.more_fields.add(name)

    def counted(self, limit: int, *, first: Collection[str] = ()) -> dict[str, dict[str, int]]:
        """The value counts of up to ``limit`` fields worth a look (some value repeats, so
        not an id, and the values differ), the fields named in ``first`` first, then in
        first-seen order."""
        out: dict[str, dict[str, int]] = {}
        for name in sorted(self.fields, key=lambda name: name not in first):  # stable
            view = self.fields[name].view(name)
            values = view.get("counts")
            if values and 1 < len(values) < view["n"] and len(out) < limit:
                out[name] = values
        return out

    def records(self, *, terse: bool = False) -> list[Record]:
        """One ``S`` record per field: its name, presence, counts and range; one view, as
        the counts are the point of the line. ``terse``: name and presence first, the
        rest as a fuller view, for when even the whole summary does not fit."""
        out = []
        for name, stats in self.fields.items():
            full = stats.view(name)
            terse_view = {"field": name, "n": stats.present}
            views = (terse_view, full) if terse and full != terse_view else (full,)
            out.append(Record(views=views, kind="S"))
        return out
