from __future__ import annotations

import pytest
from shop.cart import Cart


def test_empty_cart_has_nothing() -> None:
    cart = Cart()
    assert cart.subtotal() == 0
    assert cart.item_count() == 0


def test_add_merges_same_sku() -> None:
    cart = Cart()
    cart.add("apple", "Apple", 50)
    cart.add("apple", "Apple", 50, qty=2)
    assert [line.qty for line in cart.lines] == [3]


def test_add_rejects_zero_quantity() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        Cart().add("apple", "Apple", 50, qty=0)


def test_remove_drops_the_line(cart: Cart) -> None:
    cart.remove("apple")
    assert [line.sku for line in cart.lines] == ["pear"]


def test_item_count(cart: Cart) -> None:
    assert cart.item_count() == 3


@pytest.mark.parametrize(
    ("name", "unit_cents", "qty"),
    [
        pytest.param("Apple", 50, 1, id="apple-1"),
        pytest.param("Apple", 50, 4, id="apple-4"),
        pytest.param("Crème brûlée", 450, 2, id="crème-brûlée-2"),
        pytest.param("緑茶", 300, 3, id="緑茶-3"),
    ],
)
def test_subtotal_counts_quantity(name: str, unit_cents: int, qty: int) -> None:
    cart = Cart()
    cart.add("sku", name, unit_cents, qty=qty)
    assert cart.subtotal() == unit_cents * qty


def test_tax_for_germany(cart: Cart) -> None:
    assert cart.tax() == 34


def test_total_includes_tax(cart: Cart) -> None:
    assert cart.total() == 214


@pytest.mark.parametrize(
    ("country", "total"),
    [("de", 214), ("fr", 216), ("nl", 218), ("at", 216), ("us", 180)],
)
def test_total_by_country(country: str, total: int) -> None:
    cart = Cart(country=country)
    cart.add("apple", "Apple", 50, qty=2)
    cart.add("pear", "Pear", 80)
    assert cart.total() == total


def test_total_after_removing_a_line(cart: Cart) -> None:
    cart.remove("pear")
    assert cart.total() == 119
