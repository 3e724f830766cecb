"""Querying a collection: select, order, view, pack, and spill what the page leaves out.

``query(paths, ...)`` is everything ``agentout records`` does, as one call:

1. load the records under ``paths`` (``load``), skipping and reporting bad files;
2. keep those matching every ``where`` (exact, dotted paths) and the JMESPath ``filter``;
3. order them: BM25 relevance to ``query`` (only records sharing a term match), or by
   ``sort``, or as the files give them (then nothing is held in memory but one page);
4. show the first page through ``pack`` with the ``agent`` or ``verbose`` preset;
5. hybrid delivery (``agentout.deliver.hybrid.finish``): when the page does not show the whole
   matching set in full, the complete set goes to the spill store as JSONL, named after
   its content, and the result's summary names it with its fields and the counts of its
   low-cardinality fields. If the store fails, the page is all there is, and says so.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from agentout.deliver.hybrid import PackSettings, Spool, check_mode, finish, resolve_threshold
from agentout.errors import InputError
from agentout.formats import Format
from agentout.pack import PRESETS, Packed, pack
from agentout.records import Result, is_empty
from agentout.records.fields import FieldSummary
from agentout.sources.collection.load import Item, LoadReport, load
from agentout.sources.collection.rank import id_key, rank, sort_items
from agentout.sources.collection.views import (
    MISSING,
    MODES,
    SEVERITY_FIELDS,
    ViewSpec,
    field_value,
    to_record,
)
from agentout.store.spill import SpillRef, SpillStore
from agentout.tokens import Tokenizer

__all__ = ["Answer", "CollectionError", "Where", "query"]

_MAX_COUNTED_FIELDS = 3
_BATCH = 1024


class CollectionError(InputError):
    """No input could be read at all; ``report.problems`` says why for each."""

    def __init__(self, report: LoadReport) -> None:
        self.report = report
        problems = report.problems
        if len(problems) == 1:
            first = problems[0]
            super().__init__(first.message, first.path, first.line, first.column)
        elif problems:
            super().__init__(f"no records: all {len(problems)} inputs were skipped")
        else:
            super().__init__("no input given")


@dataclass(frozen=True)
class Where:
    """``FIELD=VALUE``: the value at a dotted path equals VALUE, compared as text
    (``true``/``false``/``null`` for those, numbers by value); a list matches when any
    element does, and a path goes on into each object of a list (``tags.name=db`` for
    ``"tags": [{"name": "db"}, ...]``). A path that ends at objects cannot be compared
    with a value: ``ValueError`` says so and names their fields."""

    path: str
    value: str

    @classmethod
    def parse(cls, text: str) -> Where:
        path, sep, value = text.partition("=")
        if not sep or not path:
            raise ValueError(f"--where {text!r}: expected FIELD=VALUE, e.g. severity=high")
        return cls(path, value)

    def matches(self, data: Mapping[str, Any]) -> bool:
        found = field_value(data, self.path)
        nodes = _projected(data, self.path) if found is MISSING else [found]
        values = [v for node in nodes for v in (node if isinstance(node, list) else [node])]
        objects = [v for v in values if isinstance(v, dict)]
        if objects:
            fields = list(dict.fromkeys(key for value in objects for key in value))
            example = f"{self.path}.{fields[0]}={self.value}" if fields else None
            hint = f"; name one of their fields, e.g. --where {example}" if example else ""
            raise ValueError(
                f"--where {self.path}={self.value}: {self.path} holds objects "
                f"(fields: {', '.join(fields[:8]) or 'none'}), not values to compare{hint}"
            )
        return any(self._equal(v) for v in values)

    def _equal(self, value: Any) -> bool:
        if isinstance(value, bool) or value is None:
            return self.value == {True: "true", False: "false", None: "null"}[value]
        if isinstance(value, (int, float)):
            try:
                return float(self.value) == value
            except ValueError:
                return False
        return isinstance(value, str) and value == self.value


def _projected(data: Any, path: str) -> list[Any]:
    """The values at a dotted path that goes on into each object of a list it meets
    (``tags.name`` in ``{"tags": [{"name": "a"}, {"name": "b"}]}`` is ``["a", "b"]``);
    a number after a list is still its index."""
    nodes = [data]
    for part in path.split("."):
        following: list[Any] = []
        for node in nodes:
            if isinstance(node, dict) and part in node:
                following.append(node[part])
            elif isinstance(node, list):
                if part.isdigit():
                    if int(part) < len(node):
                        following.append(node[int(part)])
                    continue
                following += [
                    item[part] for item in node if isinstance(item, dict) and part in item
                ]
        nodes = following
    return nodes


def _jmespath_true(value: Any) -> bool:
    """JMESPath's truth: false, null and empty strings, lists and objects are false."""
    return not (value is None or value is False or (is_empty(value) and value != 0))


class _Filter:
    def __init__(self, expression: str, report: LoadReport) -> None:
        import jmespath  # deferred: only a --filter pays for it
        from jmespath.exceptions import JMESPathError

        try:
            self.compiled = jmespath.compile(expression)
        except JMESPathError as exc:
            raise ValueError(f"--filter: {_one_line(exc)} (JMESPath)") from None
        self.expression = expression
        self.error_type = JMESPathError
        self.report = report
        self.errors = 0
        self.first: str | None = None

    def __call__(self, item: Item) -> bool:
        try:
            return _jmespath_true(self.compiled.search(item.data))
        except self.error_type as exc:  # e.g. a function given null: no match, counted
            self.errors += 1
            self.first = self.first or f"{item.source}: {_one_line(exc)}"
            return False
        except TypeError as exc:  # a value JMESPath cannot compare: a number kept as text
            self.errors += 1
            self.first = self.first or f"{item.source}: {_uncomparable(item.data, exc)}"
            return False

    def close(self) -> None:
        if self.errors:
            self.report.problem(
                InputError(
                    f"--filter failed on {self.errors} record(s), counted as not matching "
                    f"(first: {self.first})"
                )
            )


def _one_line(exc: Exception) -> str:
    return " ".join(str(exc).split())


def _uncomparable(data: Any, exc: TypeError) -> str:
    """What could not be compared: the first number in the record that is kept as its
    text (too large for Python, or for a float), by its path, else the error itself."""
    found = _number_text(data, "")
    if found is None:
        return _one_line(exc)
    path, text = found
    shown = text if len(text) <= 40 else f"{text[:12]}…{text[-12:]} ({len(text)} characters)"
    return f"{path or 'the record'}: {shown} is a number too large to compare"


def _number_text(value: Any, path: str) -> tuple[str, str] | None:
    from agentout.records.values import NumberText

    if isinstance(value, NumberText):
        return path, str(value)
    if isinstance(value, dict):
        inner: Iterable[tuple[Any, Any]] = value.items()
    else:
        inner = enumerate(value) if isinstance(value, list) else ()
    for key, item in inner:
        step = f"{path}[{key}]" if isinstance(key, int) else f"{path}.{key}" if path else str(key)
        found = _number_text(item, step)
        if found is not None:
            return found
    return None


@dataclass(frozen=True)
class Answer:
    """The packed page, what was read, and the spilled complete set if there is one."""

    packed: Packed
    matched: int
    report: LoadReport
    spill: SpillRef | None = None
    warning: str | None = None

    @property
    def text(self) -> str:
        return self.packed.text


def query(
    paths: Iterable[str | os.PathLike[str]],
    *,
    query: str | None = None,
    where: Sequence[str | Where] = (),
    filter: str | None = None,
    sort: str | None = None,
    mode: str = "agent",
    limit: int | None = None,
    max_tokens: int | None = None,
    view: str | os.PathLike[str] | ViewSpec | None = None,
    format: str | Format = "records",
    tokenizer: str | Tokenizer | None = None,
    delivery: str = "auto",
    inline_threshold: int | None = None,
    store: SpillStore | None = None,
    sql: str | None = None,
    page_command: bool = True,
) -> Answer:
    """Query a collection as ``agentout records`` does; see the module docstring.

    ``mode`` is ``agent`` (3 records, 500 tokens) or ``verbose`` (10, no token limit);
    ``limit`` and ``max_tokens`` override. ``delivery``: ``auto`` spills when the page
    leaves something out, ``file`` always, ``inline`` never. ``sql`` selects and orders
    with DuckDB instead (see ``sql``; the ``sql`` extra). A spilled set is named in the
    header (``ref=ID``) and, if ``page_command``, the last line ends with the ``agentout
    show ID --records N:`` command that pages on (an MCP server's store is its own, so its
    tools leave it out). Raises ``CollectionError``
    when no input could be read; ``ValueError`` for a bad option.
    """
    if mode not in MODES:
        raise ValueError(f"unknown mode {mode!r}; known: {', '.join(MODES)}")
    if limit is not None and limit < 1:
        raise ValueError(f"--limit must be at least 1, got {limit}")
    if query is not None and not query.strip():
        raise ValueError("--query is empty")
    conditions = [w if isinstance(w, Where) else Where.parse(w) for w in where]
    if sql is not None and (conditions or any(o is not None for o in (query, filter, sort))):
        raise ValueError(
            "--sql selects and orders by itself: no --query, --where, --filter or --sort with it"
        )
    delivery_mode = check_mode(delivery)
    spec = view if isinstance(view, ViewSpec) or view is None else ViewSpec.load(view)
    report = LoadReport()
    selector = _Filter(filter, report) if filter is not None else None

    if sql is not None:
        from agentout.sources.collection.sql import sql_items

        ordered: Iterable[Item] = sql_items(paths, sql, report)
    else:
        ordered = _ordered(_selected(paths, report, conditions, selector), query, sort)
    cap = limit if limit is not None else PRESETS[mode].max_records
    assert cap is not None
    spool = None
    if delivery_mode != "inline":
        spool = Spool(
            threshold=resolve_threshold(inline_threshold),
            mode=delivery_mode,
            kind="records",
            suffix=".jsonl",
            store=store,
            by_content=True,  # the same query, the same name: the same bytes out
        )
    try:
        page, matched, fields = _collect(ordered, cap, spool)
    except BaseException:
        if spool is not None:
            spool.discard()
        raise
    if selector is not None:
        selector.close()
    if report.files == 0:
        if spool is not None:
            spool.discard()
        raise CollectionError(report)

    header: dict[str, Any] = {"view": mode, "files": report.files, "skipped": report.skipped}
    if report.bad_lines:
        header["bad_lines"] = report.bad_lines
    records = [to_record(item, mode, spec) for item in page]

    def packed(footer: Mapping[str, Any], most: int | None = None) -> Packed:
        result = Result.of(records, header, footer, total=matched)
        return pack(
            result,
            format=format,
            preset=mode,
            max_records=cap if most is None else min(cap, most),
            max_tokens=max_tokens,
            tokenizer=tokenizer,
        )

    if spool is None:
        return Answer(packed({}), matched, report)
    used = spool

    def inline(limited: bool) -> Packed | None:
        """The page if it shows the whole set in full; the page anyway when the store
        failed (then it is all there is, and its header says so)."""
        if used.failed:
            header["warning"] = used.warning
        if used.failed or not limited:
            return packed({})
        if matched > len(page):
            return None  # some are not on the page: no need to pack it to know
        first = packed({})
        shown = [view for _, view in first.document.records]
        whole = len(shown) == len(page) and all(map(_whole, page, shown))
        return first if whole else None

    def reference(ref: SpillRef, _head: dict[str, Any]) -> Packed:
        """The page with the complete set named as ``agentout fit`` names what it keeps:
        ``ref=ID`` in the header, and last the command that pages on by records. That
        command names the first record not shown, which depends on what fits: pack for a
        full page first (usually right: one pack), then for what fits, never allowing
        more records."""
        from agentout.deliver.text import short_ref

        ident = short_ref(ref)
        header["ref"] = ident
        if not page_command:
            return packed(_spill_footer(ref, fields))

        def footer(shown: int) -> dict[str, Any]:
            start = shown + 1 if shown < matched else 1
            return {
                **_spill_footer(ref, fields),
                "more": f"agentout show {ident} --records {start}:",
            }

        guess, most = min(cap, matched), None
        while True:
            done = packed(footer(guess), most)
            if footer(done.stats.included) == footer(guess):
                return done
            guess = most = done.stats.included

    settings = PackSettings(max_tokens, None, format, tokenizer)
    delivered = finish(
        used, delivery_mode, inline, settings, header, reference, whole_at_any_size=True
    )
    return Answer(delivered.packed, matched, report, spill=delivered.ref, warning=delivered.warning)


def _selected(
    paths: Iterable[str | os.PathLike[str]],
    report: LoadReport,
    conditions: Sequence[Where],
    selector: _Filter | None,
) -> Iterator[Item]:
    for item in load(paths, report):
        if all(c.matches(item.data) for c in conditions) and (selector is None or selector(item)):
            yield item


def _ordered(items: Iterable[Item], text: str | None, sort: str | None) -> Iterable[Item]:
    """Relevance (then ``sort``), or ``sort`` (ties by id), or the files' own order,
    streamed: only this last keeps nothing in memory."""
    if text is not None:
        ranked = [item for item, _ in rank(list(items), text)]
        return sort_items(ranked, sort) if sort is not None else ranked
    if sort is not None:
        return sort_items(sorted(items, key=id_key), sort)
    return items


def _collect(
    ordered: Iterable[Item], cap: int, spool: Spool | None
) -> tuple[list[Item], int, FieldSummary]:
    """One pass: the first ``cap`` records, the count, and every record to the spool
    (until the store fails: then the page is all that is kept)."""
    fields = FieldSummary()
    page: list[Item] = []
    batch: list[Any] = []  # FieldSummary works a batch at a time, much faster so
    matched = 0
    for item in ordered:
        matched += 1
        if len(page) < cap:
            page.append(item)
        if spool is not None and not spool.failed:
            spool.write(item.json_line())
            batch.append(item.data)
            if len(batch) >= _BATCH:
                fields.add_many(batch)
                batch.clear()
    fields.add_many(batch)
    return page, matched, fields


def _whole(item: Item, view: Mapping[str, Any]) -> bool:
    """Whether ``view`` shows every non-empty field of the record, unchanged."""
    return all(view.get(k) == v for k, v in item.data.items() if not is_empty(v))


def _spill_footer(ref: SpillRef, fields: FieldSummary) -> dict[str, Any]:
    """Where the complete set is, its fields, and counts of its low-cardinality fields."""
    footer: dict[str, Any] = {"spill": ref.location, "lines": ref.lines, "bytes": ref.size}
    footer["fields"] = list(fields.fields)
    counts = fields.counted(_MAX_COUNTED_FIELDS, first=SEVERITY_FIELDS)
    if counts:
        footer["counts"] = counts
    return footer
