"""Capturing output as it arrives: in memory while it is small, else straight to the store.

``Capture`` is what a child's pipe drains into. Each piece goes through the output
filters (secrets redaction), then into memory up to the inline threshold, and past it,
everything so far and everything after is written through to a new file in the spill
store, in large writes, so the command is never held up by more than a ``write``. Nothing
is analysed here: the lines that matter are found afterwards, from memory or from the
file, so the reader keeps pace with the pipe.

Reading back (``whole``, ``scan``) goes through the writer's own descriptor, which it
keeps, with its lock, after the commit: an ``agentout clean`` running beside the command,
at any age, cannot take the output away from it (and leaves a locked file alone).

If the store cannot be written (read-only, full, unsafe), the capture falls back to
bounded memory: what was already written is read back through a ``Scan`` and the file
removed, and from then on every piece goes to the scan, which keeps the first and last
lines and the lines that matter, whatever the size. ``warning`` says so.

An output past the store's cap (``agentout.store.cap``: 256 MiB unless configured) is
kept as its head and its tail, with one line between them in the stored file saying
how much was left out; ``size`` and ``newlines`` still count every byte and line, and
``capped`` says so for the closing line. The tail waits in memory (8 MiB at most) until
the output ends.
"""

from __future__ import annotations

import contextlib
import os
from collections import deque
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Literal, Protocol

if TYPE_CHECKING:  # the store is imported when output is large enough to need it
    from agentout.read.trouble import Scan
    from agentout.store.spill import SpillRef, SpillStore, SpillWriter

__all__ = [
    "DEFAULT_INLINE_THRESHOLD",
    "MODES",
    "Capture",
    "Mode",
    "OutputFilter",
    "check_mode",
    "resolve_threshold",
]

Mode = Literal["auto", "inline", "file"]
MODES: tuple[Mode, ...] = ("auto", "inline", "file")
DEFAULT_INLINE_THRESHOLD = 8192
ENV_THRESHOLD = "AGENTOUT_INLINE_THRESHOLD"


def resolve_threshold(value: int | None = None) -> int:
    """The call's value, else ``$AGENTOUT_INLINE_THRESHOLD``, else 8192 bytes."""
    if value is not None:
        if value < 0:
            raise ValueError(f"inline threshold must be >= 0 bytes, got {value}")
        return value
    configured = os.environ.get(ENV_THRESHOLD, "").strip()
    if not configured:
        return DEFAULT_INLINE_THRESHOLD
    if not configured.isdigit():
        raise ValueError(f"{ENV_THRESHOLD}={configured!r}: expected a number of bytes")
    return int(configured)


def check_mode(mode: str) -> Mode:
    for known in MODES:
        if mode == known:
            return known
    raise ValueError(f"unknown delivery mode {mode!r}; known: {', '.join(MODES)}")


class OutputFilter(Protocol):
    """A streaming transform of the output (redaction): bytes in, bytes out, any chunking."""

    def feed(self, data: bytes) -> bytes: ...

    def finish(self) -> bytes: ...


class Capture:
    """See the module docstring. ``feed`` the output, ``close`` it, then read it back."""

    def __init__(
        self,
        *,
        threshold: int,
        store: SpillStore | None = None,
        kind: str = "run",
        suffix: str = ".log",
        keep_in_memory: bool = False,
        filters: tuple[OutputFilter, ...] = (),
    ) -> None:
        self.threshold = threshold
        self.kind, self.suffix = kind, suffix
        self.keep_in_memory = keep_in_memory  # --mode inline: never spill
        self.filters = filters
        self._store_at = store
        self.memory: bytearray | None = bytearray()
        self.writer: SpillWriter | None = None
        self.fallback: Scan | None = None  # the store failed: what matters, bounded
        self.warning: str | None = None
        self.size = 0
        self.newlines = 0
        self.ref: SpillRef | None = None
        self._last = b""
        self.cap: int | None = None  # read once the output reaches the store
        self._tail: deque[bytes] | None = None  # past the head: the latest pieces
        self._tail_size = 0
        self.dropped = 0  # bytes of a capped output neither in its head nor its tail
        self.dropped_lines = 0
        # called once, with the cap, when the output fills the store's head and goes on
        self.on_capped: Callable[[int], None] | None = None

    # -- writing --------------------------------------------------------------------------------

    def feed(self, data: bytes) -> None:
        for step in self.filters:
            data = step.feed(data)
        self._write(data)

    def close(self) -> None:
        """No more output: the filters give what they held back, and a capped output's
        tail goes to the store after the line that says what was left out."""
        for i, step in enumerate(self.filters):
            tail = step.finish()
            for later in self.filters[i + 1 :]:
                tail = later.feed(tail)
            self._write(tail)
        if self._tail is not None:
            self._end_capped()

    @property
    def capped(self) -> str | None:
        """For the closing line, when the output passed the store's cap: its exact size
        and lines, and how much of it the store does not hold."""
        if not self.dropped:
            return None
        return f"{self.size} bytes, {self.lines_printed} lines; {self.dropped} bytes not kept"

    def _write(self, data: bytes) -> None:
        if not data:
            return
        self.size += len(data)
        self.newlines += data.count(b"\n")
        self._last = data[-1:]
        if self.fallback is not None:
            self.fallback.feed(data)
        elif self.writer is not None:
            try:
                self._store(data)
            except OSError as exc:
                self._fail(exc, data)
        else:
            assert self.memory is not None
            self.memory += data
            if len(self.memory) > self.threshold and not self.keep_in_memory:
                self.spill()

    def spill(self) -> None:
        """Move what is in memory to a new file in the store and write through from now on."""
        if self.writer is not None or self.fallback is not None or self.memory is None:
            return
        from agentout.store.cap import store_cap
        from agentout.store.spill import SpillError, SpillStore

        self.cap, problem = store_cap()
        if problem is not None:
            self.warning = problem
        try:
            store = self._store_at if self._store_at is not None else SpillStore.default()
            self.writer = store.open(kind=self.kind, suffix=self.suffix, by_content=True)
            self._store(bytes(self.memory))
        except (OSError, SpillError) as exc:
            self._fail(exc, b"")
            return
        self.memory = None

    def _store(self, data: bytes) -> None:
        """To the file while the head has room (up to the end of a line where there is
        one), then to the tail, whose oldest pieces are counted and let go."""
        assert self.writer is not None
        if self._tail is None:
            room = self._head_room() - self.writer.size
            if len(data) <= room:
                self.writer.write(data)
                return
            end = data.rfind(b"\n", 0, max(room, 0)) + 1 or max(room, 0)
            self.writer.write(data[:end])
            self._tail, data = deque(), data[end:]
            if self.on_capped is not None and self.cap is not None:
                self.on_capped(self.cap)
        self._tail.append(data)
        self._tail_size += len(data)
        keep = self._tail_keep()
        while self._tail_size - len(self._tail[0]) >= keep:
            oldest = self._tail.popleft()
            self._tail_size -= len(oldest)
            self._count_dropped(oldest)

    def _head_room(self) -> int:
        from agentout.store.cap import tail_bytes

        return 1 << 62 if self.cap is None else self.cap - tail_bytes(self.cap)

    def _tail_keep(self) -> int:
        from agentout.store.cap import tail_bytes

        assert self.cap is not None
        return tail_bytes(self.cap)

    def _count_dropped(self, piece: bytes) -> None:
        self.dropped += len(piece)
        self.dropped_lines += piece.count(b"\n")

    def _end_capped(self) -> None:
        """The tail, from a line's start, after the line that says what was not kept
        (none when nothing was: the head and the tail then meet)."""
        assert self._tail is not None
        tail = b"".join(self._tail)
        self._tail, self._tail_size = None, 0
        over = len(tail) - self._tail_keep()
        if over > 0:
            self._count_dropped(tail[:over])
            tail = tail[over:]
        if self.dropped:
            start = tail.find(b"\n") + 1
            if 0 < start < len(tail):  # its first line begun in what was left out
                self._count_dropped(tail[:start])
                tail = tail[start:]
        writer = self.writer
        if writer is None:
            return
        try:
            if self.dropped:
                from agentout.store.cap import CUT_KIND, cut_marker

                assert self.cap is not None
                writer.rename_kind(self.kind + CUT_KIND)
                if writer.size and not self._ends_line(writer):
                    writer.write(b"\n")
                writer.write(cut_marker(self.dropped, self.dropped_lines, self.cap))
            writer.write(tail)
        except OSError as exc:
            self._fail(exc, b"")

    @staticmethod
    def _ends_line(writer: SpillWriter) -> bool:
        return writer.lines == writer.newlines

    def commit(self) -> SpillRef | None:
        """The stored output under its final name (spilling it first if it is in memory);
        None if the store failed."""
        if self.ref is not None:
            return self.ref
        if self.writer is None:
            self.spill()
        if self.writer is None:
            return None
        try:
            self.ref = self.writer.commit()
        except OSError as exc:
            self._fail(exc, b"")
        return self.ref

    def discard(self) -> None:
        if self.writer is not None and self.ref is None:
            self.writer.abort()
            self.writer = None

    def _fail(self, exc: BaseException, pending: bytes) -> None:
        """The store failed: scan what it holds and go on in bounded memory."""
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        self.warning = f"spill store not writable ({reason}); only what is shown here was kept"
        from agentout.read.trouble import Scan

        scan = Scan()
        if self.writer is not None:
            with contextlib.suppress(OSError):
                self.writer.flush()
            for piece in self.writer.read_back():
                scan.feed(piece)
            self.writer.abort()
            self.writer = None
        elif self.memory is not None:
            scan.feed(bytes(self.memory))
        for piece in self._tail or ():  # a capped output's tail, not yet stored
            scan.feed(piece)
        self._tail, self._tail_size = None, 0
        scan.feed(pending)
        self.memory = None
        self.fallback = scan

    # -- reading back ------------------------------------------------------------------------------

    @property
    def lines_printed(self) -> int:
        """The output's lines: a last line without a newline counts."""
        return self.newlines + (1 if self._last not in (b"", b"\n") else 0)

    @property
    def lines(self) -> int:
        """Lines as ``agentout show`` counts them in what is kept: the output's, or a
        capped output's stored head, the line about what was left out, and its tail."""
        if self.dropped and self.writer is not None:
            return self.writer.lines
        return self.lines_printed

    def whole(self, limit: int) -> bytes | None:
        """All of the output if it is at most ``limit`` bytes and still to be had."""
        if self.size > limit or self.fallback is not None:
            return None
        if self.memory is not None:
            return bytes(self.memory)
        return None if self.writer is None else b"".join(self._stored())

    def scan(self) -> Scan:
        """A scan of the whole output (from memory, the file, or the one kept on failure)."""
        if self.fallback is not None:
            return self.fallback
        from agentout.read.trouble import Scan

        scan = Scan()
        if self.memory is not None:
            scan.feed(bytes(self.memory))
            return scan
        for piece in self._stored():
            scan.feed(piece)
        return scan

    def source(self) -> Callable[[], Iterator[bytes]] | None:
        """What reads all of the output again, in order (from memory or the store), for a
        second look at it (``agentout.read.digest`` counts lines of one shape so); None
        when the store failed and only a scan of it was kept."""
        if self.fallback is not None:
            return None
        if self.memory is not None:
            memory = bytes(self.memory)
            return lambda: iter((memory,))
        return self._stored

    def _stored(self) -> Iterator[bytes]:
        """The stored output, read back through the writer's descriptor."""
        writer = self.writer
        if writer is None:
            return
        if self.ref is None:
            with contextlib.suppress(OSError):
                writer.flush()
        yield from writer.read_back()
