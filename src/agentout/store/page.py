"""Paging through a spilled file within a budget: what ``agentout show REF`` prints.

A page is a ``Result`` of the file's lines (a range, and/or those matching a pattern),
packed so the output never passes the budget; lines are taken in order and whole, so a
page is always a contiguous run of the selection, and the footer says which lines it
shows and the exact command for the next page. JSONL files show each line's fields;
other files show each line's text (invalid UTF-8 replaced; the file keeps the bytes), with
its secrets hidden (a file stored with ``--keep-secrets`` holds them).

A line longer than ``PART_CHARS`` characters (``JSONL_LINE_CHARS`` in a JSONL file) is
shown in parts of ``PART_CHARS``, one record each (``n=7 part=3``), and a page may end
inside it: its next page starts at the following part (``--part``). The file is read a
piece at a time, so paging a line of any length costs memory for one part.

From a remote store (``AGENTOUT_STORE=s3://…``), the object's line index says how many
lines it has and where each stretch of them starts, so a page without ``--grep`` starts
reading near its first line and stops once it holds more than the budget can show: a
few ranged reads, never the whole object. The page is the same as read through.
"""

from __future__ import annotations

import codecs
import json
import re
import shlex
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from agentout.formats import Format
from agentout.pack import Packed, pack
from agentout.records import Record, Result
from agentout.store.cap import is_cut
from agentout.store.spill import SpillStore
from agentout.tokens import Tokenizer
from agentout.tokens.truncate import clip

__all__ = ["DEFAULT_PAGE_TOKENS", "PART_CHARS", "LineRange", "page"]

DEFAULT_PAGE_TOKENS = 2000
TERSE_CHARS = 200
# A part of a long line: under 1,000 tokens for most text, so a default page holds one.
PART_CHARS = 2000
JSONL_LINE_CHARS = 20_000  # a record is worth showing whole, as its fields, up to this
_MIN_RECORD_TOKENS = 4  # "L n=1 text=x" is never cheaper: caps the lines worth reading
_READ_BYTES = 1 << 16
_ID = re.compile(r"[0-9a-f]{16}")
_CUT_LINE = "of the output not kept here"  # in the line a capped output has (store.cap)

# (line number, part (0: the whole line), text, whether it is the line's last part)
_Piece = tuple[int, int, str, bool]


@dataclass(frozen=True)
class LineRange:
    """Lines ``first`` to ``last`` inclusive, counting from 1; ``last=None`` to the end."""

    first: int = 1
    last: int | None = None

    @classmethod
    def parse(cls, text: str, option: str = "--lines") -> LineRange:
        """``A:B``, ``A:``, ``:B`` or ``A``; errors name ``option`` (``--records``)."""
        what = option.removeprefix("--")
        start, colon, end = text.partition(":")
        try:
            first = int(start) if start.strip() else 1
            last = (int(end) if end.strip() else None) if colon else first
        except ValueError:
            raise ValueError(
                f"{option} {text!r}: expected A:B, A:, :B or A ({what[:-1]} numbers)"
            ) from None
        if first < 1 or (last is not None and last < first):
            raise ValueError(f"{option} {text!r}: {what} count from 1 and A must not pass B")
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
    format: str | Format | None = None,
    tokenizer: str | Tokenizer | None = None,
    store: SpillStore | None = None,
    part: int = 1,
) -> Packed:
    """One page of the spilled file ``ref`` (its name, or its path in the store).

    ``part``: start at this part of the range's first line, if it is shown in parts.
    """
    store = store if store is not None else SpillStore.default()
    span = lines or LineRange()
    if part < 1:
        raise ValueError(f"--part {part}: parts count from 1")
    pattern = _compile(grep, ignore_case) if grep else None
    ref = _full_name(store, ref)
    jsonl = ref.endswith(".jsonl")
    if format is None:  # text as printed; a JSONL line's fields as records
        format = "records" if jsonl else "raw"
    if format == "raw" or getattr(format, "name", None) == "raw":
        jsonl = False  # raw draws lines: a JSONL line as its text
    cap = None if max_tokens is None else max_tokens // _MIN_RECORD_TOKENS + 1
    picked: list[_Piece] = []
    total = matches = 0
    whole = JSONL_LINE_CHARS if jsonl else PART_CHARS
    stored, index = store.open_indexed(ref)
    if pattern is not None:
        index = None  # a count of matches needs every line
    first = 1
    if index is not None:
        first, offset = index.start(span.first)
        stored.seek(offset)
    enough = _Enough(max_tokens, tokenizer, cap, counts=index is not None and not jsonl)
    with stored:
        for piece in _numbered(stored, whole, first):
            number, at, text, last = piece
            total = number
            if span.last is not None and number > span.last:
                if index is not None:
                    break
                continue
            if number < span.first or (number == span.first and 0 < at < part):
                continue
            if pattern is not None and not pattern.search(text):
                continue
            matches += 1
            if not enough.full:
                picked.append(piece)
                enough.add(text)
            if index is not None and enough.full and last:
                end = index.lines if span.last is None else min(span.last, index.lines)
                if index.longest_from(number + 1) <= whole // 2:
                    matches += max(0, end - number)  # one piece a line from here on
                    break
    if index is not None:
        total = index.lines
    records = [_record(n, at, text, jsonl) for n, at, text, _ in picked]
    header: dict[str, Any] = {"ref": ref.rsplit("/", 1)[-1], "lines": total}
    if is_cut(header["ref"]):  # past the store's cap: its start and end, and one line
        header["capped"] = f"the middle not kept (--grep {_quote(_CUT_LINE)} says how much)"
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
            nxt, at = (span.first, part) if not shown else _after(picked[shown - 1])
            rest = f" --part {at}" if at > 1 else ""
            rest += f" --grep {_quote(grep)}" if grep else ""
            rest += " -i" if ignore_case and grep else ""
            last = "" if span.last is None else str(span.last)
            out["next"] = f"agentout show {name} --lines {nxt}:{last}{rest}"
        return out

    # The footer names the last line shown, which depends on what fits: pack with the
    # widest footer first, then with the real one, never allowing more lines than before.
    # A page also ends before the first line it would show cut (the next page starts
    # there, so nothing is skipped), unless that is its first: then alone, if it fits.
    return pack_page(
        lambda shown: Result.of(records, header, footer(shown), total=matches),
        len(picked),
        format=format,
        max_tokens=max_tokens,
        tokenizer=tokenizer,
    )


def pack_page(
    page: Callable[[int], Result],
    most: int,
    *,
    format: str | Format,
    max_tokens: int | None,
    tokenizer: str | Tokenizer | None,
) -> Packed:
    """Pack ``page(shown)``, whose footer names how many items it shows: with the widest
    footer first, then with the real one, never allowing more items than before. A page
    ends before the first item it would show cut (the next page starts there, so nothing
    is skipped), unless that is its first: then alone, if it fits."""
    shown, limit = most, None
    while True:
        packed = pack(
            page(shown),
            format=format,
            max_tokens=max_tokens,
            max_records=limit,
            tokenizer=tokenizer,
        )
        included = packed.stats.included
        cut = next((i for i, (r, v) in enumerate(packed.document.records) if v != r.fullest), None)
        if cut == 0 and included > 1:
            shown = limit = 1
        elif cut:
            shown = limit = cut
        elif included == shown:
            return packed
        else:
            shown = limit = included


def _compile(grep: str, ignore_case: bool) -> Any:
    """``grep`` compiled by RE2 (google-re2): matching takes time linear in the line, so
    no pattern stalls a page (``(a+)+$`` on a long line answers at once). RE2 takes
    Python's syntax but for backreferences and lookaround, which it refuses."""
    import re2

    options = re2.Options()
    options.case_sensitive = not ignore_case
    options.log_errors = False  # the error is ours to report, once
    try:
        return re2.compile(grep, options)
    except re2.error as exc:
        reason = exc.args[0] if exc.args else exc
        why = reason.decode("utf-8", "replace") if isinstance(reason, bytes) else str(reason)
        raise ValueError(
            f"--grep {grep!r}: {why} (patterns run on RE2, in linear time: no "
            "backreferences or lookaround)"
        ) from None


def _after(piece: _Piece) -> tuple[int, int]:
    """Where the page after ``piece`` starts: its line's next part, or the next line."""
    number, at, _, last = piece
    return (number + 1, 1) if last else (number, at + 1)


class _Enough:
    """Whether the lines picked so far are all a page could show: ``cap`` of them, or
    (``counts``, text lines) more tokens than the budget, counted line by line, less
    one a line for a token that might span two lines when they are shown together."""

    def __init__(
        self, budget: int | None, tokenizer: str | Tokenizer | None, cap: int | None, counts: bool
    ) -> None:
        self.budget, self.cap, self.picked, self.tokens = budget, cap, 0, 0
        self.full = False
        self._counter: Tokenizer | None = None
        if counts and budget is not None:
            from agentout.tokens import get_tokenizer

            self._counter = get_tokenizer(tokenizer)

    def add(self, text: str) -> None:
        self.picked += 1
        if self._counter is not None and self.budget is not None:
            self.tokens += self._counter.count(text)
            self.full = self.tokens - self.picked > self.budget
        if self.cap is not None and self.picked >= self.cap:
            self.full = True


def _numbered(stored: Any, whole: int, first: int = 1) -> Iterator[_Piece]:
    """Each line, whole if it has at most ``whole`` characters, else in parts; the
    first one read is line ``first``."""
    handle = _redacted(stored)
    number = first - 1
    while raw := handle.readline(_READ_BYTES):
        number += 1
        ended = raw.endswith(b"\n") or len(raw) < _READ_BYTES  # else the line goes on
        if ended and len(raw) <= whole:  # the usual line: no more characters than bytes
            yield number, 0, _text(raw), True
        else:
            yield from _parts(number, raw, ended, handle, whole)


def _redacted(stored: Any) -> Any:
    """The stored file as a page shows it: its secrets hidden (``agentout.redact``), so a
    file stored with ``--keep-secrets``, or by an older agentout, leaks nothing here."""
    from agentout.redact import default_redactor

    return default_redactor().reader(stored)


def _text(raw: bytes) -> str:
    return raw.rstrip(b"\n").removesuffix(b"\r").decode("utf-8", "replace")


def _parts(number: int, raw: bytes, ended: bool, handle: Any, whole: int) -> Iterator[_Piece]:
    """A line read a piece at a time: whole if it turns out short enough, else in parts
    of PART_CHARS characters, never holding more than a part and a piece."""
    decoder = codecs.getincrementaldecoder("utf-8")("replace")
    pending = ""
    part = 0
    while True:
        pending += decoder.decode(raw, final=ended)
        # Parts go out only while the line is sure to be too long to be whole, and with
        # two characters held back: the line's "\r\n" is not part of its text.
        if len(pending) > whole + 2:
            cut = 0
            while len(pending) - cut > PART_CHARS + 2:
                part += 1
                yield number, part, pending[cut : cut + PART_CHARS], False
                cut += PART_CHARS
            pending = pending[cut:]
        if ended:
            break
        raw = handle.readline(_READ_BYTES)
        ended = raw.endswith(b"\n") or len(raw) < _READ_BYTES
    text = pending.rstrip("\n").removesuffix("\r")
    if not part and len(text) <= whole:
        yield number, 0, text, True
        return
    for start in range(0, len(text), PART_CHARS):
        part += 1
        yield number, part, text[start : start + PART_CHARS], start + PART_CHARS >= len(text)


def _record(number: int, part: int, text: str, jsonl: bool) -> Record:
    if jsonl and not part:
        try:
            row = json.loads(text)
        except ValueError:
            row = None
        if isinstance(row, dict):
            key = "_line" if "line" in row else "line"
            return Record.of({key: number, **row})
    where: dict[str, Any] = {"n": number, "part": part} if part else {"n": number}
    terse = {**where, "text": clip(text, TERSE_CHARS)}
    full = {**where, "text": text}
    return Record.of(terse, kind="L") if terse == full else Record.of(terse, full, kind="L")


def _full_name(store: SpillStore, ref: str) -> str:
    """The stored file's name for ``ref``: the 16 hex digits alone name it too."""
    return store.find_id(ref) if _ID.fullmatch(ref) else ref


def _quote(text: str | None) -> str:
    return shlex.quote(text or "")
