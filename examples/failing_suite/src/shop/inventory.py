"""Stock levels, with reservations for carts in checkout."""

from __future__ import annotations


class OutOfStock(Exception):
    pass


class Inventory:
    def __init__(self, stock: dict[str, int]) -> None:
        self.stock = dict(stock)
        self.reserved: dict[str, int] = {}

    def reserve(self, sku: str, qty: int) -> None:
        if self.stock.get(sku, 0) < qty:
            raise OutOfStock(f"{sku}: {self.stock.get(sku, 0)} left, {qty} wanted")
        self.stock[sku] -= qty
        self.reserved[sku] = self.reserved.get(sku, 0) + qty

    def release(self, sku: str) -> None:
        self.reserved.pop(sku, None)

    def snapshot(self) -> dict[str, int]:
        return dict(sorted(self.stock.items()))
