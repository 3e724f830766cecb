"""What a redaction replaced: a count per kind, never the values."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

__all__ = ["MARKER", "Found", "marker"]

MARKER = "[secret: {kind}]"


def marker(kind: str) -> bytes:
    """The text that stands in for one secret: ``[secret: github-token]``."""
    return MARKER.format(kind=kind).encode("utf-8")


class Found:
    """How many secrets were replaced, by kind (``github-token``, ``$GH_TOKEN``, ...).

    Kinds are kept sorted, so equal counts compare and print the same. ``total`` is what a
    closing line reports as ``secrets=N``. Immutable; a plain class rather than a
    dataclass, so that building a redactor imports nothing it does not use.
    """

    __slots__ = ("kinds",)
    kinds: tuple[tuple[str, int], ...]

    def __init__(self, kinds: tuple[tuple[str, int], ...] = ()) -> None:
        object.__setattr__(self, "kinds", kinds)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"Found is immutable: cannot set {name!r}")

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

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Found) and self.kinds == other.kinds

    def __hash__(self) -> int:
        return hash(self.kinds)

    def __bool__(self) -> bool:
        return bool(self.kinds)

    def __repr__(self) -> str:
        return f"Found(kinds={self.kinds!r})"

    def __str__(self) -> str:
        """``secrets=3 (github-token=2, $NPM_TOKEN=1)``; ``secrets=0`` when nothing was found."""
        if not self.kinds:
            return "secrets=0"
        detail = ", ".join(f"{kind}={n}" for kind, n in self.kinds)
        return f"secrets={self.total} ({detail})"
