"""Hybrid delivery: small results inline, large ones as a file reference with a summary.

A result whose data and rendered text are both at or under the inline threshold (bytes;
default 8192, ``AGENTOUT_INLINE_THRESHOLD``, or per call, the call winning), and that
``pack`` can show whole within the budget, is delivered inline. Anything larger, or
anything the budget would cut, goes complete to the spill store, and the agent gets a
reference: path, size, line count, fields, and a summary (record count, counts of
low-cardinality fields, numeric min/max, a preview), itself a ``Result`` packed within
the budget (``max_tokens`` if given, else the threshold in characters, at least 1024).
A result the budget cannot hold whole (cut, or over it) is never inline.

Everything streams: bytes are held in memory only up to the threshold, then written
through to the store; the summary is computed on the way. If the store cannot be written
(read-only, full, unsafe), delivery falls back to inline with a ``warning`` in the header:
complete if no budget was given, else what fits the budget, the rest counted as omitted
and, as the warning says, not kept: data is never lost silently.
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from agentout.errors import InputError
from agentout.formats import Format
from agentout.pack import Packed, pack
from agentout.records import Record, Result
from agentout.records.fields import FieldSummary
from agentout.store.capture import (  # the inline threshold and the modes are capture's
    DEFAULT_INLINE_THRESHOLD,
    MODES,
    Mode,
    check_mode,
    resolve_threshold,
)
from agentout.store.spill import SpillError, SpillRef, SpillStore, SpillWriter
from agentout.tokens import Tokenizer

__all__ = [
    "DEFAULT_INLINE_THRESHOLD",
    "MODES",
    "Delivery",
    "FieldSummary",
    "Mode",
    "PackSettings",
    "Spool",
    "check_mode",
    "deliver_jsonl",
    "deliver_records",
    "finish",
    "resolve_threshold",
]

_PREVIEW_ROWS = 50
_HEADER_FIELDS = 20  # the header is always shown; the S lines name every field anyway
_MIN_REFERENCE_CHARS = 1024  # the header alone (a path, the fields) can take 300


class Spool:
    """Bytes kept in memory up to ``threshold``, then streamed to a new spilled file.

    ``mode="file"`` spills from the first byte, ``"inline"`` never; ``by_content`` names
    the file after its bytes (see ``SpillStore.open``). If the store fails, the bytes
    written so far are read back and everything stays in memory; ``warning`` says why
    (and how many bytes, if any, could not be recovered).
    """

    def __init__(
        self,
        *,
        threshold: int,
        mode: Mode = "auto",
        kind: str,
        suffix: str,
        store: SpillStore | None = None,
        by_content: bool = False,
    ) -> None:
        self.threshold, self.mode, self.kind, self.suffix = threshold, mode, kind, suffix
        self._store = store
        self.by_content = by_content
        self.memory = bytearray()
        self.writer: SpillWriter | None = None
        self.warning: str | None = None
        self.size = 0

    @property
    def failed(self) -> bool:
        return self.warning is not None

    @property
    def spilling(self) -> bool:
        return self.writer is not None

    def write(self, data: bytes) -> None:
        """``data`` (whole lines), its secrets hidden: the store never holds what the agent
        may not see (``agentout.redact``; what is shown is hidden again by ``pack``)."""
        from agentout.redact import default_redactor

        redactor = default_redactor()
        if redactor.enabled:
            data, _ = redactor.redact_bytes(data)
        self.size += len(data)
        if self.writer is not None:
            try:
                self.writer.write(data)
            except OSError as exc:
                self._fail(exc)  # data was buffered before the write failed: it is salvaged
            return
        self.memory += data
        over = self.mode == "file" or len(self.memory) > self.threshold
        if over and self.mode != "inline" and not self.failed:
            self.start()

    def start(self) -> None:
        """Move what is in memory to a new spilled file and write through from now on."""
        try:
            store = self._store if self._store is not None else SpillStore.default()
            self.writer = store.open(kind=self.kind, suffix=self.suffix, by_content=self.by_content)
            self.writer.write(bytes(self.memory))
        except (OSError, SpillError) as exc:
            self._fail(exc)
            return
        self.memory = bytearray()

    def commit(self) -> SpillRef | None:
        """The spilled file, complete, under its final name; None if it all stayed in memory."""
        if self.writer is None:
            return None
        try:
            return self.writer.commit()
        except OSError as exc:
            self._fail(exc)
            return None

    def discard(self) -> None:
        if self.writer is not None:
            self.writer.abort()
            self.writer = None

    def _fail(self, exc: BaseException) -> None:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        lost = 0
        if self.writer is not None:
            expected = self.writer.size
            recovered = self.writer.salvage()
            lost = expected - len(recovered)
            self.memory = bytearray(recovered) + self.memory
            self.writer = None
        self.warning = (
            f"spill store not writable ({reason}); nothing beyond what is shown here was kept"
        )
        if lost:
            self.warning += f"; {lost} bytes could not be recovered"


@dataclass(frozen=True)
class Delivery:
    """What to hand the agent: ``text`` (packed), and the spilled file if there is one."""

    packed: Packed
    mode: Literal["inline", "file"]
    ref: SpillRef | None = None
    warning: str | None = None

    @property
    def text(self) -> str:
        return self.packed.text


def _size(packed: Packed) -> int:
    return len(packed.text.encode("utf-8"))


def _whole(packed: Packed) -> bool:
    """Everything shown, at its fullest, within the budget."""
    return not packed.stats.truncated and not packed.stats.over_budget


# -- records: JSONL spilled, fields summarised --------------------------------------------


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)


def _row_record(row: Any) -> Record:
    return Record.of(row if isinstance(row, Mapping) else {"value": row})


@dataclass(frozen=True)
class PackSettings:
    """How a delivery packs: the budget, the format, the tokenizer."""

    max_tokens: int | None
    max_chars: int | None
    format: str | Format
    tokenizer: str | Tokenizer | None

    @property
    def limited(self) -> bool:
        """Whether there is a budget at all."""
        return self.max_tokens is not None or self.max_chars is not None

    def pack(self, result: Result, *, limited: bool, **kw: Any) -> Packed:
        tokens, chars = (self.max_tokens, self.max_chars) if limited else (None, None)
        return pack(
            result,
            format=self.format,
            max_tokens=tokens,
            max_chars=chars,
            tokenizer=self.tokenizer,
            **kw,
        )

    def for_reference(self, threshold: int) -> PackSettings:
        """A file reference is small: the budget given, else the threshold in characters."""
        if self.max_tokens is None and self.max_chars is None:
            chars = max(threshold, _MIN_REFERENCE_CHARS)
            return PackSettings(None, chars, self.format, self.tokenizer)
        return self


def deliver_records(
    rows: Iterable[Any],
    *,
    mode: str = "auto",
    inline_threshold: int | None = None,
    max_tokens: int | None = None,
    max_chars: int | None = None,
    format: str | Format = "records",
    tokenizer: str | Tokenizer | None = None,
    store: SpillStore | None = None,
    header: Mapping[str, Any] | None = None,
    kind: str = "records",
) -> Delivery:
    """Deliver JSON-compatible ``rows`` (usually mappings) inline or as spilled JSONL."""
    return _deliver_json(
        _serialise(rows),
        _reread_own,
        mode,
        inline_threshold,
        PackSettings(max_tokens, max_chars, format, tokenizer),
        store,
        header,
        kind,
    )


def deliver_jsonl(
    lines: Iterable[bytes | str],
    *,
    source: str = "<jsonl>",
    mode: str = "auto",
    inline_threshold: int | None = None,
    max_tokens: int | None = None,
    max_chars: int | None = None,
    format: str | Format = "records",
    tokenizer: str | Tokenizer | None = None,
    store: SpillStore | None = None,
    header: Mapping[str, Any] | None = None,
    kind: str = "records",
) -> Delivery:
    """Deliver JSONL ``lines`` (each ending in a newline, as a file iterates); the spilled
    file is the input byte for byte. Each line is read as ``agentout fit`` and ``agentout
    records`` read JSON (UTF-8, one value, no NaN or Infinity, nesting at most
    ``MAX_DEPTH``, at most 16 MiB): anything else is an ``InputError`` naming
    ``source``:LINE:COL (the byte offset too, for invalid UTF-8)."""
    return _deliver_json(
        _parse_jsonl(lines, source),
        lambda data: [row for _, rows in _parse_jsonl(io.BytesIO(data), source) for row in rows],
        mode,
        inline_threshold,
        PackSettings(max_tokens, max_chars, format, tokenizer),
        store,
        header,
        kind,
    )


_BATCH = 1024
_BOM = b"\xef\xbb\xbf"


def _parse_jsonl(
    lines: Iterable[bytes | str], source: str
) -> Iterator[tuple[list[bytes], list[Any]]]:
    """Batches of (the lines' exact bytes, their values; blank lines have none), each line
    read by the rules (and in the words) of ``agentout fit`` and ``agentout records``:
    ``agentout.read.stream.loads``, at most ``DEFAULT_MAX_RECORD_MIB`` a line."""
    from agentout.read.data import DEFAULT_MAX_RECORD_MIB
    from agentout.read.stream import loads, too_large
    from agentout.read.text import invalid_utf8

    limit = DEFAULT_MAX_RECORD_MIB << 20
    raws: list[bytes] = []
    rows: list[Any] = []
    offset = 0  # bytes before the line
    for number, line in enumerate(lines, start=1):
        raw = line if isinstance(line, bytes) else _encode(line, source, number)
        raws.append(raw)
        start, offset = offset, offset + len(raw)
        body = raw
        if number == 1 and raw.startswith(_BOM):
            body, start = raw[len(_BOM) :], start + len(_BOM)
        body = body.rstrip(b"\r\n")
        if len(body) > limit:
            raise InputError(too_large("line", DEFAULT_MAX_RECORD_MIB), source, number)
        if body and not body.isspace():
            try:
                text = body.decode("utf-8")
            except UnicodeDecodeError as exc:
                bad = invalid_utf8(start + exc.start, body[exc.start : exc.start + 1])
                raise InputError(bad, source, number) from None
            rows.append(loads(text, source, number))
        if len(raws) >= _BATCH:
            yield raws, rows
            raws, rows = [], []
    if raws:
        yield raws, rows


def _encode(line: str, source: str, number: int) -> bytes:
    try:
        return line.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError as exc:
        raise InputError(f"not Unicode text ({exc.reason})", source, number) from None


def _serialise(rows: Iterable[Any]) -> Iterator[tuple[list[bytes], list[Any]]]:
    batch: list[Any] = []
    for row in rows:
        batch.append(row)
        if len(batch) >= _BATCH:
            yield [(_dumps(r) + "\n").encode("utf-8") for r in batch], batch
            batch = []
    if batch:
        yield [(_dumps(r) + "\n").encode("utf-8") for r in batch], batch


def _reread_own(data: bytes) -> list[Any]:
    """Rows ``_serialise`` wrote: one compact JSON value a line (json's own rules, so a
    NaN a caller passed in reads back as it went out)."""
    return [json.loads(line) for line in data.split(b"\n") if line]


def _deliver_json(
    batches: Iterable[tuple[list[bytes], list[Any]]],
    reread: Callable[[bytes], list[Any]],
    mode_name: str,
    threshold_value: int | None,
    budget: PackSettings,
    store: SpillStore | None,
    header: Mapping[str, Any] | None,
    kind: str,
) -> Delivery:
    mode = check_mode(mode_name)
    threshold = resolve_threshold(threshold_value)
    spool = Spool(
        threshold=threshold, mode=mode, kind=kind, suffix=".jsonl", store=store, by_content=True
    )
    summary = FieldSummary()
    preview: list[Any] = []
    held: list[Any] | None = []  # every row, while all the bytes are in memory
    try:
        for raws, rows in batches:
            spool.write(b"".join(raws))
            summary.add_many(rows)
            if len(preview) < _PREVIEW_ROWS:
                preview.extend(rows[: _PREVIEW_ROWS - len(preview)])
            if held is not None and (spool.spilling or spool.failed):
                held = None
            elif held is not None:
                held.extend(rows)
    except BaseException:
        spool.discard()
        raise

    def inline(limited: bool) -> Packed | None:
        # read again only when the store failed after taking some: the bytes are back here
        rows = held if held is not None else reread(bytes(spool.memory))
        head = {"mode": "inline", **(header or {}), "warning": spool.warning}
        return budget.pack(Result.of(map(_row_record, rows), head), limited=limited)

    reference_settings = budget.for_reference(threshold)
    return finish(
        spool,
        mode,
        inline,
        reference_settings,
        header,
        lambda ref, h: _json_reference(ref, h, summary, preview, reference_settings),
    )


def _json_reference(
    ref: SpillRef,
    header: dict[str, Any],
    summary: FieldSummary,
    preview: list[Any],
    settings: PackSettings,
) -> Packed:
    """The summary lines whole, then as many preview records as fit. If the summary
    alone does not fit whole, it goes terse (name and count) and without a preview."""
    names = list(summary.fields)
    header.update(records=summary.count, fields=names[:_HEADER_FIELDS])
    hidden = len(names) - _HEADER_FIELDS + len(summary.more_fields)
    if hidden > 0:
        header["more_fields"] = hidden
    footer = {"more": f"agentout show {ref.ref} --lines 1:{min(ref.lines, 100)}"}
    fields = summary.records()
    # One pack in the usual case: what is left out is a tail, so the fields all fit
    # whole exactly when they are all included.
    packed = settings.pack(
        Result.of([*fields, *map(_row_record, preview)], header, footer), limited=True
    )
    if packed.stats.included >= len(fields) and not packed.stats.over_budget:
        return packed
    return settings.pack(Result.of(summary.records(terse=True), header, footer), limited=True)


Reference = Callable[[SpillRef, dict[str, Any]], tuple[Result, list[int] | None] | Packed]


def finish(
    spool: Spool,
    mode: Mode,
    inline: Callable[[bool], Packed | None],
    budget: PackSettings,
    header: Mapping[str, Any] | None,
    reference: Reference,
    *,
    whole_at_any_size: bool = False,
) -> Delivery:
    """Inline if it may and fits whole; else commit the spilled file and pack a reference.

    ``inline(limited)`` packs the whole data, within the caller's budget if ``limited``
    (None when it cannot be shown whole); unlimited, it is the complete fallback.
    ``reference(ref, header)`` gives the reference as a ``Result`` and the order to pack
    it in (packed here within ``budget``), or packed already. In ``auto`` mode the data
    is inline when it stayed in memory, ``inline(True)`` is whole (nothing cut, nothing
    over the budget) and its text is at most the threshold; ``whole_at_any_size`` drops
    the two size conditions (a query's page: shown whole, it is the answer).

    If the store fails, ``inline(True)`` is shown: within the budget, what does not fit
    counted as omitted, and the warning says nothing else was kept (``inline`` may give
    the most important part there); when it is None, ``inline(False)``, complete.
    """

    def small_enough(packed: Packed) -> bool:
        return whole_at_any_size or _size(packed) <= spool.threshold

    if mode == "inline":
        return _kept(spool, inline, limited=False)
    if not spool.failed and mode == "auto" and (whole_at_any_size or not spool.spilling):
        packed = inline(True)
        if packed is not None and _whole(packed) and small_enough(packed):
            spool.discard()
            return Delivery(packed, "inline")
    if not spool.spilling and not spool.failed:
        spool.start()  # small but the budget would cut it: keep it complete in a file
    ref = None if spool.failed else spool.commit()
    if ref is None:
        return _kept(spool, inline, limited=True)
    head: dict[str, Any] = {"mode": "file", **(header or {})}
    head.update(ref=ref.ref, path=ref.location, size=ref.size, lines=ref.lines)
    built = reference(ref, head)
    if not isinstance(built, Packed):
        result, order = built
        built = budget.pack(result, limited=True, order=order)
    return Delivery(built, "file", ref=ref)


def _kept(spool: Spool, inline: Callable[[bool], Packed | None], *, limited: bool) -> Delivery:
    """Inline, the store unused or failed: within the budget if ``limited`` and possible."""
    packed = inline(True) if limited else None
    if packed is None:
        packed = inline(False)
    assert packed is not None, "inline(False) is the complete data"
    return Delivery(packed, "inline", warning=spool.warning)
