"""Reading a log as it streams: the lines that matter kept and ranked, the noise folded.

``LogDigest`` takes a log's bytes as they arrive, in any chunking, and keeps in bounded
memory the lines that matter, classified: errors (compiler and test failures, panics, the
lines of a traceback), their detail (the frames, carets and ``|`` lines after an error),
warnings, the first and last lines, and the rest. Noise is cleaned on the way: ANSI colour
is stripped, a carriage-return rewrite (a progress bar) keeps its last state, consecutive
identical lines fold into one with ``(×37)`` and progress lines into their last state,
binary data becomes ``<binary data>``. ``result()`` turns what it kept into records in
line order, and ``priority()`` orders them for ``pack``: under a budget, what is dropped
is the least important.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from agentout.deliver.hybrid import (
    Delivery,
    PackSettings,
    Spool,
    check_mode,
    finish,
    resolve_threshold,
)
from agentout.formats import Format
from agentout.pack import Packed
from agentout.records import Record, Result
from agentout.store.spill import SpillRef, SpillStore
from agentout.tokens import Tokenizer
from agentout.tokens.truncate import clip

__all__ = ["BINARY", "Line", "LogDigest", "LogSink"]

# -- classifying one line ---------------------------------------------------------------

_ERROR = re.compile(
    r"""
    (?:^|[\s\]:)])(?:error|fatal\ error|fatal)(?:\[[A-Za-z0-9]+\])?:   # gcc, rustc, tsc, pip
    |^\s*(?:error|fatal|ERROR|FATAL|FAILED|FAIL|FAILURE|PANIC)\b       # ERROR: ..., FAILED x
    |^E\s{2,}\S                                                      # pytest's E lines
    |^npm\ (?:ERR!|error)|^E:\s                                        # npm, apt
    |^not\ ok\b                                                      # TAP
    |^\s*[✗✕✖×]\s
    |^Traceback\ \(most\ recent\ call\ last\)
    |^(?:[A-Za-z_][\w.]*)?(?:Error|Exception|Interrupt|Exit)(?::|$)  # Python, Node
    |:\d+:\ \w*(?:Error|Exception)$                                    # pytest's location
    |\bpanicked\ at\b|Segmentation\ fault|core\ dumped|\bAbort(?:ed)?\b
    |^make(?:\[\d+\])?:\ \*\*\*
    |\bundefined\ reference\ to\b|\bcommand\ not\ found\b
    |\.\.\.\ (?:FAILED|failed|FAIL)\b                                  # cargo test, unittest
    |\b[1-9]\d*\ (?:failed|failing|errors?)\b                         # 3 failed, 2 errors
    |(?i:\bfail(?:ed|ures?)?\b:?\ +[1-9])                             # "# fail 2", failures: 3
    |(?i:\bstatus\W{1,3}(?:error|failed|failure)\b)                    # status 'error'
    |(?i:\bexit(?:ed)?\ (?:code|status)\W{1,3}[1-9])                   # exit code: 1
    |\bFAILED\b|\bFAILURE\b
    """,
    re.VERBOSE,
)
_WARNING = re.compile(r"(?i)\bwarn(?:ing)?s?\b(?:\[|:|!|\s)|\w+Warning\b|^npm WARN|^W:\s")
_PROGRESS = re.compile(
    r"""
    \d{1,3}(?:\.\d+)?\s?%                     # 42%
    |[━█▓▒░■=#>-]{6,}                         # bars
    |\d+(?:\.\d+)?\s?[kKMG]i?B/s              # 1.2 MB/s
    |\beta\ \d|\bETA\b
    """,
    re.VERBOSE,
)
# After an error: frames, carets, gutters and indented detail, until a plain line.
_CONTEXT = re.compile(r"^\s+\S|^\s*\d*\s*[|│╰├└^~]|^\s*-->|^>\s")
_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")

# Necessary conditions of the patterns above on an ASCII line (every branch needs one of
# these words, starts or signs), checked with str methods first: most lines of a large
# log match none, and then no regex runs on them. A line with any other character takes
# the patterns directly (case-insensitive matching is not plain lower() beyond ASCII).
_ERROR_WORDS = (
    "error", "fatal", "fail", "panic", "traceback", "exception", "interrupt", "exit",
    "segmentation", "core dumped", "abort", "undefined reference", "command not found",
    "status", "***", "not ok",
)  # fmt: skip
_ERROR_STARTS = ("E", "npm ", "make")
_ERROR_WORD = re.compile("|".join(re.escape(word) for word in _ERROR_WORDS))
# the signs of a progress line, and the bars _PROGRESS knows as they come in ASCII
_PROGRESS_SIGN = re.compile(r"%|B/s|eta |ETA|[=#>-]{6}")


# A line none of whose bytes match this is "info" after a quiet line (``_classify``):
# ASCII, no control byte, not blank, no error or warning word or start, no progress sign.
# Searched by RE2 over a whole chunk (Python's re takes ~0.2 s a megabyte on it).
_NOT_PLAIN = (
    rb"(?m)[\x00-\x08\x0b-\x1f\x7f-\xff]|^[ \t]*$|^(?:W:|"
    + b"|".join(re.escape(start.encode()) for start in _ERROR_STARTS)
    + rb")|(?i:warn|"
    + b"|".join(re.escape(word.encode()) for word in _ERROR_WORDS)
    + b")|"
    + _PROGRESS_SIGN.pattern.encode()
)
_COMPILED: list[Any] = []


def _not_plain() -> Any:
    if not _COMPILED:
        import re2

        options = re2.Options()
        options.encoding = re2.Options.Encoding.LATIN1  # bytes, one a character
        options.never_capture = True
        _COMPILED.append(re2.compile(_NOT_PLAIN, options))
    return _COMPILED[0]


_PLAIN_RUN_BYTES = 4096  # below this a run goes line by line


def _may_error(text: str, lower: str) -> bool:
    return text.startswith(_ERROR_STARTS) or _ERROR_WORD.search(lower) is not None


def _may_progress(text: str) -> bool:
    return _PROGRESS_SIGN.search(text) is not None


MAX_LINE_BYTES = 8192  # kept per line for the agent view; the spilled file keeps all
TERSE_CHARS = 160
FULL_CHARS = 2000
_CONTEXT_LINES = 6
BINARY = "<binary data>"

KIND = {"error": "E", "context": "T", "warning": "W", "info": "L", "progress": "L", "noise": "L"}
NOISE = ("progress", "noise")


@dataclass
class Line:
    """One line as the agent sees it; ``repeat`` consecutive identical lines fold into it."""

    n: int
    text: str
    level: str  # error | context | warning | info | progress | noise (blank, binary)
    repeat: int = 1
    cut: int = 0  # bytes beyond MAX_LINE_BYTES not kept here
    parent: int | None = None  # the error line a context line belongs to

    def shown(self, limit: int) -> str:
        text = clip(self.text, limit, cut_bytes=self.cut)
        if self.repeat == 1:
            return text
        return (
            f"{text} (×{self.repeat} progress lines)"
            if self.level == "progress"
            else (f"{text} (×{self.repeat})")
        )

    def record(self) -> Record:
        terse = {"n": self.n, "text": self.shown(TERSE_CHARS)}
        full = {"n": self.n, "text": self.shown(FULL_CHARS)}
        views = (terse,) if terse == full else (terse, full)
        return Record(views=views, kind=KIND[self.level])


T = TypeVar("T")


class _Ends(Generic[T]):
    """The first and last ``keep`` items of a stream (all of them when ``keep`` is None)."""

    def __init__(self, keep: int | None) -> None:
        self.keep = keep
        self.head: list[T] = []
        self.tail: deque[T] = deque(maxlen=keep)
        self.count = 0

    def add(self, item: T) -> None:
        self.count += 1
        if self.keep is None or len(self.head) < self.keep:
            self.head.append(item)
        else:
            self.tail.append(item)

    def __iter__(self) -> Iterator[T]:
        yield from self.head
        yield from self.tail

    @property
    def complete(self) -> bool:
        return self.count == len(self.head) + len(self.tail)


def _from_both_ends(items: Sequence[T]) -> list[T]:
    """first, last, second, second to last, ...: what a head or a tail cut keeps, first."""
    out: list[T] = []
    lo, hi = 0, len(items) - 1
    while lo <= hi:
        out.append(items[lo])
        if hi != lo:
            out.append(items[hi])
        lo, hi = lo + 1, hi - 1
    return out


class LogDigest:
    """Reads a log as it streams; keeps what matters in bounded memory (unless ``keep_all``)."""

    def __init__(self, *, keep_all: bool = False) -> None:
        def ends(keep: int) -> _Ends[Line]:
            return _Ends(None if keep_all else keep)

        # Far more than any budget shows; bounded so a gigabyte of log costs no more.
        self.lines, self.errors = ends(400), ends(500)
        self.context, self.warnings = ends(500), ends(200)
        self.counts = dict.fromkeys(KIND, 0)
        self.physical = 0  # physical lines read
        self.size = 0
        self.altered = False  # anything cleaned, folded or cut: the view is not the bytes
        self.binary_lines = 0
        self._pending = b""
        self._cut = 0
        self._open = False  # bytes read since the last newline
        self._current: Line | None = None
        self._traceback = False
        self._continues = False  # the last error line ended with ':', the next says what
        self._context_left = 0
        self._parent: int | None = None

    # -- reading ------------------------------------------------------------------------

    def feed(self, chunk: bytes) -> None:
        self.size += len(chunk)
        start = 0
        while True:
            if self._quiet():
                start = self._plain_lines(chunk, start)
            newline = chunk.find(b"\n", start)
            self._add(chunk[start : len(chunk) if newline < 0 else newline])
            if newline < 0:
                return
            self._end_line()
            start = newline + 1

    # -- plain lines, a run at a time -----------------------------------------------------

    def _quiet(self) -> bool:
        """At a line's start, with no error's detail or traceback under way: a plain line
        is "info" here whatever came before it."""
        return not (
            self._open or self._traceback or self._context_left or self._continues or self._cut
        )

    def _plain_lines(self, chunk: bytes, start: int) -> int:
        """Take the whole lines from ``start`` up to the first that is not plain (see
        ``_NOT_PLAIN``) in one go, as ``_end_line`` would one by one; where they end."""
        hit = _not_plain().search(chunk, start)
        end = chunk.rfind(b"\n", start, len(chunk) if hit is None else hit.start()) + 1
        if end - start < _PLAIN_RUN_BYTES:
            return start  # a few lines: one by one costs no more
        lines = chunk[start : end - 1].split(b"\n")
        if max(map(len, lines)) > MAX_LINE_BYTES:
            return start
        self._fold_plain(lines)
        return end

    def _fold_plain(self, lines: list[bytes]) -> None:
        first = self.physical + 1
        self.physical += len(lines)
        # groups of identical consecutive lines, each shown once with its count
        starts = [0, *(i for i in range(1, len(lines)) if lines[i] != lines[i - 1])]
        sizes = [b - a for a, b in zip(starts, [*starts[1:], len(lines)], strict=True)]

        def line(group: int) -> Line:
            at = starts[group]
            return Line(first + at, lines[at].decode("ascii"), "info", repeat=sizes[group])

        skip = 0
        current = self._current
        if current is not None and current.level == "info" and current.text == line(0).text:
            current.repeat += sizes[0]
            skip = 1
        if skip or len(starts) < len(lines):
            self.altered = True
        if skip == len(starts):
            return
        self._flush()
        # every group but the last is flushed as ``_flush`` would flush it: counted, and
        # made a Line only where ``self.lines`` keeps it (its head, then its last ones)
        last = len(starts) - 1
        ends, flushed = self.lines, last - skip
        head_room = flushed if ends.keep is None else max(0, ends.keep - len(ends.head))
        tail_from = flushed if ends.keep is None else max(head_room, flushed - ends.keep)
        for k, group in enumerate(range(skip, last)):
            if k < head_room:
                ends.head.append(line(group))
            elif k >= tail_from:
                ends.tail.append(line(group))
        ends.count += flushed
        self.counts["info"] += sum(sizes[skip:last])
        self._current = line(last)

    def finish(self) -> LogDigest:
        if self._open:
            self._end_line()
        self._flush()
        return self

    def _add(self, part: bytes) -> None:
        if not part:
            return
        self._open = True
        data = self._pending + part
        rewrite = data.rfind(b"\r", 0, len(data) - 1)  # a \r with text after it
        if rewrite >= 0:
            self.altered = True
            self._cut = 0
            data = data[rewrite + 1 :]
        if len(data) > MAX_LINE_BYTES:
            self._cut += len(data) - MAX_LINE_BYTES
            data = data[:MAX_LINE_BYTES]
        self._pending = data

    def _end_line(self) -> None:
        raw = self._pending.removesuffix(b"\r")
        cut = self._cut
        self._pending, self._cut, self._open = b"", 0, False
        self.physical += 1
        text, clean = _clean(raw)
        if cut or not clean:
            self.altered = True
        level = self._classify(text)
        if text == BINARY:
            self.binary_lines += 1
        current = self._current
        # identical lines fold, and so do the states of a progress bar (the last is shown)
        same = current is not None and current.level == level and not cut
        if current is not None and same and (current.text == text or level == "progress"):
            current.text = text
            current.repeat += 1
            self.altered = True
            return
        self._flush()
        parent = self._parent if level == "context" else None
        self._current = Line(self.physical, text, level, cut=cut, parent=parent)
        if level == "error":
            self._parent = self.physical

    def _classify(self, text: str) -> str:
        continues, self._continues = self._continues, False
        if text == BINARY:
            return "noise"
        if self._traceback:  # frames until the unindented exception line
            if text.startswith((" ", "\t")):
                return "context"
            self._traceback = False
            self._context_left = _CONTEXT_LINES
            return "error"
        ascii_text = text.isascii()
        lower = text.lower() if ascii_text else ""
        if (not ascii_text or _may_error(text, lower)) and _ERROR.search(text):
            self._traceback = text.startswith("Traceback (most recent call last)")
            self._continues = text.rstrip().endswith(":")  # "panicked at src/lib.rs:7:32:"
            self._context_left = _CONTEXT_LINES
            return "error"
        if self._context_left and not text.strip():
            return "noise"  # a blank line inside an error's detail does not end it
        if self._context_left and (continues or _CONTEXT.search(text)):
            self._context_left -= 1
            return "context"
        self._context_left = 0
        if (not ascii_text or "warn" in lower or text.startswith("W:")) and _WARNING.search(text):
            return "warning"
        if not text.strip():
            return "noise"
        if ascii_text and not _may_progress(text):
            return "info"
        return "progress" if _PROGRESS.search(text) else "info"

    def _flush(self) -> None:
        line, self._current = self._current, None
        if line is None:
            return
        self.counts[line.level] += line.repeat
        self.lines.add(line)
        if line.level == "error":
            self.errors.add(line)
        elif line.level == "context":
            self.context.add(line)
        elif line.level == "warning":
            self.warnings.add(line)

    # -- the result ---------------------------------------------------------------------

    @property
    def complete(self) -> bool:
        """Every line is kept here, exactly as read: nothing cleaned, folded or dropped."""
        return self.lines.complete and not self.altered

    def kept(self) -> list[Line]:
        by_number: dict[int, Line] = {}
        for group in (self.lines, self.errors, self.context, self.warnings):
            for line in group:
                by_number[line.n] = line
        return [by_number[n] for n in sorted(by_number)]

    def priority(self, lines: Sequence[Line]) -> list[int]:
        """Indices into ``lines``, most important first (see the module docstring)."""
        index = {line.n: i for i, line in enumerate(lines)}
        context: dict[int, list[int]] = {}
        for line in lines:
            if line.level == "context" and line.parent is not None:
                context.setdefault(line.parent, []).append(index[line.n])
        meaningful = [line for line in lines if line.level not in NOISE]
        # how it ended, newest first: under the tightest budget the very last line stays
        tiers: list[list[int]] = [[index[line.n] for line in reversed(meaningful[-3:])]]
        errors = _from_both_ends([line for line in lines if line.level == "error"])
        tiers.append([index[e.n] for e in errors])
        tiers.append([i for e in errors for i in context.get(e.n, ())])  # each error's detail
        for level in ("context", "warning"):
            picked = [line for line in lines if line.level == level]
            tiers.append([index[line.n] for line in _from_both_ends(picked)])
        tiers.append([index[line.n] for line in reversed(meaningful[-20:])])
        tiers.append([index[line.n] for line in meaningful[:5]])
        for levels in (("info",), NOISE):
            picked = [line for line in lines if line.level in levels]
            tiers.append([index[line.n] for line in _from_both_ends(picked)])
        return list(dict.fromkeys(i for tier in tiers for i in tier))

    def summary(self) -> dict[str, Any]:
        counts = self.counts
        out: dict[str, Any] = {"lines": self.physical}
        out.update(errors=counts["error"], warnings=counts["warning"])
        noise = counts["noise"] + counts["progress"]
        if noise:
            out["noise"] = noise
        if self.binary_lines:
            out["binary_lines"] = self.binary_lines
        return out

    def result(self, header: Mapping[str, Any], summary: Mapping[str, Any]) -> Result:
        """Records of the kept lines in line order; ``priority(kept())`` orders them for pack.

        Its total is every line of the log (identical and progress lines folded into one
        record, as they are shown), so ``omitted`` counts what the agent does not see, not
        just what was kept in memory and left out.
        """
        records = [line.record() for line in self.kept()]
        return Result.of(records, header, summary, total=self.lines.count)


def _clean(raw: bytes) -> tuple[str, bool]:
    """The text an agent reads for one line, and whether it is exactly the line's bytes."""
    if b"\x00" in raw:
        return BINARY, False
    try:
        text = raw.decode("utf-8")
        exact = True
    except UnicodeDecodeError:
        text = raw.decode("utf-8", errors="replace")
        exact = False
        if text.count("\ufffd") * 4 > len(text):
            return BINARY, False
    if "\x1b" in text:
        text = _ANSI.sub("", text)
        exact = False
    if _CONTROL.search(text):
        text = _CONTROL.sub("", text)
        exact = False
    return text, exact


# -- a log as records, delivered inline or spilled (the MCP run_command tool) ----------


class LogSink:
    """Feed a log's bytes as they come; ``deliver`` packs what matters, the rest spilled."""

    def __init__(
        self,
        *,
        mode: str = "auto",
        inline_threshold: int | None = None,
        store: SpillStore | None = None,
        kind: str = "log",
    ) -> None:
        self.mode = check_mode(mode)
        self.threshold = resolve_threshold(inline_threshold)
        self.spool = Spool(
            threshold=self.threshold, mode=self.mode, kind=kind, suffix=".log", store=store
        )
        self.digest = LogDigest(keep_all=self.mode == "inline")

    def feed(self, chunk: bytes) -> None:
        self.spool.write(chunk)
        self.digest.feed(chunk)

    def deliver(
        self,
        header: Mapping[str, Any] | None = None,
        *,
        max_tokens: int | None = None,
        max_chars: int | None = None,
        format: str | Format = "records",
        tokenizer: str | Tokenizer | None = None,
    ) -> Delivery:
        digest = self.digest.finish()
        settings = PackSettings(max_tokens, max_chars, format, tokenizer)
        spool = self.spool

        def inline(limited: bool) -> Packed | None:
            head = {"mode": "inline", **(header or {}), "warning": spool.warning}
            if limited and spool.failed and settings.limited:
                # nothing else is kept: the lines that matter most, within the budget
                result = digest.result(head, digest.summary())
                return settings.pack(result, limited=True, order=digest.priority(digest.kept()))
            if limited and not digest.complete:  # cleaned or folded: keep the bytes too
                return None
            shown = digest
            if not digest.lines.complete:  # the store failed on a long log: every line
                shown = LogDigest(keep_all=True)
                shown.feed(bytes(spool.memory))
                shown.finish()
            return settings.pack(shown.result(head, shown.summary()), limited=limited)

        def reference(ref: SpillRef, head: dict[str, Any]) -> tuple[Result, list[int]]:
            footer = {**digest.summary(), "more": f"agentout show {ref.ref} --lines 1:200"}
            return digest.result(head, footer), digest.priority(digest.kept())

        reference_settings = settings.for_reference(self.threshold)
        return finish(spool, self.mode, inline, reference_settings, header, reference)
