"""Ordering a collection: BM25 relevance for ``--query``, a field for ``--sort``, ids for ties.

Relevance is Okapi BM25 (the ``bm25s`` library, English stop words removed) over every
string in a record, nested ones included; only records that share a term with the query
match. Equal scores, equal sort values and everything else fall back to the record's id
in natural order (``TMKB-2`` before ``TMKB-10``), then where it came from: the same input
always gives the same order.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from typing import Any

from agentout.records.values import NumberText
from agentout.sources.collection.load import Item
from agentout.sources.collection.views import MISSING, field_value, record_id

__all__ = ["SEVERITY_RANKS", "id_key", "rank", "sort_items", "text_of"]

# Words a severity-like field uses, least to most severe; `--sort -severity` puts the
# most severe first.
SEVERITY_RANKS = {
    "none": 0,
    "info": 0,
    "informational": 0,
    "low": 1,
    "minor": 1,
    "medium": 2,
    "moderate": 2,
    "high": 3,
    "major": 3,
    "critical": 4,
    "blocker": 5,
}
_DIGITS = re.compile(r"(\d+)")


def _natural(text: str) -> tuple[Any, ...]:
    """``a10`` after ``a9``: digit runs compare as numbers (strings at even places), by
    their length and then their digits, leading zeros aside: as ``int`` would order them,
    however long (Python refuses to read a number of more than 4300 digits)."""
    parts = _DIGITS.split(text)
    return tuple(_digits_key(p) if i % 2 else p for i, p in enumerate(parts))


def _digits_key(digits: str) -> tuple[int, str]:
    significant = digits.lstrip("0")
    return len(significant), significant


def id_key(item: Item) -> tuple[Any, ...]:
    """Ties go to the smaller id (records without one after those with), then the source."""
    found = record_id(item.data)
    return (found is None, _natural(found or ""), _natural(item.source))


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for inner in value.values():
            yield from _strings(inner)
    elif isinstance(value, list):
        for inner in value:
            yield from _strings(inner)


def text_of(item: Item) -> str:
    """Every string in the record, nested ones included, for the relevance index."""
    return "\n".join(_strings(item.data))


def rank(items: Sequence[Item], query: str) -> list[tuple[Item, float]]:
    """Records sharing a term with ``query``, best BM25 score first, ties by id."""
    import bm25s  # deferred: numpy is only paid for by a query

    if not items:
        return []
    corpus = bm25s.tokenize([text_of(i) for i in items], stopwords="en", show_progress=False)
    terms = bm25s.tokenize([query], stopwords="en", show_progress=False, return_ids=False)[0]
    terms = [t for t in dict.fromkeys(terms) if t in corpus.vocab]
    if not terms:
        return []
    index = bm25s.BM25()
    index.index(corpus, show_progress=False)
    scores = index.get_scores(terms)
    matched = [(item, float(score)) for item, score in zip(items, scores, strict=True) if score > 0]
    matched.sort(key=lambda pair: id_key(pair[0]))
    matched.sort(key=lambda pair: pair[1], reverse=True)  # stable: ties keep id order
    return matched


def _value_key(value: Any) -> tuple[Any, ...]:
    """Numbers by value (ints, floats and the numbers kept as text compare exactly),
    then severity words by rank, then text in natural order, then the rest."""
    if isinstance(value, NumberText):  # too long for Python, or past a float: exactly
        from decimal import Decimal, InvalidOperation

        try:
            return (0, Decimal(value))
        except InvalidOperation:
            return (2, _natural(value))
    if isinstance(value, (int, float)):  # compared exactly, however large (never float())
        return (0, value)
    if isinstance(value, str):
        rank_ = SEVERITY_RANKS.get(value.strip().lower())
        return (1, rank_) if rank_ is not None else (2, _natural(value))
    return (3, json.dumps(value, sort_keys=True, default=str))


def sort_items(items: Sequence[Item], field: str) -> list[Item]:
    """By ``field`` (a dotted path), ascending; ``-field`` descending. Records without
    the field come last either way; ties by id."""
    descending = field.startswith("-")
    path = field[1:] if descending else field.removeprefix("+")
    if not path:
        raise ValueError("--sort needs a field name, e.g. severity or -severity")
    keyed = [(item, field_value(item.data, path)) for item in sorted(items, key=id_key)]
    present = [(item, value) for item, value in keyed if value is not MISSING and value is not None]
    absent = [item for item, value in keyed if value is MISSING or value is None]
    present.sort(key=lambda pair: _value_key(pair[1]), reverse=descending)
    return [item for item, _ in present] + absent
