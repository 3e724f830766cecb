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
"""

from __future__ import annotations

import contextlib
import os
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
        self._store = store
        self.memory: bytearray | None = bytearray()
        self.writer: SpillWriter | None = None
        self.fallback: Scan | None = None  # the store failed: what matters, bounded
        self.warning: str | None = None
        self.size = 0
        self.newlines = 0
        self.ref: SpillRef | None = None
        self._last = b""

    # -- writing --------------------------------------------------------------------------------

    def feed(self, data: bytes) -> None:
        for step in self.filters:
            data = step.feed(data)
        self._write(data)

    def close(self) -> None:
        """No more output: the filters give what they held back."""
        for i, step in enumerate(self.filters):
            tail = step.finish()
            for later in self.filters[i + 1 :]:
                tail = later.feed(tail)
            self._write(tail)

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
                self.writer.write(data)
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
        from agentout.store.spill import SpillError, SpillStore

        try:
            store = self._store if self._store is not None else SpillStore.default()
            self.writer = store.open(kind=self.kind, suffix=self.suffix, by_content=True)
            self.writer.write(bytes(self.memory))
        except (OSError, SpillError) as exc:
            self._fail(exc, b"")
            return
        self.memory = None

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
        scan.feed(pending)
        self.memory = None
        self.fallback = scan

    # -- reading back ------------------------------------------------------------------------------

    @property
    def lines(self) -> int:
        """Lines as ``agentout show`` counts them: a last line without a newline counts."""
        return self.newlines + (1 if self._last not in (b"", b"\n") else 0)

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
