from __future__ import annotations

import pytest
from lending.catalog import Book, Catalog


@pytest.fixture
def catalog() -> Catalog:
    return Catalog(
        [
            Book("9780441013593", "Dune", 1965, 2),
            Book("9780547928227", "The Hobbit", 1937),
            Book("9780060850524", "Brave New World", 1932),
            Book("9780451524935", "Nineteen Eighty-Four", 1949, 3),
            Book("9780316769488", "The Catcher in the Rye", 1951),
        ]
    )
