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

A TOON table names its keys once: records with the same keys in another order read
back in the table's order (the same JSON objects). ``auto`` uses the variants that
refuse such a document, so what it picks reads back key for key.

``toon-format`` quotes and escapes C0 controls but writes DEL, C1 controls, bidi
controls, U+2028/U+2029 and zero-width characters raw; they are escaped here as in every
other format (``\\u202e``), inside quotes, which ``toon_format.decode`` reads back. The
few invisible characters past U+FFFF (tag characters) are the exception: TOON has no
escape for them (``toon_format.decode`` refuses a UTF-16 pair), so TOON writes them as
they are; every other format escapes them.
"""

from __future__ import annotations

import re
from typing import Any

from agentout.formats.json import document_object, record_object
from agentout.read.visible import INVISIBLE, INVISIBLE_PAST_BMP, escape_match
from agentout.records import Document, Record, View
from agentout.records.values import json_safe

__all__ = ["FORMAT", "ORDERED", "ORDERED_TAB", "TAB_FORMAT", "ToonFormat"]

# TOON has no escape past U+FFFF (toon_format.decode refuses a UTF-16 pair): those few
# (tag characters) are written as they are, and read back
_LEFT_RAW = INVISIBLE.replace(INVISIBLE_PAST_BMP, "")
_RAW = re.compile(f"[{_LEFT_RAW}]")
# Each such character gets a NUL before it, which makes the encoder quote the string
# (and write the NUL as \u0000); the pair then becomes the character's escape. A NUL of
# the value's own before one gets a NUL of ours between, so this pattern only ever meets
# our own.
_PAIR = re.compile(f"\\\\u0000([{_LEFT_RAW}])")


def _guarded(match: re.Match[str]) -> str:
    """A NUL before the character, unless it draws as part of an emoji (kept raw)."""
    char = match.group()
    return char if escape_match(match) == char else "\x00" + char


def _guard(value: Any) -> Any:
    if isinstance(value, str):
        return _RAW.sub(_guarded, value) if _RAW.search(value) else value
    if isinstance(value, dict):
        return {_guard(str(k)): _guard(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_guard(v) for v in value]
    return value


def _encode(value: Any, delimiter: str) -> str:
    import toon_format  # deferred: only TOON output pays for the import

    text: str = toon_format.encode(value, delimiter=delimiter, default=str)
    if _RAW.search(text) is None:  # the usual case: nothing to escape
        return text
    text = toon_format.encode(_guard(value), delimiter=delimiter, default=str)
    return _PAIR.sub(lambda m: f"\\u{ord(m.group(1)):04x}", text)


def _one_key_order(value: Any) -> bool:
    """Whether every list of objects with one set of keys has them in one order.

    A TOON table names its keys once (spec §9.3), so a row whose keys come in another
    order reads back in the table's order: the same JSON object, not the same text.
    Walked with a stack, not recursion: a value may nest deeper than Python's frames."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            objects = [v for v in item if isinstance(v, dict)]
            if len(objects) == len(item) > 1:
                keys, order = objects[0].keys(), list(objects[0])
                if any(o.keys() == keys and list(o) != order for o in objects[1:]):
                    return False
            stack.extend(item)
    return True


class ToonFormat:
    """``keep_order``: refuse (ValueError) a document whose tables would state one key
    order for rows that had another, as ``auto`` needs of every candidate."""

    def __init__(self, delimiter: str = ",", *, keep_order: bool = False) -> None:
        if delimiter not in (",", "\t"):
            raise ValueError(f"TOON delimiter must be ',' or tab, got {delimiter!r}")
        self.delimiter = delimiter
        self.keep_order = keep_order
        self.name = "toon" if delimiter == "," else "toon-tab"

    def render(self, document: Document) -> str:
        value = document_object(document)
        if self.keep_order and not _one_key_order(value):
            raise ValueError("a TOON table would change the order of some records' keys")
        return _encode(value, self.delimiter) + "\n"

    def fragment(self, record: Record, view: View) -> str:
        # What the record adds inside ``records``: a table row when its values are
        # scalars, else a list item (drop the ``records[1]...:`` line that precedes it).
        text = _encode({"records": [json_safe(record_object(record, view))]}, self.delimiter)
        return text.partition("\n")[2] + "\n"

    def __repr__(self) -> str:
        return f"ToonFormat(delimiter={self.delimiter!r})"


FORMAT = ToonFormat(",")
TAB_FORMAT = ToonFormat("\t")
# auto's candidates: what they show reads back exactly, key order included
ORDERED = ToonFormat(",", keep_order=True)
ORDERED_TAB = ToonFormat("\t", keep_order=True)
