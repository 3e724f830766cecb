"""Where secrets are in a line, and the line with them replaced by markers."""

from __future__ import annotations

import re
from functools import cache

from agentout.redact._found import marker

__all__ = ["CONTEXT", "ESCAPE", "FORMAT", "TEXT_ESCAPE", "VALUE", "Span", "merge", "replace"]

# (start, end, priority, kind): a secret's place in a line. When two overlap, the union is
# hidden under the kind of higher priority: a value from the environment says most. A kind
# of "" hides with no marker (the rest of a private key block, already marked).
Span = tuple[int, int, int, str]
VALUE, FORMAT, CONTEXT = 3, 2, 1
# An escape sequence: CSI (colour, erasing), then any other ESC and what it introduces
# (``ESC ]`` of an OSC string, whose text stays; ``ESC \\``, ``ESC ( B``), or a lone ESC.
ESCAPE = rb"\x1b(?:\[[0-?]*[ -/]*[@-~]|[ -/]*[0-~]|)"
# The same colour written out as text, as a JSON log or a shell script holds it.
TEXT_ESCAPE = rb"\\(?:u001[bB]|x1[bB]|033|e)\[[0-?]*[ -/]*[@-~]"
# What a hidden place keeps: its line ends, and the escape sequences and bells of coloured
# output (``agentout.redact._visible``), so colour and the number of lines stay as printed.


@cache
def _kept_re() -> re.Pattern[bytes]:
    return re.compile(ESCAPE + rb"|" + TEXT_ESCAPE + rb"|\x07|\n")


def merge(spans: list[Span]) -> list[Span]:
    """Overlapping spans joined; each keeps the kind of its highest-priority part."""
    if len(spans) < 2:
        return spans
    spans.sort(key=lambda s: (s[0], -s[2], -s[1]))
    merged = [spans[0]]
    for start, end, priority, kind in spans[1:]:
        s0, e0, p0, k0 = merged[-1]
        if start < e0:
            best = (p0, k0) if p0 >= priority else (priority, kind)
            merged[-1] = (s0, max(e0, end), best[0], best[1])
        else:
            merged.append((start, end, priority, kind))
    return merged


def replace(data: bytes, spans: list[Span]) -> bytes:
    """``data`` with each span (sorted, apart) replaced by its marker; the line ends and
    escape sequences inside a span stay, those at its very start before the marker."""
    if not spans:
        return data
    out: list[bytes] = []
    pos = 0
    for start, end, _, kind in spans:
        out.append(data[pos:start])
        hidden = data[start:end]
        if b"\n" in hidden or b"\x1b" in hidden or b"\x07" in hidden or b"\\" in hidden:
            out += _kept(hidden, marker(kind) if kind else b"")
        elif kind:
            out.append(marker(kind))
        pos = end
    out.append(data[pos:])
    return b"".join(out)


def _kept(hidden: bytes, mark: bytes) -> list[bytes]:
    """What stays of a hidden place: the escapes it starts with, the marker, then every
    other escape and line end in it, in order."""
    out: list[bytes] = []
    lead = 0
    for match in _kept_re().finditer(hidden):
        if mark and (match.start() != lead or match.group() == b"\n"):
            out.append(mark)
            mark = b""
        out.append(match.group())
        lead = match.end()
    if mark:
        out.append(mark)
    return out
