"""The records format: line-oriented, one record per line, a one-letter prefix each.

    H agentout=1 total=1500 included=12 omitted=1488 truncated=true tokens=487
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
from agentout.formats._json import Marks, dumps
from agentout.formats._memo import recall
from agentout.records import Document, Lines, Record, Stats, View, present
from agentout.records.values import Cut

__all__ = [
    "FORMAT",
    "HEADER_DEFAULTS",
    "VERSION",
    "RecordsFormat",
    "RecordsSyntaxError",
    "format_key",
    "format_value",
    "header",
    "header_fields",
    "parse",
    "present",
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
CUT_MARK = "…+"  # after a cut value's quotes: "kept text"…+412 (characters left out)
_CUT_COUNT = re.compile(r"[1-9][0-9]*")


def format_key(key: str) -> str:
    """A key is bare when it looks like an identifier, else a JSON string."""
    return key if _BARE_KEY.match(key) else dumps(key)


def format_value(value: Any) -> str:
    """Strings bare when unambiguous, else JSON-quoted; a cut string quoted and marked
    after its quotes (§6.6); everything else compact JSON."""
    if isinstance(value, str):
        if isinstance(value, Cut):
            return f"{dumps(value.kept)}{CUT_MARK}{value.more}"
        bare = _BARE_VALUE.match(value) and value not in _LITERALS and not _NUMBER.match(value)
        return value if bare else dumps(value)
    return dumps(value)


def render_fields(fields: Mapping[str, Any]) -> str:
    """``key=value`` pairs joined by single spaces, in order, empty values included."""
    return " ".join(f"{format_key(str(k))}={format_value(v)}" for k, v in fields.items())


def render_line(kind: str, fields: Mapping[str, Any]) -> str:
    rest = render_fields(fields)
    return f"{kind} {rest}" if rest else kind


# agentout.tokens.DEFAULT_TOKENIZER, the format's default (§4.1), written here: formats
# import no tokenizer (tests/test_records_format.py holds the two equal)
DEFAULT_TOKENIZER = "o200k_base"
# The header's account fields a document leaves out when they hold these values (§4.1):
# a reader takes an absent one as its default (``header``). ``omitted`` is always
# ``total - included``; the others are constants.
HEADER_DEFAULTS: dict[str, Any] = {
    "omitted": 0,
    "reduced": 0,
    "numbers_as_text": 0,
    "truncated": False,
    "tokenizer": DEFAULT_TOKENIZER,
    "over_budget": False,
}


def header_fields(
    header: Mapping[str, Any], stats: Stats, marks: Marks | None = None
) -> dict[str, Any]:
    """The header line's fields: version, the source's own fields (empty ones left out),
    then pack's account, with the marks' fields after ``reduced``; an account field that
    holds its default (``HEADER_DEFAULTS``) is left out.

    Pack's names (total, included, ...) win over a source field of the same name.
    """
    fields: dict[str, Any] = {"agentout": VERSION, **present(header)}
    fields.update(total=stats.total, included=stats.included)
    if not stats.lean:  # a lean envelope leaves out what the rest implies
        if stats.omitted:
            fields["omitted"] = stats.omitted
        if stats.reduced:
            fields["reduced"] = stats.reduced
    if marks is not None:
        fields.update(marks.fields())
    if stats.truncated:
        fields["truncated"] = True
    fields["tokens"] = stats.tokens
    if stats.tokenizer != DEFAULT_TOKENIZER:  # lean or not: an absent name is the default
        fields["tokenizer"] = stats.tokenizer
    if stats.over_budget:
        fields["over_budget"] = True
    return fields


def header(fields: Mapping[str, Any]) -> dict[str, Any]:
    """A header line's fields as ``parse`` read them, with every account field a writer
    leaves out at its default filled in (``HEADER_DEFAULTS``; ``omitted`` as ``total -
    included``): what a reader of any version-1 document can index."""
    filled = dict(fields)
    for key, value in HEADER_DEFAULTS.items():
        filled.setdefault(key, value)
    total, included = fields.get("total"), fields.get("included")
    if "omitted" not in fields and isinstance(total, int) and isinstance(included, int):
        filled["omitted"] = total - included
    return filled


def _view_lines(record: Record, view: View) -> str:
    """One line, or one per part of a ``Lines`` view (each with the part's own kind)."""
    return recall("records", record, view, lambda: _made_lines(record, view))


def _made_lines(record: Record, view: View) -> str:
    if isinstance(view, Lines):
        return "\n".join(render_line(kind, fields) for kind, fields in view.lines)
    return render_line(record.kind, view)


class RecordsFormat:
    name = "records"

    def render(self, document: Document) -> str:
        marks = Marks.of((v for _, v in document.records), cuts=False)  # cuts: marked inline
        lines = [render_line(HEADER_KIND, header_fields(document.header, document.stats, marks))]
        lines.extend(_view_lines(r, v) for r, v in document.records)
        if summary := present(document.summary):
            lines.append(render_line(SUMMARY_KIND, summary))
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
        value, end = _decode(line, pos, number, path)
        if isinstance(value, str) and line.startswith(CUT_MARK, end):
            count = _CUT_COUNT.match(line, end + len(CUT_MARK))
            if count is None:
                raise RecordsSyntaxError(number, end + 3, "expected a count after '…+'", path)
            return Cut(value, int(count.group())), count.end()
        return value, end
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
