"""Paging a spilled file by records: what ``agentout show REF --records A:B`` prints.

The stored file is read again by the one reader (``agentout.read.data``) the way
``agentout fit`` read it (by its extension, ``.txt`` as text, ``.data`` by its content),
so record N here is record N there. A page is a contiguous run of the records asked for,
each whole (a page ends before the first record it could only show terser, which the
next page starts with; a first record too large for the budget alone is shown terser,
and the header says ``reduced``), packed so the output never passes the budget; the
last line says which records it shows and gives the command for the next page.

Records before the range are read and counted, never built beyond what reading them
needs; records past what the budget could show are counted and forgotten.
"""

from __future__ import annotations

from typing import Any, cast

from agentout.formats import Format
from agentout.pack import Packed
from agentout.records import Record, Result
from agentout.store.page import DEFAULT_PAGE_TOKENS, LineRange, _full_name, _redacted, pack_page
from agentout.store.spill import SpillStore
from agentout.tokens import Tokenizer

__all__ = ["page_records"]

# By suffix, how a stored file reads as it was first read (the rest: by their extension).
_READ_AS = {".txt": "text", ".log": "text"}


def page_records(
    ref: str,
    *,
    records: LineRange | None = None,
    max_tokens: int | None = DEFAULT_PAGE_TOKENS,
    format: str | Format | None = None,
    tokenizer: str | Tokenizer | None = None,
    store: SpillStore | None = None,
) -> Packed:
    """One page of the records of the spilled file ``ref`` (its name, or 16 hex digits)."""
    from agentout.read.data import InputFormat, read_data

    if format == "raw" or getattr(format, "name", None) == "raw":
        raise ValueError("--format raw shows lines; --records shows records in any other format")
    store = store if store is not None else SpillStore.default()
    span = records or LineRange()
    name = _full_name(store, ref).rsplit("/", 1)[-1]
    suffix = "." + name.rsplit(".", 1)[-1]
    # A record costs at least a token: the budget bounds how many a page can hold.
    most = None if max_tokens is None else span.first + max_tokens
    if span.last is not None:
        most = span.last if most is None else min(most, span.last)
    seen = 0

    def keep(record: Record) -> bool:
        nonlocal seen
        seen += 1
        return most is None or seen <= most

    with store.open_ref(name) as stored:
        result = read_data(
            _redacted(stored),
            input_format=cast("InputFormat", _READ_AS.get(suffix, "auto")),
            name=name,
            keep=keep,
            ranked=False,  # text pages as its lines, in order
        )
    total = result.total if result.total is not None else len(result.records)
    last = total if span.last is None else min(span.last, total)
    picked = list(result.records[span.first - 1 : last])
    asked = max(last - span.first + 1, 0)
    header: dict[str, Any] = {"ref": name, "records": total}
    if span != LineRange():
        header["range"] = str(span)

    def footer(shown: int) -> dict[str, Any]:
        out: dict[str, Any] = {"shown": "none"}
        if shown:
            out["shown"] = f"{span.first}:{span.first + shown - 1}"
        if shown < asked:
            end = "" if span.last is None else str(span.last)
            out["next"] = f"agentout show {name} --records {span.first + shown}:{end}"
        return out

    return pack_page(
        lambda shown: Result.of(picked, header, footer(shown), total=asked),
        len(picked),
        format=format or "records",
        max_tokens=max_tokens,
        tokenizer=tokenizer,
    )
