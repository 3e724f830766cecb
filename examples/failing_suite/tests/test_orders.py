from __future__ import annotations

from shop.orders import OrderStore


def test_new_store_is_empty(order_store: OrderStore) -> None:
    assert order_store.count() == 0


def test_add_returns_increasing_ids(order_store: OrderStore) -> None:
    first = order_store.add(100, "de")
    second = order_store.add(200, "fr")
    assert second > first
