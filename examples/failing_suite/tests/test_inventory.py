from __future__ import annotations

import unittest

from shop.inventory import Inventory, OutOfStock


class InventoryTest(unittest.TestCase):
    def setUp(self) -> None:
        self.inventory = Inventory({"apple": 10, "pear": 3})

    def test_reserve_takes_stock(self) -> None:
        self.inventory.reserve("apple", 4)
        self.assertEqual(self.inventory.snapshot(), {"apple": 6, "pear": 3})

    def test_reserve_too_many(self) -> None:
        with self.assertRaises(OutOfStock):
            self.inventory.reserve("pear", 4)

    def test_release_returns_stock(self) -> None:
        self.inventory.reserve("apple", 4)
        self.inventory.release("apple")
        self.assertEqual(self.inventory.snapshot(), {"apple": 10, "pear": 3})
