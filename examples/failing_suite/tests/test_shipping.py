from __future__ import annotations

import pytest
from shop.cart import Cart


def test_cart_defaults_to_germany() -> None:
    assert Cart().country == "de"


@pytest.mark.skip(reason="the carrier's sandbox API is down")
def test_live_shipping_quote() -> None:
    raise AssertionError("unreachable")


@pytest.mark.xfail(reason="free shipping above 50 EUR is not built yet")
def test_free_shipping_threshold() -> None:
    cart = Cart()
    cart.add("tea", "Green tea", 6000)
    assert getattr(cart, "shipping_cents", None) == 0
