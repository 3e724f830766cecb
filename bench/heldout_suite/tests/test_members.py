from __future__ import annotations

from lending.members import Member


def test_member_defaults() -> None:
    assert Member(1, "Ada Lovelace", "ada@example.org").limit == 3


def test_member_from_export_row() -> None:
    row = {"id": "7", "name": "Grace Hopper", "mail": "grace@example.org"}
    assert Member.from_row(row).email == "grace@example.org"


def test_member_initials() -> None:
    assert Member(2, "Alan Mathison Turing", "alan@example.org").initials() == "AMT"


def test_member_limit_from_row() -> None:
    row = {"id": "8", "name": "Edsger Dijkstra", "email": "ewd@example.org", "limit": "5"}
    assert Member.from_row(row).limit == 5
