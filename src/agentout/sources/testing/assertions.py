"""Expected vs got, read from an assertion message as each test runner words it.

pytest (``assert 50 == 200``), unittest (``50 != 200``, ``Lists differ: ...``), JUnit
and AssertJ (``expected:<200> but was:<50>``), Hamcrest (``Expected: ... but: was ...``),
Jest (``Expected: ... Received: ...``), testify (``expected: ... actual: ...``), Rust
(``left: ... right: ...``) and the Go idiom ``got X, want Y``. The left side of a
comparison is what the code produced (pytest's own convention), the right side what the
test expected.
"""

from __future__ import annotations

import ast
import re
from typing import Any

__all__ = ["expected_got", "narrow", "split_comparison"]

_SCAN_CHARS = 4000
_LITERAL_CHARS = 2000
_MISSING = object()
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
_OPS = (" not in ", " is not ", " == ", " != ", " >= ", " <= ", " in ", " is ", " < ", " > ")
_OPENERS, _CLOSERS = "([{", ")]}"

_PATTERNS: tuple[tuple[re.Pattern[str], str, str], ...] = (
    # JUnit 4 "expected:<200> but was:<50>", JUnit 5/opentest4j "expected: <200> but was: <50>"
    (re.compile(r"expected:\s?<(?P<e>.*?)> but was:\s?<(?P<g>.*?)>", re.S), "e", "g"),
    # AssertJ: "expected: 200\n but was: 50"
    (re.compile(r"^\s*expected: (?P<e>.+?)\n\s*but was: (?P<g>.+?)$", re.M | re.S), "e", "g"),
    # Hamcrest: "Expected: is <200>\n     but: was <50>"
    (re.compile(r"^\s*Expected: (?P<e>.+?)\n\s*but: (?P<g>.+?)$", re.M), "e", "g"),
    # Jest: "Expected: 200\nReceived: 50"
    (re.compile(r"^\s*Expected:? (?P<e>.+?)\n\s*Received:? (?P<g>.+?)$", re.M), "e", "g"),
    # testify: "expected: 200\n actual  : 50"
    (re.compile(r"^\s*expected\s*: (?P<e>.+?)\n\s*actual\s*: (?P<g>.+?)$", re.M), "e", "g"),
    # node:assert's error, as its test runner prints it: "actual: 50,\n expected: 200,"
    (re.compile(r"^\s*actual: (?P<g>.+?),?\n\s*expected: (?P<e>.+?),?$", re.M), "e", "g"),
    # chai, as vitest words it: "expected 50 to be 200 // Object.is equality"
    (
        re.compile(
            r"\bexpected (?P<g>\S.*?) to (?:be|equal|deeply equal|strictly equal|"
            r"have length|be close to) (?P<e>\S.*?)(?: // .*)?$",
            re.M,
        ),
        "e",
        "g",
    ),
    # Rust assert_eq!: "  left: 50\n right: 200" (older: "left: `50`,\n right: `200`")
    (re.compile(r"^\s*left: `?(?P<g>.+?)`?,?\n\s*right: `?(?P<e>.+?)`?$", re.M), "e", "g"),
    # Go idioms: "got 50, want 200", "got: 50 want: 200", "expected 200, got 50"
    (re.compile(r"\bgot:? (?P<g>\S.*?),? want(?:ed)?:? (?P<e>\S.*?)$", re.M), "e", "g"),
    (re.compile(r" = (?P<g>\S.*?), want:? (?P<e>\S.*?)$", re.M), "e", "g"),  # f(x) = 50, want 200
    (re.compile(r"\bexpected:? (?P<e>\S.*?),? (?:but )?got:? (?P<g>\S.*?)$", re.M), "e", "g"),
)
_UNITTEST_PREFIX = re.compile(r"^(?:Lists|Tuples|Dicts|Sets|Sequences|Strings) differ: ")


def split_comparison(text: str, ops: tuple[str, ...] = _OPS) -> tuple[str, str, str] | None:
    """``(left, op, right)`` at the first operator outside brackets and quotes."""
    depth = 0
    quote = ""
    i = 0
    n = len(text)
    while i < n:
        char = text[i]
        if quote:
            if char == "\\":
                i += 2
                continue
            if char == quote:
                quote = ""
        elif char in "'\"":
            quote = char
        elif char in _OPENERS:
            depth += 1
        elif char in _CLOSERS:
            depth = max(0, depth - 1)
        elif depth == 0 and char == " ":
            for op in ops:
                if text.startswith(op, i):
                    left, right = text[:i].strip(), text[i + len(op) :].strip()
                    if left and right:
                        return left, op.strip(), right
        i += 1
    return None


def _compared(left: str, op: str, right: str) -> tuple[str, str]:
    return (right if op == "==" else f"{op} {right}"), left


def expected_got(message: str) -> tuple[str, str] | None:
    """``(expected, got)`` if ``message`` states a failed comparison, else None."""
    text = _ANSI.sub("", message[:_SCAN_CHARS])
    first = text.strip().split("\n", 1)[0]
    first = first.removeprefix("AssertionError: ")
    if first.startswith("assert "):  # pytest's assertion rewriting
        parts = split_comparison(first[len("assert ") :])
        return _compared(*parts) if parts else None
    for pattern, expected, got in _PATTERNS:
        match = pattern.search(text)
        if match:
            return match.group(expected).strip(), match.group(got).strip()
    if " !== " in first and first.count(" !== ") == 1:  # node:assert's "50 !== 200"
        left, right = first.rsplit(":", 1)[-1].split(" !== ")
        return right.strip(), left.strip()
    unittest = _UNITTEST_PREFIX.sub("", first)
    unittest = unittest.split(" : ", 1)[0]  # unittest appends " : msg" to its own message
    parts = split_comparison(unittest, (" != ",))  # "first != second": they should be equal
    if parts is None and unittest.count(" != ") == 1:  # unittest cut a string mid-quote
        left, right = unittest.split(" != ")
        parts = (left.strip(), "!=", right.strip())
    return (parts[2], parts[0]) if parts else None


def _literal(text: str) -> Any:
    if len(text) > _LITERAL_CHARS:
        return _MISSING
    try:
        return ast.literal_eval(text)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return _MISSING


def _entry(container: Any, key: Any) -> str:
    try:
        return f"[{key!r}]={container[key]!r}"
    except (KeyError, IndexError):
        return f"[{key!r}] missing"


def narrow(expected: str, got: str) -> tuple[str, str]:
    """Two dicts or two equal-length lists shown by their differing items only.

    ``{'apple': 10, 'pear': 3}`` vs ``{'apple': 6, 'pear': 3}`` -> ``['apple']=10`` vs
    ``['apple']=6``. Anything else (or values that are not Python literals) is kept whole.
    """
    want, have = _literal(expected), _literal(got)
    keys: list[Any] = []
    if isinstance(want, dict) and isinstance(have, dict):
        keys = [
            k
            for k in dict.fromkeys([*want, *have])
            if want.get(k, _MISSING) != have.get(k, _MISSING)
        ]
        total = len(set(want) | set(have))
    elif isinstance(want, (list, tuple)) and type(want) is type(have) and len(want) == len(have):
        keys = [i for i, (a, b) in enumerate(zip(want, have, strict=True)) if a != b]
        total = len(want)
    if not keys or len(keys) == total:
        return expected, got
    return ", ".join(_entry(want, k) for k in keys), ", ".join(_entry(have, k) for k in keys)
