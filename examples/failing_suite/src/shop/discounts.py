"""Coupons and percentage discounts."""

from __future__ import annotations

import re

_COUPON = re.compile(r"(SAVE|OFF)-?(\d+)$")


def coupon_percent(code: str) -> int:
    """``SAVE10`` or ``SAVE-10`` -> 10; anything else is not a coupon."""
    match = _COUPON.match(code.strip().upper())
    if match is None:
        raise ValueError(f"not a coupon code: {code!r}")
    prefix = match.group(1)
    return int(code.strip()[len(prefix) :])


def apply_percent(cents: int, percent: int) -> int:
    if not 0 <= percent <= 100:
        raise ValueError(f"percent must be within 0..100, got {percent}")
    return cents - (cents * percent) // 100
