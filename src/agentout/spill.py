"""The spill store: a private directory for the output that does not fit an agent's context.

Whatever agentout does not show inline is kept here, complete and byte for byte, so an
agent can page through it with ``agentout show REF``. The store is a directory agentout
owns (0700, never a symlink, owned by the user); its files are 0600, named
``KIND-HEX.SUFFIX`` with 64 random bits (never guessable) or the first 64 bits of the
content's SHA-256 (the same data, the same name, any day), and written atomically: a
temporary file in the store, fsync, then ``os.replace`` under the final name, so no
partial file is ever visible under a name ``show`` would accept. Files are kept 7 days:
the first write of a process prunes older ones, and ``agentout clean`` removes them on
demand; only files agentout wrote are ever removed, and never a temporary file that a
live writer holds (it keeps an exclusive ``flock`` on it until it commits or aborts).

Writes go through ``os.write`` on a raw descriptor with a small buffer: memory stays
flat whatever the size, and a full disk surfaces as ``OSError`` at the write that failed
(the temporary file is removed; the caller decides how to fall back).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import secrets
import stat
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import BinaryIO

from agentout.errors import AgentoutError

__all__ = [
    "DEFAULT_RETENTION_DAYS",
    "SpillError",
    "SpillRef",
    "SpillStore",
    "SpillWriter",
    "private_dir",
]

DEFAULT_RETENTION_DAYS = 7
ENV_DIR = "AGENTOUT_SPILL_DIR"

_KIND = re.compile(r"[a-z][a-z0-9_]{0,31}\Z")
_SUFFIX = re.compile(r"\.[a-z0-9]{1,8}\Z")
# Only names agentout made are ever shown or cleaned: kind, 16 hex digits, suffix (and a
# date first from versions that put one there, so their files are still shown and cleaned).
NAME_PATTERN = re.compile(r"\A(?:\d{8}-)?[a-z][a-z0-9_]{0,31}-[0-9a-f]{16}\.[a-z0-9]{1,8}\Z")
TEMP_PATTERN = re.compile(r"\A\.partial-[0-9a-f]{16}\Z")
_HEX = re.compile(r"-[0-9a-f]{16}\.")
NAMESPACE_PATTERN = re.compile(r"\A[a-z0-9][a-z0-9_-]{0,63}\Z")
_NAMESPACES = "namespaces"
_BUFFER = 1 << 20
_READ_BACK = 1 << 30  # pread in pieces: a single call returns at most about 2 GiB


class SpillError(AgentoutError):
    """The store is unsafe or a reference is not a file agentout spilled there."""


@dataclass(frozen=True)
class SpillRef:
    """A spilled file: ``ref`` is the name ``agentout show REF`` takes."""

    path: Path
    ref: str
    size: int
    lines: int


def _new_name(kind: str, suffix: str) -> str:
    if not _KIND.match(kind):
        raise ValueError(f"spill kind must match [a-z][a-z0-9_]*, got {kind!r}")
    if not _SUFFIX.match(suffix):
        raise ValueError(f"spill suffix must look like '.txt', got {suffix!r}")
    return f"{kind}-{secrets.token_hex(8)}{suffix}"


def _lock(fd: int, *, wait: bool) -> bool:
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
        self, store: SpillStore, kind: str, suffix: str, *, by_content: bool = False
    ) -> None:
        self.store = store
        self.name = _new_name(kind, suffix)
        self._hash = hashlib.sha256() if by_content else None
        self.temp, fd = self._create(store.root)
        self._fd: int | None = fd
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
            temp = root / f".partial-{secrets.token_hex(8)}"
            fd = os.open(temp, flags, 0o600)
            try:
                _lock(fd, wait=True)
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
        if len(self._buffer) >= _BUFFER:
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
                done += os.write(self._fd, self._buffer[done : done + _BUFFER])
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
        final = self.store.root / self.name
        os.replace(self.temp, final)  # still open and locked until it has its final name
        os.close(self._fd)
        self._fd = None
        self.ref = SpillRef(path=final, ref=self.name, size=self.size, lines=self.lines)
        return self.ref

    def abort(self) -> None:
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


@dataclass(frozen=True)
class StoredFile:
    """A file of agentout's own in the store, as ``clean`` sees it."""

    path: Path
    size: int
    mtime: float


def private_dir(path: Path, what: str) -> None:
    """Make ``path`` a private directory agentout may use: create it (and its parents)
    0700, refuse a symlink, a non-directory or another user's folder, tighten its mode.

    Raises SpillError naming ``what`` ("the spill store", "the notes cache").
    """
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        try:
            path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            path.mkdir(mode=0o700)
        except FileExistsError:
            pass  # another process made it first; checked below like any existing one
        except OSError as exc:
            raise SpillError(f"{path}: cannot create {what}: {exc.strerror}") from exc
        info = os.lstat(path)
    if stat.S_ISLNK(info.st_mode):
        raise SpillError(f"{path}: {what} is a symlink; refusing to use it")
    if not stat.S_ISDIR(info.st_mode):
        raise SpillError(f"{path}: {what} is not a directory")
    if hasattr(os, "getuid") and info.st_uid != os.getuid():
        raise SpillError(f"{path}: {what} is not owned by you; refusing to use it")
    if stat.S_IMODE(info.st_mode) & 0o077:
        try:
            os.chmod(path, 0o700)
        except OSError as exc:
            raise SpillError(f"{path}: cannot make {what} private: {exc}") from exc


class SpillStore:
    """A private directory of spilled files. See the module docstring for the guarantees."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root).absolute()
        self._pruned = False
        self._ensure()

    @classmethod
    def default(cls) -> SpillStore:
        """``$AGENTOUT_SPILL_DIR`` if set, else the user cache dir's ``spill`` directory."""
        configured = os.environ.get(ENV_DIR)
        if configured:
            return cls(Path(configured).expanduser())
        import platformdirs  # deferred: the CLI starts faster without it

        return cls(Path(platformdirs.user_cache_dir("agentout")) / "spill")

    def _ensure(self) -> None:
        private_dir(self.root, "the spill store")

    def namespace(self, name: str) -> SpillStore:
        """The part of this store that belongs to one trust boundary (one MCP server's
        roots): a private store of its own in ``namespaces/NAME``, with the same
        guarantees. What is spilled there is not among this store's files (nor cleaned
        with them), and no reference resolves across: each sees only its own files."""
        if not NAMESPACE_PATTERN.match(name):
            raise SpillError(f"namespace {name!r}: use 1-64 of a-z, 0-9, '_' and '-'")
        return SpillStore(self.root / _NAMESPACES / name)

    # -- writing ----------------------------------------------------------------------

    def open(self, *, kind: str, suffix: str = ".txt", by_content: bool = False) -> SpillWriter:
        """Start a file; use as a context manager (commits on success, else removes it).

        ``by_content`` names the file after a hash of its bytes instead of random bits, so
        the same data gets the same reference (the store is private, so a name derived
        from the content tells no one anything). The first file a store opens prunes
        agentout's files past the retention first.
        """
        if not self._pruned:
            self._pruned = True
            with contextlib.suppress(OSError):
                self.clean(DEFAULT_RETENTION_DAYS * 86400)
        return SpillWriter(self, kind, suffix, by_content=by_content)

    def write_text(self, text: str, *, kind: str, suffix: str = ".txt") -> SpillRef:
        with self.open(kind=kind, suffix=suffix) as writer:
            writer.write(text)
            return writer.commit()

    def write_lines(
        self, lines: Iterable[str | bytes], *, kind: str, suffix: str = ".txt"
    ) -> SpillRef:
        """Stream ``lines`` to a new file, each written exactly as given (like ``writelines``:
        no newline is added, so iterating a file and passing its lines reproduces it)."""
        with self.open(kind=kind, suffix=suffix) as writer:
            for line in lines:
                writer.write(line)
            return writer.commit()

    # -- reading ----------------------------------------------------------------------

    def resolve(self, ref: str) -> Path:
        """The path of a spilled file, from its name or its full path in this store.

        Refuses ``..``, other directories, symlinks, names agentout did not make, and
        files that are gone, each with a message saying which.
        """
        self._ensure()
        candidate = Path(ref)
        if candidate.is_absolute() or len(candidate.parts) > 1:
            parent = Path(os.path.abspath(candidate.parent))
            if ".." in candidate.parts or parent != self.root:
                raise SpillError(f"{ref}: not in the spill store ({self.root}); refusing it")
        name = candidate.name
        if not NAME_PATTERN.match(name):
            raise SpillError(f"{ref}: not a file agentout spilled (names look like {_EXAMPLE})")
        path = self.root / name
        try:
            info = os.lstat(path)
        except FileNotFoundError:
            raise SpillError(
                f"{ref}: no such spilled file in {self.root} (removed by `agentout clean`, "
                f"or older than {DEFAULT_RETENTION_DAYS} days?); run the command again"
            ) from None
        if stat.S_ISLNK(info.st_mode):
            raise SpillError(f"{ref}: is a symlink, not a spilled file; refusing to follow it")
        if not stat.S_ISREG(info.st_mode) or _foreign(info):
            raise SpillError(f"{ref}: not a file agentout spilled; refusing it")
        return path

    def find_id(self, ident: str) -> str:
        """The name of the stored file whose 16 hex digits are ``ident`` (what agentout
        prints in markers and closing lines); ``ident`` itself if there is none."""
        if not re.fullmatch(r"[0-9a-f]{16}", ident):
            return ident
        with contextlib.suppress(OSError):
            for entry in os.scandir(self.root):
                if f"-{ident}." in entry.name and NAME_PATTERN.match(entry.name):
                    return entry.name
        return ident

    def open_ref(self, ref: str) -> BinaryIO:
        """A spilled file opened for reading in binary, never through a symlink."""
        path = self.resolve(ref)
        try:
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        except OSError as exc:  # swapped for a symlink, or removed, since resolve()
            raise SpillError(f"{ref}: cannot open the spilled file: {exc.strerror}") from exc
        handle = os.fdopen(fd, "rb")
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or _foreign(info):
            handle.close()
            raise SpillError(f"{ref}: changed while opening; refusing it")
        return handle

    # -- cleaning ---------------------------------------------------------------------

    def files(self) -> list[StoredFile]:
        """agentout's own files: regular, yours, named as agentout names them; by name."""
        self._ensure()
        out: list[StoredFile] = []
        with os.scandir(self.root) as entries:
            for entry in entries:
                if not (NAME_PATTERN.match(entry.name) or TEMP_PATTERN.match(entry.name)):
                    continue
                info = entry.stat(follow_symlinks=False)
                if stat.S_ISREG(info.st_mode) and not _foreign(info):
                    out.append(StoredFile(Path(entry.path), info.st_size, info.st_mtime))
        return sorted(out, key=lambda f: f.path.name)

    def clean(self, older_than: float, *, dry_run: bool = False) -> list[StoredFile]:
        """Remove agentout's files last modified more than ``older_than`` seconds ago;
        a temporary file is removed only if no live writer holds it, whatever its age."""
        cutoff = time.time() - older_than
        removed: list[StoredFile] = []
        for stored in self.files():
            if stored.mtime > cutoff:
                continue
            if TEMP_PATTERN.match(stored.path.name):
                if not _remove_abandoned(stored.path, dry_run):
                    continue
            elif not dry_run:
                try:
                    os.unlink(stored.path)  # unlink never follows a symlink
                except FileNotFoundError:
                    continue
            removed.append(stored)
        return removed


_EXAMPLE = "run-0123456789abcdef.log"


def _remove_abandoned(path: Path, dry_run: bool) -> bool:
    """Remove a temporary file unless a writer holds its lock; whether it was (would be)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return False
    try:
        if not _lock(fd, wait=False):
            return False  # a run still writing it
        if not os.path.samestat(os.fstat(fd), os.lstat(path)):
            return False  # replaced since it was listed
        if not dry_run:
            os.unlink(path)  # while holding the lock: no writer can be using it
        return True
    except OSError:
        return False
    finally:
        os.close(fd)


def _foreign(info: os.stat_result) -> bool:
    return hasattr(os, "getuid") and info.st_uid != os.getuid()
