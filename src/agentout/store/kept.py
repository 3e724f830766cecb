"""The input ``agentout fit`` read, kept in the spill store when the budget shows less.

``InputCopy`` stands between the input and its reader: every byte read passes through
unchanged and is copied, its secrets hidden (``agentout.redact``, streamed, so the same
bytes whatever the chunking), into memory up to the inline threshold and past it
written through to a new file in the spill store, so memory stays bounded whatever the
size. When the output turns out whole, ``drop()`` forgets the copy; otherwise ``keep()``
reads what the reader left (a JSON value's trailing whitespace), commits the file under a
name derived from its bytes (the same input, the same reference) and returns it.

If the store cannot be written (read-only, full, unsafe), ``warning`` says so and
nothing is kept: the caller puts the warning in the header, so nothing is lost silently.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, BinaryIO

from agentout.redact import default_redactor
from agentout.store.spill import SpillError, SpillRef, SpillStore, SpillWriter

if TYPE_CHECKING:
    from agentout.redact import StreamRedactor

__all__ = ["KIND", "InputCopy", "suffix_for"]

KIND = "fit"
_DRAIN = 1 << 20
# What a stored input is named, by how it was read: ``agentout show REF --records`` reads
# it again the same way (by the extension; ``.txt`` as text; ``.data`` by its content).
_SUFFIXES = {
    "json": ".json",
    "jsonl": ".jsonl",
    "yaml": ".yaml",
    "toml": ".toml",
    "csv": ".csv",
    "tsv": ".tsv",
    "text": ".txt",
    "markdown": ".md",
}
UNKNOWN_SUFFIX = ".data"


def suffix_for(input_format: str, name: str | None) -> str:
    """The stored file's suffix: the format asked for, else the one the name's extension
    gives, else ``.data`` (read by its content, as stdin was)."""
    from agentout.read.structured import kind_of

    kind = input_format if input_format != "auto" else (kind_of(name) if name else None)
    return _SUFFIXES.get(kind or "", UNKNOWN_SUFFIX)


class InputCopy:
    """A binary stream reading ``source`` and copying what it reads (see the module)."""

    def __init__(
        self,
        source: BinaryIO,
        *,
        suffix: str,
        threshold: int,
        store: SpillStore | None = None,
        name: str = "<input>",
    ) -> None:
        self.name = name
        self._source = source
        self._suffix, self._threshold, self._store = suffix, threshold, store
        self._redactor: StreamRedactor = default_redactor().stream()
        self._memory = bytearray()
        self._writer: SpillWriter | None = None
        self._ended = False
        self.warning: str | None = None

    def read(self, size: int = -1) -> bytes:
        data = self._source.read(size)
        if data:
            self._put(self._redactor.feed(data))
        elif not self._ended:
            self._ended = True
            self._put(self._redactor.finish())
        return bytes(data)

    def name_when_kept(self) -> str | None:
        """The name ``keep`` will give the complete input (read to its end now), so a
        caller can know what its reference says before keeping it; None (``warning`` says
        why) if the store failed."""
        while self.read(_DRAIN):
            pass
        if self.warning is None and self._writer is None:
            self._open()
        if self.warning is not None or self._writer is None:
            return None
        return self._writer.final_name()

    def keep(self) -> SpillRef | None:
        """The complete input in the store; None (``warning`` says why) if it failed."""
        if self.name_when_kept() is None:
            return None
        assert self._writer is not None
        try:
            return self._writer.commit()
        except OSError as exc:
            self._fail(exc)
            return None

    def drop(self) -> None:
        """Forget the copy: the file being written is removed."""
        if self._writer is not None:
            self._writer.abort()
            self._writer = None
        self._memory = bytearray()

    def _put(self, data: bytes) -> None:
        if not data or self.warning is not None:
            return
        if self._writer is not None:
            try:
                self._writer.write(data)
            except OSError as exc:
                self._fail(exc)
            return
        self._memory += data
        if len(self._memory) > self._threshold:
            self._open()

    def _open(self) -> None:
        try:
            store = self._store if self._store is not None else SpillStore.default()
            self._writer = store.open(kind=KIND, suffix=self._suffix, by_content=True)
            self._writer.write(bytes(self._memory))
        except (OSError, SpillError) as exc:
            self._fail(exc)
            return
        self._memory = bytearray()

    def _fail(self, exc: BaseException) -> None:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        self.warning = (
            f"spill store not writable ({reason}); nothing beyond what is shown here was kept"
        )
        self.drop()
