"""A failure's error line and the values it compared, each said once, as the report shows them.

The error line is the runner's first line of the error (``KeyError: 'DE'``). A failed
``assert`` statement is written as pytest means it (``assert 50 == 150``, not
``AssertionError: assert 50 == 150``: the statement already says what failed, and pytest
strips the prefix itself wherever it can). Expected and got, when the runner compared
values, come as fields only where the line does not already show them:

- the line shows both (``assert 50 == 150``): the line alone;
- pytest cut a value to fit its line (``['The Catcher... 'The Hobbit']``) and the whole
  values are short: the line is written again with them, and nothing else;
- otherwise the line as printed, and ``expected``/``got`` for the side it does not show
  as compared (an expression such as ``(50 * 4)``, or a value pytest cut): outside
  ``debug``, a window around where the two first differ, or only the items that differ.

A diff comes only when neither shows where the values differ.
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass
from typing import Any

from agentout.sources.testing.assertions import expected_got, narrow, split_comparison
from agentout.sources.testing.model import Failure, clean

__all__ = ["ASSERT", "Stated", "error_text", "stated"]

ASSERT = "assert "  # a failed assert statement's message, as pytest's rewriting words it
MSG_CHARS = 160
_STATING_CHARS = 2 * MSG_CHARS
_CUT_MARK = re.compile(r"\.\.\.|…|\[\d+ chars\]")  # ours, pytest's, unittest's
_PYTEST_CUT = "..."
# How much of a compared value the fullest view holds, by focus (`debug` shows more).
_VALUE_CHARS = {"debug": 400}
_DEFAULT_VALUE_CHARS = 120
# Outside `debug`, a long expected/got is shown as a window around where the two first
# differ: a few characters before (so the reader sees which item it is), more after.
_WINDOW_CHARS, _WINDOW_BEFORE = 40, 12
_NUMBER = re.compile(r"-?(?:0|[1-9]\d{0,15})(?:\.\d{1,15})?\Z")


@dataclass(frozen=True)
class Stated:
    """What a failure's record says about its error: the line, the values the line does
    not show (``expected``, ``got``), and whether a diff is still needed."""

    error: str
    values: dict[str, Any]
    wants_diff: bool


def error_text(failure: Failure, chars: int = MSG_CHARS) -> str:
    """``KeyError: 'DE'``; a failed assert statement alone (``assert 50 == 150``); the
    message's first line cut to ``chars``."""
    kind = clean(failure.error_type or "Error", 80)
    line = clean(failure.message.strip().split("\n", 1)[0], chars)
    if not line:
        return kind
    if line.startswith(ASSERT) and kind.rsplit(".", 1)[-1] == "AssertionError":
        return line
    return f"{kind}: {line}"


def stated(failure: Failure, focus: str) -> Stated:
    """The error line and the compared values a record of ``failure`` shows (see the
    module's docstring), at ``focus``."""
    error = error_text(failure)
    if failure.expected is None or failure.got is None:
        return Stated(error, {}, True)
    # A line that states both values is shown whole up to twice the usual length: the
    # values are said once, there, rather than cut from it and said again beside it.
    if expected_got(clean(failure.message.strip().split("\n", 1)[0], _STATING_CHARS)) == (
        failure.expected,
        failure.got,
    ):  # a diff only if the runner cut the values where they differ
        located = _window(failure.expected, failure.got)[2]
        return Stated(error_text(failure, _STATING_CHARS), {}, not located)
    line = clean(failure.message.strip().split("\n", 1)[0], MSG_CHARS)
    shown = expected_got(line)  # the values as the line states them, if it does
    limit = _VALUE_CHARS.get(focus, _DEFAULT_VALUE_CHARS)
    short = limit if focus == "debug" else _WINDOW_CHARS
    expected, got = failure.expected, failure.got
    if line.startswith(ASSERT) and not (_cut(expected, short) or _cut(got, short)):
        restated = _restated(line, expected, got)
        if restated is not None:  # pytest cut the values to fit its line: say them whole
            return Stated(error[: len(error) - len(line)] + restated, {}, False)
    expected, got = narrow(expected, got)
    if focus == "debug":
        wants_diff = _cut(expected, limit) or _cut(got, limit)
    else:
        expected, got, located = _window(expected, got)
        wants_diff = not located
    values: dict[str, Any] = {}
    if shown is None or shown[0] != expected:
        values["expected"] = _value(expected, limit)
    if shown is None or shown[1] != got:
        values["got"] = _value(got, limit)
    return Stated(error, values, wants_diff)


def _restated(line: str, expected: str, got: str) -> str | None:
    """``assert GOT OP EXPECTED`` when each side of pytest's ``assert`` line is the value
    or pytest's cut of it, else None (a side is an expression, or another comparison)."""
    sides = split_comparison(line[len(ASSERT) :])
    if sides is None:
        return None
    left, op, right = sides
    if op == "==":
        wanted: str | None = expected
    else:
        wanted = expected[len(op) + 1 :] if expected.startswith(f"{op} ") else None
    if wanted is None or not (_abbreviates(left, got) and _abbreviates(right, wanted)):
        return None
    return f"{ASSERT}{got} {op} {wanted}"


def _abbreviates(side: str, value: str) -> bool:
    """Whether ``side`` is ``value`` itself or pytest's cut of it (``['ab... 'yz']``)."""
    if side == value:
        return True
    head, mark, tail = side.partition(_PYTEST_CUT)
    fits = len(value) > len(head) + len(tail)
    return bool(mark) and fits and value.startswith(head) and value.endswith(tail)


def _value(text: str | None, limit: int) -> Any:
    """A compared value as JSON would have it: ``200`` a number, ``'0.05'`` the string
    ``0.05``; anything else (containers, objects) as the repr text."""
    text = clean(text or "", limit)
    if _NUMBER.match(text):
        return json.loads(text)
    if len(text) > 1 and text[0] == text[-1] and text[0] in "'\"":
        try:
            value = ast.literal_eval(text)
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            return text
        if isinstance(value, str) and value:
            return value
    return text


def _cut(text: str | None, limit: int) -> bool:
    """Whether a value is shown shortened (by us or the runner): then the diff tells more."""
    return text is not None and (len(text) > limit or bool(_CUT_MARK.search(text)))


def _window(expected: str, got: str) -> tuple[str, str, bool]:
    """``expected`` and ``got`` cut to a window around their first difference, ``…`` marking
    what is left out, and whether that window shows the difference (it does not when the
    runner already cut the values there, as unittest's ``[27 chars]``)."""
    pairs = zip(expected, got, strict=False)  # the shorter one ends the shared start
    start = next((i for i, (a, b) in enumerate(pairs) if a != b), min(len(expected), len(got)))
    marks = [m for text in (expected, got) for m in _CUT_MARK.finditer(text)]
    located = expected != got and not any(m.start() <= start < m.end() for m in marks)
    if max(len(expected), len(got)) <= _WINDOW_CHARS:
        return expected, got, located
    begin = max(0, start - _WINDOW_BEFORE)
    item = expected.rfind(", ", begin, start)  # start at the differing item if it is near
    begin = item + 2 if item >= 0 else begin
    for mark in marks:  # never start inside the runner's own cut mark
        if mark.start() < begin < mark.end():
            begin = mark.end()
    begin = 0 if begin <= _WINDOW_BEFORE // 2 else begin

    def cut(text: str) -> str:
        end = begin + _WINDOW_CHARS
        return ("…" if begin else "") + text[begin:end] + ("…" if len(text) > end else "")

    return cut(expected), cut(got), located
