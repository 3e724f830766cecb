"""Where secrets are in a line, and the line with them replaced by markers."""

from __future__ import annotations

from agentout.redact._found import marker

__all__ = ["CONTEXT", "FORMAT", "VALUE", "Span", "merge", "replace"]

# (start, end, priority, kind): a secret's place in a line. When two overlap, the union is
# hidden under the kind of higher priority: a value from the environment says most.
Span = tuple[int, int, int, str]
VALUE, FORMAT, CONTEXT = 3, 2, 1


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


def replace(line: bytes, spans: list[Span]) -> bytes:
    if not spans:
        return line
    out: list[bytes] = []
    pos = 0
    for start, end, _, kind in spans:
        out += [line[pos:start], marker(kind)]
        pos = end
    out.append(line[pos:])
    return b"".join(out)
