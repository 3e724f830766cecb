"""Structured data as records: JSON, JSONL, YAML, TOML, CSV/TSV, or text.

``read_data(path)`` reads the input in bounded pieces (1 MiB of text at a time; one record
at a time, but for YAML and TOML, read whole, at most the record size limit). What it is
comes from ``--input-format``, else the file's extension (see ``agentout.read.structured``, the
one reader ``records`` and the MCP tools share), else its first characters:

- ``[`` : a JSON array; each element is a record.
- ``{`` : one JSON object; its records by ``agentout.read.structured``' rule (the elements of an
  array of records it holds, its other scalar keys in the header; or itself). If more
  values follow the first one, the input is JSONL (or any whitespace-separated JSON
  values, as ``jq`` prints them): one record per value.
- anything else (or a first line like ``[INFO] ...``): text, one record per non-blank line.

An object becomes a record with views from an index line (its first three scalar
fields) through its scalar fields (long strings cut) and its small nested values to the
whole object; a line becomes a record with the line cut and the whole line. Pack picks
the richest view the budget allows; the header counts the records shown terser.

Every record is built and kept, unless ``keep`` says which leading records to keep
(``agentout.sources.fit`` keeps those a budget could possibly show): the rest are still parsed,
so bad input anywhere is found, then counted into ``Result.total`` and forgotten with
their views never built. Memory is then bounded by the records kept and the record size
limit, not by the input, for a JSON array, JSONL and text. The arrays of a top-level
JSON object are the exception: they are held whole until the object ends, as which one
is the longest is only known then; only the views of the records left out are spared.

Bad input is an ``InputError`` located as ``FILE:LINE:COL``: invalid JSON, NaN or
Infinity, nesting deeper than ``MAX_DEPTH``, a record or line over the size limit. A
duplicate key keeps its last value (as JSON.parse and jq do), with one warning on stderr
naming where.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Iterator
from typing import Any, Literal

from agentout.errors import InputError
from agentout.read.stream import MAX_DEPTH, JsonParser, Reader
from agentout.read.structured import csv_rows, kind_of, parts_of, records_of, toml_value
from agentout.read.text import Source, display_name, read_text
from agentout.records import Record, Result, View
from agentout.records.values import Cut
from agentout.tokens.truncate import _boundary

__all__ = [
    "DEFAULT_MAX_RECORD_MIB",
    "INDEX_CHARS",
    "INDEX_FIELDS",
    "INPUT_FORMATS",
    "MAX_DEPTH",
    "TERSE_CHARS",
    "data_records",
    "object_record",
    "read_data",
]

InputFormat = Literal["auto", "json", "jsonl", "yaml", "toml", "csv", "tsv", "text"]
INPUT_FORMATS: tuple[str, ...] = ("auto", "json", "jsonl", "yaml", "toml", "csv", "tsv", "text")

# One record (a JSON value, a line) may hold at most this many MiB of text; past it the
# input is refused, so a single 1 GB line costs 16 MiB of memory, not 1 GB.
DEFAULT_MAX_RECORD_MIB = 16
# A terse view cuts strings to this many characters (about 20 tokens of English); the
# tersest, an index line, shows the first INDEX_FIELDS scalar fields cut to INDEX_CHARS.
TERSE_CHARS = 80
INDEX_FIELDS = 3
INDEX_CHARS = 60
_CUT_SLACK = 20
_HEADER_CHARS = 200
_RESERVED = frozenset(
    {"agentout", "mode", "source", "input", "array", "other_keys", "ref", "warning", "total"}
    | {"included"}
    | {"omitted", "reduced", "truncated", "tokens", "tokenizer", "over_budget"}
)

URGENT_AT_MOST = 500  # log records at level error or warning kept wherever they are
# A first line like "[2025-03-04 10:00:01] INFO ..." or "[INFO] ..." is a log, not JSON.
_LOG_LINE = re.compile(
    r"\[[^\[\]{}\"\n]*\](?:[ \t]*\[[^\[\]{}\"\n]*\])*[ \t]*[^\s,\[\]{}]"
)  # Apache's "[Thu Nov 27 ...] [core:error] [pid 7] ..." too


Take = Callable[[Record], bool]
"""Shown each record in turn: whether to keep it (``keep``) or to go on looking (``dropped``)."""


def read_data(
    source: Source,
    *,
    input_format: InputFormat = "auto",
    max_record_mib: int = DEFAULT_MAX_RECORD_MIB,
    name: str | None = None,
    keep: Take | None = None,
    dropped: Take | None = None,
    ranked: bool = True,
    reread: Callable[[], Iterable[str]] | None = None,
) -> Result:
    """Read a file (a path; ``-`` or None for stdin; or a binary stream) as records.

    The header says ``mode=fit``, ``source=NAME`` and ``input=json|jsonl|text``.

    ``keep``, if given, is shown each record in order until it first returns False: the
    records it accepted are the result's, and from the one it refused on, records are
    only counted (``Result.total`` says how many there were in all), their views never
    built. ``dropped``, if given, is shown each record not kept (built after all) for as
    long as it returns True; ``agentout.sources.fit`` uses it to learn whether the records left
    out would have ruled out a CSV table.

    ``ranked``: text is the lines that matter first (see ``_text``); without it, text is
    every non-blank line in order (``agentout show REF --records A:B`` pages lines).
    ``reread``: the same text again, for the number of lines of each shape a fold says
    (a file named by its path is read again unless this is given; stdin cannot be).
    """
    name = display_name(source) if name is None else name
    chunks = read_text(source, name=name)
    if reread is None and isinstance(source, (str, os.PathLike)) and source != "-":
        path = source

        def reread() -> Iterable[str]:
            return read_text(path, name=name)

    return data_records(
        chunks,
        name,
        input_format,
        max_record_mib,
        keep=keep,
        dropped=dropped,
        ranked=ranked,
        reread=reread,
    )


def data_records(
    chunks: Iterable[str],
    name: str,
    input_format: InputFormat = "auto",
    max_record_mib: int = DEFAULT_MAX_RECORD_MIB,
    *,
    keep: Take | None = None,
    dropped: Take | None = None,
    ranked: bool = True,
    reread: Callable[[], Iterable[str]] | None = None,
) -> Result:
    """Records from text that arrives in pieces; see ``read_data``."""
    if input_format not in INPUT_FORMATS:
        raise ValueError(f"unknown input format {input_format!r}; known: {INPUT_FORMATS}")
    if max_record_mib < 1:
        raise ValueError(f"the record size limit must be at least 1 MiB, got {max_record_mib}")
    header: dict[str, Any] = {"mode": "fit", "source": name}
    named = kind_of(name) if input_format == "auto" else input_format
    if named in ("csv", "tsv"):
        header["input"] = named
        rows = (row for _, row in csv_rows(chunks, name, delimiter="," if named == "csv" else "\t"))
        return _collect(rows, _object_record, header, keep, dropped)
    if named in ("yaml", "toml"):
        header["input"] = named
        documents, extra = _whole(_joined(chunks, name, max_record_mib), name, named)
        return _collect(documents, _object_record, {**header, **extra}, keep, dropped)
    reader = Reader(iter(chunks), name, max_record_mib)
    first = reader.skip_ws()
    if first is None:
        raise InputError("empty input: no records", name)
    kind: str
    if input_format != "auto":
        kind = input_format
    elif named == "jsonl":
        kind = "jsonl"
    else:  # .json too: a JSON value, JSONL if more follow, text if it is no JSON
        kind = _detect(reader, first)
    if kind == "text":
        header["input"] = "text"
        if reader.dropped == 0:
            reader.pos = 0  # keep the first line's indentation
        if ranked:
            return _text(reader, header, reread)
        lines = ((n, line) for n, line in reader.lines() if line.strip())
        return _collect(lines, _numbered_line, header, keep, dropped)
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
            values, extra = _unwrap(top.value)
            header.update(extra)
    else:
        header["input"] = "json"
        values = parser.values(single=True)
    result = _collect(values, _object_record, header, keep, dropped)
    parser.warn_duplicates()
    return result


def _collect(
    items: Iterator[Any],
    build: Callable[[Any], Record],
    header: dict[str, Any],
    keep: Take | None,
    dropped: Take | None,
) -> Result:
    """Every item read (so errors anywhere are found); records built while needed.

    A structured log record at level error or warning (``agentout.read.trouble``'s
    ``record_level``) is built and kept wherever it is (the first ``URGENT_AT_MOST`` of
    them), and the result's ``order`` puts those first, errors before warnings: a budget
    shows what went wrong before the records around it."""
    from agentout.read.trouble import record_level

    records: list[Record] = []
    urgent: list[tuple[int, int]] = []  # (0 error | 1 warning, index into records)
    total = 0
    keeping, watching = True, dropped is not None
    for item in items:
        total += 1
        level = record_level(item) if len(urgent) < URGENT_AT_MOST else None
        if level is not None:
            urgent.append((0 if level == "error" else 1, len(records)))
            record = build(item)
            if len(record.views) > 1:  # never its index line alone: the message is the point
                record = record.replace(views=record.views[1:])
            records.append(record)
            continue
        if keep is None:
            records.append(build(item))
            continue
        if not (keeping or watching):
            continue
        record = build(item)
        if keeping and keep(record):
            records.append(record)
            continue
        keeping = False
        watching = watching and dropped is not None and dropped(record)
    order = None
    if urgent:
        first = [index for _, index in sorted(urgent)]
        order = [*first, *(i for i in range(len(records)) if i not in set(first))]
    counted = None if keep is None else total
    return Result.of(records, header, total=counted, order=order)


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
    """``text`` cut to about ``limit`` characters, as a ``Cut`` (which formats mark with
    the number of characters left out), if that helps.

    The cut never splits a character, a combining mark or an emoji sequence, and drops
    the whitespace before it ("fox..." reads better than "fox ..."). Views count
    characters, so they do not depend on the tokenizer a budget is counted with.
    """
    if len(text) <= limit + _CUT_SLACK:  # a cut must save more than its marker costs
        return text
    cut = _boundary(text, limit - 3)
    tidy = _boundary(text, len(text[:cut].rstrip()))
    kept = text[: tidy if tidy > 0 else cut]
    return Cut(kept, len(text) - len(kept))


def _is_scalar(value: Any) -> bool:
    return value is None or isinstance(value, (str, int, float, bool))


def _small(value: list[Any] | dict[str, Any]) -> bool:
    """Is this nested value short enough for a terse view? (The length of its ``repr``
    is a close enough measure of its JSON length.)"""
    return len(value) <= TERSE_CHARS // 8 and _repr_length(value, TERSE_CHARS) <= TERSE_CHARS


def _repr_length(value: Any, limit: int) -> int:
    """``len(repr(value))`` for parsed JSON, or some number over ``limit`` once it is
    known to pass it: a few dozen characters are looked at, however large the value."""
    if isinstance(value, str):
        return len(value) + 2 if len(value) > limit else len(repr(value))
    if not isinstance(value, (list, dict)):
        return len(repr(value))  # a number, a boolean or None: short
    size = 2 * max(len(value), 1)  # the brackets, and ", " between items; ": " in a dict
    pairs = value.items() if isinstance(value, dict) else ((None, item) for item in value)
    for key, item in pairs:
        if size > limit:
            break
        if key is not None:
            size += 2 + _repr_length(key, limit - size)
        size += _repr_length(item, limit - size)
    return size


def object_record(value: Any) -> Record:
    """The record ``fit`` makes of a JSON value, views from an index line to all of it."""
    return _object_record(value)


def _object_record(value: Any) -> Record:
    """Views, tersest first: an index line (the first few scalar fields, cut short); all
    scalar fields (long strings cut); those and the small nested values; everything.
    Where a part of an object begins, a ``P`` record names it and counts its records."""
    if isinstance(value, _Part):
        return Record.of({"part": value.name, "records": value.count}, kind="P")
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
            if isinstance(item, dict):  # an identity one level down (metadata.name) counts
                for inner, scalar in item.items():
                    if not isinstance(scalar, (dict, list)):
                        _scalar_views(f"{key}.{inner}", scalar, index, terse)
            continue
        middle[key] = _scalar_views(key, item, index, terse)
    if not terse and value:  # nothing scalar to show: name the fields instead
        index = terse = {"_keys": list(value)}
    views: list[View] = []
    for view in (index, terse, middle):
        if view and (not views or view != views[-1]):
            views.append(view)
    views = [_marked(view, value) for view in views]
    if not views or value != views[-1]:
        views.append(value)
    return Record.of(*views)


OMITTED = "_omitted"  # on a view that leaves fields out: how many


def _marked(view: View, value: dict[str, Any]) -> View:
    """``view`` with ``_omitted=N`` when it leaves out N of the record's fields (a field
    holding an object counts by its fields when some of them are shown, ``meta.owner``),
    so a terse record says it is not all there; a view naming the fields (``_keys``) and
    a string cut short (its ``…`` shows) leave nothing out unseen."""
    if "_keys" in view:
        return view
    left = 0
    for key, item in value.items():
        if key in view:
            continue
        inner = [f"{key}.{name}" in view for name in item] if isinstance(item, dict) else []
        left += inner.count(False) if any(inner) else 1
    return {**view, OMITTED: left} if left else view


def _scalar_views(key: str, item: Any, index: dict[str, Any], terse: dict[str, Any]) -> Any:
    """A scalar field in the terse view (and the index line while it has room); its value
    as the terse view shows it."""
    is_text = isinstance(item, str)
    terse[key] = _cut(item, TERSE_CHARS) if is_text else item
    if len(index) < INDEX_FIELDS:
        index[key] = _cut(item, INDEX_CHARS) if is_text else item
    return terse[key]


def _text(
    reader: Reader, header: dict[str, Any], reread: Callable[[], Iterable[str]] | None = None
) -> Result:
    """Text (a log, a command's output) as its lines, the ones that matter first: read as
    ``agentout run`` reads output (``agentout.read.trouble``, ``agentout.read.digest``), in
    memory the scan bounds, whatever the size. Each non-blank line the scan kept is a
    record (``n``, ``line``; ``last`` for identical lines folded into one); ``total`` is
    every line of the input; the result's ``order`` puts the errors, their detail, how
    the text began and ended first, so a budget shows them whatever else it leaves out.
    A line over the size limit is refused, as any record is. ``reread``: the text again
    (``read_data``), for exact counts of lines of one shape."""
    from agentout.read.digest import digest
    from agentout.read.trouble import Scan

    scan = Scan()
    line, since = reader.line, 0  # the line under way, and its length so far
    for chunk in _rest(reader):
        first = chunk.find("\n")
        if since + (len(chunk) if first < 0 else first) > reader.limit:
            raise InputError(reader.too_large("line"), reader.name, line)
        newlines = chunk.count("\n")
        if newlines:
            line += newlines
            since = len(chunk) - chunk.rfind("\n") - 1
        else:
            since += len(chunk)
        scan.feed(chunk.encode("utf-8", "surrogatepass"))
    source = None
    if reread is not None and reader.dropped == 0:  # the text from its first character

        def source() -> Iterator[bytes]:
            assert reread is not None
            return (chunk.encode("utf-8", "surrogatepass") for chunk in reread())

    found = digest(scan.finish(), source)
    records: list[Record] = []
    index: dict[int, int] = {}
    for i, record in enumerate(found.records):
        if str(record.fullest["text"]).split("\n", 1)[0].strip():  # blank lines say nothing
            index[i] = len(records)
            records.append(_line_record(record))
    order = [index[i] for i in found.order if i in index]
    return Result.of(records, header, total=found.lines, order=order)


def _numbered_line(numbered: tuple[int, str]) -> Record:
    number, line = numbered
    full = {"n": number, "line": line}
    cut = _cut(line, TERSE_CHARS * 2)
    return Record.of(full) if cut == line else Record.of({"n": number, "line": cut}, full)


def _rest(reader: Reader) -> Iterator[str]:
    """The text from the reader's position on: what it has buffered, then the rest."""
    yield reader.buf[reader.pos :]
    yield from reader.chunks


def _line_record(kept: Record) -> Record:
    """A line the digest kept, as ``fit`` shows a line: its number and its text."""
    views: list[View] = []
    for view in kept.views:
        shown = {"n": view["n"], "line": view["text"]}
        if view.get("last", view["n"]) != view["n"]:
            shown["last"] = view["last"]
        views.append(shown)
    return Record.of(*views)


def _joined(chunks: Iterable[str], name: str, max_record_mib: int) -> str:
    """The whole text, refused past the record size limit (YAML and TOML are read whole)."""
    parts, size = [], 0
    for chunk in chunks:
        size += len(chunk)
        if size > max_record_mib << 20:
            raise InputError(f"file longer than {max_record_mib} MiB (--max-record-mib)", name)
        parts.append(chunk)
    text = "".join(parts)
    if not text.strip():
        raise InputError("empty input: no records", name)
    return text


def _whole(text: str, name: str, kind: str) -> tuple[Iterator[Any], dict[str, Any]]:
    """The records of a YAML or TOML text, by the rule ``agentout.read.structured`` states; a
    single document's other scalar keys go in the header, as for a JSON object."""
    if kind == "toml":
        documents: list[Any] = [toml_value(text, name)]
    else:
        from agentout.read.safe_yaml import load_documents

        documents = [d for d in load_documents(text, name) if d is not None]
        if not documents:
            raise InputError("no YAML data (only comments or empty documents)", name)
    if len(documents) == 1:
        return _unwrap(documents[0])
    return (record for document in documents for record in records_of(document)[0]), {}


def _unwrap(obj: Any) -> tuple[Iterator[Any], dict[str, Any]]:
    """The records of a single value (see ``agentout.read.structured``); the other keys of an
    object whose array holds them as header. An object of several parts (rule 4) gives
    each part's records after a ``P`` line naming it, every part's count in the header."""
    parts = parts_of(obj)
    if parts is not None:
        header = _scalars(obj, set())
        header["parts"] = {name: len(records) for name, records in parts}
        return _with_part_lines(parts), header
    records, key = records_of(obj)
    if key is None:
        return iter(records), {}
    header = {"array": key, **_scalars(obj, {key})}
    others = [other for other, value in obj.items() if other != key and not _is_scalar(value)]
    if others:
        header["other_keys"] = others
    return iter(obj[key]), header


def _scalars(obj: dict[str, Any], skip: set[str]) -> dict[str, Any]:
    """An object's scalar keys, for the header (long strings cut, reserved names kept apart)."""
    header: dict[str, Any] = {}
    for other, value in obj.items():
        if other not in skip and _is_scalar(value):
            label = f"top.{other}" if other in _RESERVED else other
            header[label] = _cut(value, _HEADER_CHARS) if isinstance(value, str) else value
    return header


class _Part:
    """Where a part of an object begins: its name and how many records it has."""

    __slots__ = ("count", "name")

    def __init__(self, name: str, count: int) -> None:
        self.name, self.count = name, count


def _with_part_lines(parts: list[tuple[str, list[Any]]]) -> Iterator[Any]:
    for name, records in parts:
        yield _Part(name, len(records))
        yield from records
