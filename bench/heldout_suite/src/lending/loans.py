from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, timedelta

LOAN_DAYS = 21
FINE_PER_DAY = 25  # cents
FINE_CAP = 500


@dataclass
class Loan:
    isbn: str
    member: int
    start: date
    returned: date | None = None

    @property
    def due(self) -> date:
        # Bug: one day short.
        return self.start + timedelta(days=LOAN_DAYS - 1)

    def fine(self, today: date) -> int:
        late = ((self.returned or today) - self.due).days
        # Bug: the cap is not applied.
        return max(0, late) * FINE_PER_DAY


@dataclass
class Desk:
    stock: dict[str, int]
    loans: list[Loan] = field(default_factory=list)

    def lend(self, isbn: str, member: int, today: date) -> Loan:
        # Bug: lending a book with no copy left is allowed.
        self.stock[isbn] = self.stock.get(isbn, 0) - 1
        loan = Loan(isbn, member, today)
        self.loans.append(loan)
        return loan

    def average_days(self) -> float:
        done = [loan for loan in self.loans if loan.returned]
        # Bug: no returned loan divides by zero.
        return sum((loan.returned - loan.start).days for loan in done) / len(done)  # type: ignore[operator]
