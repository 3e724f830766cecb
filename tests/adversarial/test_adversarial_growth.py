"""Linear on every note syntax: 4x the input costs at most 5x the work.

Counted in steps, not seconds (a shared machine's clock proves nothing about growth):
every call of an inline rule markdown-it makes, and every character of pending text it
has to build back into one string (``state.pending``: reading it after each append copies
all of it, which made ``[[a|`` x N quadratic). ``bench/bench_growth.py`` times the same
inputs side by side.
"""

from __future__ import annotations

from typing import Any

import pytest
from markdown_it.rules_inline.state_inline import StateInline

from agentout.sources.notes.parse import _markdown, parse_note

# (name, one repeat): each is a syntax a note can hold, repeated with nothing to close it
SYNTAXES = [
    ("![[", b"![["),
    ("[[a|", b"[[a|"),
    ("[[a]", b"[[a]"),
    ("[[a]]", b"[[a]] "),
    ("![[a|b]]", b"![[a|b]] "),
    ("[a](", b"[a]("),
    ("![a", b"![a"),
    ("[]", b"[]"),
    ("[[ and a newline", b"[[a\n"),
    ("`[[`", b"`[[` "),
]
SMALL, LARGE = 2_000, 8_000


class Steps:
    """Inline rule calls, and characters of pending text built back into a string."""

    def __init__(self) -> None:
        self.rules = 0
        self.pending_chars = 0

    @property
    def total(self) -> int:
        return self.rules + self.pending_chars


@pytest.fixture
def steps(monkeypatch: pytest.MonkeyPatch) -> Steps:
    counted = Steps()
    md = _markdown()
    ruler = md.inline.ruler
    original_rules = ruler.getRules

    def counting_rules(chain: str = "") -> list[Any]:
        def wrap(rule: Any) -> Any:
            def call(state: StateInline, silent: bool) -> Any:
                counted.rules += 1
                return rule(state, silent)

            return call

        return [wrap(rule) for rule in original_rules(chain)]

    monkeypatch.setattr(ruler, "getRules", counting_rules)
    pending = StateInline.pending

    def read(state: StateInline) -> str:
        text: str = pending.fget(state)  # type: ignore[misc]
        counted.pending_chars += len(text)
        return text

    monkeypatch.setattr(StateInline, "pending", property(read, pending.fset))
    return counted


def _work(steps: Steps, data: bytes) -> int:
    before = steps.total
    parse_note(data, "note.md")
    return steps.total - before


@pytest.mark.parametrize(("name", "repeat"), SYNTAXES, ids=[name for name, _ in SYNTAXES])
def test_four_times_the_input_is_at_most_five_times_the_work(
    steps: Steps, name: str, repeat: bytes
) -> None:
    small = _work(steps, repeat * SMALL)
    large = _work(steps, repeat * LARGE)
    assert small > 0
    assert large <= 5 * small, f"{name} x {LARGE:,}: {large / small:.1f}x the work of x {SMALL:,}"


def test_the_count_sees_quadratic_pending_text(steps: Steps) -> None:
    """The measure can fail: appending to pending the slow way grows with the square."""

    def slow_rule(state: StateInline, silent: bool) -> bool:
        if state.src[state.pos] != "x":
            return False
        if not silent:
            state.pending += "x"
        state.pos += 1
        return True

    md = _markdown()
    md.inline.ruler.before("text", "slow_x", slow_rule)
    try:
        small = _work(steps, b"x" * 2_000)
        large = _work(steps, b"x" * 8_000)
    finally:
        md.inline.ruler.__rules__ = [r for r in md.inline.ruler.__rules__ if r.name != "slow_x"]
        md.inline.ruler.__cache__ = None
    assert large > 10 * small
