"""What a format worked out for a record's view, remembered while one ``pack`` runs.

Packing renders the whole document many times (each probe of its exact-fit search,
twice for the fixed point of ``tokens=``) with the same records at the same views, and
rendering a record (its line, its marks in the header) is most of that cost. Inside
``remembered()`` a format asks ``recall(what, record, view, make)``: what ``make()`` gave
before for that record and view, or what it gives now. A view is a mapping a caller
could change between two packs, so nothing is kept after the block; within it the memo
holds the objects themselves, so their ids are not reused.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, TypeVar

__all__ = ["recall", "remembered"]

T = TypeVar("T")
_MEMO: ContextVar[dict[tuple[str, int, int], tuple[object, object, Any]] | None] = ContextVar(
    "agentout_format_memo", default=None
)


@contextmanager
def remembered() -> Iterator[None]:
    outer = _MEMO.get()
    token = _MEMO.set({} if outer is None else outer)  # nested: the outer block's memo goes on
    try:
        yield
    finally:
        _MEMO.reset(token)


def recall(what: str, record: object, view: object, make: Callable[[], T]) -> T:
    memo = _MEMO.get()
    if memo is None:
        return make()
    key = (what, id(record), id(view))
    found = memo.get(key)
    if found is not None and found[0] is record and found[1] is view:
        value: T = found[2]
        return value
    made = make()
    memo[key] = (record, view, made)
    return made
