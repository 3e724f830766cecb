"""A small web shop: carts, taxes, discounts, inventory, orders and receipts."""
