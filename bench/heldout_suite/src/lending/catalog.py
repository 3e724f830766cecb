from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Book:
    isbn: str
    title: str
    year: int
    copies: int = 1


class Catalog:
    def __init__(self, books: list[Book]) -> None:
        self._books = {book.isbn: book for book in books}

    def __len__(self) -> int:
        return len(self._books)

    def find(self, isbn: str) -> Book | None:
        return self._books.get(isbn)

    def search(self, words: str) -> list[str]:
        # Bug: the search is case-sensitive.
        return sorted(b.title for b in self._books.values() if words in b.title)

    def label(self, isbn: str) -> str:
        book = self.find(isbn)
        # Bug: an unknown ISBN is not handled.
        return f"{book.title} ({book.year})"  # type: ignore[union-attr]

    def by_decade(self) -> dict[int, int]:
        counts: dict[int, int] = {}
        for book in self._books.values():
            decade = book.year // 10
            # Bug: the decade is not multiplied back.
            counts[decade] = counts.get(decade, 0) + 1
        return counts
