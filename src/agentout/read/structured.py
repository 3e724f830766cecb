"""One reader for structured files: JSON, JSONL, YAML 1.2, TOML and CSV/TSV as records.

``agentout fit`` (``sources.data``), ``agentout records`` and the MCP tools
(``sources.collection``) read files through here, so the same file gives the same
records everywhere.

**What a file is** (``kind_of``): its extension says (``.json``, ``.jsonl``/``.ndjson``,
``.yaml``/``.yml``, ``.toml``, ``.csv``, ``.tsv``, ``.md``/``.markdown``); a file with
none of these, or stdin, is told by its content: JSON when it starts with ``[`` or ``{``
(JSONL when more values follow), else text. ``--input-format`` says it outright.

**Records of a value** (``unwrap``), the same rule for every kind:

1. an array: each element is a record;
2. an object with a single key holding an object or an array (TMKB's
   ``threat_pattern: {...}``, ``{"data": [...]}``): that value, an array's elements;
3. an object holding an array under ``items``, ``data``, ``results``, ``records``,
   ``rows``, ``entries`` or ``hits`` (the first of these it has), or, if its
   other values are all scalars, its longest array of objects (the first of the
   longest; ``{"generated": "...", "incidents": [...]}``): that array's elements (an empty
   ``items`` array: no records); ``fit`` puts the object's other scalar keys in its header;
4. an object holding arrays of records beside other arrays or objects (``pip inspect``:
   ``installed`` beside ``environment``): each of those values is a part (``parts_of``),
   a list's elements and an object's entries (``key``, ``value``) its records; ``fit``
   puts the scalar keys and each part's count in its header and each part's name on a
   ``P`` line before its records;
5. any other object, or scalar, is one record.

**CSV and TSV** (``csv_rows``) are tables with a header row: each row is a record of its
header's keys, every value a string as written (CSV has no types). A row with more or
fewer cells than the header, a duplicate or empty column name, or a quote out of place
is an ``InputError`` at its ``FILE:LINE``.

**TOML** (``toml_value``) is read by ``tomllib`` (``tomli`` before Python 3.11): one
table, whose records follow the rule above. Dates and times are ISO 8601 text; a
number JSON cannot hold (``inf``, ``nan``, ``1e-400``, a hex, octal or binary integer of
more than 4,300 decimal digits) stays its text (``values.NumberText``: its decimal digits
for such an integer); a decimal integer that long is refused at its line.

**YAML** is read by ``sources.collection.safe_yaml`` (YAML 1.2, safe, alias bombs refused).
"""

from __future__ import annotations

import csv
import datetime
import os
import re
import sys
from collections.abc import Iterable, Iterator
from typing import Any

from agentout.errors import InputError
from agentout.records.values import json_safe, number_or_text

__all__ = [
    "COLLECTION_KEYS",
    "KINDS",
    "SUFFIXES",
    "csv_rows",
    "kind_of",
    "parts_of",
    "toml_value",
    "unwrap",
]

SUFFIXES: dict[str, str] = {
    ".json": "json",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".yaml": "yaml",
    ".yml": "yaml",
    ".toml": "toml",
    ".csv": "csv",
    ".tsv": "tsv",
    ".md": "markdown",
    ".markdown": "markdown",
}
KINDS = ("json", "jsonl", "yaml", "toml", "csv", "tsv")
COLLECTION_KEYS = ("items", "data", "results", "records", "rows", "entries", "hits")


def kind_of(name: str) -> str | None:
    """The kind a file's extension says, or None (content decides)."""
    return SUFFIXES.get(os.path.splitext(name)[1].lower())


def unwrap(value: Any) -> str | None:
    """The key of ``value`` whose array holds the records (rule 3), or None."""
    if not isinstance(value, dict):
        return None
    for key in COLLECTION_KEYS:
        if isinstance(value.get(key), list):
            return key
    arrays = [key for key, item in value.items() if item and _records_array(item)]
    others = (item for key, item in value.items() if key not in arrays)
    if arrays and all(_is_scalar(item) for item in others):
        longest: str = max(arrays, key=lambda key: len(value[key]))  # the first of the longest
        return longest
    return None


def parts_of(value: Any) -> list[tuple[str, list[Any]]] | None:
    """Rule 4: the parts of an object that holds arrays of records beside other arrays or
    objects, in its order, each with its records; None when the rule does not apply."""
    if not isinstance(value, dict) or len(value) < 2 or unwrap(value) is not None:
        return None
    nested = [key for key, item in value.items() if not _is_scalar(item)]
    if len(nested) < 2 or not any(item and _records_array(value[item]) for item in nested):
        return None
    parts: list[tuple[str, list[Any]]] = []
    for key in nested:
        item = value[key]
        if isinstance(item, dict):
            parts.append((key, [{"key": k, "value": v} for k, v in item.items()]))
        else:
            parts.append((key, [v if isinstance(v, dict) else {"value": v} for v in item]))
    return parts


def records_of(value: Any) -> tuple[list[Any], str | None]:
    """The records of a whole value by the module's rule, and the key unwrapped (rule 3)."""
    if isinstance(value, list):
        return value, None
    if isinstance(value, dict) and len(value) == 1:
        (inner,) = value.values()
        if isinstance(inner, list):
            return inner, None
        if isinstance(inner, dict):
            return [inner], None
    key = unwrap(value)
    if key is not None:
        return value[key], key
    return [value], None


def _records_array(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, dict) for v in value)


def _is_scalar(value: Any) -> bool:
    return value is None or isinstance(value, (str, int, float, bool))


# -- CSV and TSV ----------------------------------------------------------------------------


def _lines(chunks: Iterable[str]) -> Iterator[str]:
    """Lines with their endings from text that arrives in pieces."""
    rest = ""
    for chunk in chunks:
        rest += chunk
        lines = rest.splitlines(keepends=True)
        rest = lines.pop() if lines and not lines[-1].endswith(("\n", "\r")) else ""
        yield from lines
    if rest:
        yield rest


def csv_rows(
    chunks: Iterable[str], name: str, *, delimiter: str = ","
) -> Iterator[tuple[int, dict[str, str]]]:
    """(line, record) for each row under the header row; see the module doc."""
    reader = csv.reader(_lines(chunks), delimiter=delimiter, strict=True)
    what = "TSV" if delimiter == "\t" else "CSV"
    try:
        header: list[str] | None = None
        for row in reader:
            line = reader.line_num
            if header is None:
                if not row or row == [""]:
                    continue  # blank lines before the header
                header = _header(row, name, line, what)
                continue
            if not row or row == [""]:
                continue
            if len(row) != len(header):
                raise InputError(
                    f"a row of {len(row)} cells under a header of {len(header)} ({what})",
                    name,
                    line,
                )
            yield line, dict(zip(header, row, strict=True))
    except csv.Error as exc:
        raise InputError(f"{exc} ({what})", name, reader.line_num) from None
    if header is None:
        raise InputError(f"empty input: no header row ({what})", name)


def _header(row: list[str], name: str, line: int, what: str) -> list[str]:
    seen: set[str] = set()
    for column, key in enumerate(row, start=1):
        if not key:
            raise InputError(f"column {column} has no name ({what})", name, line)
        if key in seen:
            raise InputError(f"column name {key!r} given twice ({what})", name, line)
        seen.add(key)
    return row


# -- TOML ----------------------------------------------------------------------------------

_TOML_WHERE = re.compile(r"\s*\(at line (\d+), column (\d+)\)\s*$")


def _toml_float(text: str) -> Any:
    return number_or_text(float(text), text)


# An integer of more decimal digits than Python reads (4,300): tomllib refuses the file.
_LONG_DECIMAL = re.compile(r"[0-9][0-9_]{4300,}")


def toml_value(text: str, name: str) -> dict[str, Any]:
    """The table a TOML document holds, JSON-shaped; errors at ``FILE:LINE:COL``."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10
        import tomli as tomllib

    try:
        value: dict[str, Any] = tomllib.loads(text, parse_float=_toml_float)
    except tomllib.TOMLDecodeError as exc:
        message = str(exc)
        where = _TOML_WHERE.search(message)
        if where is None:
            if message.endswith("(at end of document)"):
                message = message.removesuffix(" (at end of document)") + " at the end"
                raise InputError(f"{message} (TOML)", name, text.count("\n") + 1) from None
            raise InputError(f"{message} (TOML)", name) from None
        message = message[: where.start()]
        raise InputError(
            f"{message} (TOML)", name, int(where.group(1)), int(where.group(2))
        ) from None
    except ValueError:  # an integer of more digits than Python reads
        found = _LONG_DECIMAL.search(text)
        line = text.count("\n", 0, found.start()) + 1 if found else None
        digits = f"{len(found.group().replace('_', '')):,} digits" if found else "too many digits"
        message = f"an integer of {digits}, more than the 4,300 Python reads (TOML)"
        raise InputError(message, name, line) from None
    plain: dict[str, Any] = _plain(value)
    return plain


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_plain(item) for item in value]
    if isinstance(value, (datetime.date, datetime.time)):
        return value.isoformat()
    if type(value) is int:  # a hex, octal or binary one may be too long to print
        return json_safe(value)
    return value
