from __future__ import annotations

import pytest
from shop.money import TAX_RATES, format_cents, tax_on, tax_rate


@pytest.mark.parametrize("country", sorted(TAX_RATES))
def test_every_country_has_a_rate(country: str) -> None:
    assert 0 <= TAX_RATES[country] <= 25


def test_tax_rate_accepts_any_case() -> None:
    assert tax_rate("de") == tax_rate("DE") == 19


def test_tax_on_rounds_half_up() -> None:
    assert tax_on(250, "nl") == 53


@pytest.mark.parametrize(("cents", "text"), [(1999, "19.99"), (1010, "10.10"), (12345, "123.45")])
def test_format_cents(cents: int, text: str) -> None:
    assert format_cents(cents) == text


def test_format_cents_negative() -> None:
    assert format_cents(-250) == "-2.50"


def test_receipt_amounts(subtests: pytest.Subtests) -> None:
    cases = {250: "2.50", 1999: "19.99", 5: "0.05", 1000: "10.00", 12345: "123.45"}
    for cents, expected in cases.items():
        with subtests.test(cents=cents):
            assert format_cents(cents) == expected
