"""Redact a stream of bytes chunk by chunk, with the same result as redacting it whole.

Only what could still be part of a secret is held back: the last, unfinished line (a
secret never spans lines, except a private key block, whose state is carried instead). A
line longer than the scanner's window is not held whole: it is redacted window by window,
at places that depend on the line alone, never on how it was cut into chunks. So memory
stays within one window plus one chunk, and any chunking gives the same bytes.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from typing import IO, TYPE_CHECKING

from agentout.redact._found import Found

if TYPE_CHECKING:
    from agentout.redact._scan import KeyBlock, Scanner

__all__ = ["RedactedReader", "StreamRedactor"]

_READ = 1 << 16


class StreamRedactor:
    """``feed(chunk) -> bytes`` for each chunk as it arrives, then ``finish() -> bytes``.

    The concatenation of everything returned is the redacted stream; ``found`` counts
    what was replaced so far. With no scanner (redaction off) every chunk passes as is.
    ``scanner`` may also be a function that builds it: it is called on the first chunk
    that is not empty, so a stream that gets no output costs nothing.
    """

    def __init__(self, scanner: Scanner | Callable[[], Scanner | None] | None) -> None:
        self._build = scanner if callable(scanner) else None
        self._scanner = None if callable(scanner) else scanner
        self._held = b""
        self._block: KeyBlock | None = None  # made with the scanner: a private key's state
        self._counts: dict[str, int] = {}
        self._finished = False

    @property
    def found(self) -> Found:
        return Found(tuple(sorted(self._counts.items())))

    @property
    def held(self) -> int:
        """Bytes fed but not yet returned (the unfinished last line)."""
        return len(self._held)

    def feed(self, chunk: bytes) -> bytes:
        if self._finished:
            raise ValueError("feed() after finish()")
        if not chunk:
            return b""
        if self._build is not None:
            self._scanner, self._build = self._build(), None
        scanner = self._scanner
        if scanner is None:
            return bytes(chunk)
        if self._block is None:
            from agentout.redact._scan import KeyBlock

            self._block = KeyBlock()
        data = self._held + chunk if self._held else bytes(chunk)
        out: list[bytes] = []
        cut = data.rfind(b"\n") + 1
        if cut:
            text, kinds = scanner.redact(data[:cut], self._block, final=False)
            out.append(text)
            self._count(kinds)
            data = data[cut:]
        while len(data) > scanner.window:
            # A line this long is no private key body: a block still open ends here.
            self._block.open = self._block.marked = False
            text, kinds, step = scanner.window_of(data[: scanner.window])
            out.append(text)
            self._count(kinds)
            data = data[step:]
        self._held = data
        if not out:
            return b""
        return out[0] if len(out) == 1 else b"".join(out)

    def finish(self) -> bytes:
        if self._finished:
            return b""
        self._finished = True
        block = self._block
        if self._scanner is None or block is None or not (self._held or block.open):
            return b""
        text, kinds = self._scanner.redact(self._held, block, final=True)
        self._held = b""
        self._count(kinds)
        return text

    def _count(self, kinds: list[str]) -> None:
        for kind in kinds:
            self._counts[kind] = self._counts.get(kind, 0) + 1


class RedactedReader(io.RawIOBase):
    """A binary file whose reads give ``source``'s bytes with their secrets hidden, as
    ``stream`` redacts them: wrap it in ``io.BufferedReader`` for ``readline``. Closing it
    leaves ``source`` open."""

    def __init__(self, source: IO[bytes], stream: StreamRedactor) -> None:
        super().__init__()
        self._source = source
        self._stream = stream
        self._pending = memoryview(b"")
        self._done = False

    @property
    def found(self) -> Found:
        """What was hidden in what was read so far."""
        return self._stream.found

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
        while not self._pending:
            if self._done:
                return 0
            chunk = self._source.read(_READ)
            if chunk:
                self._pending = memoryview(self._stream.feed(chunk))
            else:
                self._done = True
                self._pending = memoryview(self._stream.finish())
        size = min(len(buffer), len(self._pending))
        buffer[:size] = self._pending[:size]
        self._pending = self._pending[size:]
        return size
