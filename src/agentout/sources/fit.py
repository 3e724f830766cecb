"""``fit``: a JSON, JSONL or text file packed into a budget, in memory the budget bounds.

``fit(path, max_tokens=500)`` is ``pack(read_data(path), max_tokens=500)`` with the same
bytes out, but it keeps only the leading records the budget could possibly show: pack
includes whole records, in order, and every record costs something, so past a certain
count no more can fit. The rest are parsed (errors anywhere are still found), counted
into ``Result.total`` (the header's exact ``total``) and forgotten unbuilt.

What a record costs at the least, in every format (records, json, toon, text, csv):

- **characters**: its line (or lines) holds every character of its values that is not
  whitespace (formats quote, escape and wrap, but drop only whitespace), and is never
  less than 2 with its newline. Pack shows a prefix of the records, so it stops where
  these least costs add up to more than ``max_chars``.
- **a token**, for o200k_base and cl100k_base, unless the record can be drawn as a line
  of nothing but whitespace and ``/`` (a CSV row of ``" "``, for one): each record's line
  has a character that starts a pre-token of its own (those encodings' pre-tokenizers
  carry nothing but whitespace and ``/`` across a newline), and a pre-token is at least
  one token. Lines of whitespace do share tokens: 1,000 CSV rows of a space count about
  500 tokens, of a tab about 250. So ``max_tokens=N`` shows at most ``N`` of the other
  records.
- **1/M of a token per character** for any tokenizer whose tokens span at most ``M``
  characters (4 for chars4, 128 for the exact encodings): ``max_tokens=N`` holds at most
  ``N * M`` characters, and that bounds the records as ``max_chars`` does.

A preset or ``max_records`` caps the count directly. The first record is always kept:
pack shows it even when it alone is over budget. With none of these bounds (a tokenizer
that states no ``max_token_chars`` and no other limit), every record is kept.

The one choice that looks at records never shown is auto's: CSV is a candidate only when
every record is a flat row with the same keys. For auto, records left out are still
built, one at a time, until one rules CSV out, and then CSV is left out of the candidates.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable
from typing import Any, BinaryIO, cast

from agentout.formats import Format, get_format
from agentout.formats.auto import AutoFormat
from agentout.formats.csv import FORMAT as CSV
from agentout.formats.csv import is_flat, is_flat_uniform
from agentout.formats.json import record_object
from agentout.pack import PRESETS, Packed, pack
from agentout.read.data import DEFAULT_MAX_RECORD_MIB, InputFormat, read_data
from agentout.read.text import Source, display_name, open_input, read_text
from agentout.records import Document, Record, Result, View, is_empty
from agentout.store.spill import SpillStore
from agentout.tokens import ExactBPE, Tokenizer, get_tokenizer

__all__ = ["fit"]

# What the exact encodings' pre-tokenizers may carry across a newline into a line.
_SHARES_TOKENS = re.compile(r"[\s/]*")


def fit(
    source: Source,
    *,
    format: str | Format = "records",
    max_tokens: int | None = None,
    max_chars: int | None = None,
    max_records: int | None = None,
    tokenizer: str | Tokenizer | None = None,
    preset: str | None = None,
    input_format: InputFormat = "auto",
    max_record_mib: int = DEFAULT_MAX_RECORD_MIB,
    name: str | None = None,
    spill: bool = False,
    store: SpillStore | None = None,
    inline_threshold: int | None = None,
) -> Packed:
    """Read ``source`` (see ``read_data``) and pack it (see ``pack``), keeping in memory
    only the records the budget could show; the result is the same as unbounded.

    ``spill``: when the output does not show every record whole (records left out,
    or shown terser), the complete input goes to the spill store (``store``, else the
    default; its secrets hidden) and the header names it (``ref=``, 16 hex digits), the
    last line giving the ``agentout show REF --records`` command that pages on. Output
    that shows everything whole stores nothing.
    """
    tok = get_tokenizer(tokenizer)
    if preset is not None:
        if preset not in PRESETS:
            raise ValueError(f"unknown preset {preset!r}; known: {', '.join(PRESETS)}")
        chosen = PRESETS[preset]
        max_records = chosen.max_records if max_records is None else max_records
        max_tokens = chosen.max_tokens if max_tokens is None else max_tokens
    fmt = get_format(format)
    bound = _Bound(
        records=max_records,
        costly=max_tokens if isinstance(tok, ExactBPE) else None,
        chars=_most_chars(max_tokens, max_chars, tok),
    )
    auto = isinstance(fmt, AutoFormat)
    path = source if isinstance(source, (str, os.PathLike)) and source != "-" else None

    def reread() -> Iterable[str]:  # a file read once more (a fold's exact count)
        assert path is not None
        return read_text(path, name=name)

    def read(stream: Source) -> Result:
        return read_data(
            stream,
            input_format=input_format,
            max_record_mib=max_record_mib,
            name=name,
            keep=bound.keep,
            dropped=bound.dropped if auto else None,
            reread=None if path is None else reread,
        )

    def packed(result: Result, limit: int | None = None) -> Packed:
        most = limit if max_records is None else min(max_records, limit or max_records)
        chosen = fmt if not auto or bound.table else _AutoWithoutCsv()
        return pack(
            result,
            format=chosen,
            max_tokens=max_tokens,
            max_chars=max_chars,
            max_records=most,
            tokenizer=tok,
        )

    if not spill:
        return packed(read(source))
    return _fit_kept(source, name, input_format, inline_threshold, store, read, packed)


def _fit_kept(
    source: Source,
    name: str | None,
    input_format: str,
    inline_threshold: int | None,
    store: SpillStore | None,
    read: Callable[[Source], Result],
    packed: Callable[..., Packed],
) -> Packed:
    """``fit`` with the input copied as it is read, and kept if the output is not whole."""
    from agentout.deliver.text import short_ref
    from agentout.store.capture import resolve_threshold
    from agentout.store.kept import InputCopy, suffix_for

    shown = display_name(source) if name is None else name
    path = None if source is None or source == "-" or not isinstance(source, str) else source
    with open_input(source) as stream:  # a missing file is refused here, by name
        copy = InputCopy(
            stream,
            suffix=suffix_for(input_format, path),
            threshold=resolve_threshold(inline_threshold),
            store=store,
            name=shown,
        )
        try:
            result = read(cast("BinaryIO", copy))
            first = packed(result)
        except BaseException:
            copy.drop()
            raise
        if not first.stats.truncated:
            copy.drop()  # every record shown whole (if over budget): nothing to keep
            return first
        name = copy.name_when_kept()  # the reference the output will name, if kept
        if name is not None:
            done = _with_ref(result, short_ref(name), packed)
            if not done.stats.truncated and short_ref(name) not in done.text:
                # the reference took the envelope past the budget, and a leaner one,
                # without it, shows every record whole: nothing to keep
                copy.drop()
                return done
            if copy.keep() is not None:
                return done
    return packed(result.replace(header={**result.header, "warning": copy.warning}))


def _with_ref(result: Result, ident: str, packed: Callable[..., Packed]) -> Packed:
    """Packed with the reference in the header and the command that pages on last.

    That command names the first record not shown, which depends on what fits: pack
    with the widest one first, then with the real one, never allowing more records."""
    header = {**result.header, "ref": ident}
    total = result.total if result.total is not None else len(result.records)

    def footer(shown: int) -> dict[str, str]:
        if result.order is not None:  # the lines that matter, not a prefix: page them all
            return {"more": f"agentout show {ident}"}
        start = shown + 1 if shown < total else 1
        return {"more": f"agentout show {ident} --records {start}:"}

    guess, limit = max(total - 1, 0), None
    while True:
        done = packed(result.replace(header=header, summary=footer(guess)), limit)
        included = done.stats.included
        if footer(included) == footer(guess):
            return done
        guess = limit = included


def _most_chars(max_tokens: int | None, max_chars: int | None, tok: Tokenizer) -> int | None:
    """The most characters the output can have, if the budget bounds them."""
    caps = [] if max_chars is None else [max_chars]
    per_token = getattr(tok, "max_token_chars", None)
    if max_tokens is not None and per_token is not None:
        caps.append(max_tokens * int(per_token))
    return min(caps) if caps else None


def _least_chars(record: Record) -> int:
    """The fewest characters any format can draw the record in (see the module's doc)."""
    return max(2, min(sum(map(_solid, view.values())) for view in record.views))


def _solid(value: Any) -> int:
    """Characters of a value that no format drops: all but whitespace; 1 for a number."""
    if isinstance(value, str):
        return sum(map(len, value.split()))
    return 0 if is_empty(value) else 1


def _may_share_tokens(record: Record) -> bool:
    """Can some view of the record be drawn as a line of only whitespace and ``/``?"""
    for view in record.views:
        values = [v for v in view.values() if not is_empty(v)]
        if all(isinstance(v, str) and _SHARES_TOKENS.fullmatch(v) for v in values):
            return True
    return False


class _Bound:
    """Keeps the leading records a budget could show; watches the rest for auto's CSV.

    At most ``most_records`` records, of which at most ``most_costly`` cost a token each,
    whose least characters add up to at most ``most_chars``; and always the first.
    """

    def __init__(self, records: int | None, costly: int | None, chars: int | None) -> None:
        self.most_records, self.most_costly, self.most_chars = records, costly, chars
        self.records = self.costly = self.chars = 0
        self.first: Record | None = None
        self.table = True  # no record left out rules out a CSV table

    def keep(self, record: Record) -> bool:
        records, costly, chars = self.records + 1, self.costly, self.chars
        if self.most_costly is not None and not _may_share_tokens(record):
            costly += 1
        if self.most_chars is not None:
            chars += _least_chars(record)
        over = (
            _over(records, self.most_records)
            or _over(costly, self.most_costly)
            or _over(chars, self.most_chars)
        )
        if over and self.first is not None:
            return False
        self.records, self.costly, self.chars = records, costly, chars
        self.first = self.first or record
        return True

    def dropped(self, record: Record) -> bool:
        """As ``AutoFormat.candidates`` checks every record: flat, with the first's keys."""
        assert self.first is not None  # the first record is always kept
        rows = [record_object(r, r.fullest) for r in (self.first, record)]
        views = (record_object(record, view) for view in record.views)
        self.table = is_flat_uniform(rows) and is_flat(views)
        return self.table


def _over(used: int, cap: int | None) -> bool:
    return cap is not None and used > cap


class _AutoWithoutCsv:
    """auto, when a record left out is no flat row: CSV is not among its candidates."""

    name = "auto"
    _auto = AutoFormat()

    def candidates(self, result: Result) -> list[Format]:
        return [fmt for fmt in self._auto.candidates(result) if fmt is not CSV]

    def render(self, document: Document) -> str:
        return self._auto.render(document)

    def fragment(self, record: Record, view: View) -> str:
        return self._auto.fragment(record, view)
