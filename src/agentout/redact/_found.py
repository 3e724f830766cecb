"""What a redaction replaced: a count per kind, never the values."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

__all__ = ["MARKER", "Found", "marker"]

MARKER = "[secret: {kind}]"


def marker(kind: str) -> bytes:
    """The text that stands in for one secret: ``[secret: github-token]``."""
    return MARKER.format(kind=kind).encode("utf-8")


@dataclass(frozen=True)
class Found:
    """How many secrets were replaced, by kind (``github-token``, ``$GH_TOKEN``, ...).

    Kinds are kept sorted, so equal counts compare and print the same. ``total`` is what a
    closing line reports as ``secrets=N``.
    """

    kinds: tuple[tuple[str, int], ...] = ()

    @classmethod
    def of(cls, kinds: Iterable[str] | Mapping[str, int]) -> Found:
        counts: dict[str, int] = {}
        if isinstance(kinds, Mapping):
            for kind, n in kinds.items():
                if n:
                    counts[kind] = counts.get(kind, 0) + n
        else:
            for kind in kinds:
                counts[kind] = counts.get(kind, 0) + 1
        return cls(tuple(sorted(counts.items())))

    @property
    def total(self) -> int:
        return sum(n for _, n in self.kinds)

    def as_dict(self) -> dict[str, int]:
        return dict(self.kinds)

    def __add__(self, other: Found) -> Found:
        if not other.kinds:
            return self
        if not self.kinds:
            return other
        merged = self.as_dict()
        for kind, n in other.kinds:
            merged[kind] = merged.get(kind, 0) + n
        return Found(tuple(sorted(merged.items())))

    def __bool__(self) -> bool:
        return bool(self.kinds)

    def __str__(self) -> str:
        """``secrets=3 (github-token=2, $NPM_TOKEN=1)``; ``secrets=0`` when nothing was found."""
        if not self.kinds:
            return "secrets=0"
        detail = ", ".join(f"{kind}={n}" for kind, n in self.kinds)
        return f"secrets={self.total} ({detail})"
