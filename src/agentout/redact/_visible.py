"""What a reader sees of coloured or obfuscated output: the text secrets are looked for in.

A token printed by ``grep --color=always`` arrives as ``ghp_`` + ``ESC[m ESC[K`` + the rest;
an underlined man page spells it ``_\\bg_\\bh_\\bp``; a zero-width space or a NUL inside it
shows as nothing on a terminal. No expression for a token matches those bytes, so a line
holding any of them (``DIRT``) is also read as the reader sees it (``Seen.text``): escape
sequences taken out (an OSC string's text, such as a hyperlink's address, stays; colour
written as text, ``\\u001b[31m`` in a JSON log, goes too), a backspace overstrike reduced
to the character it prints, and zero-width, bidi and other control characters taken out
(tab, line feed and carriage return stay). The secrets found there are mapped back to the
bytes as printed (``Seen.to_raw``): the place of each covers the escapes inside and
around it, and ``agentout.redact._spans.replace`` keeps those escapes (so the colour stays
where it was) and drops the secret's characters.

Taking characters out never takes out a line end, so lines keep their number and place,
and a line is seen the same alone or among others (``seen_lines`` reads many at once, for
the scanner's one pass).
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable
from functools import cache

from agentout.redact._patterns import Search
from agentout.redact._spans import ESCAPE, TEXT_ESCAPE, Span

__all__ = ["BACKSPACE", "DIRT", "Seen", "seen_lines"]

# RE2 syntax (bytes as Latin-1): any byte sequence a reader does not see as text. C0
# controls but tab, line feed and carriage return (ESC among them), DEL, C1 controls and the
# soft hyphen, then the UTF-8 of U+061C, U+180E, U+200B-U+200F, U+202A-U+202E,
# U+2060-U+2064, U+2066-U+2069 and U+FEFF (zero-width, joiners, bidi marks and isolates).
DIRT = (
    r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]|\xc2[\x80-\x9f\xad]|\xd8\x9c|\xe1\xa0\x8e"
    r"|\xe2\x80[\x8b-\x8f\xaa-\xae]|\xe2\x81[\xa0-\xa4\xa6-\xa9]|\xef\xbb\xbf"
    r"|\\(?:u001[bB]|x1[bB]|033|e)\["  # colour written as text: \u001b[31m in a JSON log
)
# Each branch starts with a fixed byte, so Python's ``re`` skips to candidates quickly. An
# overstrike prints its last character: ``_\bX`` (underline) and ``X\bX`` (bold) print X.
_OVERSTRIKE = rb"|_\x08|\x08(?<=([^\x08\n])\x08)\1"
_OTHER = (
    rb"|\xc2[\x80-\x9f\xad]|\xd8\x9c|\xe1\xa0\x8e|\xe2\x80[\x8b-\x8f\xaa-\xae]"
    rb"|\xe2\x81[\xa0-\xa4\xa6-\xa9]|\xef\xbb\xbf"
    rb"|[\x00-\x07\x0b\x0c\x0e-\x1a\x1c-\x1f\x7f]"
)
# What becomes of a backspace: it overstrikes (as a terminal prints it), or is only taken
# out (as an agent reads ``AKIA...E\\bE...``, where a terminal prints one E), or it stays
# (so the pass over a stretch of output still meets its line, which is then read both ways).
BACKSPACE = {"overstrike": _OVERSTRIKE + rb"|\x08", "out": rb"|\x08", "stays": b""}


@cache
def _escapes() -> re.Pattern[bytes]:
    return re.compile(ESCAPE)


@cache
def _unseen(backspace: str) -> re.Pattern[bytes]:
    return re.compile(ESCAPE + b"|" + TEXT_ESCAPE + BACKSPACE[backspace] + _OTHER)


def seen_lines(raw: bytes, dirt: Search) -> bytes:
    """Many lines as a reader sees them, backspaces left in (``BACKSPACE["stays"]``), at
    chunk speed: escape sequences out in one substitution, then the rare lines with
    anything else a reader does not see (``dirt``: the scanner's RE2 search) one by one."""
    text = _escapes().sub(b"", raw) if b"\x1b" in raw else raw
    hit = dirt(text, 0)
    if hit is None:
        return text
    pieces: list[bytes] = []
    pos = 0
    unseen = _unseen("stays")
    while hit is not None:
        start = text.rfind(b"\n", 0, hit[0]) + 1
        end = text.find(b"\n", hit[1])
        end = len(text) if end < 0 else end
        pieces += [text[pos:start], unseen.sub(b"", text[start:end])]
        pos = end
        hit = dirt(text, end) if end < len(text) else None
    pieces.append(text[pos:])
    return b"".join(pieces)


class Seen:
    """``raw`` (bytes with no line end, or whole lines) as a reader sees it: ``text``.

    ``dirt(data)`` says whether bytes hold anything of ``DIRT`` (the scanner's RE2 search):
    text with escape sequences alone is cleaned by the faster expression that only knows
    them, which gives the same text. ``backspace``: see ``BACKSPACE``."""

    __slots__ = ("_pattern", "raw", "text")

    def __init__(
        self, raw: bytes, dirt: Callable[[bytes], bool], backspace: str = "overstrike"
    ) -> None:
        self.raw = raw
        self._pattern = _escapes()
        self.text = self._pattern.sub(b"", raw) if b"\x1b" in raw else raw
        if dirt(self.text):
            self._pattern = _unseen(backspace)
            self.text = self._pattern.sub(b"", raw)

    def to_raw(self, spans: list[Span]) -> list[Span]:
        """Spans of ``text`` (sorted, apart) as spans of ``raw``: each covers its characters
        and whatever was taken out right before and right after them (escapes, the other
        half of an overstrike)."""
        if not spans or self.text is self.raw:
            return spans
        at: list[int] = []  # where each piece taken out stands in the text
        removed: list[int] = []  # bytes taken out up to and with it
        total = 0
        for match in self._pattern.finditer(self.raw):
            start, end = match.span()
            at.append(start - total)
            total += end - start
            removed.append(total)

        def before(index: int) -> int:
            return removed[index - 1] if index else 0

        out: list[Span] = []
        done = 0
        for start, end, priority, kind in spans:
            raw_start = max(start + before(bisect_left(at, start)), done)
            done = end + before(bisect_right(at, end))
            out.append((raw_start, done, priority, kind))
        return out
