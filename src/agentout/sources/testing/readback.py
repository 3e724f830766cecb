"""Reading an agent report back, for a program that reads it: its failures
(``failures_of``), each with its file; the tests a record names (``named_tests``); each
file's counts (``file_counts``); a failure's error type (``error_type``)."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

__all__ = ["error_type", "failures_of", "file_counts", "named_tests", "split_top"]


_FAILING = ("failed", "subtests_failed", "errors")


def failures_of(text: str, path: str | None = None) -> list[dict[str, Any]]:
    """The ``R`` records of a report (records or JSON format), each with the ``file`` of
    the ``P`` line above it: what a program reading the report needs. Text that is neither
    raises ``InputError`` naming ``path`` and the line."""
    out: list[dict[str, Any]] = []
    file: dict[str, Any] = {}
    for kind, fields in _rows(text, path):
        if kind == "P":
            file = {"file": fields.get("file", "?")}
        elif kind == "R":
            out.append({**file, **fields})
    return out


def file_counts(text: str, path: str | None = None) -> dict[str, dict[str, int]]:
    """Each ``P`` line's counts (failed, subtests_failed, errors), as the report means
    them: a ``P`` line with none counts the tests its ``R`` records name, all failed."""
    out: dict[str, dict[str, int]] = {}
    counting: dict[str, int] | None = None  # the last P line's, when it said no count
    for kind, fields in _rows(text, path):
        if kind == "P":
            said = {k: fields[k] for k in _FAILING if isinstance(fields.get(k), int)}
            counting = None if said else {"failed": 0}
            out[str(fields.get("file", "?"))] = counting or said
        elif kind == "R" and counting is not None:
            more = fields.get("more", 0)
            counting["failed"] += len(named_tests(fields)) + (more if isinstance(more, int) else 0)
    return out


def error_type(row: Mapping[str, Any]) -> str:
    """The error type a failure record names: ``KeyError`` of ``KeyError: 'DE'``, and
    ``AssertionError`` for a failed assert statement (``assert 50 == 150``)."""
    error = str(row.get("error", ""))
    if error.startswith("assert "):
        return "AssertionError"
    return error.split(": ", 1)[0]


def _rows(text: str, path: str | None) -> list[tuple[str, dict[str, Any]]]:
    """(kind, fields) of a report in the records format or JSON."""
    from agentout.errors import InputError
    from agentout.formats.records import parse

    if not text.lstrip().startswith("{"):
        rows = parse(text, path=path)
    else:  # JSON: records in order, the kind in "_kind"
        try:
            records = json.loads(text)["records"]
            rows = [(row.pop("_kind", "R"), row) for row in records]
        except json.JSONDecodeError as exc:
            raise InputError(f"not a JSON report: {exc.msg}", path, exc.lineno, exc.colno) from None
        except (KeyError, TypeError, AttributeError):
            raise InputError("not an agentout report: no list of records", path) from None
    return rows


def named_tests(row: Mapping[str, Any]) -> list[str]:
    """The tests a report's ``R`` record names, as pytest's names within the file
    (``Class::test``, ``test[id]``, ``test (subtest)``): what ``failures_of`` gives back
    for a program that wants the list."""
    test = row.get("test")
    if test is None:
        return []
    if "subtests" in row:
        cases = [re.sub(r" L\d+$", "", str(case)) for case in row["subtests"]]
        return [f"{test} {case}" for case in cases]
    also = row.get("also") or []
    parts = also if isinstance(also, list) else split_top(str(also))
    return [str(test)] + [re.sub(r" L\d+$", "", str(part)) for part in parts]


def split_top(text: str) -> list[str]:
    """``text`` split at each ", " outside brackets: ``a L1, b (i=1, j=2)`` -> 2 parts."""
    parts, depth, start = [], 0, 0
    for i, char in enumerate(text):
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth = max(0, depth - 1)
        elif depth == 0 and text.startswith(", ", i):
            parts.append(text[start:i])
            start = i + 2
    parts.append(text[start:])
    return parts
