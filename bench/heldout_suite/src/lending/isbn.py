from __future__ import annotations


def check_digit(isbn: str) -> int:
    """The ISBN-13 check digit of the first twelve digits."""
    # Bug: the hyphens are not removed first.
    digits = [int(c) for c in isbn[:12]]
    total = sum(d * (3 if i % 2 else 1) for i, d in enumerate(digits))
    return (10 - total % 10) % 10


def is_valid(isbn: str) -> bool:
    digits = isbn.replace("-", "")
    return len(digits) == 13 and check_digit(digits) == int(digits[-1])
