from __future__ import annotations

import pytest
from shop.discounts import apply_percent, coupon_percent


@pytest.mark.parametrize("code", ["SAVE10", "save10", " SAVE10 "])
def test_coupon_plain(code: str) -> None:
    assert coupon_percent(code) == 10


def test_coupon_with_dash() -> None:
    assert coupon_percent("SAVE-10") == 10


def test_not_a_coupon() -> None:
    with pytest.raises(ValueError, match="not a coupon"):
        coupon_percent("FREE")


@pytest.mark.parametrize(
    ("cents", "percent", "expected"),
    [(1000, 10, 900), (999, 50, 500), (100, 0, 100), (100, 100, 0), (1, 50, 1)],
)
def test_apply_percent(cents: int, percent: int, expected: int) -> None:
    assert apply_percent(cents, percent) == expected


def test_apply_percent_rejects_more_than_100() -> None:
    with pytest.raises(ValueError, match="within"):
        apply_percent(100, 101)
