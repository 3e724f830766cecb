"""Collections of records (JSON, JSONL, YAML, Markdown front matter) queried for an agent.

    >>> from agentout.sources.collection import query
    >>> answer = query(["examples/kb"], query="sql injection")  # doctest: +SKIP
    >>> print(answer.text)  # doctest: +SKIP

``query`` does everything ``agentout records`` does; see ``query.query``.
"""

from __future__ import annotations

from agentout.sources.collection.load import Item, LoadReport, load
from agentout.sources.collection.query import Answer, CollectionError, Where, query
from agentout.sources.collection.views import ViewSpec

__all__ = [
    "Answer",
    "CollectionError",
    "Item",
    "LoadReport",
    "ViewSpec",
    "Where",
    "load",
    "query",
]
