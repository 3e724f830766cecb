"""The one shared model: a result is a header, ordered records and a summary.

Sources (test runs, JSON files, notes, commands) build a ``Result``; ``pack`` decides
what fits; a format renders it. A ``Record`` carries one or more views, tersest first
and fullest last; each view is a mapping of fields in the order they should appear.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from agentout.frozen import Frozen

__all__ = ["Document", "Lines", "Record", "Result", "Stats", "View", "is_empty", "present"]

View = Mapping[str, Any]
"""The fields of one rendering of a record, JSON-compatible, in display order."""


def _check_kind(kind: str) -> None:
    if len(kind) != 1 or not "A" <= kind <= "Z":  # ASCII, as the format says
        raise ValueError(f"record kind must be one capital letter, got {kind!r}")
    if kind == "H":
        raise ValueError("kind 'H' is reserved for the header line")


class Lines(Mapping[str, Any]):
    """A view drawn as several lines, each with its own kind, e.g. a note's N, S and B.

    ``Lines(("N", {"id": "a", "title": "A"}), ("S", {"id": "a", "summary": "..."}))``:
    the records format prints one line per part, with that part's kind; every other
    format sees one mapping, the parts' fields merged in order. A key in several parts
    (an id) must carry the same value in each, so the merge loses nothing.
    """

    def __init__(self, *lines: tuple[str, Mapping[str, Any]]) -> None:
        if not lines:
            raise ValueError("Lines needs at least one line")
        merged: dict[str, Any] = {}
        for kind, fields in lines:
            _check_kind(kind)
            for key, value in fields.items():
                if key in merged and merged[key] != value:
                    raise ValueError(f"key {key!r} differs between the lines of one view")
                merged.setdefault(key, value)
        self.lines: tuple[tuple[str, Mapping[str, Any]], ...] = tuple(lines)
        self._merged = merged

    def __getitem__(self, key: str) -> Any:
        return self._merged[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._merged)

    def __len__(self) -> int:
        return len(self._merged)

    def __repr__(self) -> str:
        return f"Lines{self.lines!r}"


class Record(Frozen):
    """One whole unit of output: never split, included at one of its views or not at all.

    ``kind`` is the one-letter prefix the records format prints (``R`` for data records;
    sources pick their own, e.g. ``N``/``S``/``E`` for notes). A ``forced`` record (a
    status or summary line) is always included, at its tersest view if need be.
    """

    views: tuple[View, ...]
    kind: str
    forced: bool

    def __init__(self, views: tuple[View, ...], kind: str = "R", forced: bool = False) -> None:
        if not views:
            raise ValueError("a record needs at least one view")
        _check_kind(kind)
        self._set(views=views, kind=kind, forced=forced)

    @classmethod
    def of(cls, *views: View, kind: str = "R", forced: bool = False) -> Record:
        return cls(views=tuple(views), kind=kind, forced=forced)

    @property
    def fullest(self) -> View:
        return self.views[-1]

    @property
    def tersest(self) -> View:
        return self.views[0]


class Result(Frozen):
    """What a source produced, before any budget: header fields, records, summary fields.

    ``header`` describes the source (``mode=fit``, ``source=FILE``); ``pack`` adds its own
    account (total, included, tokens, ...) after these. ``summary`` is rendered last, whole.
    ``total``: how many records the source matched when ``records`` holds only the first
    of them (a streamed query keeps one page; the rest is spilled): pack reports it.
    ``order``: which records matter most, when that is not their order (record indices,
    most important first: the error lines of a log): a budget leaves out the least
    important, and what it keeps stays in the records' order.
    """

    records: tuple[Record, ...]
    header: Mapping[str, Any]
    summary: Mapping[str, Any]
    total: int | None
    order: tuple[int, ...] | None

    def __init__(
        self,
        records: tuple[Record, ...],
        header: Mapping[str, Any] | None = None,
        summary: Mapping[str, Any] | None = None,
        total: int | None = None,
        order: tuple[int, ...] | None = None,
    ) -> None:
        header = {} if header is None else header
        summary = {} if summary is None else summary
        self._set(records=records, header=header, summary=summary, total=total, order=order)

    @classmethod
    def of(
        cls,
        records: Iterable[Record],
        header: Mapping[str, Any] | None = None,
        summary: Mapping[str, Any] | None = None,
        total: int | None = None,
        order: Iterable[int] | None = None,
    ) -> Result:
        ranked = None if order is None else tuple(order)
        return cls(tuple(records), dict(header or {}), dict(summary or {}), total, ranked)


def is_empty(value: Any) -> bool:
    """None, "", [], {}: a header or summary field that formats leave out. A record keeps
    its empty fields (a source that means "no such field" leaves it out: ``present``)."""
    return value is None or (isinstance(value, (str, list, tuple, dict)) and len(value) == 0)


def present(fields: Mapping[str, Any]) -> dict[str, Any]:
    """``fields`` without the empty ones (see ``is_empty``), in their order."""
    return {key: value for key, value in fields.items() if not is_empty(value)}


class Stats(Frozen):
    """Pack's honest account of what it emitted, rendered in every format's header.

    ``tokens`` is the exact count of the whole emitted text (header and summary included)
    by ``tokenizer``. ``omitted`` records were left out; ``reduced`` records were shown at
    a terser view than the disclosure level allowed. ``over_budget`` flags the one case a
    budget is passed: the envelope alone (the header's account, forced records) exceeds
    it. ``lean``: the budget is so small that formats leave out what the rest implies
    (``omitted``, ``reduced``, the tokenizer's name).
    """

    total: int
    included: int
    omitted: int
    reduced: int
    tokens: int
    tokenizer: str
    truncated: bool
    over_budget: bool
    lean: bool

    def __init__(
        self,
        total: int,
        included: int,
        omitted: int,
        reduced: int,
        tokens: int,
        tokenizer: str,
        truncated: bool,
        over_budget: bool = False,
        lean: bool = False,
    ) -> None:
        self._set(
            total=total, included=included, omitted=omitted, reduced=reduced, tokens=tokens,
            tokenizer=tokenizer, truncated=truncated, over_budget=over_budget, lean=lean,
        )  # fmt: skip


class Document(Frozen):
    """What a format renders: the source header, pack's stats, chosen views, the summary.
    ``indices``: where each of ``records`` stands in the result (so a format can tell
    that records were left out between two it shows, and mark the gap); empty when not
    known."""

    header: Mapping[str, Any]
    stats: Stats
    records: tuple[tuple[Record, View], ...]
    summary: Mapping[str, Any]
    indices: tuple[int, ...]

    def __init__(
        self,
        header: Mapping[str, Any],
        stats: Stats,
        records: tuple[tuple[Record, View], ...],
        summary: Mapping[str, Any],
        indices: tuple[int, ...] = (),
    ) -> None:
        self._set(header=header, stats=stats, records=records, summary=summary, indices=indices)
