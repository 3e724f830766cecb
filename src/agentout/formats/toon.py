"""TOON: the document as one object, encoded by the official ``toon-format`` package.

    total: 2
    included: 2
    omitted: 0
    tokens: 64
    truncated: false
    tokenizer: o200k_base
    records[2]{id,name,stars}:
      1,Ada,530712
      2,"Bob, Jr.",488074

Same object as the json format (pack's account, ``header``, ``records``, ``summary``),
so a list of records with one set of keys and scalar values becomes a TOON table:
the keys once, then one row per record. ``delimiter`` is ``","`` or ``"\\t"``.
"""

from __future__ import annotations

from typing import Any

from agentout.formats.json import document_object, record_object
from agentout.records import Document, Record, View

__all__ = ["FORMAT", "TAB_FORMAT", "ToonFormat"]


def _encode(value: Any, delimiter: str) -> str:
    import toon_format  # deferred: only TOON output pays for the import

    text: str = toon_format.encode(value, delimiter=delimiter, default=str)
    return text


class ToonFormat:
    def __init__(self, delimiter: str = ",") -> None:
        if delimiter not in (",", "\t"):
            raise ValueError(f"TOON delimiter must be ',' or tab, got {delimiter!r}")
        self.delimiter = delimiter
        self.name = "toon" if delimiter == "," else "toon-tab"

    def render(self, document: Document) -> str:
        return _encode(document_object(document), self.delimiter) + "\n"

    def fragment(self, record: Record, view: View) -> str:
        # What the record adds inside ``records``: a table row when its values are
        # scalars, else a list item (drop the ``records[1]...:`` line that precedes it).
        text = _encode({"records": [record_object(record, view)]}, self.delimiter)
        return text.partition("\n")[2] + "\n"

    def __repr__(self) -> str:
        return f"ToonFormat(delimiter={self.delimiter!r})"


FORMAT = ToonFormat(",")
TAB_FORMAT = ToonFormat("\t")
