"""CSV: a table for flat, uniform records, with pack's account on a ``#`` line above it.

    # agentout=1 total=100 included=2 omitted=98 truncated=true tokens=54 tokenizer=o200k_base
    id,name,stars
    1,Ada,530712
    2,"Bob, Jr.",488074
    # failed=0 passed=2

The first line is the records format's header line with ``#`` for ``H``; the summary,
if any, is a last ``#`` line. Rows are RFC 4180 (the stdlib ``csv`` module, minimal
quoting) with LF line ends. Cells hold strings as they are and other scalars as JSON
(``true``, ``1.5``); a list or object, which only an explicit ``--format csv`` of
non-flat records brings here, is a JSON-encoded cell: nothing is ever dropped.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable, Mapping
from typing import Any

from agentout.formats.json import record_object
from agentout.formats.records import header_fields, render_fields
from agentout.records import Document, Record, View

__all__ = ["FORMAT", "CsvFormat", "is_flat", "is_flat_uniform"]

_SCALARS = (str, int, float, bool)


def is_flat(records: Iterable[Mapping[str, Any]]) -> bool:
    """Whether every value of every record is a scalar (string, number, boolean)."""
    return all(isinstance(v, _SCALARS) for record in records for v in record.values())


def is_flat_uniform(records: Iterable[Mapping[str, Any]]) -> bool:
    """Whether the records (as rendered, empty fields pruned) fit one table exactly.

    True when there is at least one record, every record has the same set of keys,
    and every value is a scalar (string, number, boolean).
    """
    keys: set[str] | None = None
    for record in records:
        if keys is None:
            keys = set(record)
        elif set(record) != keys:
            return False
        if not is_flat([record]):
            return False
    return bool(keys)


def _cell(value: Any) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)


def _columns(rows: list[dict[str, Any]]) -> list[str]:
    """Every key, in the order first seen (for uniform records: the first record's)."""
    seen: dict[str, None] = {}
    for row in rows:
        seen.update(dict.fromkeys(row))
    return list(seen)


def _write_rows(out: io.StringIO, rows: Iterable[list[str]]) -> None:
    plain = csv.writer(out, lineterminator="\n")
    quoted = csv.writer(out, lineterminator="\n", quoting=csv.QUOTE_ALL)
    for row in rows:
        # Minimal quoting misses two cases, so quote such a row whole: a row that would
        # pass for a "#" line, and a bare CR (a line break to readers, not to LF quoting).
        odd = (row and row[0].startswith("#")) or any("\r" in cell for cell in row)
        (quoted if odd else plain).writerow(row)


class CsvFormat:
    name = "csv"

    def render(self, document: Document) -> str:
        head = render_fields(header_fields(document.header, document.stats))
        out = io.StringIO()
        out.write(f"# {head}\n")
        rows = [record_object(r, v) for r, v in document.records]
        if rows:
            columns = _columns(rows)
            _write_rows(out, [columns])
            _write_rows(out, ([_cell(row.get(c, "")) for c in columns] for row in rows))
        summary = render_fields(document.summary)
        if summary:
            out.write(f"# {summary}\n")
        return out.getvalue()

    def fragment(self, record: Record, view: View) -> str:
        out = io.StringIO()
        _write_rows(out, [[_cell(v) for v in record_object(record, view).values()]])
        return out.getvalue()


FORMAT = CsvFormat()
