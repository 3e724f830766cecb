"""Reading JSON and lines from text that arrives in pieces, one record at a time.

``Reader`` buffers the text, forgets what was read once it is most of the buffer, and
knows the line and column of every position it holds; ``JsonParser`` reads one JSON
value at a time from it with the standard library's decoder, refusing what is not JSON
(NaN, Infinity), what is nested deeper than ``MAX_DEPTH``, and any value or line longer
than the record limit, each with its location. ``agentout.read.data`` decides what
the values mean. ``loads`` reads a value that is already whole (a line of JSONL, a
file) by the same rules, in the same words, and ``loads_line`` a JSONL line's bytes;
``agentout.sources.collection`` and ``agentout.deliver.hybrid`` use them.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from agentout.errors import InputError
from agentout.read.text import invalid_utf8
from agentout.records.values import NumberText, number_or_text

__all__ = ["MAX_DEPTH", "JsonParser", "Reader", "Top", "loads", "loads_line", "too_large"]

# Deeper JSON is refused: formats and renderers recurse, and no agent reads 128 levels.
MAX_DEPTH = 128
_TOO_DEEP = f"JSON nested deeper than {MAX_DEPTH} levels"

_WS = re.compile(r"[ \t\n\r]*")
_SPACE = " \t\n\r"
# What is read is forgotten once it passes this much and half the buffer: each time, the
# rest is copied, so less means more copying (a few copies of the input in all) and less
# held (fit of a big file stays under 100 MiB).
_KEEP_READ = 256 << 10
_NUMBER_TAIL = re.compile(r"[0-9.eE+-]*")
_NON_FINITE = re.compile(r'"(?:[^"\\]|\\.)*"|(-?Infinity|NaN)', re.DOTALL)


@dataclass
class Top:
    """A top-level JSON object, its arrays kept whole (they are what gets unwrapped)."""

    value: dict[str, Any]
    arrays: list[str] = field(default_factory=list)


class Reader:
    """The input's text, read on demand, with the line and column of every position."""

    def __init__(self, chunks: Iterator[str], name: str, max_record_mib: int) -> None:
        self.chunks = chunks
        self.name = name
        self.limit = max_record_mib << 20
        self.mib = max_record_mib
        self.buf = ""
        self.pos = 0
        self.eof = False
        self.dropped = 0  # characters before buf[0]
        self.line = 1  # line and column (0-based) of buf[0]
        self.col = 0

    def fill(self, want: int = 1) -> bool:
        """Read until at least ``want`` more characters are buffered; False if none came."""
        got = 0
        pieces = [self.buf]
        while got < want and not self.eof:
            piece = next(self.chunks, None)
            if piece is None:
                self.eof = True
            else:
                pieces.append(piece)
                got += len(piece)
        self.buf = "".join(pieces)
        return got > 0

    def compact(self) -> None:
        """Forget what was read before ``pos`` once it is most of the buffer."""
        if self.pos > _KEEP_READ and self.pos * 2 > len(self.buf):
            self._drop()

    def _drop(self) -> None:
        gone = self.buf[: self.pos]
        self.dropped += len(gone)
        newlines = gone.count("\n")
        if newlines:
            self.line += newlines
            self.col = len(gone) - gone.rfind("\n") - 1
        else:
            self.col += len(gone)
        self.buf = self.buf[self.pos :]
        self.pos = 0

    def where(self, index: int) -> tuple[int, int]:
        """1-based line and column of ``buf[index]``."""
        return _where(self.buf, index, self.line, self.col)

    def error(self, message: str, index: int) -> InputError:
        line, column = self.where(index)
        return InputError(message, self.name, line, column)

    def skip_ws(self) -> str | None:
        """Move past whitespace; the next character, or None at the end of the input."""
        buf, pos = self.buf, self.pos
        if pos + 1 < len(buf):  # the usual cases, without the pattern: none, or one newline
            here = buf[pos]
            if here not in _SPACE:
                return here
            after = buf[pos + 1]
            if here == "\n" and after not in _SPACE:
                self.pos = pos + 1
                return after
        while True:
            self.pos = _WS.match(self.buf, self.pos).end()  # type: ignore[union-attr]
            if self.pos < len(self.buf):
                return self.buf[self.pos]
            self.compact()
            if not self.fill():
                return None

    def peek_line(self, limit: int) -> str:
        """The rest of the current line, or its next ``limit`` characters; reads no further."""
        while len(self.buf) - self.pos < limit and not self.eof:
            if "\n" in self.buf[self.pos :]:
                break
            self.fill()
        end = self.buf.find("\n", self.pos, self.pos + limit)
        return self.buf[self.pos : end if end >= 0 else self.pos + limit]

    def too_large(self, what: str) -> str:
        return (
            too_large(what, self.mib)
            + " (raise the limit with --max-record-mib or AGENTOUT_MAX_RECORD_MIB)"
        )

    def lines(self) -> Iterator[tuple[int, str]]:
        """Each line and its number; a line over the size limit is an error."""
        number = self.line + self.buf.count("\n", 0, self.pos)
        while True:
            self.compact()
            end = self.buf.find("\n", self.pos)
            while end < 0 and not self.eof:
                if len(self.buf) - self.pos > self.limit:
                    raise InputError(self.too_large("line"), self.name, number)
                searched = len(self.buf)
                self.fill()
                end = self.buf.find("\n", searched)
            if end < 0:
                end = len(self.buf)
                if end == self.pos:
                    return
            if end - self.pos > self.limit:
                raise InputError(self.too_large("line"), self.name, number)
            yield number, self.buf[self.pos : end].removesuffix("\r")
            number += 1
            self.pos = end + 1
            if self.pos >= len(self.buf) and self.eof:
                return


class _NonFinite(Exception):
    pass


def _refuse_constant(name: str) -> Any:
    raise _NonFinite(name)


def too_large(what: str, mib: int) -> str:
    """How a line or value over the size limit is refused."""
    return f"{what} longer than {mib} MiB"


def _where(text: str, index: int, line: int, column0: int) -> tuple[int, int]:
    """1-based line and column of ``text[index]``, ``text`` starting at (line, column0)."""
    newlines = text.count("\n", 0, index)
    if newlines:
        return line + newlines, index - text.rfind("\n", 0, index)
    return line, column0 + index + 1


def _explain(exc: Exception, text: str, start: int) -> tuple[str, int]:
    """Why the JSON value at ``text[start]`` is refused, and where (an index into ``text``)."""
    if isinstance(exc, json.JSONDecodeError):
        return _message(exc.msg) + " (JSON)", exc.pos
    if isinstance(exc, _NonFinite):
        return f"{exc} is not valid JSON", _find_constant(text, start)
    if isinstance(exc, RecursionError):
        return _TOO_DEEP, start
    # ValueError: an integer of more than sys.get_int_max_str_digits()
    return str(exc).partition(":")[0] + " (JSON)", start


def _wide_float(text: str) -> Any:
    value = float(text)
    if value - value == 0 and value:  # finite and not zero: every usual number
        return value
    return number_or_text(value, text)


def _wide_int(text: str) -> Any:
    try:
        return int(text)
    except ValueError:  # more digits than Python reads
        return NumberText(text)


# A float no float holds (1e999, 1e-400) is kept as its text
# (``agentout.records.values.NumberText``): every float's text goes through
# ``_wide_float`` (one call per float, far cheaper than searching every text for long
# exponents). An integer of more digits than Python reads makes the decoder raise: the
# value is read again by ``_WIDE``, which keeps such integers as their text too.
_INT_LIMIT = "integer string conversion"

# One decoder for every call of ``loads``: json.loads with an option builds one per call.
_DECODER = json.JSONDecoder(parse_constant=_refuse_constant, parse_float=_wide_float)
_WIDE = json.JSONDecoder(
    parse_constant=_refuse_constant, parse_float=_wide_float, parse_int=_wide_int
)
_SCAN = _DECODER.scan_once  # type: ignore[attr-defined] # the C scanner, without decode()'s whitespace handling


def loads(text: str, name: str, line: int = 1) -> Any:
    """The one JSON value ``text`` holds (a line of JSONL, a whole file), refused as
    ``JsonParser`` refuses it, in the same words; the ``InputError`` is located at
    ``NAME:LINE:COL``, ``line`` being the line ``text`` starts on."""
    try:
        try:  # the usual line: the C scanner alone, no whitespace around the value
            value, end = _SCAN(text, 0)
        except StopIteration:
            end = -1
        if end != len(text):  # whitespace around the value, or an error and its message
            value = _DECODER.decode(text)
    except ValueError as exc:
        if isinstance(exc, json.JSONDecodeError) or _INT_LIMIT not in str(exc):
            message, index = _explain(exc, text, _WS.match(text).end())  # type: ignore[union-attr]
            raise InputError(message, name, *_where(text, index, line, 0)) from None
        value = _WIDE.decode(text)
    except (_NonFinite, RecursionError) as exc:
        message, index = _explain(exc, text, _WS.match(text).end())  # type: ignore[union-attr]
        raise InputError(message, name, *_where(text, index, line, 0)) from None
    # inline, as this runs for every line: nesting past MAX_DEPTH takes more than
    # MAX_DEPTH opening brackets (and as many closing ones)
    if (
        len(text) > 2 * MAX_DEPTH
        and text.count("[") + text.count("{") > MAX_DEPTH
        and _nested_deeper(value)
    ):
        start = _WS.match(text).end()  # type: ignore[union-attr]
        raise InputError(_TOO_DEEP, name, *_where(text, start, line, 0))
    return value


def loads_line(line: bytes, name: str, number: int, offset: int) -> Any:
    """The JSON value of line ``number`` of a JSONL file, given as its bytes without the
    line ending (``offset``: the file offset of its first byte). Refused as ``loads``
    refuses it; invalid UTF-8 is named by its file offset, as ``read_text`` names it."""
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as exc:
        bad = invalid_utf8(offset + exc.start, line[exc.start : exc.start + 1])
        raise InputError(bad, name, number) from None
    return loads(text, name, number)


class JsonParser:
    """JSON values read one at a time from a ``Reader``, never more than one in memory."""

    def __init__(self, reader: Reader) -> None:
        self.r = reader
        self.duplicate: tuple[str, int, int] | None = None  # the first: key, line, column
        self.duplicates = 0
        self._dup_key: str | None = None
        self.decoder = json.JSONDecoder(
            object_pairs_hook=self._object,
            parse_constant=_refuse_constant,
            parse_float=_wide_float,
        )
        self.wide = json.JSONDecoder(
            object_pairs_hook=self._object,
            parse_constant=_refuse_constant,
            parse_float=_wide_float,
            parse_int=_wide_int,
        )

    def _object(self, pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        obj = dict(pairs)
        if len(obj) != len(pairs) and self._dup_key is None:
            seen: set[str] = set()
            for key, _ in pairs:
                if key in seen:
                    self._dup_key = key
                    break
                seen.add(key)
        return obj

    def _found_duplicate(self, key: str, index: int) -> None:
        if self.duplicate is None:
            self.duplicate = (key, *self.r.where(index))
        self.duplicates += 1

    def warn_duplicates(self) -> None:
        """One warning on stderr for every duplicate key met: where the first one is."""
        if self.duplicate is not None:
            key, line, column = self.duplicate
            more = self.duplicates - 1
            print(
                f"agentout: warning: {self.r.name}:{line}:{column}: duplicate key {key!r}; "
                "the last value is kept"
                + (f" ({more} more duplicate keys after this one)" if more else ""),
                file=sys.stderr,
            )

    def value(self) -> Any:
        """The JSON value at the reader's position (whitespace already skipped)."""
        r = self.r
        r.compact()
        start = r.pos
        decoder = self.decoder
        while True:
            try:
                try:  # the C scanner itself: raw_decode's wrapper costs as much again
                    value, end = decoder.scan_once(r.buf, start)  # type: ignore[attr-defined]
                except StopIteration:  # not a value: raw_decode says why, in its words
                    value, end = decoder.raw_decode(r.buf, start)
            except json.JSONDecodeError as exc:
                incomplete = exc.msg.startswith("Unterminated string") or exc.pos >= len(r.buf) - 16
                if r.eof or not incomplete:
                    raise r.error(*_explain(exc, r.buf, start)) from None
            except ValueError as exc:
                if _INT_LIMIT not in str(exc) or decoder is self.wide:
                    raise r.error(*_explain(exc, r.buf, start)) from None
                decoder = self.wide  # read again, keeping such numbers as their text
                continue
            except (_NonFinite, RecursionError) as exc:
                raise r.error(*_explain(exc, r.buf, start)) from None
            else:
                if r.eof or not _may_go_on(value, r.buf, end):
                    break
            if len(r.buf) - start > r.limit:
                raise r.error(r.too_large("JSON value"), start)
            r.fill(want=max(len(r.buf) - start, 1 << 16))  # doubling: linear overall
        if self._dup_key is not None:
            self._found_duplicate(self._dup_key, start)
            self._dup_key = None
        if end - start > r.limit:
            raise r.error(r.too_large("JSON value"), start)
        if _too_deep(value, r.buf, start, end):
            raise r.error(_TOO_DEEP, start)
        r.pos = end
        return value

    def values(self, single: bool = False) -> Iterator[Any]:
        """Whitespace-separated values until the end (JSONL, or one value if ``single``)."""
        while self.r.skip_ws() is not None:
            yield self.value()
            if single and self.r.skip_ws() is not None:
                raise self.r.error("extra data after the JSON value", self.r.pos)

    def _expect(self, chars: str, what: str) -> str:
        found = self.r.skip_ws()
        if found is None or found not in chars:
            at = self.r.pos
            end = "" if found else ", found the end"
            raise self.r.error(f"expected {what}{end} (JSON)", at)
        self.r.pos += 1
        return found

    def _elements(self) -> Iterator[Any]:
        """The elements of the array whose '[' was just consumed, one at a time."""
        if self.r.skip_ws() == "]":
            self.r.pos += 1
            return
        while True:
            if self.r.skip_ws() is None:
                raise self.r.error("unterminated array, found the end (JSON)", self.r.pos)
            yield self.value()
            if self._expect(",]", "',' or ']' after an array element") == "]":
                return

    def top_array(self) -> Iterator[Any]:
        self._expect("[", "'['")
        yield from self._elements()
        if self.r.skip_ws() is not None:
            raise self.r.error(
                "extra data after the JSON array (for JSONL, use --input-format jsonl)",
                self.r.pos,
            )

    def top_object(self) -> Top:
        """The first top-level object, its array values read element by element."""
        self._expect("{", "'{'")
        top = Top({})
        if self.r.skip_ws() == "}":
            self.r.pos += 1
            return top
        while True:
            if self.r.skip_ws() != '"':
                raise self.r.error("expected a property name in double quotes (JSON)", self.r.pos)
            at = self.r.dropped + self.r.pos
            key = self.value()
            if key in top.value:
                self._found_duplicate(key, max(0, at - self.r.dropped))
            self._expect(":", "':' after a property name")
            if self.r.skip_ws() == "[":
                self.r.pos += 1
                top.value[key] = list(self._elements())
                if key not in top.arrays:
                    top.arrays.append(key)
            else:
                if self.r.skip_ws() is None:
                    raise self.r.error("expected a value, found the end", self.r.pos)
                top.value[key] = self.value()
                if key in top.arrays:
                    top.arrays.remove(key)
            if self._expect(",}", "',' or '}' after a property value") == "}":
                return top


# json's messages that end in " at" (a position it prints after them), as sentences.
_MESSAGES = {
    "Unterminated string starting at": "unterminated string",
    "Invalid control character at": "invalid control character in a string",
}


def _message(msg: str) -> str:
    """json's message, made to read as a sentence about the input."""
    msg = _MESSAGES.get(msg, msg)
    return msg[0].lower() + msg[1:] if msg else msg


def _may_go_on(value: Any, text: str, end: int) -> bool:
    """Could this number be the start of a longer one ("1" of "12", "0" of "0.5")?"""
    kind = type(value)
    if kind is dict or kind is list or kind is str or kind is bool or value is None:
        return False  # strings, arrays, objects and literals end where they end
    if not isinstance(value, (int, float, NumberText)):
        return False
    return _NUMBER_TAIL.match(text, end).end() == len(text)  # type: ignore[union-attr]


def _find_constant(text: str, start: int) -> int:
    for found in _NON_FINITE.finditer(text, start):
        if found.group(1):
            return found.start(1)
    return start  # pragma: no cover - the decoder only refuses what the pattern finds


def _too_deep(value: Any, text: str, start: int, end: int) -> bool:
    """Is the value read from ``text[start:end]`` nested deeper than MAX_DEPTH? Cheap
    unless the text has more brackets than levels allowed."""
    if end - start <= 2 * MAX_DEPTH:
        return False  # too short to open and close that many levels
    if text.count("[", start, end) + text.count("{", start, end) <= MAX_DEPTH:
        return False
    return _nested_deeper(value)


def _nested_deeper(value: Any) -> bool:
    """Are arrays and objects nested in ``value`` deeper than MAX_DEPTH (itself level 1)?"""
    stack: list[tuple[Any, int]] = [(value, 1)] if isinstance(value, (dict, list)) else []
    while stack:
        item, depth = stack.pop()
        if depth > MAX_DEPTH:
            return True
        children = item.values() if isinstance(item, dict) else item
        stack.extend((c, depth + 1) for c in children if isinstance(c, (dict, list)))
    return False
