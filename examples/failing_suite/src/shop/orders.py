"""Orders are stored in SQLite."""

from __future__ import annotations

import sqlite3

SCHEMA = "CREATE TABLE IF NOT EXISTS orders (id INTEGER PRIMARY KEY, total INTEGER, country TEXT)"


class OrderStore:
    def __init__(self, path: str) -> None:
        self.db = sqlite3.connect(path)
        self.db.execute(SCHEMA)

    def add(self, total: int, country: str) -> int:
        cursor = self.db.execute(
            "INSERT INTO orders (total, country) VALUES (?, ?)", (total, country)
        )
        return int(cursor.lastrowid or 0)

    def count(self) -> int:
        return int(self.db.execute("SELECT COUNT(*) FROM orders").fetchone()[0])

    def close(self) -> None:
        self.db.close()
