"""CSV: a table with pack's account on a ``#`` line above it, every value read back exactly.

    # agentout=1 total=100 included=2 omitted=98 truncated=true tokens=54
    id,name,stars,note
    1,Ada,530712,ok
    2,"Bob, Jr.",488074,

The first line is the records format's header line with ``#`` for ``H``; the summary,
if any, is a last ``#`` line. Rows are RFC 4180 (the stdlib ``csv`` module, minimal
quoting) with LF line ends, the columns every key in first-seen order.

A cell is read back by one rule (``read_cell``): an empty cell is a field the record
does not have; ``true``, ``false``, ``null``, a JSON number, and a cell starting with
``"``, ``[`` or ``{`` are JSON; any other cell is the string it holds. So a string is
written as it is unless that rule would read it as something else (``"2"``, ``""``,
``"true"``, ``"[1]"``) or it holds a character no format writes raw (a control, a bidi
control, a line break, a tab): then it is a JSON string, quoted once more for CSV.
Numbers, booleans, null, lists and objects are JSON. ``read(text)`` reads the output back.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Iterable, Mapping
from typing import Any

from agentout.formats._json import Marks, dumps, has_unsafe
from agentout.formats.json import record_object
from agentout.formats.records import header_fields, render_fields
from agentout.records import Document, Record, View, present

__all__ = ["FORMAT", "CsvFormat", "is_flat", "is_flat_uniform", "read", "read_cell"]

_SCALARS = (str, int, float, bool, type(None))
_JSON_WORD = re.compile(r"true|false|null|-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?")


def is_flat(records: Iterable[Mapping[str, Any]]) -> bool:
    """Whether every value of every record is a scalar (string, number, boolean, null)."""
    return all(isinstance(v, _SCALARS) for record in records for v in record.values())


def is_flat_uniform(records: Iterable[Mapping[str, Any]]) -> bool:
    """Whether the records fit one table with no empty cell: at least one record, every
    record with the same keys in the same order, every value a scalar."""
    keys: list[str] | None = None
    for record in records:
        if keys is None:
            keys = list(record)
        elif list(record) != keys:
            return False
        if not is_flat([record]):
            return False
    return bool(keys)


def _cell(value: Any) -> str:
    if isinstance(value, str):
        plain = (
            value
            and value[0] not in '"[{'
            and not _JSON_WORD.fullmatch(value)
            and not has_unsafe(value)
        )
        return value if plain else dumps(value)
    return dumps(value)


def read_cell(cell: str) -> Any:
    """A cell's value by the rule in the module doc (an empty cell: ``None``, no field)."""
    if cell[:1] in ('"', "[", "{") or _JSON_WORD.fullmatch(cell):
        return json.loads(cell)
    return cell


def read(text: str) -> list[dict[str, Any]]:
    """The records of a CSV output (its ``#`` lines left out), as the formats wrote them."""
    body = [line for line in text.split("\n")[1:] if line]
    if body and body[-1].startswith("# "):
        body.pop()
    rows = list(csv.reader(body))
    if not rows:
        return []
    columns, out = [str(read_cell(c)) if c else "" for c in rows[0]], []
    for row in rows[1:]:
        out.append(
            {key: read_cell(cell) for key, cell in zip(columns, row, strict=False) if cell != ""}
        )
    return out


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
        # A row that would pass for a "#" line is quoted whole (no cell holds a line break:
        # a string with one is a JSON string, its break escaped).
        (quoted if row and row[0].startswith("#") else plain).writerow(row)


def _missing_or(row: Mapping[str, Any], column: str) -> str:
    return _cell(row[column]) if column in row else ""


class CsvFormat:
    name = "csv"

    def render(self, document: Document) -> str:
        marks = Marks.of(v for _, v in document.records)
        head = render_fields(header_fields(document.header, document.stats, marks))
        out = io.StringIO()
        out.write(f"# {head}\n")
        rows = [record_object(r, v) for r, v in document.records]
        if rows:
            columns = _columns(rows)
            _write_rows(out, [[_cell(c) for c in columns]])
            _write_rows(out, ([_missing_or(row, c) for c in columns] for row in rows))
        if summary := present(document.summary):
            out.write(f"# {render_fields(summary)}\n")
        return out.getvalue()

    def fragment(self, record: Record, view: View) -> str:
        out = io.StringIO()
        _write_rows(out, [[_cell(v) for v in record_object(record, view).values()]])
        return out.getvalue()


FORMAT = CsvFormat()
