"""The records format: line-oriented, one record per line, a one-letter prefix each.

    H agentout=1 total=1500 included=12 omitted=1488 truncated=true tokens=487 tokenizer=o200k_base
    R id=7 name="disk full" status=error
    F failed=3 passed=120

The full grammar is in docs/records-format.md (version 1); ``parse`` reads it back.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from typing import Any

from agentout.errors import InputError
from agentout.records import Document, Lines, Record, Stats, View, is_empty

__all__ = [
    "FORMAT",
    "VERSION",
    "RecordsFormat",
    "RecordsSyntaxError",
    "format_key",
    "format_value",
    "header_fields",
    "parse",
    "render_fields",
    "render_line",
]

VERSION = 1
HEADER_KIND = "H"
SUMMARY_KIND = "F"

_KIND = re.compile(r"[A-Z]\Z")
_BARE_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]*\Z")
_BARE_VALUE = re.compile(r"[A-Za-z0-9_./:@+-]+\Z")
_NUMBER = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?\Z")
_LITERALS = frozenset({"true", "false", "null"})


# Characters that str.splitlines() and other readers treat as line breaks but JSON leaves
# raw: escaped too, so one record is always one line whatever splits it.
_LINE_BREAKS = str.maketrans({"\x85": "\\u0085", "\u2028": "\\u2028", "\u2029": "\\u2029"})


def _json(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)
    return text.translate(_LINE_BREAKS)


def format_key(key: str) -> str:
    """A key is bare when it looks like an identifier, else a JSON string."""
    return key if _BARE_KEY.match(key) else _json(key)


def format_value(value: Any) -> str:
    """Strings bare when unambiguous, else JSON-quoted; everything else compact JSON."""
    if isinstance(value, str):
        bare = _BARE_VALUE.match(value) and value not in _LITERALS and not _NUMBER.match(value)
        return value if bare else _json(value)
    return _json(value)


def render_fields(fields: Mapping[str, Any]) -> str:
    """``key=value`` pairs joined by single spaces, in order; empty fields omitted."""
    return " ".join(
        f"{format_key(str(k))}={format_value(v)}" for k, v in fields.items() if not is_empty(v)
    )


def render_line(kind: str, fields: Mapping[str, Any]) -> str:
    rest = render_fields(fields)
    return f"{kind} {rest}" if rest else kind


def header_fields(header: Mapping[str, Any], stats: Stats) -> dict[str, Any]:
    """The header line's fields: version, the source's own fields, then pack's account.

    Pack's names (total, included, ...) win over a source field of the same name.
    """
    fields: dict[str, Any] = {"agentout": VERSION, **header}
    fields.update(total=stats.total, included=stats.included, omitted=stats.omitted)
    if stats.reduced:
        fields["reduced"] = stats.reduced
    fields.update(truncated=stats.truncated, tokens=stats.tokens, tokenizer=stats.tokenizer)
    if stats.over_budget:
        fields["over_budget"] = True
    return fields


def _view_lines(record: Record, view: View) -> str:
    """One line, or one per part of a ``Lines`` view (each with the part's own kind)."""
    if isinstance(view, Lines):
        return "\n".join(render_line(kind, fields) for kind, fields in view.lines)
    return render_line(record.kind, view)


class RecordsFormat:
    name = "records"

    def render(self, document: Document) -> str:
        lines = [render_line(HEADER_KIND, header_fields(document.header, document.stats))]
        lines.extend(_view_lines(r, v) for r, v in document.records)
        if any(not is_empty(v) for v in document.summary.values()):
            lines.append(render_line(SUMMARY_KIND, document.summary))
        return "\n".join(lines) + "\n"

    def fragment(self, record: Record, view: View) -> str:
        return _view_lines(record, view) + "\n"


FORMAT = RecordsFormat()


class RecordsSyntaxError(InputError, ValueError):
    """A line that breaks the grammar; ``line`` and ``column`` are 1-based."""

    def __init__(self, line: int, column: int, message: str, path: str | None = None) -> None:
        super().__init__(message, path, line, column)


def parse(text: str, path: str | None = None) -> list[tuple[str, dict[str, Any]]]:
    """Read records-format text back into (kind, fields) pairs, in order.

    Lines end at LF only (a CR before it is tolerated); blank lines are skipped. Anything
    off the grammar raises ``RecordsSyntaxError`` naming ``path``, line and column.
    """
    out: list[tuple[str, dict[str, Any]]] = []
    for number, line in enumerate(text.split("\n"), start=1):
        line = line.removesuffix("\r")
        if not line:
            continue
        if not _KIND.match(line[0]) or (len(line) > 1 and line[1] != " "):
            raise RecordsSyntaxError(number, 1, "a line starts with one capital letter A-Z", path)
        fields: dict[str, Any] = {}
        for column, key, value in _fields(line, number, path):
            if key in fields:
                raise RecordsSyntaxError(number, column, f"duplicate key {key!r}", path)
            fields[key] = value
        out.append((line[0], fields))
    return out


_decoder = json.JSONDecoder()


def _fields(line: str, number: int, path: str | None) -> Iterator[tuple[int, str, Any]]:
    pos, end = 1, len(line)
    while pos < end:
        if line[pos] != " ":
            raise RecordsSyntaxError(number, pos + 1, "expected one space between fields", path)
        start = pos = pos + 1
        key, pos = _key(line, pos, number, path)
        if pos >= end or line[pos] != "=":
            raise RecordsSyntaxError(number, pos + 1, "expected '=' after a key", path)
        value, pos = _value(line, pos + 1, number, path)
        yield start + 1, key, value


def _key(line: str, pos: int, number: int, path: str | None) -> tuple[str, int]:
    if line.startswith('"', pos):
        key, end = _decode(line, pos, number, path)
        return key, end
    end = pos
    while end < len(line) and line[end] not in " =":
        end += 1
    word = line[pos:end]
    if not _BARE_KEY.match(word):
        raise RecordsSyntaxError(number, pos + 1, f"bad bare key {word!r}", path)
    return word, end


def _value(line: str, pos: int, number: int, path: str | None) -> tuple[Any, int]:
    if pos < len(line) and line[pos] in '"[{':
        return _decode(line, pos, number, path)
    end = line.find(" ", pos)
    end = len(line) if end < 0 else end
    word = line[pos:end]
    if word in _LITERALS or _NUMBER.match(word):
        return json.loads(word), end
    if not _BARE_VALUE.match(word):
        raise RecordsSyntaxError(number, pos + 1, f"bad bare value {word!r}", path)
    return word, end


def _decode(line: str, pos: int, number: int, path: str | None) -> tuple[Any, int]:
    try:
        return _decoder.raw_decode(line, pos)
    except json.JSONDecodeError as exc:
        raise RecordsSyntaxError(number, exc.pos + 1, f"{exc.msg} (JSON)", path) from None
