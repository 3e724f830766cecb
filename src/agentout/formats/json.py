"""JSON: one object, pack's account first, one record per line; empty fields omitted.

Keys keep the order the source gave them (deterministic by construction); a record
whose kind is not ``R`` carries it as ``"_kind"``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from agentout.records import Document, Record, Stats, View, is_empty

__all__ = ["FORMAT", "JsonFormat", "document_object", "record_object", "stats_object"]


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)


def _prune(fields: Mapping[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in fields.items() if not is_empty(value)}


def stats_object(stats: Stats) -> dict[str, Any]:
    out: dict[str, Any] = {
        "total": stats.total,
        "included": stats.included,
        "omitted": stats.omitted,
        "tokens": stats.tokens,
        "truncated": stats.truncated,
        "tokenizer": stats.tokenizer,
    }
    if stats.reduced:
        out["reduced"] = stats.reduced
    if stats.over_budget:
        out["over_budget"] = True
    return out


def record_object(record: Record, view: View) -> dict[str, Any]:
    fields = _prune(view)
    return fields if record.kind == "R" else {"_kind": record.kind, **fields}


def document_object(document: Document) -> dict[str, Any]:
    """The whole document as one JSON-compatible object, in the json format's key order."""
    out = stats_object(document.stats)
    if header := _prune(document.header):
        out["header"] = header
    out["records"] = [record_object(r, v) for r, v in document.records]
    if summary := _prune(document.summary):
        out["summary"] = summary
    return out


class JsonFormat:
    name = "json"

    def render(self, document: Document) -> str:
        head = stats_object(document.stats)
        if header := _prune(document.header):
            head["header"] = header
        opening = _dumps(head)[:-1]  # reopen the object to append the records
        rows = [_dumps(record_object(r, v)) for r, v in document.records]
        body = "[]" if not rows else "[\n" + ",\n".join(rows) + "\n]"
        tail = ""
        if summary := _prune(document.summary):
            tail = ',"summary":' + _dumps(summary)
        return f'{opening},"records":{body}{tail}}}\n'

    def fragment(self, record: Record, view: View) -> str:
        return _dumps(record_object(record, view)) + ",\n"


FORMAT = JsonFormat()
