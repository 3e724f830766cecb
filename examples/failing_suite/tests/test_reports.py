from __future__ import annotations

from shop.reports import monthly_revenue


def test_monthly_revenue_empty() -> None:
    assert monthly_revenue([]) == {}
