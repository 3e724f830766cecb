"""Budget, as in TOPA: a limit less a 5% buffer, sections, consume / force_consume."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentout.pack.budget import DEFAULT_SECTIONS, Budget
from agentout.tokens import count, get_tokenizer


def test_defaults_follow_topa() -> None:
    budget = Budget(5000)
    assert budget.buffer == 0.05
    assert dict(budget.sections) == {
        "summary": 0.20,
        "detail": 0.60,
        "context": 0.15,
        "buffer": 0.05,
    }
    assert budget.buffer_tokens == 250
    assert budget.usable == 4750
    assert budget.remaining == 4750
    assert [budget.section_limit(name) for name in budget.sections] == [1000, 3000, 750, 250]
    assert budget.tokenizer is get_tokenizer("o200k_base")
    assert dict(DEFAULT_SECTIONS) == dict(budget.sections)


def test_would_exceed_is_against_the_limit_less_the_buffer() -> None:
    budget = Budget(100)  # usable 95
    assert not budget.would_exceed(95)
    assert budget.would_exceed(96)
    text = "word " * 20
    n = count(text)
    assert budget.would_exceed(text) is (n > 95)
    assert budget.used == 0  # asking spends nothing


def test_consume_spends_only_what_fits() -> None:
    budget = Budget(100)
    text = "hello world"  # 2 tokens
    assert budget.consume(text)
    assert budget.used == 2
    assert budget.consume(93)
    assert budget.used == 95
    assert budget.remaining == 0
    assert not budget.consume("x")
    assert not budget.consume(1)
    assert budget.used == 95  # refusals spent nothing
    assert budget.consume("")  # nothing always fits
    assert budget.overflow == 0
    assert not budget.exceeded


def test_force_consume_always_succeeds_and_records_the_overflow() -> None:
    budget = Budget(100)
    assert budget.consume(90)
    assert budget.force_consume("hello world") == 2  # past usable, within the limit
    assert budget.used == 92
    assert budget.overflow == 0
    assert budget.force_consume(30) == 30
    assert budget.used == 122
    assert budget.overflow == 22
    assert budget.exceeded
    assert budget.remaining == 0
    assert not budget.consume(0)  # already past usable: not even nothing fits
    budget.force_consume(1)
    assert budget.overflow == 23  # the furthest past the limit it has been


def test_sections_cap_their_share() -> None:
    budget = Budget(1000)
    assert budget.consume(150, section="summary")
    assert not budget.consume(51, section="summary")  # summary is 20% = 200
    assert budget.consume(50, section="summary")
    assert budget.section_used("summary") == 200
    assert budget.consume(600, section="detail")
    assert budget.used == 800
    assert budget.force_consume(10, section="summary") == 10
    assert budget.section_used("summary") == 210
    assert budget.consume(140, section="context")  # 950: the usable total, exactly
    assert not budget.consume(1)
    fresh = Budget(1000)
    assert fresh.consume(150, section="context")
    assert not fresh.consume(1, section="context")  # context is 15%, though the total has room
    assert fresh.consume(1, section="detail")
    with pytest.raises(KeyError, match="unknown section 'failures'"):
        budget.consume(1, section="failures")
    with pytest.raises(KeyError, match="unknown section"):
        Budget(None).would_exceed(1, section="nope")


def test_an_unlimited_budget_takes_everything() -> None:
    budget = Budget(None)
    assert budget.usable is None
    assert budget.remaining is None
    assert budget.section_limit("detail") is None
    assert budget.consume("x" * 100_000)
    assert budget.consume(10**9, section="detail")
    assert not budget.would_exceed(10**12)
    budget.force_consume(10**9)
    assert budget.overflow == 0
    assert budget.used == count("x" * 100_000) + 2 * 10**9


def test_a_budget_can_count_with_any_tokenizer() -> None:
    budget = Budget(10, tokenizer=get_tokenizer("chars4"))
    assert budget.consume("abcdefgh")  # 2
    assert budget.cost("abcdefghi") == 3
    assert budget.used == 2


def test_consume_counts_a_huge_text_only_as_far_as_the_room() -> None:
    class Refuses:
        name = "refuses"

        def count(self, text: str) -> int:
            raise AssertionError("a full count was made")

        def count_until(self, text: str, limit: int) -> int | None:
            return None if len(text) > limit else len(text)

    budget = Budget(100, tokenizer=Refuses())
    assert not budget.consume("x" * 10_000_000)
    assert budget.consume("x" * 95)
    assert budget.used == 95


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"limit": -1}, "limit must be >= 0"),
        ({"limit": 10, "buffer": 1.0}, "buffer must be a fraction"),
        ({"limit": 10, "buffer": -0.1}, "buffer must be a fraction"),
        ({"limit": 10, "sections": {"a": 0.7, "b": 0.7}}, "add up to more than 1"),
        ({"limit": 10, "sections": {"a": -0.1}}, "must be >= 0"),
    ],
)
def test_bad_settings_are_refused(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Budget(**kwargs)  # type: ignore[arg-type]


def test_a_negative_cost_is_refused() -> None:
    budget = Budget(10)
    with pytest.raises(ValueError, match="must be >= 0"):
        budget.consume(-5)
    with pytest.raises(ValueError, match="must be >= 0"):
        budget.force_consume(-5)
    assert budget.used == 0


SPENDS = st.lists(
    st.tuples(
        st.one_of(st.integers(0, 80), st.text(max_size=120)),
        st.sampled_from([None, "summary", "detail", "context"]),
        st.booleans(),  # force?
    ),
    max_size=40,
)


@settings(max_examples=200, deadline=None)
@given(limit=st.integers(0, 400), buffer=st.sampled_from([0.0, 0.05, 0.2]), spends=SPENDS)
def test_consume_never_takes_used_past_usable(limit, buffer, spends) -> None:
    budget = Budget(limit, buffer=buffer)
    usable = budget.usable
    assert usable is not None
    furthest_past_limit = 0
    for what, section, force in spends:
        before = budget.used
        section_before = budget.section_used(section) if section else 0
        cost = what if isinstance(what, int) else count(what)
        if force:
            assert budget.force_consume(what, section) == cost
            assert budget.used == before + cost
        else:
            refused = budget.would_exceed(what, section)
            assert budget.consume(what, section) is not refused
            if refused:
                assert budget.used == before  # a refusal spends nothing
                cap = budget.section_limit(section) if section else None
                assert before + cost > usable or (cap is not None and section_before + cost > cap)
            else:
                assert budget.used == before + cost
                assert budget.used <= usable  # whatever was forced before
                if section:
                    assert budget.section_used(section) <= budget.section_limit(section)
        furthest_past_limit = max(furthest_past_limit, budget.used - limit)
        assert budget.overflow == furthest_past_limit
        assert budget.exceeded is (furthest_past_limit > 0)
    if not any(force for _, _, force in spends):
        assert budget.used <= usable
        assert budget.overflow == 0
