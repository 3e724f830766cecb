from __future__ import annotations

from datetime import date

import pytest
from lending.loans import Desk, Loan

START = date(2025, 3, 3)


def test_loan_is_open_until_returned() -> None:
    assert Loan("9780441013593", 1, START).returned is None


def test_due_three_weeks_later() -> None:
    assert Loan("9780441013593", 1, START).due == date(2025, 3, 24)


def test_no_fine_on_time() -> None:
    loan = Loan("9780441013593", 1, START, returned=date(2025, 3, 10))
    assert loan.fine(date(2025, 4, 1)) == 0


def test_fine_is_capped() -> None:
    loan = Loan("9780441013593", 1, START)
    assert loan.fine(date(2025, 6, 1)) == 500


def test_lend_takes_a_copy() -> None:
    desk = Desk({"9780441013593": 2})
    desk.lend("9780441013593", 1, START)
    assert desk.stock == {"9780441013593": 1}


def test_lend_without_copies_is_refused() -> None:
    desk = Desk({"9780547928227": 0})
    with pytest.raises(LookupError):
        desk.lend("9780547928227", 1, START)


def test_average_days_of_returned_loans() -> None:
    desk = Desk({"9780441013593": 2})
    desk.lend("9780441013593", 1, START).returned = date(2025, 3, 13)
    assert desk.average_days() == 10


def test_average_days_with_nothing_returned() -> None:
    desk = Desk({"9780441013593": 2})
    desk.lend("9780441013593", 1, START)
    assert desk.average_days() == 0
