from __future__ import annotations

import pytest
from lending.isbn import check_digit, is_valid


@pytest.mark.parametrize(
    "isbn", ["9780441013593", "9780547928227", "9780060850524", "9780451524935"]
)
def test_valid_isbns(isbn: str) -> None:
    assert is_valid(isbn)


def test_invalid_check_digit() -> None:
    assert not is_valid("9780441013590")


def test_too_short() -> None:
    assert not is_valid("978044101")


def test_check_digit_with_hyphens() -> None:
    assert check_digit("978-0-441-01359-3") == 3
