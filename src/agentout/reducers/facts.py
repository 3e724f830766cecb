"""Facts: the values an agent needs from a command's output, and whether an output keeps them.

A ``Fact`` is a label and a tuple of values taken from a command's raw output, e.g.
``Fact("ruff", ("src/a.py", "12", "5", "E501"))`` or ``Fact("commit", (sha, subject))``.
An output (the raw one, or what a reducer or another tool made of it) *keeps* a fact when
one of its blocks holds every value, each as a whole token:

- Blocks: a line that does not start with whitespace starts a block; indented lines and
  blank lines belong to the block above. ANSI escape sequences are removed first, and
  ``\\r\\n`` and a lone ``\\r`` end lines as ``\\n`` does.
- Whole token: the value is not preceded or followed by a letter, a digit or ``_``, nor by
  a ``.`` that has one of those on its other side (``12`` is not in ``112``, ``12.5`` or
  ``v1.12``; ``src/a.py`` is in ``src/a.py:12:5``).
- A full commit hash (40 or 64 lowercase hex digits) is also kept by any abbreviation of
  at least 7 digits, as git prints it (``3a11ff4``).
- A number is also kept right after a capital ``L`` that starts a token, as a line number
  is often written (``L21``, ``#L21``).
- In agentout's records format (a first line ``H agentout=…``), the ``R`` records after
  a ``P`` line are that file's (docs/records-format.md): each is read with its ``P`` line,
  so ``P file=tests/a.py`` then ``R test=test_x L=12`` keeps (``tests/a.py``, ``test_x``).

Same output, same answer: the check depends on nothing but the text.
"""

from __future__ import annotations

import json
import re
from bisect import bisect_right
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from agentout.errors import InputError

__all__ = ["Fact", "dumps", "extract", "kept", "loads", "lost", "normalise"]

# CSI (colour, cursor), OSC (titles, links) and two-character escapes; none spans a line.
_ANSI = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b\n]*(?:\x07|\x1b\\)|[@-Z\\-_])")
_BLOCK_START = re.compile(r"^(?=\S)", re.MULTILINE)
_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")
_FULL_HASH = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
_HEX = frozenset("0123456789abcdef")
_SHORTEST_HASH = 7


@dataclass(frozen=True)
class Fact:
    """One thing an agent needs, as the values that must be seen together."""

    label: str
    values: tuple[str, ...]

    def __post_init__(self) -> None:
        if not isinstance(self.values, tuple) or not self.values:
            raise ValueError(f"fact {self.label!r} needs a non-empty tuple of values")
        for value in self.values:
            if not isinstance(value, str) or not value:
                raise ValueError(f"fact {self.label!r}: every value is a non-empty string")
            if _CONTROL.search(value):
                raise ValueError(
                    f"fact {self.label!r}: value {value!r} holds a line break or control character"
                )


def normalise(output: str | bytes) -> str:
    """The text facts are looked for in: decoded (invalid UTF-8 replaced), no ANSI, ``\\n`` ends."""
    text = output.decode("utf-8", "replace") if isinstance(output, bytes) else output
    return _ANSI.sub("", text).replace("\r\n", "\n").replace("\r", "\n")


def _word(char: str) -> bool:
    return char.isalnum() or char == "_"


def _line_mark(text: str, start: int) -> bool:
    """Whether the number at ``start`` is written as a line number, ``L21``."""
    return text[start - 1] == "L" and (start < 2 or not _word(text[start - 2]))


def _whole(text: str, start: int, end: int, number: bool) -> bool:
    """Whether ``text[start:end]`` is a token of its own, not part of a longer one."""
    if start > 0:
        before = text[start - 1]
        if number and _line_mark(text, start):
            pass
        elif _word(before) or (before == "." and start > 1 and _word(text[start - 2])):
            return False
    if end < len(text):
        after = text[end]
        if _word(after) or (after == "." and end + 1 < len(text) and _word(text[end + 1])):
            return False
    return True


def _occurrences(text: str, value: str) -> Iterator[int]:
    """Start offsets of ``value`` in ``text`` as a whole token (or a hash's abbreviation)."""
    abbreviable = _FULL_HASH.fullmatch(value) is not None
    number = value.isascii() and value.isdigit()
    needle = value[:_SHORTEST_HASH] if abbreviable else value
    start = text.find(needle)
    while start >= 0:
        end = start + len(needle)
        if abbreviable:
            while end < len(text) and end - start < len(value) and text[end] in _HEX:
                end += 1
        if _whole(text, start, end, number) and value.startswith(text[start:end]):
            yield start
        start = text.find(needle, start + 1)


class _Blocks:
    """An output split into blocks, with each value's blocks looked up once."""

    def __init__(self, output: str | bytes) -> None:
        self._text = _with_groups(normalise(output))
        self._starts = [m.start() for m in _BLOCK_START.finditer(self._text)]
        self._found: dict[str, frozenset[int]] = {}

    def holding(self, value: str) -> frozenset[int]:
        if value not in self._found:
            found = {bisect_right(self._starts, at) - 1 for at in _occurrences(self._text, value)}
            self._found[value] = frozenset(found)
        return self._found[value]

    def keeps(self, fact: Fact) -> bool:
        common = self.holding(fact.values[0])
        for value in fact.values[1:]:
            if not common:
                break
            common = common & self.holding(value)
        return bool(common)


def _with_groups(text: str) -> str:
    """Records-format text with each ``R`` line after a ``P`` line read as ``P … R …``."""
    if not text.startswith("H agentout="):
        return text
    lines, group = text.split("\n"), None
    for i, line in enumerate(lines):
        if line.startswith("P "):
            group = line
        elif line.startswith("R ") and group is not None:
            lines[i] = f"{group} {line}"
        elif line[:2] != "R ":
            group = None
    return "\n".join(lines)


def kept(fact: Fact, output: str | bytes) -> bool:
    """Whether one block of ``output`` holds every value of ``fact``, each a whole token."""
    return _Blocks(output).keeps(fact)


def lost(facts: Iterable[Fact], output: str | bytes) -> list[Fact]:
    """The facts ``output`` does not keep, in the order given (the output is split once)."""
    blocks = _Blocks(output)
    return [fact for fact in facts if not blocks.keeps(fact)]


def extract(
    pattern: str | re.Pattern[str], raw: str | bytes, label: str | None = None
) -> list[Fact]:
    """One fact per match of ``pattern`` in ``raw``: its groups that matched, as values.

    A string pattern is compiled with ``re.MULTILINE``; a pattern without groups gives the
    whole match. ``raw`` is read as ``kept`` reads it (no ANSI, ``\\n`` line ends). Facts
    come in the order of their first match, each once; ``label`` defaults to the pattern.
    """
    regex = re.compile(pattern, re.MULTILINE) if isinstance(pattern, str) else pattern
    name = regex.pattern if label is None else label
    facts: list[Fact] = []
    seen: set[Fact] = set()
    for match in regex.finditer(normalise(raw)):
        groups = match.groups() if regex.groups else (match.group(0),)
        values = tuple(value for value in groups if value)
        if values:
            fact = Fact(name, values)
            if fact not in seen:
                seen.add(fact)
                facts.append(fact)
    return facts


def dumps(facts: Iterable[Fact]) -> str:
    """Facts as a JSON array, one ``{"label": ..., "values": [...]}`` object a line."""
    rows = [
        json.dumps({"label": f.label, "values": list(f.values)}, ensure_ascii=False) for f in facts
    ]
    return "[\n" + ",\n".join(rows) + "\n]\n" if rows else "[]\n"


def loads(text: str, path: str | None = None) -> list[Fact]:
    """Facts from the JSON ``dumps`` writes; ``InputError`` (located) if it is not that."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise InputError(f"{error.msg} (JSON)", path, error.lineno, error.colno) from None
    if not isinstance(data, list):
        raise InputError("expected a JSON array of facts", path)
    facts = []
    for number, item in enumerate(data, start=1):
        label = item.get("label") if isinstance(item, dict) else None
        values = item.get("values") if isinstance(item, dict) else None
        if not isinstance(label, str) or not isinstance(values, list):
            raise InputError(f'fact {number}: expected {{"label": str, "values": [str]}}', path)
        try:
            facts.append(Fact(label, tuple(values)))
        except ValueError as error:
            raise InputError(f"fact {number}: {error}", path) from None
    return facts
