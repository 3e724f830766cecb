from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from shop.cart import Cart
from shop.inventory import Inventory
from shop.orders import OrderStore


@pytest.fixture
def cart() -> Cart:
    cart = Cart(country="de")
    cart.add("apple", "Apple", 50, qty=2)
    cart.add("pear", "Pear", 80)
    return cart


@pytest.fixture
def inventory() -> Inventory:
    return Inventory({"apple": 10, "pear": 3, "tea": 1})


@pytest.fixture
def order_store(tmp_path: Path) -> Iterator[OrderStore]:
    store = OrderStore(str(tmp_path / "var" / "orders.sqlite3"))
    yield store
    store.close()
