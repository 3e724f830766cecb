"""Plain-text receipts."""

from __future__ import annotations

from shop.cart import Cart
from shop.money import format_cents


def receipt_lines(cart: Cart) -> list[str]:
    return [
        f"{line.qty} x {line.name}: {format_cents(line.unit_cents * line.qty)}"
        for line in cart.lines
    ]
