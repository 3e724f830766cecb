"""Writing one spilled file: private, atomic, named by chance or by its content.

A ``SpillWriter`` writes to a temporary file in the store (0600, ``.partial-HEX``, locked
with ``flock`` so that ``clean`` leaves it alone), through ``os.write`` with a small
buffer (memory stays flat, a full disk surfaces at the write that failed), then on
``commit`` fsyncs it and gives it its final name with ``os.replace``: no partial file is
ever visible under a name ``show`` would accept. A name is ``KIND-HEX.SUFFIX``: 64 random
bits, or the first 64 bits of the content's BLAKE2b (the same data, the same name).

With an object store behind the local one, the file is streamed there while it is
written (``agentout.store.upload``); ``deferred_uploads`` lets a command print its answer
before it waits for the upload to finish.
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

from agentout.frozen import Frozen

if TYPE_CHECKING:  # a run that spills locally imports none of the remote machinery
    from agentout.store.address import RemoteAddress
    from agentout.store.upload import Upload

__all__ = [
    "BUFFER_BYTES",
    "NAME_PATTERN",
    "TEMP_PATTERN",
    "SpillRef",
    "SpillWriter",
    "deferred_uploads",
    "found_unreachable",
    "lock_file",
    "say_unreachable",
    "sha256",
]

_KIND = re.compile(r"[a-z][a-z0-9_]{0,31}\Z")
_SUFFIX = re.compile(r"\.[a-z0-9]{1,8}\Z")
# Only names agentout made are ever shown or cleaned: kind, 16 hex digits, suffix (and a
# date first from versions that put one there, so their files are still shown and cleaned).
NAME_PATTERN = re.compile(r"\A(?:\d{8}-)?[a-z][a-z0-9_]{0,31}-[0-9a-f]{16}\.[a-z0-9]{1,8}\Z")
TEMP_PATTERN = re.compile(r"\A\.partial-[0-9a-f]{16}\Z")
_HEX = re.compile(r"-[0-9a-f]{16}\.")
BUFFER_BYTES = 1 << 20
_READ_BACK = 1 << 30  # pread in pieces: a single call returns at most about 2 GiB


def sha256(data: bytes = b"") -> Any:
    import hashlib  # deferred: loading it (OpenSSL's bindings) takes milliseconds

    return hashlib.sha256(data)


def _content_hash() -> Any:
    """What names a file after its bytes: BLAKE2b, built into CPython (it is hashlib's
    blake2b), so naming a command's output does not load OpenSSL's bindings (~2.5 ms of
    every ``agentout run``)."""
    try:
        from _blake2 import blake2b
    except ImportError:  # a Python without the module: hashlib's, the same function
        from hashlib import blake2b
    return blake2b(digest_size=32)


class SpillRef(Frozen):
    """A spilled file: ``ref`` is the name ``agentout show REF`` takes. ``path`` is the
    local file; ``url`` the object in a remote store, when it got there."""

    path: Path
    ref: str
    size: int
    lines: int
    url: str | None

    def __init__(self, path: Path, ref: str, size: int, lines: int, url: str | None = None) -> None:
        self._set(path=path, ref=ref, size=size, lines=lines, url=url)

    @property
    def location(self) -> str:
        """Where the output is kept, as shown to the agent: the object's URL, else the path."""
        return self.url if self.url is not None else str(self.path)


def _new_name(kind: str, suffix: str) -> str:
    if not _KIND.match(kind):
        raise ValueError(f"spill kind must match [a-z][a-z0-9_]*, got {kind!r}")
    if not _SUFFIX.match(suffix):
        raise ValueError(f"spill suffix must look like '.txt', got {suffix!r}")
    return f"{kind}-{os.urandom(8).hex()}{suffix}"


def lock_file(fd: int, *, wait: bool) -> bool:
    """An exclusive flock on ``fd``; False if another holder has it (and not ``wait``).
    Where there is no flock (Windows), True: an open file cannot be removed there anyway."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not on POSIX
        return True
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
    except BlockingIOError:
        return False
    return True


class SpillWriter:
    """One file being spilled; ``commit()`` makes it visible, leaving without it removes it.

    ``write`` takes bytes or text (UTF-8) and writes them exactly as given.
    """

    def __init__(
        self,
        root: Path,
        remote: RemoteAddress | None,
        kind: str,
        suffix: str,
        *,
        by_content: bool = False,
    ) -> None:
        self.root = root
        self.name = _new_name(kind, suffix)
        # A remote object is named before its first part is uploaded: random bits, then.
        self._hash = _content_hash() if by_content and remote is None else None
        self.temp, fd = self._create(root)
        self._fd: int | None = fd
        self._upload: Upload | None = None
        if remote is not None:
            from agentout.store.upload import Upload

            self._upload = Upload(remote, self.name, fd)
        self._buffer = bytearray()
        self.size = 0
        self.flushed = 0
        self.newlines = 0
        self._last = b""
        self.ref: SpillRef | None = None

    @staticmethod
    def _create(root: Path) -> tuple[Path, int]:
        """A new temporary file, locked so that ``clean`` leaves it alone while we live.

        Read-write, so that ``salvage`` can read it back through the descriptor even if
        the file was removed behind our back. A ``clean`` may remove it between its
        creation and the lock: then it is made again under another name.
        """
        flags = os.O_RDWR | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
        while True:
            temp = root / f".partial-{os.urandom(8).hex()}"
            fd = os.open(temp, flags, 0o600)
            try:
                lock_file(fd, wait=True)
                if os.path.samestat(os.fstat(fd), os.lstat(temp)):
                    return temp, fd
            except FileNotFoundError:
                pass
            except BaseException:
                os.close(fd)
                raise
            os.close(fd)

    def write(self, data: str | bytes) -> None:
        chunk = data.encode("utf-8") if isinstance(data, str) else data
        if not chunk:
            return
        self.size += len(chunk)
        if self._hash is not None:
            self._hash.update(chunk)
        self.newlines += chunk.count(b"\n")
        self._last = chunk[-1:]
        self._buffer += chunk
        if len(self._buffer) >= BUFFER_BYTES:
            self.flush()

    @property
    def descriptor(self) -> int | None:
        """The temporary file's descriptor while it is being written (to read it back)."""
        return self._fd

    @property
    def pending(self) -> bytes:
        """Bytes written but not yet in the file (a failed write leaves them here)."""
        return bytes(self._buffer)

    def flush(self) -> None:
        """Write what is buffered to the file (``OSError`` if the disk refuses)."""
        assert self._fd is not None, "write after commit or abort"
        done = 0
        try:
            while done < len(self._buffer):
                done += os.write(self._fd, self._buffer[done : done + BUFFER_BYTES])
        finally:  # on a failed write, what was written is in the file, the rest still here
            self.flushed += done
            del self._buffer[:done]

    def salvage(self) -> bytes:
        """Everything written so far, read back, then the file removed: for a caller that
        falls back to memory when the disk fills. It reads through the open descriptor, so
        it works even if the file was removed; short only if reading fails."""
        pieces: list[bytes] = []
        done = 0
        if self._fd is not None:
            with contextlib.suppress(OSError):
                while done < self.flushed:
                    piece = os.pread(self._fd, min(self.flushed - done, _READ_BACK), done)
                    if not piece:
                        break
                    pieces.append(piece)
                    done += len(piece)
        pieces.append(bytes(self._buffer))
        self.abort()
        return b"".join(pieces)

    @property
    def lines(self) -> int:
        """Lines as ``agentout show`` counts them: a last line without newline counts."""
        return self.newlines + (1 if self._last and self._last != b"\n" else 0)

    def commit(self) -> SpillRef:
        """The file under its final name. On ``OSError`` the descriptor stays open, so
        ``salvage`` can still read back what was written."""
        self.flush()
        assert self._fd is not None
        os.fsync(self._fd)
        if self._hash is not None:  # same bytes, same name: same output for same input
            self.name = _HEX.sub(f"-{self._hash.hexdigest()[:16]}.", self.name, count=1)
        final = self.root / self.name
        os.replace(self.temp, final)  # still open and locked until it has its final name
        os.close(self._fd)
        self._fd = None
        url = None
        if self._upload is not None:
            upload, self._upload = self._upload, None
            upload.end(self.size)
            url = f"{upload.address.url}/{self.name}"
            if _deferred is not None:  # checked when the process exits
                _deferred.append((upload, self.root))
            elif (reason := upload.wait()) is not None:
                url = None
                say_unreachable(upload.address, reason, self.root)
        self.ref = SpillRef(final, self.name, self.size, self.lines, url)
        return self.ref

    def abort(self) -> None:
        if self._upload is not None:
            self._upload.abort()
            self._upload = None
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
        if self.ref is None:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self.temp)

    def __enter__(self) -> SpillWriter:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if exc_type is None and self.ref is None:
            self.commit()
        self.abort()


_told: set[str] = set()
_deferred: list[tuple[Upload, Path]] | None = None


@contextlib.contextmanager
def deferred_uploads() -> Iterator[None]:
    """For a command that exits once it has delivered (``agentout run``): inside, a
    commit no longer waits for its upload to complete; leaving waits for all of them,
    after the output is printed, so the upload's tail overlaps the rest of the work. A
    failed upload still costs one line on stderr, and its reference still resolves here
    (the local copy has the same name). A server must not use this: another replica may
    be asked for the object as soon as the call returns."""
    global _deferred
    outer = _deferred
    if outer is None:
        _deferred = []
    try:
        yield
    finally:
        if outer is None:
            try:
                _wait_deferred()
            finally:
                _deferred = None


def _wait_deferred() -> None:
    if _deferred:  # the answer first, even into a pipe; then the wait
        with contextlib.suppress(OSError, ValueError):
            sys.stdout.flush()
    while _deferred:
        upload, root = _deferred.pop(0)
        reason = upload.wait()
        if reason is not None:
            say_unreachable(upload.address, reason, root)


def found_unreachable(address: object) -> bool:
    """Whether this process found the store at ``address`` unreachable already."""
    return str(address) in _told


def say_unreachable(address: object, reason: str, local: Path) -> None:
    """One line on stderr, once per store and process: the output stayed local."""
    if str(address) in _told:
        return
    _told.add(str(address))
    with contextlib.suppress(OSError):
        sys.stderr.write(
            f"agentout: store {address} unreachable ({reason}); using the local store {local}\n"
        )
