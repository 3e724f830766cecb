from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Member:
    id: int
    name: str
    email: str
    limit: int = 3

    @classmethod
    def from_row(cls, row: dict[str, str]) -> Member:
        # Bug: the export names the column "mail", not "email".
        return cls(int(row["id"]), row["name"], row["email"], int(row.get("limit", 3)))

    def initials(self) -> str:
        # Bug: only the first name's initial.
        return self.name[0].upper()
