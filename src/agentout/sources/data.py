"""Structured data as records: a JSON array, an object holding a large array, JSONL, or text.

``read_data(path)`` detects what the input is from its first characters and reads it in
bounded pieces (1 MiB of text at a time; one record at a time):

- ``[`` : a JSON array; each element is a record.
- ``{`` : one JSON object; the records are the elements of its longest array-valued key
  (other scalar keys go in the header). If more values follow the first one, the input
  is JSONL (or any whitespace-separated JSON values, as ``jq`` prints them): one record
  per value.
- anything else (or a first line like ``[INFO] ...``): text, one record per non-blank line.

An object becomes a record with views from an index line (its first three scalar
fields) through its scalar fields (long strings cut) and its small nested values to the
whole object; a line becomes a record with the line cut and the whole line. Pack picks
the richest view the budget allows; the header counts the records shown terser.

Bad input is an ``InputError`` located as ``FILE:LINE:COL``: invalid JSON, NaN or
Infinity, nesting deeper than ``MAX_DEPTH``, a record or line over the size limit. A
duplicate key keeps its last value (as JSON.parse and jq do), with one warning on stderr
naming where.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Any, Literal

from agentout.errors import InputError
from agentout.records import Record, Result, View
from agentout.sources._stream import MAX_DEPTH, JsonParser, Reader, Top
from agentout.sources._text import Source, display_name, read_text
from agentout.tokens import Chars4
from agentout.truncate import truncate_string

__all__ = [
    "DEFAULT_MAX_RECORD_MIB",
    "INDEX_CHARS",
    "INDEX_FIELDS",
    "INPUT_FORMATS",
    "MAX_DEPTH",
    "TERSE_CHARS",
    "data_records",
    "read_data",
]

InputFormat = Literal["auto", "json", "jsonl", "text"]
INPUT_FORMATS: tuple[str, ...] = ("auto", "json", "jsonl", "text")

# One record (a JSON value, a line) may hold at most this many MiB of text; past it the
# input is refused, so a single 1 GB line costs 16 MiB of memory, not 1 GB.
DEFAULT_MAX_RECORD_MIB = 16
# A terse view cuts strings to this many characters (about 20 tokens of English); the
# tersest, an index line, shows the first INDEX_FIELDS scalar fields cut to INDEX_CHARS.
TERSE_CHARS = 80
INDEX_FIELDS = 3
INDEX_CHARS = 60
_CUT_SLACK = 20
_CHARS4 = Chars4()
_HEADER_CHARS = 200
_RESERVED = frozenset(
    {"agentout", "mode", "source", "input", "array", "other_keys", "total", "included"}
    | {"omitted", "reduced", "truncated", "tokens", "tokenizer", "over_budget"}
)

# A first line like "[2025-03-04 10:00:01] INFO ..." or "[INFO] ..." is a log, not JSON.
_LOG_LINE = re.compile(r"\[[^\[\]{}\"\n]*\][ \t]*[^\s,\[\]{}]")


def read_data(
    source: Source,
    *,
    input_format: InputFormat = "auto",
    max_record_mib: int = DEFAULT_MAX_RECORD_MIB,
    name: str | None = None,
) -> Result:
    """Read a file (a path; ``-`` or None for stdin; or a binary stream) as records.

    The header says ``mode=fit``, ``source=NAME`` and ``input=json|jsonl|text``.
    """
    name = display_name(source) if name is None else name
    return data_records(read_text(source, name=name), name, input_format, max_record_mib)


def data_records(
    chunks: Iterable[str],
    name: str,
    input_format: InputFormat = "auto",
    max_record_mib: int = DEFAULT_MAX_RECORD_MIB,
) -> Result:
    """Records from text that arrives in pieces; see ``read_data``."""
    if input_format not in INPUT_FORMATS:
        raise ValueError(f"unknown input format {input_format!r}; known: {INPUT_FORMATS}")
    if max_record_mib < 1:
        raise ValueError(f"the record size limit must be at least 1 MiB, got {max_record_mib}")
    reader = Reader(iter(chunks), name, max_record_mib)
    first = reader.skip_ws()
    if first is None:
        raise InputError("empty input: no records", name)
    kind = input_format if input_format != "auto" else _detect(reader, first)
    header: dict[str, Any] = {"mode": "fit", "source": name}
    if kind == "text":
        header["input"] = "text"
        if reader.dropped == 0:
            reader.pos = 0  # keep the first line's indentation
        return Result.of(_text_records(reader), header)
    parser = JsonParser(reader)
    values: Iterator[Any]
    if kind == "jsonl":
        header["input"] = "jsonl"
        values = parser.values()
    elif first == "[":
        header["input"] = "json"
        values = parser.top_array()
    elif first == "{":
        top = parser.top_object()
        if reader.skip_ws() is not None:  # more values follow: JSONL
            if input_format == "json":
                raise reader.error("extra data after the JSON object (JSON)", reader.pos)
            header["input"] = "jsonl"
            values = _chain(top.value, parser.values())
        else:
            header["input"] = "json"
            values, extra = _unwrap(top)
            header.update(extra)
    else:
        header["input"] = "json"
        values = parser.values(single=True)
    records = [_object_record(value) for value in values]
    parser.warn_duplicates()
    return Result.of(records, header)


def _detect(reader: Reader, first: str) -> str:
    if first == "{":
        return "json"
    if first == "[":
        line = reader.peek_line(4096)
        return "text" if _LOG_LINE.match(line) else "json"
    return "text"


def _chain(first: Any, rest: Iterator[Any]) -> Iterator[Any]:
    yield first
    yield from rest


# -- views -----------------------------------------------------------------------------


def _cut(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, saying how many more there are, if that helps.

    The cut is truncate_string's by chars4 (``limit // 4`` tokens: ``limit`` characters),
    so it never splits a character, a combining mark or an emoji sequence, and views do
    not depend on the tokenizer a budget is counted with.
    """
    if len(text) <= limit + _CUT_SLACK:  # a cut must save more than its marker costs
        return text
    kept = truncate_string(text, limit // 4, _CHARS4, suffix="...")[:-3]
    return f"{kept}... ({len(text) - len(kept)} more chars)"


def _is_scalar(value: Any) -> bool:
    return value is None or isinstance(value, (str, int, float, bool))


def _small(value: list[Any] | dict[str, Any]) -> bool:
    """Is this nested value short enough for a terse view? (``repr`` is a fast, close
    enough measure of its JSON length; few items are checked first to keep it cheap.)"""
    return len(value) <= TERSE_CHARS // 8 and len(repr(value)) <= TERSE_CHARS


def _object_record(value: Any) -> Record:
    """Views, tersest first: an index line (the first few scalar fields, cut short); all
    scalar fields (long strings cut); those and the small nested values; everything."""
    if not isinstance(value, dict):
        cut = _cut(value, TERSE_CHARS) if isinstance(value, str) else value
        full = {"value": value}
        return Record.of(full) if cut == value else Record.of({"value": cut}, full)
    index: dict[str, Any] = {}
    terse: dict[str, Any] = {}
    middle: dict[str, Any] = {}
    for key, item in value.items():
        if isinstance(item, (dict, list)):  # parsed JSON: everything else is a scalar
            if _small(item):
                middle[key] = item
            continue
        is_text = isinstance(item, str)
        middle[key] = terse[key] = _cut(item, TERSE_CHARS) if is_text else item
        if len(index) < INDEX_FIELDS:
            index[key] = _cut(item, INDEX_CHARS) if is_text else item
    if not terse and value:  # nothing scalar to show: name the fields instead
        index = terse = {"_keys": list(value)}
    views: list[View] = []
    for view in (index, terse, middle, value):
        if view and (not views or view != views[-1]):
            views.append(view)
    return Record.of(*views) if views else Record.of(value)


def _text_records(reader: Reader) -> Iterator[Record]:
    for number, line in reader.lines():
        if not line.strip():
            continue
        full = {"n": number, "line": line}
        cut = _cut(line, TERSE_CHARS * 2)
        yield Record.of(full) if cut == line else Record.of({"n": number, "line": cut}, full)


def _unwrap(top: Top) -> tuple[Iterator[Any], dict[str, Any]]:
    """The records of a single object: its longest array, the other keys as header."""
    obj = top.value
    if not top.arrays:
        return iter([obj]), {}
    key = max(top.arrays, key=lambda k: len(obj[k]))  # the first of the longest
    header: dict[str, Any] = {"array": key}
    others = []
    for other, value in obj.items():
        if other == key:
            continue
        if _is_scalar(value):
            label = f"top.{other}" if other in _RESERVED else other
            header[label] = _cut(value, _HEADER_CHARS) if isinstance(value, str) else value
        else:
            others.append(other)
    if others:
        header["other_keys"] = others
    return iter(obj[key]), header
