"""A collection's records, from files, directories and globs, one at a time.

What a path holds decides how it is read (``agentout.read.structured``, the reader ``fit`` uses):

- ``.jsonl`` / ``.ndjson``: one record per line, streamed (memory stays flat whatever the
  size); a bad line is reported and skipped, the rest still read.
- ``.json``: a JSON value; ``.yaml`` / ``.yml``: YAML 1.2 documents (safely, see
  ``safe_yaml``); ``.toml``: a TOML table; ``.csv`` / ``.tsv``: a table with a header
  row, a record per row (values are strings);
  ``.md`` / ``.markdown``: the YAML front matter plus the text after it as ``body``.
- a directory: every such file under it, in name order, hidden ones left out.
- a glob (``kb/**/*.yaml``): the files it matches, in name order; ``-``: stdin as JSONL
  (a JSON array when it starts with ``[``).

A value becomes records by ``agentout.read.structured``' rule, the one ``fit`` follows: an array
gives one record per element; a mapping that holds a single key holding a mapping
(TMKB's ``threat_pattern:`` files) or an array is unwrapped; a mapping holding an array
of records (under ``items``, ``data``...) gives that array's elements; any other mapping
is one record. A record that is not a mapping becomes ``{"value": ...}``.

A file that cannot be read (malformed, empty, binary, unknown type, a value no reader
expected) is skipped and reported as an ``InputError`` naming ``FILE:LINE``; the others
are still read. A number no JSON value holds (an integer of 5,000 hex digits, ``1e-400``)
is not a reason: it is read as its text, and formats count it (``numbers_as_text``). The
``LoadReport`` says how many files were read and skipped.

JSON is read by the rules of ``agentout fit`` (``agentout.read.stream.loads``), in
its words: NaN and Infinity refused, nesting deeper than ``MAX_DEPTH`` (counted from the
top of the line, file or YAML document) refused, a JSONL line at most the same 16 MiB,
invalid UTF-8 named by its byte offset.
"""

from __future__ import annotations

import glob
import json
import os
import sys
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, BinaryIO

from agentout.errors import InputError
from agentout.read import structured as inputs
from agentout.read.data import DEFAULT_MAX_RECORD_MIB
from agentout.read.safe_yaml import load_documents
from agentout.read.stream import loads, loads_line, too_large
from agentout.read.text import invalid_utf8
from agentout.records.values import json_safe

__all__ = [
    "MAX_LINE_BYTES",
    "SUFFIXES",
    "Item",
    "LoadReport",
    "expand",
    "load",
]

SUFFIXES = inputs.SUFFIXES
# One JSONL line may hold at most what fit allows a record; a longer one is skipped,
# read in pieces.
MAX_LINE_BYTES = DEFAULT_MAX_RECORD_MIB << 20
_SNIFF_BYTES = 8192
_KEPT_PROBLEMS = 100  # a JSONL file of a million bad lines reports the first ones
_GLOB_CHARS = frozenset("*?[")
_BOM = b"\xef\xbb\xbf"


@dataclass(frozen=True)
class Item:
    """One record and where it came from: ``FILE`` (one record per file),
    ``FILE[N]`` (element N of an array or document N) or ``FILE:LINE`` (JSONL).

    ``raw`` is the exact JSONL line when the record is one, so a spill is byte-exact.
    """

    data: dict[str, Any]
    source: str
    raw: bytes | None = None

    def json_line(self) -> bytes:
        """The record as one line of JSONL (its own line when it came from one)."""
        if self.raw is not None:
            return self.raw + b"\n"
        try:
            text = json.dumps(self.data, ensure_ascii=False, separators=(",", ":"), default=str)
        except ValueError:  # a number Python cannot print: written as its digits, a string
            safe = json_safe(self.data)
            text = json.dumps(safe, ensure_ascii=False, separators=(",", ":"), default=str)
        return text.encode("utf-8") + b"\n"


@dataclass
class LoadReport:
    """What loading went through: files read and skipped, bad lines, the problems."""

    files: int = 0
    skipped: int = 0
    bad_lines: int = 0
    problems: list[InputError] = field(default_factory=list)
    more_problems: int = 0  # problems beyond the ones kept
    on_problem: Callable[[InputError], None] | None = None

    def problem(self, error: InputError) -> None:
        if self.on_problem is not None:
            self.on_problem(error)
        if len(self.problems) < _KEPT_PROBLEMS:
            self.problems.append(error)
        else:
            self.more_problems += 1

    def skip(self, error: InputError) -> None:
        self.skipped += 1
        self.problem(error)


def load(paths: Iterable[str | os.PathLike[str]], report: LoadReport) -> Iterator[Item]:
    """Every record under ``paths``, in order; problems go to ``report``, never raised."""
    for path in paths:
        for name, kind in expand(os.fspath(path), report):
            yield from _read_file(name, kind, report)


# -- finding files ----------------------------------------------------------------------


def expand(path: str, report: LoadReport) -> Iterator[tuple[str, str | None]]:
    """The files ``path`` names, each with its kind (None: unknown); problems reported."""
    if path == "-":
        yield path, "stdin"
        return
    if not os.path.exists(path) and _GLOB_CHARS & set(path):
        matches = sorted(glob.glob(path, recursive=True))
        files = [m for m in matches if os.path.isfile(m)]
        if not files:
            report.problem(InputError("no files match this pattern", path))
        for match in files:
            yield match, _kind(match)
        return
    if os.path.isdir(path):
        found = _walk(path)
        if not found:
            suffixes = ", ".join(sorted(SUFFIXES))
            report.problem(InputError(f"no files to read in this directory ({suffixes})", path))
        for name in found:
            yield name, SUFFIXES[_suffix(name)]
        return
    if not os.path.lexists(path):
        report.skip(InputError("no such file", path))
        return
    yield path, _kind(path)


def _suffix(name: str) -> str:
    return os.path.splitext(name)[1].lower()


def _kind(name: str) -> str | None:
    return SUFFIXES.get(_suffix(name))


def _walk(root: str) -> list[str]:
    """Files under ``root`` in path order (``a/z.json`` before ``b.yaml``), hidden ones out."""
    found: list[tuple[list[str], str]] = []
    for top, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        for name in files:
            if not name.startswith(".") and _suffix(name) in SUFFIXES:
                path = os.path.join(top, name)
                found.append((os.path.relpath(path, root).split(os.sep), path))
    return [path for _, path in sorted(found)]


# -- reading one file -------------------------------------------------------------------


def _read_file(name: str, kind: str | None, report: LoadReport) -> Iterator[Item]:
    if kind is None:
        known = ", ".join(sorted(SUFFIXES))
        report.skip(InputError(f"unknown kind of file (known: {known}, or - for stdin)", name))
        return
    try:
        handle: BinaryIO = sys.stdin.buffer if kind == "stdin" else open(name, "rb")  # noqa: SIM115
    except OSError as exc:
        report.skip(InputError(_os_message(exc), name))
        return
    display = "<stdin>" if kind == "stdin" else name
    try:
        if kind == "stdin":
            kind = "json" if _peek(handle).lstrip().startswith(b"[") else "jsonl"
        if kind == "jsonl":
            yield from _read_jsonl(handle, display, report)
            return
        try:
            items = list(_read_whole(handle.read(), display, kind))
        except InputError as exc:
            report.skip(exc)
            return
        except (ValueError, TypeError, OverflowError, RecursionError) as exc:
            # a value no reader expected: this file is skipped, named; the others are read
            report.skip(InputError(f"cannot read a value: {str(exc)[:200]}", display))
            return
        report.files += 1
        yield from items
    except OSError as exc:  # e.g. reading a directory named like a file
        report.skip(InputError(_os_message(exc), display))
    finally:
        if handle is not sys.stdin.buffer:
            handle.close()


def _os_message(exc: OSError) -> str:
    if isinstance(exc, FileNotFoundError):
        return "no such file"
    if isinstance(exc, IsADirectoryError):
        return "is a directory"
    return exc.strerror or str(exc)


def _peek(handle: BinaryIO) -> bytes:
    peek = getattr(handle, "peek", None)
    return peek(_SNIFF_BYTES)[:_SNIFF_BYTES] if peek is not None else b""


def _decode(data: bytes, name: str) -> str:
    """UTF-8 text of a whole file, or an ``InputError`` saying why it is not text."""
    if b"\x00" in data[:_SNIFF_BYTES]:
        raise InputError("binary file (a NUL byte), not JSON, YAML, TOML, CSV or Markdown", name)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        bad = invalid_utf8(exc.start, data[exc.start : exc.start + 1])
        raise InputError(bad, name, line) from None
    text = text.removeprefix("\ufeff")
    if not text.strip():
        raise InputError("empty file: no records", name)
    return text


def _read_whole(data: bytes, name: str, kind: str) -> Iterator[Item]:
    text = _decode(data, name)
    if kind in ("csv", "tsv"):
        delimiter = "," if kind == "csv" else "\t"
        rows = list(inputs.csv_rows([text], name, delimiter=delimiter))
        for line, row in rows:
            yield Item(dict(row), f"{name}:{line}")
        return
    if kind == "json":
        values = [loads(text, name)]
    elif kind == "toml":
        values = [inputs.toml_value(text, name)]
    elif kind == "yaml":
        values = list(load_documents(text, name))
    else:
        values = [_front_matter(text, name)]
    if kind == "yaml" and all(v is None for v in values):
        raise InputError("no YAML data (only comments or empty documents)", name)
    documents = [v for v in values if v is not None]
    several = len(documents) > 1
    for number, value in enumerate(documents):
        label = f"{name}[{number}]" if several else name
        yield from _records(value, label)


def _records(value: Any, label: str) -> Iterator[Item]:
    """The records of a value by ``agentout.read.structured``' rule (see the module doc)."""
    records, key = inputs.records_of(value)
    if records is not value and (key is not None or isinstance(_only(value), list)):
        label = f"{label}.{key}" if key is not None else label
        for index, element in enumerate(records):
            yield Item(_as_record(element), f"{label}[{index}]")
    elif isinstance(value, list):
        for index, element in enumerate(value):
            yield Item(_as_record(element), f"{label}[{index}]")
    else:
        yield Item(_as_record(records[0]), label)


def _only(value: Any) -> Any:
    """The value of a mapping's single key, else None."""
    return next(iter(value.values())) if isinstance(value, dict) and len(value) == 1 else None


def _as_record(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {"value": value}


def _front_matter(text: str, name: str) -> dict[str, Any]:
    """The front matter mapping (unwrapped like any file) and the rest as ``body``."""
    lines = text.splitlines(keepends=True)
    record: dict[str, Any] = {}
    body = text
    if lines and lines[0].rstrip() == "---":
        end = next((i for i, ln in enumerate(lines[1:], 1) if ln.rstrip() in ("---", "...")), None)
        if end is None:
            raise InputError("front matter starts with --- but never ends", name, 1)
        documents = list(load_documents("".join(lines[1:end]), name, first_line=2))
        matter = documents[0] if documents else None
        if isinstance(matter, dict) and len(matter) == 1:
            (inner,) = matter.values()
            matter = inner if isinstance(inner, dict) else matter
        if matter is not None and not isinstance(matter, dict):
            raise InputError("front matter is not a mapping of fields", name, 2)
        record = dict(matter or {})
        body = "".join(lines[end + 1 :])
    if body.strip() and "body" not in record:
        record["body"] = body.strip("\n")
    return record


def _read_jsonl(handle: BinaryIO, name: str, report: LoadReport) -> Iterator[Item]:
    """Stream a JSONL file line by line; a bad line is reported and skipped."""
    if b"\x00" in _peek(handle):
        report.skip(InputError("binary file (a NUL byte), not JSONL", name))
        return
    good = bad = 0
    number = 0
    offset = 0  # bytes before the line read
    while True:
        line = handle.readline(MAX_LINE_BYTES)
        if not line:
            break
        number += 1
        start, offset = offset, offset + len(line)
        if number == 1 and line.startswith(_BOM):
            line, start = line[len(_BOM) :], start + len(_BOM)
        if len(line) >= MAX_LINE_BYTES and not line.endswith(b"\n"):
            while rest := handle.readline(MAX_LINE_BYTES):  # the rest of the line, unkept
                offset += len(rest)
                if rest.endswith(b"\n"):
                    break
            bad += 1
            report.problem(InputError(too_large("line", MAX_LINE_BYTES >> 20), name, number))
            continue
        line = line.rstrip(b"\r\n")
        if not line or line.isspace():
            continue
        try:
            value = loads_line(line, name, number, start)
        except InputError as exc:
            bad += 1
            report.problem(exc)
            continue
        good += 1
        yield Item(_as_record(value), f"{name}:{number}", line)
    report.bad_lines += bad
    if good:
        report.files += 1
    elif bad:
        report.skipped += 1
    else:
        report.skip(InputError("empty file: no records", name))
