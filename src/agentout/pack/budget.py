"""A token budget, as in Tryouts' agent mode (TOPA): a limit, a buffer, sections, consume.

``consume`` refuses anything that would pass the usable limit (limit minus buffer);
``force_consume`` always succeeds (status and summary lines must appear) and records
how far past the limit it went, so callers can report an honest overflow.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from agentout.tokens import Tokenizer, count_until, get_tokenizer

__all__ = ["DEFAULT_SECTIONS", "Budget"]

DEFAULT_SECTIONS: Mapping[str, float] = MappingProxyType(
    {"summary": 0.20, "detail": 0.60, "context": 0.15, "buffer": 0.05}
)


@dataclass
class Budget:
    """Tokens left to spend. ``limit=None`` means unlimited."""

    limit: int | None
    buffer: float = 0.05
    sections: Mapping[str, float] = field(default_factory=lambda: dict(DEFAULT_SECTIONS))
    tokenizer: Tokenizer = field(default_factory=get_tokenizer)
    used: int = 0
    overflow: int = 0
    _section_used: dict[str, int] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        if self.limit is not None and self.limit < 0:
            raise ValueError(f"budget limit must be >= 0, got {self.limit}")
        if not 0 <= self.buffer < 1:
            raise ValueError(f"buffer must be a fraction in [0, 1), got {self.buffer}")
        if any(share < 0 for share in self.sections.values()):
            raise ValueError("section shares must be >= 0")
        if sum(self.sections.values()) > 1.0 + 1e-9:
            raise ValueError("section shares add up to more than 1")

    @property
    def buffer_tokens(self) -> int:
        return 0 if self.limit is None else int(self.limit * self.buffer)

    @property
    def usable(self) -> int | None:
        """The limit less the buffer: what consume() will spend up to."""
        return None if self.limit is None else self.limit - self.buffer_tokens

    @property
    def remaining(self) -> int | None:
        usable = self.usable
        return None if usable is None else max(0, usable - self.used)

    @property
    def exceeded(self) -> bool:
        return self.overflow > 0

    def section_limit(self, name: str) -> int | None:
        """Tokens allotted to a section (e.g. ``detail`` = 60% of the limit)."""
        if name not in self.sections:
            raise KeyError(f"unknown section {name!r}; sections: {', '.join(self.sections)}")
        return None if self.limit is None else int(self.limit * self.sections[name])

    def section_used(self, name: str) -> int:
        return self._section_used.get(name, 0)

    def cost(self, text: str | int) -> int:
        """Tokens ``text`` costs (an int is taken as a count already made)."""
        if isinstance(text, int):
            if text < 0:
                raise ValueError(f"a token cost must be >= 0, got {text}")
            return text
        return self.tokenizer.count(text)

    def would_exceed(self, text: str | int, section: str | None = None) -> bool:
        """Would spending ``text`` (or that many tokens) pass the usable or section limit?"""
        return self._fitting(text, section) is None

    def consume(self, text: str | int, section: str | None = None) -> bool:
        """Spend ``text`` if it fits; return whether it did. Nothing is spent on refusal."""
        tokens = self._fitting(text, section)
        if tokens is None:
            return False
        self._spend(tokens, section)
        return True

    def force_consume(self, text: str | int, section: str | None = None) -> int:
        """Spend ``text`` whatever the budget; return the tokens spent. Overflow is recorded.

        ``overflow`` is how far ``used`` has ever gone past ``limit`` (the buffer is a
        margin, not part of the overflow).
        """
        self._check_section(section)
        tokens = self.cost(text)
        self._spend(tokens, section)
        if self.limit is not None:
            self.overflow = max(self.overflow, self.used - self.limit)
        return tokens

    def _fitting(self, text: str | int, section: str | None) -> int | None:
        """The tokens ``text`` costs if they fit the room left, else None.

        A text is counted only as far as the room (``count_until``), so asking whether a
        huge text fits a small budget is cheap.
        """
        self._check_section(section)
        usable = self.usable
        if usable is None:
            return self.cost(text)
        room = usable - self.used
        if section is not None:
            cap = self.section_limit(section)
            assert cap is not None
            room = min(room, cap - self.section_used(section))
        if isinstance(text, int):
            tokens = self.cost(text)
            return tokens if tokens <= room else None
        return count_until(text, room, self.tokenizer)

    def _check_section(self, section: str | None) -> None:
        if section is not None and section not in self.sections:
            raise KeyError(f"unknown section {section!r}; sections: {', '.join(self.sections)}")

    def _spend(self, tokens: int, section: str | None) -> None:
        self.used += tokens
        if section is not None:
            self._section_used[section] = self.section_used(section) + tokens
