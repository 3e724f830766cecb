"""Writing one spilled file: private, atomic, named by chance or by its content.

A ``SpillWriter`` writes to a temporary file in the store (0600, ``.partial-HEX``, locked
with ``flock`` so that ``clean`` leaves it alone), through ``os.write`` with a small
buffer (memory stays flat, a full disk surfaces at the write that failed), then on
``commit`` fsyncs it and gives it its final name with ``os.replace``: no partial file is
ever visible under a name ``show`` would accept. A name is ``KIND-HEX.SUFFIX``: 64 random
bits, or the first 64 bits of the content's BLAKE2b (the same data, the same name).

The writer keeps its descriptor, and the lock on it, after the commit, until it is
closed (``close``, leaving a ``with`` block, or the writer dropped): what reads the file
back (``read_back``) reads through it, so a ``clean`` at that moment cannot take the
output away, and ``clean`` leaves a locked file alone anyway.

With an object store behind the local one, the file is sent there
(``agentout.store.upload``): streamed while it is written by an uploader process, or, in
a long-lived server, queued to the process's own uploader at the commit.
``deferred_uploads`` lets a command print its answer before it waits for the upload,
and then waits while the store takes it: at most ``AGENTOUT_STORE_GRACE`` seconds of
silence.
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
import weakref
from collections.abc import Iterator
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

from agentout.frozen import Frozen

if TYPE_CHECKING:  # a run that spills locally imports none of the remote machinery
    from agentout.store.address import RemoteAddress
    from agentout.store.upload import Upload, Uploads

__all__ = [
    "BUFFER_BYTES",
    "NAME_PATTERN",
    "TEMP_PATTERN",
    "SpillRef",
    "SpillWriter",
    "deferred_uploads",
    "found_unreachable",
    "lock_file",
    "mark_unreachable",
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
# What is held before a write. A piece this large or larger goes to the file as it is
# (no copy); smaller ones are gathered. Small, because it is held for the file's life:
# `fit` of a big file stays under 100 MiB with it.
BUFFER_BYTES = 256 << 10
_WRITE_BYTES = 1 << 30  # at most this much in one write call
_READ_BACK = 4 << 20  # read back in pieces of this much


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
        self._close = weakref.finalize(self, os.close, fd)  # once: here, or when dropped
        self._remote = remote
        self._upload: Upload | None = None
        self._uploads: Uploads | None = None
        if remote is not None:
            from agentout.store.upload import Upload, in_process

            self._uploads = in_process()  # the process's uploader takes it at the commit
            if self._uploads is None:
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
        assert self.ref is None, "write after commit"
        chunk = data.encode("utf-8") if isinstance(data, str) else data
        if not chunk:
            return
        self.size += len(chunk)
        if self._hash is not None:
            self._hash.update(chunk)
        self.newlines += chunk.count(b"\n")
        self._last = chunk[-1:]
        if len(chunk) >= BUFFER_BYTES and not self._buffer:
            self._write_through(chunk)
            return
        self._buffer += chunk
        if len(self._buffer) >= BUFFER_BYTES:
            self.flush()

    def _write_through(self, chunk: bytes) -> None:
        """A large piece straight to the file; what a failed write left goes to the buffer."""
        assert self._fd is not None, "write after commit or abort"
        done = 0
        try:
            with memoryview(chunk) as view:
                while done < len(view):
                    done += os.write(self._fd, view[done : done + _WRITE_BYTES])
        finally:
            self.flushed += done
            if done < len(chunk):
                self._buffer += chunk[done:]

    @property
    def pending(self) -> bytes:
        """Bytes written but not yet in the file (a failed write leaves them here)."""
        return bytes(self._buffer)

    def read_back(self) -> Iterator[bytes]:
        """Everything written so far, a piece at a time, read through the writer's own
        descriptor (so whatever removed the file since): the file's bytes, then what is
        still buffered. Short only if reading fails."""
        done = 0
        if self._fd is not None:
            with contextlib.suppress(OSError):
                while done < self.flushed:
                    piece = os.pread(self._fd, min(self.flushed - done, _READ_BACK), done)
                    if not piece:
                        break
                    yield piece
                    done += len(piece)
        if self._buffer:
            yield bytes(self._buffer)

    def flush(self) -> None:
        """Write what is buffered to the file (``OSError`` if the disk refuses)."""
        assert self._fd is not None, "write after commit or abort"
        done = 0
        try:
            with memoryview(self._buffer) as view:
                while done < len(view):
                    done += os.write(self._fd, view[done : done + _WRITE_BYTES])
        finally:  # on a failed write, what was written is in the file, the rest still here
            self.flushed += done
            del self._buffer[:done]

    def salvage(self) -> bytes:
        """Everything written so far, read back, then the file removed: for a caller that
        falls back to memory when the disk fills. It reads through the open descriptor, so
        it works even if the file was removed; short only if reading fails."""
        data = b"".join(self.read_back())
        self.abort()
        return data

    @property
    def lines(self) -> int:
        """Lines as ``agentout show`` counts them: a last line without newline counts."""
        return self.newlines + (1 if self._last and self._last != b"\n" else 0)

    def rename_kind(self, kind: str) -> None:
        """Commit under another kind (``run_cut`` for a capped ``run``): what ``show``
        reads from the name. Before ``commit``."""
        assert self.ref is None, "renamed after commit"
        if not _KIND.match(kind):
            raise ValueError(f"spill kind must match [a-z][a-z0-9_]*, got {kind!r}")
        self.name = kind + self.name[self.name.index("-") :]

    def final_name(self) -> str:
        """The name ``commit`` gives the file, were nothing more written: a file named by
        its content has the hash of the bytes written so far in it."""
        if self._hash is None:
            return self.name
        # same bytes, same name: same output for same input
        return _HEX.sub(f"-{self._hash.hexdigest()[:16]}.", self.name, count=1)

    def commit(self) -> SpillRef:
        """The file under its final name, still open and locked until ``close``. On
        ``OSError`` the descriptor stays open, so ``salvage`` can still read back what
        was written."""
        self.flush()
        assert self._fd is not None
        os.fsync(self._fd)
        self.name = self.final_name()
        final = self.root / self.name
        os.replace(self.temp, final)
        self.ref = SpillRef(final, self.name, self.size, self.lines, self._send())
        return self.ref

    def _send(self) -> str | None:
        """The object's URL once it is (or will be) in the object store; None if there
        is no object store, or it failed (one line on stderr says so)."""
        remote = self._remote
        if remote is None:
            return None
        url = f"{remote.url}/{self.name}"
        upload, self._upload = self._upload, None
        if upload is not None:  # an uploader process has streamed it
            upload.end(self.size)
            if _deferred is not None:  # checked when the process exits
                _deferred.append((upload, self.root))
                return url
            reason = upload.wait()
        elif self._uploads is not None and self._fd is not None:
            # the process's uploader: the object is there before the caller answers
            reason = self._uploads.send(remote, self.name, self._fd, self.size).result()
        else:
            reason = "no uploader"
        if reason is not None:
            say_unreachable(remote, reason, self.root)
            return None
        return url

    def close(self) -> None:
        """Release the file: its descriptor and its lock (a committed file stays)."""
        self._fd = None
        self._close()

    def abort(self) -> None:
        if self._upload is not None:
            self._upload.abort()
            self._upload = None
        self.close()
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


# store -> (why, when): found unreachable in this process, so not called again for a while
# (a command's whole life; a server tries again after ``_RETRY_AFTER`` seconds)
_unreachable: dict[str, tuple[str, float]] = {}
_RETRY_AFTER = 60.0
_told: set[str] = set()  # stores whose line on stderr was written
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
    """Wait for the deferred uploads while they make progress: once the store has taken
    nothing for ``AGENTOUT_STORE_GRACE`` seconds, one line says the upload goes on in the
    background, and the command ends."""
    if not _deferred:
        return
    with contextlib.suppress(OSError, ValueError):  # the answer first, even into a pipe
        sys.stdout.flush()
    from agentout.store.timeouts import Timeouts

    timeouts = Timeouts.from_env()
    while _deferred:
        upload, root = _deferred.pop(0)
        try:
            reason = upload.wait(timeouts.grace)
        except TimeoutError:
            late = [upload.name] + [waiting.name for waiting, _ in _deferred]
            _deferred.clear()
            say_late(upload.address, late, timeouts.describe("grace"), root)
            return
        if reason is not None:
            say_unreachable(upload.address, reason, root)


def say_late(address: object, names: list[str], grace: str, local: Path) -> None:
    """One line on stderr: uploads the store stopped taking go on in the background."""
    if str(address) in _told:
        return
    _told.add(str(address))
    what = names[0] if len(names) == 1 else f"{names[0]} and {len(names) - 1} more"
    with contextlib.suppress(OSError):
        sys.stderr.write(
            f"agentout: store {address} took nothing of {what} for {grace}; "
            f"the upload goes on in the background, and the output is kept in {local}\n"
        )


def found_unreachable(address: object) -> str | None:
    """Why this process found the store at ``address`` unreachable in the last minute."""
    import time

    found = _unreachable.get(str(address))
    if found is None or time.monotonic() - found[1] > _RETRY_AFTER:
        return None
    return found[0]


def mark_unreachable(address: object, reason: str) -> None:
    """Remember that the store cannot be used (no more calls to it for a while), saying
    nothing yet."""
    import time

    if found_unreachable(address) is None:
        _unreachable[str(address)] = (reason, time.monotonic())


def say_unreachable(address: object, reason: str, local: Path) -> None:
    """One line on stderr, once per store and process: the output stayed local."""
    mark_unreachable(address, reason)
    if str(address) in _told:
        return
    _told.add(str(address))
    with contextlib.suppress(OSError):
        sys.stderr.write(
            f"agentout: store {address} unreachable ({reason}); using the local store {local}\n"
        )
