"""JSON: one object, pack's account first, one record per line, every value kept.

RFC 8259 JSON (``json.loads`` with NaN and Infinity refused reads it): a number JSON
cannot hold is written as its text in a string and counted in ``numbers_as_text``; a
string cut for a terse view ends in ``…`` and is named in ``cut`` (the record's position
among those shown, from 0, its field and the characters left out), so a value that
merely ends in ``…`` is never taken for a cut. Keys keep the order the source gave them
(deterministic by construction); a record whose kind is not ``R`` carries it as
``"_kind"``. The source's header and summary leave out their empty fields; a record
keeps every field, ``null``, ``""``, ``[]`` and ``{}`` included.
"""

from __future__ import annotations

from typing import Any

from agentout.formats._json import Marks, dumps
from agentout.records import Document, Record, Stats, View, present
from agentout.records.values import json_safe

__all__ = ["FORMAT", "JsonFormat", "document_object", "record_object", "stats_object"]


def stats_object(stats: Stats, marks: Marks | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"total": stats.total, "included": stats.included}
    if not stats.lean:  # a lean envelope leaves out what the rest implies
        out["omitted"] = stats.omitted
    out.update(tokens=stats.tokens, truncated=stats.truncated)
    if not stats.lean:
        out["tokenizer"] = stats.tokenizer
        if stats.reduced:
            out["reduced"] = stats.reduced
    if marks is not None:
        out.update(marks.fields())
    if stats.over_budget:
        out["over_budget"] = True
    return out


def record_object(record: Record, view: View) -> dict[str, Any]:
    fields = dict(view)
    return fields if record.kind == "R" else {"_kind": record.kind, **fields}


def _marks(document: Document) -> Marks:
    return Marks.of(v for _, v in document.records)


def document_object(document: Document) -> dict[str, Any]:
    """The whole document as one JSON-compatible object, in the json format's key order;
    numbers JSON cannot hold are their text."""
    out = stats_object(document.stats, _marks(document))
    if header := present(document.header):
        out["header"] = json_safe(header)
    out["records"] = [json_safe(record_object(r, v)) for r, v in document.records]
    if summary := present(document.summary):
        out["summary"] = json_safe(summary)
    return out


class JsonFormat:
    name = "json"

    def render(self, document: Document) -> str:
        head = stats_object(document.stats, _marks(document))
        if header := present(document.header):
            head["header"] = header
        opening = dumps(head)[:-1]  # reopen the object to append the records
        rows = [dumps(record_object(r, v)) for r, v in document.records]
        body = "[]" if not rows else "[\n" + ",\n".join(rows) + "\n]"
        tail = ""
        if summary := present(document.summary):
            tail = ',"summary":' + dumps(summary)
        return f'{opening},"records":{body}{tail}}}\n'

    def fragment(self, record: Record, view: View) -> str:
        return dumps(record_object(record, view)) + ",\n"


FORMAT = JsonFormat()
