"""Checkout: reserve the stock, charge the total, record the order."""

from __future__ import annotations

import logging

from shop.cart import Cart
from shop.discounts import apply_percent, coupon_percent
from shop.inventory import Inventory

log = logging.getLogger("shop.checkout")


def checkout(cart: Cart, inventory: Inventory, coupon: str | None = None) -> int:
    """Reserve every line and return the amount charged, in cents."""
    for line in cart.lines:
        inventory.reserve(line.sku, line.qty)
        if inventory.stock[line.sku] < 2:
            log.warning("stock low for %s: %d left", line.sku, inventory.stock[line.sku])
    amount = cart.total()
    if coupon:
        amount = apply_percent(amount, coupon_percent(coupon))
    print(f"charging {amount} cents for {cart.item_count()} items")
    return amount
