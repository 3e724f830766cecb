"""Values a record may hold that JSON cannot write as they are, and how formats write them.

- ``NumberText``: a number no JSON value can hold (``1e999999``, an integer of more than
  4,300 digits, YAML's ``.inf``), kept as its source text in a string. Readers make them;
  a number the caller hands in that JSON cannot hold (a float infinity or NaN, an
  integer too long for Python to print) becomes one when a format writes it
  (``json_safe``). Formats write them as JSON strings and count them in the header
  (``numbers_as_text=N``).
- ``Cut``: a string shortened for a terse view, its text ending in ``…``; ``kept`` is the
  text kept and ``more`` the number of characters left out. Formats mark it where no
  value can forge the mark: after the quoted value in the records format, in the header
  (``cut``) in the others.

Both are ``str`` subclasses, so code that only reads text keeps working.
"""

from __future__ import annotations

import math
from typing import Any

__all__ = ["Cut", "NumberText", "int_text", "json_safe", "number_or_text"]

_ELLIPSIS = "…"
# Python prints any integer of at most 640 digits (the least limit it can be set to);
# this many bits make at most 602.
_SAFE_BITS = 2_000
_DIGITS = 600


class NumberText(str):
    """A number kept as its source text, because JSON (or Python) cannot hold its value."""

    __slots__ = ()


class Cut(str):
    """A string cut short: ``kept`` (its start) followed by ``…``; ``more`` characters cut."""

    __slots__ = ("kept", "more")
    kept: str
    more: int

    def __new__(cls, kept: str, more: int) -> Cut:
        if more < 1:
            raise ValueError(f"a cut leaves out at least one character, got {more}")
        self = super().__new__(cls, kept + _ELLIPSIS)
        self.kept, self.more = kept, more
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        return (Cut, (self.kept, self.more))


def int_text(value: int) -> str:
    """The decimal digits of any integer, however long (Python refuses to print one of
    more than ``sys.get_int_max_str_digits()`` digits in one go)."""
    if value.bit_length() <= _SAFE_BITS:
        return str(value)
    try:
        return str(value)
    except ValueError:
        pass
    sign, value = ("-", -value) if value < 0 else ("", value)
    step = 10**_DIGITS
    parts: list[str] = []
    while value:
        value, low = divmod(value, step)
        parts.append(str(low))
    head = parts.pop()
    return sign + head + "".join(part.rjust(_DIGITS, "0") for part in reversed(parts))


def number_or_text(value: float, text: str) -> float | NumberText:
    """``value``, read from ``text`` (a reader's number), or ``text`` itself as a
    ``NumberText`` when no JSON value, or Python, holds it: a float that is not finite
    (``1e999``), one that became zero from a text that is not (``1e-400``), an integer
    too long for Python to print (``0x`` and 5,000 hex digits)."""
    if isinstance(value, float):
        if not math.isfinite(value) or (value == 0 and _nonzero(text)):
            return NumberText(text)
    elif value.bit_length() > _SAFE_BITS and not _printable(value):
        return NumberText(text)
    return value


def _nonzero(text: str) -> bool:
    """Whether a number's text has a digit other than 0 before its exponent."""
    mantissa = text.lower().partition("e")[0]
    return any(digit in mantissa for digit in "123456789")


def _printable(value: int) -> bool:
    try:
        str(value)
    except ValueError:
        return False
    return True


def _number_text(value: Any) -> NumberText | None:
    """The text a number JSON cannot hold is written as; None for every other value."""
    if isinstance(value, float) and not math.isfinite(value):
        return NumberText(
            "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
        )
    too_long = isinstance(value, int) and value.bit_length() > _SAFE_BITS
    if too_long and not isinstance(value, bool) and not _printable(value):
        return NumberText(int_text(value))  # JSON holds it; Python cannot print it
    return None


def _scan(value: Any) -> tuple[int, bool]:
    """(``NumberText`` values in ``value``, whether any number needs to become one);
    iterative, so any depth JSON allows is fine."""
    texts, convert = 0, False
    stack = [value]
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is dict:
            stack.extend(item.values())
        elif kind is list or kind is tuple:
            stack.extend(item)
        elif kind is NumberText:
            texts += 1
        elif kind is float:
            convert = convert or not math.isfinite(item)
        elif kind is int:
            convert = convert or (item.bit_length() > _SAFE_BITS and not _printable(item))
        elif kind not in _LEAVES and isinstance(item, (dict, list, tuple, int, float)):
            stack.append(_plain(item))  # a subclass: look at it as its base type
    return texts, convert


_LEAVES = frozenset({str, bool, type(None), Cut})


def _plain(item: Any) -> Any:
    if isinstance(item, dict):
        return dict(item)
    if isinstance(item, (list, tuple)):
        return list(item)
    if isinstance(item, (int, float)) and not isinstance(item, bool):
        return float(item) if isinstance(item, float) else int(item)
    return None


def _converted(value: Any) -> Any:
    if isinstance(value, str):
        return value
    if isinstance(value, (int, float)):
        return _number_text(value) or value
    if isinstance(value, dict):
        return {k: _converted(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_converted(v) for v in value]
    return value


def json_safe(value: Any, found: list[int] | None = None) -> Any:
    """``value`` with every number JSON cannot hold as a ``NumberText``; ``found`` (a
    one-item counter) counts them, with the ``NumberText`` values already there.

    Returns ``value`` itself when nothing needs changing (the usual case, no copy).
    """
    texts, convert = _scan(value)
    if convert:
        value = _converted(value)
        texts = _scan(value)[0]
    if found is not None:
        found[0] += texts
    return value
