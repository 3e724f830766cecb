"""The records format: line-oriented, one record per line, a one-letter prefix each.

    H agentout=1 mode=fit total=1500 included=12 omitted=1488 truncated=true tokens=487 tokenizer=o200k_base
    R id=7 name="disk full" status=error
    F failed=3 passed=120

The full grammar is in docs/records-format.md; ``parse`` reads it back.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from typing import Any

from agentout.records import Document, Record, Stats, View, is_empty

__all__ = ["FORMAT", "VERSION", "RecordsFormat", "RecordsSyntaxError", "parse", "render_line"]

VERSION = 1
HEADER_KIND = "H"
SUMMARY_KIND = "F"

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
    return key if _BARE_KEY.match(key) else _json(key)


def format_value(value: Any) -> str:
    """Strings bare when unambiguous, else JSON-quoted; everything else compact JSON."""
    if isinstance(value, str):
        bare = _BARE_VALUE.match(value) and value not in _LITERALS and not _NUMBER.match(value)
        return value if bare else _json(value)
    return _json(value)


def render_line(kind: str, fields: Mapping[str, Any]) -> str:
    parts = [kind]
    parts.extend(
        f"{format_key(str(k))}={format_value(v)}" for k, v in fields.items() if not is_empty(v)
    )
    return " ".join(parts)


def header_fields(header: Mapping[str, Any], stats: Stats) -> dict[str, Any]:
    fields: dict[str, Any] = {"agentout": VERSION, **header}
    fields.update(total=stats.total, included=stats.included, omitted=stats.omitted)
    if stats.reduced:
        fields["reduced"] = stats.reduced
    fields.update(truncated=stats.truncated, tokens=stats.tokens, tokenizer=stats.tokenizer)
    if stats.over_budget:
        fields["over_budget"] = True
    return fields


class RecordsFormat:
    name = "records"

    def render(self, document: Document) -> str:
        lines = [render_line(HEADER_KIND, header_fields(document.header, document.stats))]
        lines.extend(render_line(r.kind, v) for r, v in document.records)
        if document.summary:
            lines.append(render_line(SUMMARY_KIND, document.summary))
        return "\n".join(lines) + "\n"

    def fragment(self, record: Record, view: View) -> str:
        return render_line(record.kind, view) + "\n"


FORMAT = RecordsFormat()


class RecordsSyntaxError(ValueError):
    def __init__(self, line: int, column: int, message: str) -> None:
        super().__init__(f"{line}:{column}: {message}")
        self.line, self.column, self.message = line, column, message


def parse(text: str) -> list[tuple[str, dict[str, Any]]]:
    """Read records-format text back into (kind, fields) pairs, in order."""
    out: list[tuple[str, dict[str, Any]]] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line:
            continue
        kind, rest = line[0], line[1:]
        if not kind.isupper() or (rest and not rest.startswith(" ")):
            raise RecordsSyntaxError(number, 1, "a line starts with one capital letter")
        out.append((kind, dict(_fields(rest, number))))
    return out


_decoder = json.JSONDecoder()


def _fields(rest: str, line: int) -> Iterator[tuple[str, Any]]:
    pos = 0
    n = len(rest)
    while pos < n:
        if rest[pos] != " ":
            raise RecordsSyntaxError(line, pos + 2, "expected a space between fields")
        pos += 1
        key, pos = _token(rest, pos, line, stop="=")
        if pos >= n or rest[pos] != "=":
            raise RecordsSyntaxError(line, pos + 2, "expected '=' after a key")
        pos += 1
        value, pos = _token(rest, pos, line, stop=" ")
        yield str(key), value


def _token(rest: str, pos: int, line: int, stop: str) -> tuple[Any, int]:
    if pos < len(rest) and rest[pos] in '"[{':
        try:
            value, end = _decoder.raw_decode(rest, pos)
        except json.JSONDecodeError as exc:
            raise RecordsSyntaxError(line, exc.pos + 2, exc.msg) from None
        return value, end
    end = rest.find(stop, pos)
    end = len(rest) if end < 0 else end
    word = rest[pos:end]
    if not word:
        raise RecordsSyntaxError(line, pos + 2, "empty key or value")
    if stop == " " and (word in _LITERALS or _NUMBER.match(word)):
        return json.loads(word), end
    return word, end
