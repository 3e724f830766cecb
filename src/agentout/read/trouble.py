"""Finding the lines that matter in text of any size, a whole chunk at a time.

``Scan`` takes output as bytes, in any chunking, and keeps in bounded memory what an
agent needs from it: the first and last lines, every line that says something went wrong
(compiler and test errors, tracebacks, panics, failed statuses, ERROR log lines) with the
detail around it (frames, carets, the ``File "x", line N`` above a ``SyntaxError``), and
warnings. It never runs Python per line over the whole text: each chunk is searched once
for the vocabulary of trouble by a linear-time engine (RE2), line boundaries are found only
around its hits, and only those lines are classified precisely. Counting lines is a
``bytes.count``. So a gigabyte of ``yes`` costs a few RE2 passes, not a billion lines of
Python.

Kept lines are ``Line`` objects: their number, their bytes (at most ``MAX_LINE_BYTES``;
the rest counted), and their level. ``text()`` gives what an agent reads: UTF-8 (invalid
bytes replaced), ANSI colour removed, a carriage-return redraw reduced to its last state,
and control, bidi and line-separator characters made visible as escapes, so output can
neither hide text nor drive the terminal.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from agentout.read.visible import own_line, terminal_text

__all__ = [
    "FILE_LINE",
    "MAX_LINE_BYTES",
    "Line",
    "Scan",
    "ScanResult",
    "classify",
    "clean",
    "record_level",
]

MAX_LINE_BYTES = 8192  # of one line, kept to show; the stored output keeps every byte
LINE_END_BYTES = 1024  # and the end of a longer line: how it ended
# How the output began, kept whole up to this many bytes (and lines): enough for a budget
# the size of what a client shows inline (Claude Code: 30,000 characters) to fill with it.
HEAD_BYTES = 64 << 10
HEAD_LINES = 8192
TAIL_LINES = 400
ERROR_ENDS = 500  # the first and the last this many error lines are kept
WARNING_ENDS = 300
CONTEXT_AFTER = 6  # lines of detail after an error (frames, carets, gutters)
TRACEBACK_LINES = 60
CONTEXT_BEFORE = 3  # location lines before an error ("File ..., line N", source, caret)
DENSE_HITS = 200_000  # past this many hits, the middle is counted, not classified

# The vocabulary of trouble: what says a line is an error, or a warning, in every common
# format (compilers, test runners, package managers, and log levels wherever log formats put
# them). RE2 syntax (no lookarounds), one line at a time ([ \t], never \s, so a match never
# starts on the line before). Each log format has a recorded sample in
# tests/fixtures/logs/ that tests/read/test_trouble.py checks, line by line.
# Colour as terminals get it (SGR, and the erase-line gcc sends after it): a coloured
# "\x1b[31merror:\x1b[0m" is an error too. The bytes are searched as printed, so each
# place a pattern looks for a line's start or a separator also takes such a sequence.
_COLOUR = r"\x1b\[[0-9;]*[mK]"

_LEVEL_ERROR = "ERROR|ERR|FATAL|FTL|CRITICAL|CRIT|SEVERE|EMERG|EMERGENCY|ALERT|PANIC"
_LEVEL_WARNING = "WARNING|WARN|WRN"
# syslog's <PRI> (RFC 3164/5424, the kernel's printk): facility * 8 + severity; severity
# 0-3 (emerg, alert, crit, err) is an error, 4 a warning.
_PRI_ERROR = "|".join(str(f * 8 + s) for f in range(24) for s in range(4))
_PRI_WARNING = "|".join(str(f * 8 + 4) for f in range(24))
_ERROR = (
    r"(?:^|[ \t\]:)])(?:error|fatal error|fatal)(?:\[[A-Za-z0-9]+\])?:",  # gcc, rustc, tsc, pip
    r"^[ \t]*(?:error|fatal|ERROR|FATAL|FAILED|FAIL|FAILURE|PANIC|CRITICAL)\b",  # ERROR: x
    # a level word in upper case between separators: log4j, logback, Python's logging,
    # env_logger, tracing, zerolog, Serilog, Ruby's Logger, "[ERROR]", "| ERROR |"
    rf"(?:^|[ \t\[|(\":,-])(?:{_LEVEL_ERROR})(?:[ \t\]|)\":,-]|$)",
    # a level in lower or mixed case in brackets: nginx "[error]", Apache "[core:error]"
    r"(?i:[\[:](?:error|err|fatal|crit|critical|emerg|alert|severe|panic)\])",
    # a level field: logfmt "level=error", JSON "level":"error", log15 "lvl=eror", GCP
    # "severity":"ERROR", pino/bunyan's numeric "level":50 (error) and 60 (fatal)
    r"(?i:\b(?:level|lvl|severity|loglevel|log_level)[^a-zA-Z0-9_\n]{1,4}"
    r"(?:error|eror|err|fatal|critical|crit|emerg|emergency|alert|panic|severe)\b)",
    r"(?i:\blevel\"?[ \t]*[:=][ \t]*[56]0\b)",
    r"^[EF]\d{4} \d\d:\d\d",  # glog, klog (Kubernetes)
    r"^[EF], \[",  # Ruby's Logger
    r"^(?:fail|crit): ",  # .NET's console logger
    rf"^<(?:{_PRI_ERROR})>",  # syslog priority, kernel messages
    r"^E[ \t]{2,}\S",  # pytest's E lines
    # npm (npmlog colours its heading and its level apart), pnpm, apt
    rf"^npm(?:{_COLOUR}|[ \t])*[ \t](?:{_COLOUR})*(?:ERR!|error\b)|\bERR_PNPM_\w|^E:[ \t]",
    r"^not ok\b",  # TAP
    r"^[ \t]*[✗✕✖×][ \t]",
    r"^Traceback \(most recent call last\)",
    r"^Exception in thread\b|^Caused by: ",
    # Python, Node, Java (Python 3.13 colours the name apart from its message)
    rf"^(?:[A-Za-z_][\w.]*)?(?:Error|Exception|Interrupt|Exit)(?:{_COLOUR})*(?::|$)",
    r":\d+: \w*(?:Error|Exception)$",  # pytest's location line
    r"^panic: |\bpanicked at\b|Segmentation fault|core dumped|\bAbort(?:ed)?\b",
    r"^make(?:\[\d+\])?: \*\*\*",
    r"\bundefined reference to\b|\bcommand not found\b",
    r"\.\.\. (?:FAILED|failed|FAIL)\b",  # cargo test, unittest
    r"\b[1-9]\d* (?:failed|failing|errors?)\b",  # 3 failed, 2 errors
    r"(?i:\bfail(?:ed|ures?)?\b:? +[1-9])",  # "# fail 2", failures: 3
    r"(?i:\bstatus[^a-zA-Z0-9_\n]{1,4}(?:error|failed|failure)\b)",  # status 'error'
    r"(?i:\bexit(?:ed)? (?:code|status)[^a-zA-Z0-9_\n]{1,3}[1-9])",  # exit code: 1
    r"\bFAILED\b|\bFAILURE\b",
)
_WARNING = (
    r"(?i:(?:^|[ \t\[(\":|-])warn(?:ing)?s?(?:\[[\w-]+\])?(?:[:!\]|)\" \t]|$))",  # warning: x
    r"\b\w+Warning\b|^W:[ \t]|^W\d{4} \d\d:\d\d",  # DeprecationWarning, apt, glog
    rf"^npm(?:{_COLOUR}|[ \t])*[ \t](?:{_COLOUR})*(?:WARN|warn)\b",
    rf"(?:^|[ \t\[|(\":,-])(?:{_LEVEL_WARNING})(?:[ \t\]|)\":,-]|$)",
    r"(?i:\b(?:level|lvl|severity|loglevel|log_level)[^a-zA-Z0-9_\n]{1,4}warn(?:ing)?\b)",
    r"(?i:\blevel\"?[ \t]*[:=][ \t]*40\b)",  # pino, bunyan
    r"^W, \[|^warn: ",  # Ruby's Logger, .NET
    rf"^<(?:{_PRI_WARNING})>",
)
# After an error: frames, carets, gutters and indented detail, until a plain line.
_CONTEXT = re.compile(r"^\s+\S|^\s*\d*\s*[|│╰├└^~]|^\s*-->|^>\s")
# A frame of a Java, JavaScript or C# stack trace, and the line that says how many more.
_STACK_FRAME = re.compile(r"^\s+at \S|^\s+\.\.\. \d+ (?:more|common frames omitted)")
# Above an error: where it is (Python's File line, source and caret lines are indented).
_FRAME = re.compile(r"^\s*\d*\s*[|│]|^\s*[\^~]+[\s^~]*$|^\s*-->")
FILE_LINE = re.compile(r'^\s+File "[^"]+", line \d+')
_LOCATION = re.compile(r'^\s+File "|^\s+\S|^\s*\d*\s*[|^~]')


_COMPILED: dict[str, Any] = {}


def _through_colour(pattern: str) -> str:
    """``pattern`` seeing through colour at line starts and around separated words."""
    pattern = pattern.replace("(?:^|[", f"(?:^|(?:{_COLOUR})+|[")
    pattern = re.sub(r"(?<![\[|])\^(?![|])", lambda _: f"^(?:{_COLOUR})*", pattern)
    return pattern.replace(r"[ \t\]|)\":,-]|$)", rf"[ \t\]|)\":,-]|{_COLOUR}|$)")


def _patterns() -> dict[str, Any]:
    """The patterns compiled by RE2 (google-re2): linear time, hundreds of MB/s on bytes
    here, where Python's re manages a few MB/s on such alternations."""
    if not _COMPILED:
        import re2

        options = re2.Options()
        options.encoding = re2.Options.Encoding.UTF8
        error = "|".join(map(_through_colour, _ERROR))
        warning = "|".join(map(_through_colour, _WARNING))
        _COMPILED["both"] = re2.compile(f"(?m)(?P<e>{error})|(?P<w>{warning})", options)
        _COMPILED["error"] = re2.compile(f"(?m){error}", options)
        _COMPILED["warning"] = re2.compile(f"(?m){warning}", options)
    return _COMPILED


def classify(text: str) -> str | None:
    """``error``, ``warning`` or None for one line of text (outside a traceback)."""
    found = _patterns()
    if found["error"].search(text):
        return "error"
    if found["warning"].search(text):
        return "warning"
    return None


# A structured log record's level (JSON lines, YAML): the field, and the words and numbers
# (pino and bunyan: 40 warn, 50 error, 60 fatal) that say error or warning.
_LEVEL_KEYS = ("level", "severity", "lvl", "loglevel", "log_level", "levelname", "log.level")
_ERROR_LEVELS = frozenset(
    [
        "error",
        "eror",
        "err",
        "fatal",
        "critical",
        "crit",
        "emerg",
        "emergency",
        "alert",
        "panic",
        "severe",
        "failure",
    ]
)
_WARNING_LEVELS = frozenset(["warning", "warn", "wrn"])


def record_level(value: object) -> str | None:
    """``error``, ``warning`` or None for a structured log record (a mapping), by its level
    field: ``{"level": "error"}``, ``{"severity": "ERROR"}``, ``{"level": 50}``,
    ``{"log": {"level": "warn"}}``."""
    if not isinstance(value, dict):
        return None
    for key in _LEVEL_KEYS:
        level = value.get(key)
        if level is None and key == "log.level" and isinstance(value.get("log"), dict):
            level = value["log"].get("level")
        if isinstance(level, str):
            word = level.strip().lower()
            if word in _ERROR_LEVELS:
                return "error"
            if word in _WARNING_LEVELS:
                return "warning"
        elif isinstance(level, int) and not isinstance(level, bool) and key == "level":
            return "error" if level >= 50 else "warning" if level == 40 else None
        if level is not None:
            return None
    return None


def is_detail(text: str) -> bool:
    """Does the line look like a code frame under another line (a gutter, a caret)?"""
    return _FRAME.search(text) is not None


def clean(raw: bytes) -> str:
    """The text an agent reads for one line's bytes (see the module docstring)."""
    return own_line(terminal_text(raw.decode("utf-8", errors="replace")))


@dataclass
class Line:
    """One kept line: its number (from 1), its bytes (``cut`` more not kept), its level."""

    n: int
    raw: bytes
    level: str  # error | context | warning | info
    cut: int = 0  # bytes between ``raw`` and ``end`` not kept
    parent: int | None = None  # the error line a context line belongs to
    end: bytes = b""  # the line's last bytes, when it is cut

    def text(self) -> str:
        if not self.cut:
            return clean(self.raw)
        return f"{clean(self.raw)}… (+{self.cut} bytes) …{clean(self.end)}"


@dataclass
class ScanResult:
    """What a scan kept, in line order, and the counts of the whole."""

    lines: list[Line]
    total: int  # lines in the output (a last line without a newline counts)
    size: int  # bytes
    errors: int
    warnings: int
    complete: bool  # every line is among ``lines``, whole
    dense: bool = False  # so many hits that the middle was counted, not classified

    def by_number(self) -> dict[int, Line]:
        return {line.n: line for line in self.lines}


class _Ends:
    """The first and last ``keep`` lines added (all of them while fewer were added)."""

    def __init__(self, keep: int) -> None:
        self.head: list[Line] = []
        self.tail: deque[Line] = deque(maxlen=keep)
        self.keep = keep

    def add(self, line: Line) -> None:
        if len(self.head) < self.keep:
            self.head.append(line)
        else:
            self.tail.append(line)

    def __iter__(self) -> Iterator[Line]:
        yield from self.head
        yield from self.tail


@dataclass
class _Detail:
    """An error's detail that may go on into the next chunk."""

    left: int = 0  # lines of detail still to take
    parent: int | None = None
    traceback: bool = False
    continues: bool = False  # the error line ended with ':', the next line says what
    frames: int = 0  # stack frames taken ("at f (x.js:1)"): a whole trace, up to a cap


class Scan:
    """Feed output bytes as they come (``feed``), then ``finish()`` for what matters."""

    def __init__(
        self, *, head: int = HEAD_LINES, tail: int = TAIL_LINES, head_bytes: int = HEAD_BYTES
    ) -> None:
        self.head_keep, self.tail_keep = head, tail
        self.head_bytes = head_bytes  # left for the head to take
        self.head: list[Line] = []
        self.errors = _Ends(ERROR_ENDS)
        self.warnings = _Ends(WARNING_ENDS)
        self.context = _Ends(ERROR_ENDS * 4)
        self.error_count = self.warning_count = 0
        self.lines = 0  # lines ended so far
        self.size = 0
        self.hits = 0
        self._recent: deque[tuple[int, str]] = deque(maxlen=tail)  # the last hits' levels
        self._tail = b""  # the last lines ended (at most tail_keep), and the first's number
        self._tail_first = 1
        self._carry = b""  # the start of the line not ended yet (at most MAX_LINE_BYTES)
        self._carry_cut = 0  # bytes of that line past the carry
        self._carry_level: str | None = None  # the worst level seen in those bytes
        self._detail = _Detail()
        self._carry_end = b""  # that line's last bytes so far
        # line number -> (bytes not kept, the line's end), for lines longer than a chunk
        self._cuts: dict[int, tuple[int, bytes]] = {}

    # -- reading ----------------------------------------------------------------------------

    def feed(self, data: bytes) -> None:
        if not data:
            return
        self.size += len(data)
        last = data.rfind(b"\n")
        if last < 0:
            self._extend_carry(data)
            return
        begin = 0
        if self._carry or self._carry_cut:  # the line begun in earlier chunks ends here
            end = data.find(b"\n")
            if self._carry_cut:
                self._long_line(data[:end])
            else:
                line = self._carry + data[: end + 1]
                self._carry = b""
                self._block(line, 0, len(line))
            begin = end + 1
        self._block(data, begin, last + 1)  # no copy: the buffer is searched in place
        self._extend_carry(data[last + 1 :])

    def _extend_carry(self, data: bytes) -> None:
        room = MAX_LINE_BYTES - len(self._carry)
        if room > 0:
            self._carry += data[:room]
        rest = data[max(room, 0) :]
        if rest:
            self._carry_cut += len(rest)
            self._carry_end = (self._carry_end + rest)[-LINE_END_BYTES:]
            self._carry_level = _worse(self._carry_level, _level_in(rest))

    def _long_line(self, rest: bytes) -> None:
        """The line in the carry ends with ``rest``: kept in part, its level from all of it."""
        level = _worse(self._carry_level, _level_in(rest))
        end = (self._carry_end + rest)[-LINE_END_BYTES:]
        self._cuts[self.lines + 1] = (self._carry_cut + len(rest) - len(end), end)
        carry = self._carry
        self._carry, self._carry_cut, self._carry_level = b"", 0, None
        self._carry_end = b""
        line = carry + b"\n"
        self._block(line, 0, len(line), first_level=level)

    def finish(self) -> ScanResult:
        if self._carry or self._carry_cut:
            if self._carry_cut:
                self._long_line(b"")
            else:
                last, self._carry = self._carry + b"\n", b""
                self._block(last, 0, len(last))
        kept: dict[int, Line] = {}
        for line in (*self.head, *self._tail_lines(), *self.errors, *self.warnings, *self.context):
            if line.n not in kept or kept[line.n].level == "info":
                kept[line.n] = line
        lines = [kept[n] for n in sorted(kept)]
        for line in lines:
            if line.n in self._cuts:
                line.cut, line.end = self._cuts[line.n]
        complete = len(lines) == self.lines and not any(line.cut for line in lines)
        dense = self.hits > DENSE_HITS
        return ScanResult(
            lines, self.lines, self.size, self.error_count, self.warning_count, complete, dense
        )

    def _tail_lines(self) -> list[Line]:
        if not self._tail:
            return []
        lines = [
            _line(self._tail_first + i, raw, "info")
            for i, raw in enumerate(self._tail[:-1].split(b"\n"))
        ]
        if self.hits > DENSE_HITS:  # the middle was only counted: classify the end at least
            for line in lines:
                line.level = classify(line.text()) or "info"
            return lines
        levels = dict(self._recent)
        for line in lines:
            line.level = levels.get(line.n, "info")
        return lines

    # -- one block of whole lines ------------------------------------------------------------

    def _block(self, buf: bytes, begin: int, end: int, first_level: str | None = None) -> None:
        """The whole lines ``buf[begin:end]`` (ending with a newline), numbered from
        ``self.lines + 1``; ``first_level`` is the first line's, if known already."""
        if begin >= end:
            return
        first = self.lines + 1
        count = buf.count(b"\n", begin, end)
        if len(self.head) < self.head_keep and self.head_bytes > 0:
            self._take_head(buf, begin, end, first)
        self._take_tail(buf, begin, end, first, count)
        self._hits(buf, begin, end, first, first_level)
        self.lines += count

    def _take_head(self, buf: bytes, begin: int, end: int, first: int) -> None:
        start, n = begin, first
        while len(self.head) < self.head_keep and self.head_bytes > 0 and start < end:
            stop = buf.find(b"\n", start, end)
            self.head.append(_line(n, buf[start:stop], "info"))
            self.head_bytes -= stop + 1 - start
            start, n = stop + 1, n + 1

    def _take_tail(self, buf: bytes, begin: int, end: int, first: int, count: int) -> None:
        """The last ``tail_keep`` lines so far, as bytes (made into lines only at the end)."""
        if count >= self.tail_keep:
            start = end - 1
            for _ in range(self.tail_keep):
                start = buf.rfind(b"\n", begin, start)
            self._tail = buf[start + 1 : end] if start >= begin else buf[begin:end]
            self._tail_first = first + count - self.tail_keep
            return
        joined = self._tail + buf[begin:end]
        total = joined.count(b"\n")
        start = 0
        if total > self.tail_keep:
            start = len(joined) - 1
            for _ in range(self.tail_keep):
                start = joined.rfind(b"\n", 0, start)
            start += 1
            self._tail_first += total - self.tail_keep
        self._tail = joined[start:]

    def _hits(self, buf: bytes, begin: int, end: int, first: int, level0: str | None) -> None:
        both = _patterns()["both"]
        pos, seen, n = begin, begin, first  # buf[seen] starts line n
        if self._detail.left or self._detail.traceback:  # detail goes on from the last chunk
            pos = self._context(buf, pos, end, first)
            n += buf.count(b"\n", seen, pos)
            seen = pos
        while pos < end:
            match = both.search(buf, pos, end)
            if level0 is not None and pos == begin and (match is None or match.start() > begin):
                start, level = begin, level0  # a long line's level, from its bytes not kept
            elif match is None:
                return
            else:
                start = buf.rfind(b"\n", begin, match.start()) + 1 or begin
                level = "error" if match.group("e") is not None else "warning"
            level0 = None
            stop = buf.find(b"\n", start, end)
            n += buf.count(b"\n", seen, start)
            seen, pos = start, stop + 1
            raw = buf[start:stop]
            if level == "warning" and _patterns()["error"].search(raw):
                level = "error"  # "warning: treated as error: ..."
            self.hits += 1
            if n <= len(self.head):  # inline: once for every hit (self._leveled)
                self._leveled(n, level)
            else:
                self._recent.append((n, level))
            if level == "warning":
                self.warning_count += 1
                if self.hits <= DENSE_HITS:
                    self.warnings.add(_line(n, raw, level))
                continue
            self.error_count += 1
            if self.hits > DENSE_HITS:
                continue  # so many that keeping each would be per-line Python: counted
            self.errors.add(_line(n, raw, level))
            self._before(buf, begin, start, n)
            traceback = raw.startswith(b"Traceback (most")
            left = TRACEBACK_LINES if traceback else CONTEXT_AFTER
            continues = raw.rstrip().endswith(b":")  # "panicked at src/lib.rs:7:32:"
            self._detail = _Detail(left, n, traceback, continues)
            pos = self._context(buf, pos, end, n + 1)

    def _leveled(self, n: int, level: str) -> None:
        """Line ``n`` is an error or a warning: so it is too among the first and last lines
        kept, whether or not it is among the errors or warnings kept (past their ends)."""
        if n <= len(self.head) and self.head[n - 1].level == "info":
            self.head[n - 1].level = level
        self._recent.append((n, level))

    def _before(self, buf: bytes, begin: int, start: int, n: int) -> None:
        """The location above the error at ``buf[start]``: Python's ``File "x", line N``
        and the source and caret lines under it (up to CONTEXT_BEFORE lines); nothing
        when the lines above are not such a location (frames of something else)."""
        stop = start - 1
        above: list[tuple[int, bytes]] = []
        for back in range(1, CONTEXT_BEFORE + 1):
            if stop < begin:
                break
            line_start = buf.rfind(b"\n", begin, stop) + 1 or begin
            raw = buf[line_start:stop]
            text = clean(raw[:MAX_LINE_BYTES])
            if not _LOCATION.match(text):
                break
            above.append((n - back, raw))
            if FILE_LINE.match(text):
                for number, line in above:
                    self.context.add(_line(number, line, "context", parent=n))
                return
            stop = line_start - 1

    def _context(self, buf: bytes, pos: int, end: int, n: int) -> int:
        """Detail lines from ``buf[pos]`` (line ``n``) while they go on; where they end."""
        detail = self._detail
        while (detail.left or detail.traceback) and pos < end:
            stop = buf.find(b"\n", pos, end)
            raw = buf[pos:stop]
            text = clean(raw[:MAX_LINE_BYTES])
            if detail.traceback and not text.startswith((" ", "\t")):
                detail.traceback = False
                detail.left = CONTEXT_AFTER
                if not text.strip() or _patterns()["error"].search(raw):
                    return pos  # no exception line, or one the vocabulary finds as an error
                # the exception line, whatever its name (psycopg2.errors.UndefinedTable:
                # ...), is what went wrong: an error, with its own detail after it
                self.hits += 1
                self._leveled(n, "error")
                self.error_count += 1
                self.errors.add(_line(n, raw, "error"))
                continues = raw.rstrip().endswith(b":")
                self._detail = detail = _Detail(CONTEXT_AFTER, n, False, continues)
                pos, n = stop + 1, n + 1
                continue
            ends = not _CONTEXT.search(text) or classify(text) is not None
            if not detail.traceback and text.strip() and ends and not detail.continues:
                detail.left = 0
                return pos
            if text.strip():
                detail.continues = False
            if _STACK_FRAME.match(text) and detail.frames < TRACEBACK_LINES:
                detail.frames += 1  # a Java or JavaScript stack: every frame, up to the cap
            else:
                detail.left = max(0, detail.left - 1)
            self.context.add(_line(n, raw, "context", parent=detail.parent))
            pos, n = stop + 1, n + 1
        return pos


def _level_in(data: bytes) -> str | None:
    found = _patterns()
    if found["error"].search(data):
        return "error"
    return "warning" if found["warning"].search(data) else None


def _worse(a: str | None, b: str | None) -> str | None:
    return "error" if "error" in (a, b) else a or b


def _line(n: int, raw: bytes, level: str, parent: int | None = None) -> Line:
    if len(raw) > MAX_LINE_BYTES + LINE_END_BYTES:
        cut = len(raw) - MAX_LINE_BYTES - LINE_END_BYTES
        return Line(n, raw[:MAX_LINE_BYTES], level, cut, parent, raw[-LINE_END_BYTES:])
    return Line(n, raw, level, 0, parent)
