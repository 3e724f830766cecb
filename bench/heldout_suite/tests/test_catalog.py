from __future__ import annotations

from lending.catalog import Catalog


def test_catalog_counts_titles(catalog: Catalog) -> None:
    assert len(catalog) == 5


def test_find_by_isbn(catalog: Catalog) -> None:
    book = catalog.find("9780441013593")
    assert book is not None
    assert book.title == "Dune"


def test_find_unknown_is_none(catalog: Catalog) -> None:
    assert catalog.find("0000000000000") is None


def test_search_ignores_case(catalog: Catalog) -> None:
    assert catalog.search("the") == ["The Catcher in the Rye", "The Hobbit"]


def test_search_exact_title(catalog: Catalog) -> None:
    assert catalog.search("Dune") == ["Dune"]


def test_label_of_a_book(catalog: Catalog) -> None:
    assert catalog.label("9780547928227") == "The Hobbit (1937)"


def test_label_of_an_unknown_isbn(catalog: Catalog) -> None:
    assert catalog.label("9999999999999") == "unknown book"


def test_books_by_decade(catalog: Catalog) -> None:
    assert catalog.by_decade() == {1930: 2, 1940: 1, 1950: 1, 1960: 1}
