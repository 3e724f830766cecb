"""Paging through a spilled file within a budget: what ``agentout show REF`` prints.

A page is a ``Result`` of the file's lines (a range, and/or those matching a pattern),
packed so the output never passes the budget; lines are taken in order and whole, so a
page is always a contiguous run of the selection, and the footer says which lines it
shows and the exact command for the next page. JSONL files show each line's fields;
other files show each line's text (invalid UTF-8 replaced; the file keeps the bytes).
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from agentout.formats import Format
from agentout.pack import Packed, pack
from agentout.records import Record, Result
from agentout.spill import SpillStore
from agentout.tokens import Tokenizer

__all__ = ["DEFAULT_PAGE_TOKENS", "LineRange", "page"]

DEFAULT_PAGE_TOKENS = 2000
TERSE_CHARS = 200
FULL_CHARS = 20_000
_MIN_RECORD_TOKENS = 4  # "L n=1 text=x" is never cheaper: caps the lines worth reading


@dataclass(frozen=True)
class LineRange:
    """Lines ``first`` to ``last`` inclusive, counting from 1; ``last=None`` to the end."""

    first: int = 1
    last: int | None = None

    @classmethod
    def parse(cls, text: str) -> LineRange:
        """``A:B``, ``A:``, ``:B`` or ``A``."""
        start, colon, end = text.partition(":")
        try:
            first = int(start) if start.strip() else 1
            last = (int(end) if end.strip() else None) if colon else first
        except ValueError:
            raise ValueError(
                f"--lines {text!r}: expected A:B, A:, :B or A (line numbers)"
            ) from None
        if first < 1 or (last is not None and last < first):
            raise ValueError(f"--lines {text!r}: lines count from 1 and A must not pass B")
        return cls(first, last)

    def __str__(self) -> str:
        return f"{self.first}:{'' if self.last is None else self.last}"


def page(
    ref: str,
    *,
    lines: LineRange | None = None,
    grep: str | None = None,
    ignore_case: bool = False,
    max_tokens: int | None = DEFAULT_PAGE_TOKENS,
    format: str | Format = "records",
    tokenizer: str | Tokenizer | None = None,
    store: SpillStore | None = None,
) -> Packed:
    """One page of the spilled file ``ref`` (its name, or its path in the store)."""
    store = store if store is not None else SpillStore.default()
    span = lines or LineRange()
    try:
        pattern = re.compile(grep, re.IGNORECASE if ignore_case else 0) if grep else None
    except re.error as exc:
        raise ValueError(f"--grep {grep!r}: {exc}") from None
    jsonl = ref.endswith(".jsonl")
    cap = None if max_tokens is None else max_tokens // _MIN_RECORD_TOKENS + 1
    picked: list[tuple[int, str]] = []
    total = matches = 0
    for number, text in _numbered(store, ref):
        total = number
        if number < span.first or (span.last is not None and number > span.last):
            continue
        if pattern is not None and not pattern.search(text):
            continue
        matches += 1
        if cap is None or len(picked) < cap:
            picked.append((number, text))
    records = [_record(n, text, jsonl) for n, text in picked]
    header: dict[str, Any] = {"ref": ref.rsplit("/", 1)[-1], "lines": total}
    if span != LineRange():
        header["range"] = str(span)
    if pattern is not None:
        header.update(grep=grep, matches=matches)
    name = header["ref"]

    def footer(shown: int) -> dict[str, Any]:
        out: dict[str, Any] = {"shown": "none"}
        if shown:
            out["shown"] = f"{picked[0][0]}:{picked[shown - 1][0]}"
        if shown < matches:
            nxt = picked[shown - 1][0] + 1 if shown else span.first
            rest = f" --grep {_quote(grep)}" if grep else ""
            rest += " -i" if ignore_case and grep else ""
            last = "" if span.last is None else str(span.last)
            out["next"] = f"agentout show {name} --lines {nxt}:{last}{rest}"
        return out

    # The footer names the last line shown, which depends on what fits: pack with the
    # widest footer first, then with the real one, never allowing more lines than before.
    shown = len(picked)
    limit: int | None = None
    while True:
        result = Result.of(records, header, footer(shown), total=matches)
        packed = pack(
            result, format=format, max_tokens=max_tokens, max_records=limit, tokenizer=tokenizer
        )
        if packed.stats.included == shown:
            return packed
        shown = limit = packed.stats.included


def _numbered(store: SpillStore, ref: str) -> Iterator[tuple[int, str]]:
    with store.open_ref(ref) as handle:
        for number, raw in enumerate(handle, start=1):
            yield number, raw.rstrip(b"\n").removesuffix(b"\r").decode("utf-8", "replace")


def _record(number: int, text: str, jsonl: bool) -> Record:
    if jsonl:
        try:
            row = json.loads(text)
        except ValueError:
            row = None
        if isinstance(row, dict):
            key = "_line" if "line" in row else "line"
            return Record.of({key: number, **row})
    terse = {"n": number, "text": _clip(text, TERSE_CHARS)}
    full = {"n": number, "text": _clip(text, FULL_CHARS)}
    return Record.of(terse, kind="L") if terse == full else Record.of(terse, full, kind="L")


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else f"{text[:limit]}… (+{len(text) - limit} chars)"


def _quote(text: str | None) -> str:
    return shlex.quote(text or "")
