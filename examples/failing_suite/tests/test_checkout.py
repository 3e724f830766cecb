from __future__ import annotations

import pytest
from shop.cart import Cart
from shop.checkout import checkout
from shop.inventory import Inventory, OutOfStock


def test_checkout_charges_the_total(cart: Cart, inventory: Inventory) -> None:
    assert checkout(cart, inventory) == 214


def test_checkout_reserves_stock(cart: Cart, inventory: Inventory) -> None:
    checkout(cart, inventory)
    assert inventory.reserved == {"apple": 2, "pear": 1}


@pytest.mark.parametrize(("coupon", "charged"), [("SAVE10", 193), ("SAVE20", 171), ("OFF5", 203)])
def test_checkout_with_coupon(cart: Cart, inventory: Inventory, coupon: str, charged: int) -> None:
    assert checkout(cart, inventory, coupon=coupon) == charged


def test_checkout_last_item_warns(inventory: Inventory) -> None:
    cart = Cart(country="de")
    cart.add("tea", "Green tea", 300)
    assert checkout(cart, inventory) == 357


def test_checkout_out_of_stock(inventory: Inventory) -> None:
    cart = Cart()
    cart.add("tea", "Green tea", 300, qty=5)
    with pytest.raises(OutOfStock):
        checkout(cart, inventory)


def test_cart_total_for_three_items() -> None:
    cart = Cart(country="us")
    cart.add("apple", "Apple", 50, qty=3)
    assert cart.subtotal() == 150


def test_checkout_twice_needs_stock(cart: Cart, inventory: Inventory) -> None:
    checkout(cart, inventory)
    with pytest.raises(OutOfStock):
        checkout(cart, inventory)
