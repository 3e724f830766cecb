"""Linters and type checkers: every diagnostic by place and code, each file's path said
once (``file:line:col CODE`` alone, else the file then ``  line:col CODE`` under it),
each rule's message said once, the tool's own summary kept.

Read: ruff (full and concise), flake8 and pycodestyle, pylint, mypy, pyright, eslint
(stylish and unix), tsc, golangci-lint, and rustc / clippy diagnostics (``warning:
msg`` then `` --> file:line:col``). Code frames, carets and fix hints are left out (the
output is stored); lines it does not know are kept as they are.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from agentout.records import Record
from agentout.reducers.model import Output, Reduced

__all__ = ["Lint", "compiler_messages"]


class _Diagnostic:
    """One diagnostic as its lines are read (a plain class: see agentout.frozen). ``n``:
    the output line it was read from; ``own_message``: rustc's and clippy's, a message
    of its own, said where it is."""

    __slots__ = ("code", "col", "file", "last", "line", "message", "n", "own_message")

    def __init__(
        self,
        n: int,
        file: str,
        line: str,
        col: str | None,
        code: str,
        message: str,
        last: int = 0,
        own_message: bool = False,
    ) -> None:
        self.n, self.file, self.line, self.col, self.code = n, file, line, col, code
        self.message, self.last, self.own_message = message, last, own_message

    def where(self) -> str:
        return f"{self.file}:{self.line}" + (f":{self.col}" if self.col else "")


# One line, one diagnostic: (pattern, default code when the pattern has none).
_FILE = r"^(?P<file>[^\s:][^:]*)"
_AT = _FILE + r":(?P<line>\d+):(?P<col>\d+)"
_ONE_LINE = tuple(
    re.compile(pattern)
    for pattern in (
        # ruff concise, flake8, pycodestyle: a.py:1:8: F401 msg
        _AT + r":? (?P<code>[A-Z]+\d+) (?:\[\*\] )?(?P<msg>.*)$",
        # pylint: a.py:1:0: C0114: msg (symbol)
        _AT + r": (?P<code>[A-Z]\d{4}): (?P<msg>.*)$",
        # mypy: a.py:12: error: msg  [code]   (and with --show-column-numbers)
        _FILE + r":(?P<line>\d+):(?:(?P<col>\d+):)? (?P<sev>error|warning): "
        r"(?P<msg>.*?)(?:  \[(?P<code>[\w-]+)\])?$",
        # pyright: /p/a.py:12:5 - error: msg (reportX)
        r"^\s*(?P<file>\S[^:]*):(?P<line>\d+):(?P<col>\d+) - "
        r"(?P<sev>error|warning|information): (?P<msg>.*?)(?: \((?P<code>report\w+)\))?$",
        # tsc: a.ts(3,7): error TS2322: msg   or   a.ts:3:7 - error TS2322: msg
        r"^(?P<file>[^\s(:][^(:]*)\((?P<line>\d+),(?P<col>\d+)\): "
        r"(?P<sev>error|warning) (?P<code>TS\d+): (?P<msg>.*)$",
        _AT + r" - (?P<sev>error|warning) (?P<code>TS\d+): (?P<msg>.*)$",
        # eslint unix: a.js:1:10: msg [Error/no-unused-vars]
        _AT + r": (?P<msg>.*?) \[(?:\w+/)?(?P<code>[\w/@-]+)\]$",
        # golangci-lint: a.go:5:2: msg (linter)
        _AT + r": (?P<msg>.*?) \((?P<code>[\w-]+)\)$",
    )
)
# ruff full: "F401 [*] `os` imported but unused" then " --> a.py:1:8"
# ruff's full format: ``CODE [*] message`` (or ``invalid-syntax: message``), then ``--> f:l:c``
_RUFF_HEAD = re.compile(
    r"^(?:(?P<code>[A-Z]+\d+) (?:\[\*\] )?|(?P<syntax>invalid-syntax): )(?P<msg>\S.*)$"
)
# rustc / clippy: "warning: unused variable: `x`" or "error[E0308]: mismatched types"
_RUST_HEAD = re.compile(r"^(?P<sev>error|warning)(?:\[(?P<code>[A-Z]\d{4})\])?: (?P<msg>.*)$")
_ARROW = re.compile(r"^\s*--> (?P<file>[^\s:][^:]*):(?P<line>\d+):(?P<col>\d+)$")
# eslint stylish: a file alone on a line, then "  1:10  error  msg  rule"
_STYLISH = re.compile(
    r"^\s+(?P<line>\d+):(?P<col>\d+)\s+(?P<sev>error|warning)\s+(?P<msg>.*?)\s{2,}(?P<code>[\w/@-]+)$"
)
_RUST_LINT = re.compile(r"#\[(?:warn|deny)\((?P<lint>[\w:]+)\)\]")
# Detail under a diagnostic: frames, gutters, carets, notes and help.
_DETAIL = re.compile(r"^\s*(?:\||\d+\s*[|+-]|[=^~-]|help:|note:|= )|^\s+\S|^\s*$")


class Lint:
    """Linters and type checkers: each file once, line:col CODE under it, rule messages once."""

    name = "lint"
    facts = (
        r"(?m)^([^\s:][^:\n]*):(\d+):(\d+):? ([A-Z]+\d+) ",
        r"(?m)^ *--> ([^\s:][^:\n]*):(\d+):(\d+)$",
        r"(?m)^([^\s:][^:\n]*):(\d+):(?:\d+:)? (?:error|warning): ",
    )

    def matches(self, words: Sequence[str]) -> bool:
        if not words:
            return False
        from agentout.reducers.builtin import LINT_TOOLS

        if words[0] in LINT_TOOLS:
            return words[0] != "ruff" or (len(words) > 1 and words[1] == "check")
        return tuple(words[:2]) == ("cargo", "clippy")

    def reduce(self, output: Output) -> Reduced | None:
        found, kept = _read(output.lines)
        if not found:
            return None
        messages: dict[str, tuple[str, int]] = {}
        for item in found:
            if item.own_message:
                continue
            first, times = messages.get(item.code, (item.message, 0))
            messages[item.code] = (first, times + 1)
        records = [
            Record.of({"text": _group_text(group), "n": group[0].n, "last": _last(group)}, kind="R")
            for group in _by_file(found)
        ]
        said = [
            f"{code}: {message}" + (f" (×{times})" if times > 1 else "")
            for code, (message, times) in messages.items()
        ]
        if said:
            records.append(Record.of({"text": "\n".join(said)}, kind="R"))
        for n, line in kept:
            records.append(Record.of({"text": line, "n": n}, kind="R"))
        groups = len(records) - len(said[:1]) - len(kept)
        order = [*range(groups, len(records)), *range(groups)]
        return Reduced(records, order)


def _read(lines: Sequence[str]) -> tuple[list[_Diagnostic], list[tuple[int, str]]]:
    """The diagnostics, and the other lines worth keeping (the tool's summary)."""
    found: list[_Diagnostic] = []
    kept: list[tuple[int, str]] = []
    stylish_file: str | None = None
    pending: tuple[int, str, str] | None = None  # a multi-line diagnostic's head: n, code, msg
    in_detail = rust = False
    for n, line in enumerate(lines, start=1):
        if pending is not None and (arrow := _ARROW.match(line)):
            head_n, code, message = pending
            where = (arrow["file"], arrow["line"], arrow["col"])
            found.append(_Diagnostic(head_n, *where, code, message, n, own_message=rust))
            pending, in_detail = None, True
            continue
        one = _one_line(n, line)
        if one is not None:
            found.append(one)
            pending, in_detail = None, True
            continue
        if stylish_file and (row := _STYLISH.match(line)):
            found.append(
                _Diagnostic(n, stylish_file, row["line"], row["col"], row["code"], row["msg"])
            )
            continue
        ruff, rust_head = _RUFF_HEAD.match(line), _RUST_HEAD.match(line)
        head = ruff or rust_head
        if head is not None and not line.startswith(("warning: `", "error: could not")):
            fields = head.groupdict()
            code = fields.get("code") or fields.get("syntax") or fields.get("sev") or "error"
            pending, in_detail, rust = (n, code, head["msg"]), False, ruff is None
            continue
        if in_detail and found and (lint := _RUST_LINT.search(line)):
            found[-1].code = f"{found[-1].code}[{lint['lint']}]"  # the lint, named in a note
        if in_detail and _DETAIL.match(line):
            continue
        in_detail = False
        if line.strip() and not line.startswith((" ", "\t")) and "/" in line and ":" not in line:
            stylish_file = line.strip()  # eslint stylish: the file, then its rows
            continue
        if line.strip():
            pending = None
            kept.append((n, line))
    return found, kept


def compiler_messages(text: str) -> list[tuple[str, str, str]]:
    """rustc's warnings and errors in ``text`` (what ``cargo test`` prints while it builds),
    each once as (``file:line:col``, severity, message), the severity as rustc heads it
    (``warning``, ``error``, ``error[E0308]``); frames and notes left out."""
    found, _ = _read(text.splitlines())
    seen: dict[tuple[str, str, str], None] = {}
    for d in found:
        if d.own_message:
            head = d.code.partition("[")[0]  # "warning[unused_variables]": the lint's name
            severity = head if head in ("warning", "error") else f"error[{head}]"
            seen[(d.where(), severity, d.message)] = None
    return list(seen)


def _by_file(found: Sequence[_Diagnostic]) -> list[list[_Diagnostic]]:
    """The diagnostics in runs of one file each, in the order they were printed."""
    groups: list[list[_Diagnostic]] = []
    for diagnostic in found:
        if groups and groups[-1][0].file == diagnostic.file:
            groups[-1].append(diagnostic)
        else:
            groups.append([diagnostic])
    return groups


def _last(group: Sequence[_Diagnostic]) -> int:
    return max(d.last or d.n for d in group)


def _group_text(group: Sequence[_Diagnostic]) -> str:
    """One diagnostic as ``file:line:col CODE``; several of one file as the file's name,
    then a line per place (``  line:col CODE CODE``), the codes found there together: the
    path is said once. A rustc diagnostic keeps its message (``CODE: message``)."""
    if len(group) == 1:
        return f"{group[0].where()} {_said(group[0])}"
    rows: list[list[str]] = []  # a place, then what was found there
    alone = True  # the last row holds a message of its own: nothing joins it
    for d in group:
        place = d.line + (f":{d.col}" if d.col else "")
        if rows and rows[-1][0] == place and not alone and not d.own_message:
            rows[-1].append(d.code)
        else:
            rows.append([place, _said(d)])
        alone = d.own_message
    return "\n".join([group[0].file, *("  " + " ".join(row) for row in rows)])


def _said(diagnostic: _Diagnostic) -> str:
    if diagnostic.own_message:
        return f"{diagnostic.code}: {diagnostic.message}"
    return diagnostic.code


def _one_line(n: int, line: str) -> _Diagnostic | None:
    for pattern in _ONE_LINE:
        found = pattern.match(line)
        if found is not None:
            fields = found.groupdict()
            code = fields.get("code") or fields.get("sev") or "error"
            return _Diagnostic(
                n, fields["file"], fields["line"], fields.get("col"), code, fields["msg"]
            )
    return None
