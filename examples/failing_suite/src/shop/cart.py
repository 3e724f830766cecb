"""A shopping cart: lines of products with quantities, a subtotal, tax and total."""

from __future__ import annotations

from dataclasses import dataclass, field

from shop.money import tax_on


@dataclass
class Line:
    sku: str
    name: str
    unit_cents: int
    qty: int = 1


@dataclass
class Cart:
    country: str = "de"
    lines: list[Line] = field(default_factory=list)

    def add(self, sku: str, name: str, unit_cents: int, qty: int = 1) -> Line:
        if qty < 1:
            raise ValueError(f"quantity must be at least 1, got {qty}")
        for line in self.lines:
            if line.sku == sku:
                line.qty += qty
                return line
        line = Line(sku, name, unit_cents, qty)
        self.lines.append(line)
        return line

    def remove(self, sku: str) -> None:
        self.lines = [line for line in self.lines if line.sku != sku]

    def item_count(self) -> int:
        return sum(line.qty for line in self.lines)

    def subtotal(self) -> int:
        return sum(line.unit_cents for line in self.lines)

    def tax(self) -> int:
        return tax_on(self.subtotal(), self.country)

    def total(self) -> int:
        return self.subtotal() + self.tax()
