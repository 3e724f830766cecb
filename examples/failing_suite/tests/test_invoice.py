from __future__ import annotations

import pytest
from shop.cart import Cart
from shop.receipts import receipt_lines


def test_receipt_lists_every_line(cart: Cart) -> None:
    assert receipt_lines(cart) == ["2 x Apple: 1.00", "1 x Pear: 0.80"]


@pytest.mark.parametrize(
    ("country", "expected"),
    [("de", 119), ("fr", 120), ("nl", 121), ("at", 120), ("us", 100)],
)
def test_invoice_total_by_country(country: str, expected: int) -> None:
    cart = Cart(country=country)
    cart.add("pear", "Pear", 100)
    assert cart.total() == expected


def test_invoice_total_for_five_pears() -> None:
    cart = Cart(country="fr")
    cart.add("pear", "Pear", 80, qty=5)
    assert cart.total() == 480
