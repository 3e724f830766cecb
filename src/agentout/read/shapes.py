"""Lines of one shape, and how many lines of the whole output have it: exactly.

A shape is what a fold shows after ``more like this:``, in one of two spellings:

- a word shape (``<*> warning: unused variable <*> [-Wunused-variable]``, a template as
  Drain writes one): words, each ``<*>`` a word that varies (one or more characters, none
  of them a space or a tab); any other word is itself;
- a text shape (``* INFO request * took * ms``), which never holds ``<*>``: text in which
  each ``*`` stands for one or more characters of any kind.

A line has the shape when its text, as agentout shows it (``agentout.read.trouble.clean``:
colour and redraws resolved, what no reader sees escaped), blanks at either end aside, is
the shape with each ``<*>`` or ``*`` so replaced, and each run of spaces in the shape
standing for one or more spaces or tabs. ``count`` counts such lines over all of
an output's bytes, not over the lines a scan kept, so the number a fold prints is the
output's.

It runs at RE2's pace, not a line at a time: each shape is also written as a pattern over
the bytes as printed (colour sequences taken anywhere, as the text drops them), and RE2
finds each run of consecutive lines that have it. Only lines whose text is not their bytes
less their colour (a carriage-return redraw, another control character or escape, what no
reader sees, a byte that is not UTF-8, a line that reads as agentout's own) are read one by
one, cleaned as agentout shows them, and counted by what their text says. Past a bound on
that work (``WORK_AT_MOST`` runs and lines, ``ODD_BYTES_AT_MOST`` bytes read one by one),
or a line of more than ``LINE_AT_MOST`` bytes, the count is not known: ``count`` says
None, and no fold claims a number.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Iterable, Sequence
from typing import Any

from agentout.read.visible import INVISIBLE, MARKS

__all__ = ["ANY", "WORD", "Shape", "count", "count_lines", "text_shape", "word_shape"]

WORD = "<*>"  # in a word shape: one word that varies
ANY = "*"  # in a text shape: one or more characters of any kind
WORK_AT_MOST = 1_000_000  # runs found and lines read one by one (a few seconds at most)
ODD_BYTES_AT_MOST = 8 << 20  # bytes of the lines read one by one
LINE_AT_MOST = 1 << 20  # bytes of one line held across chunks: past it, not known

# Colour (SGR, and the erase-to-end-of-line gcc sends after it): the text drops it
_COLOUR = r"\x1b\[[0-9;]*[mK]"
_C = f"(?:{_COLOUR})*"
_BLANKS = f"(?:{_C}[ \\t])+"  # one or more spaces or tabs, colour anywhere among them
_BLANKS_MAYBE = f"(?:{_C}[ \\t])*"
_SPACES = re.compile("[ \t]+")
# A line whose text is not its bytes less their colour (see the module docstring).
_MARK_STARTS = "|".join("".join(f"\\x{{{ord(c):x}}}" for c in mark) for mark in MARKS)
_ODD = (
    r"(?m)^(?:[^\n]*(?:"
    r"[\x00-\x08\x0b\x0c\x0e-\x1a\x1c-\x1f]"  # a control (tab, newline, CR and ESC aside)
    r"|\r[^\n]"  # a carriage return before the line's end: a redraw
    r"|\x1b(?:[^\[]|$)|\x1b\[[0-9;]*(?:[^0-9;mK]|$)|\x1b\[[12]K"  # another escape, an erase
    f"|[{INVISIBLE}]"  # what no reader sees
    f")|{_C}(?:{_MARK_STARTS}))[^\\n]*"
)


class Shape:
    """One shape: ``text`` as shown, the pattern its lines' text matches (``matches``),
    and the RE2 pattern of a run of lines that have it, over the bytes as printed."""

    __slots__ = ("_line", "_runs", "_text_re", "text")

    def __init__(self, text: str, text_pattern: str, raw_pattern: str) -> None:
        self.text = text
        self._text_re = re.compile(text_pattern, re.DOTALL)
        self._runs = raw_pattern
        self._line: tuple[Any, Any] | None = None

    def __repr__(self) -> str:
        return f"Shape({self.text!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Shape) and other.text == self.text

    def __hash__(self) -> int:
        return hash(self.text)

    def matches(self, text: str) -> bool:
        """Whether a line whose text (as shown) is ``text`` has the shape."""
        return self._text_re.fullmatch(text) is not None

    def patterns(self) -> tuple[Any, Any]:
        """RE2, over bytes as printed: a run of lines that have the shape, and one line."""
        if self._line is None:
            self._line = (
                _re2(f"(?m)^(?:{self._runs}\\r?(?:\\n|\\z))+"),
                _re2(f"{self._runs}\\r?"),
            )
        return self._line


def word_shape(template: str) -> Shape | None:
    """The shape of a template in words (Drain's: ``<*>`` a word that varies, one space
    between two words), or None when a reader could not tell what it says: no word, a
    word that holds ``<*>`` among other text, or a ``*`` in a shape with no ``<*>``
    (which reads as a text shape)."""
    words = template.split(" ")
    if not template.strip() or "" in words or any(WORD in w and w != WORD for w in words):
        return None
    if WORD not in words and ANY in template:
        return None
    text_parts: list[str] = []
    raw_parts: list[str] = []
    for word in words:
        if word == WORD:
            text_parts.append(r"[^ \t]+")
            raw_parts.append(f"(?:{_C}[^ \\t\\r\\n\\x1b])+")
        else:
            text_parts.append(re.escape(word))
            raw_parts.append("".join(_C + _re2_escape(char) for char in word))
    text = r"[ \t]*" + r"[ \t]+".join(text_parts) + r"[ \t]*"
    raw = _BLANKS_MAYBE + _BLANKS.join(raw_parts) + _BLANKS_MAYBE + _C
    return Shape(template, text, raw)


def text_shape(parts: Sequence[str]) -> Shape | None:
    """The shape of text whose ``parts`` alternate: what stays, what varies, what stays...
    (an odd number of parts; each part that varies is shown as ``*``, blanks at either
    end left out). None when what stays holds a ``*`` (a reader could not tell it from
    one that varies) or the shape would read ``<*>`` (a word shape's spelling)."""
    if len(parts) % 2 == 0 or any(ANY in part for part in parts[::2]):
        return None
    kept = list(parts)
    kept[0] = kept[0].lstrip(" \t")
    kept[-1] = kept[-1].rstrip(" \t")
    shown = ANY.join(kept[::2])
    if WORD in shown or not shown.strip():
        return None
    text_parts: list[str] = [r"[ \t]*"]
    raw_parts: list[str] = [_BLANKS_MAYBE]
    for i, part in enumerate(kept):
        if i % 2:
            text_parts.append(".+")
            raw_parts.append(f"(?:{_C}[^\\r\\n\\x1b])+")
            continue
        for j, run in enumerate(_SPACES.split(part)):  # a run of spaces: one or more blanks
            if j:
                text_parts.append(r"[ \t]+")
                raw_parts.append(_BLANKS)
            text_parts.append(re.escape(run))
            raw_parts.append("".join(_C + _re2_escape(char) for char in run))
    text_parts.append(r"[ \t]*")
    raw_parts.append(_BLANKS_MAYBE + _C)
    return Shape(shown, "".join(text_parts), "".join(raw_parts))


def count(shapes: Sequence[Shape], chunks: Iterable[bytes]) -> list[int] | None:
    """How many lines of the output (``chunks``: all of its bytes, in order) have each
    shape; None when that cannot be known within the bound (see the module docstring)."""
    counter = _Counter(shapes)
    carry = b""
    for chunk in chunks:
        if not chunk:
            continue
        data = carry + chunk if carry else chunk
        end = data.rfind(b"\n")
        if end < 0:
            carry = data
            if len(carry) > LINE_AT_MOST:
                return None
            continue
        if not counter.block(data, end + 1):
            return None
        carry = data[end + 1 :]
        if len(carry) > LINE_AT_MOST:
            return None
    if carry and not counter.block(carry, len(carry)):
        return None
    return counter.counts


def count_lines(shapes: Sequence[Shape], texts: Iterable[str]) -> list[int]:
    """How many of ``texts`` (lines as shown) have each shape: the count when every line
    of the output is at hand as text."""
    counts = [0] * len(shapes)
    for text in texts:
        for i, shape in enumerate(shapes):
            if shape.matches(text):
                counts[i] += 1
    return counts


class _Counter:
    def __init__(self, shapes: Sequence[Shape]) -> None:
        self.shapes = shapes
        self.counts = [0] * len(shapes)
        self.work = 0
        self.odd_bytes = 0
        self.odd = _re2(_ODD)

    def block(self, data: bytes, end: int) -> bool:
        """Count the whole lines ``data[:end]``; False past the bound of work."""
        odd = self._odd_lines(data, end)
        if odd is None:
            return False
        import re2

        anywhere = re2._Anchor.UNANCHORED
        for i, shape in enumerate(self.shapes):
            runs = shape.patterns()[0]._regexp  # RE2 itself: no match object for each run
            at = 0
            while at < end:
                start, stop = runs.Match(anywhere, data, at, end)[0]
                if start < 0:
                    break
                self.work += 1
                if self.work > WORK_AT_MOST:
                    return False
                newlines = data.count(b"\n", start, stop)
                self.counts[i] += newlines + (0 if data[stop - 1 : stop] == b"\n" else 1)
                at = stop if stop > at else at + 1
        from agentout.read.trouble import clean

        for start, stop in odd:
            raw = data[start:stop]
            self.odd_bytes += len(raw)
            if self.odd_bytes > ODD_BYTES_AT_MOST:
                return False
            text = clean(raw)
            for i, shape in enumerate(self.shapes):
                _, line = shape.patterns()
                counted = line.fullmatch(raw) is not None
                self.counts[i] += int(shape.matches(text)) - int(counted)
        return True

    def _odd_lines(self, data: bytes, end: int) -> list[tuple[int, int]] | None:
        """(start, end) of each line of ``data[:end]`` that is read one by one."""
        found: dict[int, int] = {}
        for match in self.odd.finditer(data, 0, end):
            found[match.start()] = match.end()
            self.work += 1
            if self.work > WORK_AT_MOST:
                return None
        view = memoryview(data)[:end]
        at = 0
        while at < end:  # a byte that is not UTF-8: that line too
            try:
                codecs.utf_8_decode(view[at:], "strict", True)
                break
            except UnicodeDecodeError as exc:
                bad = at + exc.start
            start = data.rfind(b"\n", 0, bad) + 1
            stop = data.find(b"\n", bad, end)
            found[start] = end if stop < 0 else stop
            at = found[start] + 1
            self.work += 1
            if self.work > WORK_AT_MOST:
                return None
        return sorted(found.items())


def _re2_escape(char: str) -> str:
    """One character as RE2 reads it literally."""
    if char.isalnum() or char == "_" or ord(char) > 127:
        return char
    return f"\\x{{{ord(char):x}}}"


def _re2(pattern: str) -> Any:
    import re2

    options = re2.Options()
    options.encoding = re2.Options.Encoding.UTF8
    options.log_errors = False
    options.max_mem = 64 << 20
    return re2.compile(pattern, options)
