"""The spill store: a private directory for the output that does not fit an agent's context.

Whatever agentout does not show inline is kept here, complete and byte for byte, so an
agent can page through it with ``agentout show REF``. The store is a directory agentout
owns (0700, never a symlink, owned by the user); its files are 0600, named
``KIND-HEX.SUFFIX`` with 64 random bits (never guessable) or the first 64 bits of the
content's SHA-256 (the same data, the same name, any day), and written atomically: a
temporary file in the store, fsync, then ``os.replace`` under the final name, so no
partial file is ever visible under a name ``show`` would accept. Files are kept 7 days:
the first write of a process prunes older ones, and ``agentout clean`` removes them on
demand; only files agentout wrote are ever removed, and never one that a live writer
holds (it keeps an exclusive ``flock`` on its file from the first byte until it is done
reading it back, after the commit), whatever its age.

Files are written by ``agentout.store.writer``, through ``os.write`` on a raw
descriptor with a small buffer: memory stays flat whatever the size, and a full disk
surfaces as ``OSError`` at the write that failed (the temporary file is removed; the
caller decides how to fall back).

The store may also be an object store (``AGENTOUT_STORE=s3://bucket/prefix``, see
``agentout.store``): then each spill is written here first, as above, and streamed from
here to the object store while it is written (``agentout.store.upload``), named with 64
random bits (the name is needed before the first part goes out). A reference is looked
up in the object store first, then here: where the object store could not be reached,
the output stayed here, and one line on stderr said so.
"""

from __future__ import annotations

import contextlib
import os
import re
import stat
import time
from collections.abc import Iterable
from pathlib import Path, PurePath
from typing import TYPE_CHECKING, BinaryIO, cast

from agentout.dirs import private_dir
from agentout.errors import SpillError
from agentout.frozen import Frozen
from agentout.store.writer import (
    BUFFER_BYTES,
    NAME_PATTERN,
    TEMP_PATTERN,
    SpillRef,
    SpillWriter,
    deferred_uploads,
    found_unreachable,
    lock_file,
    mark_unreachable,
    say_unreachable,
    sha256,
)

if TYPE_CHECKING:  # a run that spills locally imports none of the remote machinery
    from agentout.store.address import RemoteAddress
    from agentout.store.index import LineIndex
    from agentout.store.remote import RemoteStore

__all__ = [
    "DEFAULT_RETENTION_DAYS",
    "NAME_PATTERN",
    "SpillError",
    "SpillRef",
    "SpillStore",
    "SpillWriter",
    "StoredFile",
    "deferred_uploads",
    "private_dir",
]

DEFAULT_RETENTION_DAYS = 7
ENV_DIR = "AGENTOUT_SPILL_DIR"
NAMESPACE_PATTERN = re.compile(r"\A[a-z0-9][a-z0-9_-]{0,63}\Z")
_NAMESPACES = "namespaces"
_REMOTES = "remote"


class StoredFile(Frozen):
    """A file of agentout's own in the store, as ``clean`` sees it: for a remote store,
    ``path`` is the object's key under the bucket."""

    path: PurePath
    size: int
    mtime: float

    def __init__(self, path: PurePath, size: int, mtime: float) -> None:
        self._set(path=path, size=size, mtime=mtime)

    @property
    def name(self) -> str:
        return self.path.name


class SpillStore:
    """A private directory of spilled files. See the module docstring for the guarantees."""

    def __init__(self, root: Path, remote: RemoteAddress | None = None) -> None:
        self.root = Path(root).absolute()
        self.remote_address = remote
        self._remote: RemoteStore | None = None
        self._pruned = False
        self._ensure()

    @classmethod
    def default(cls) -> SpillStore:
        """``$AGENTOUT_STORE`` (a path or an object store's URL) if set, else
        ``$AGENTOUT_SPILL_DIR``, else the user cache dir's ``spill`` directory."""
        from agentout.store.address import configured

        value = configured()
        if value is not None:
            return cls.at(value)
        return cls(_local_root())

    @classmethod
    def at(cls, address: str, *, where: str = "AGENTOUT_STORE") -> SpillStore:
        """The store at ``address``: a local path, ``file://PATH``, or an object store URL
        (``s3://bucket/prefix``, ``gs://``, ``az://``) with the local store beside it."""
        from agentout.store.address import parse_address

        parsed = parse_address(address, where=where)
        if isinstance(parsed, Path):
            return cls(parsed)
        from agentout.store.timeouts import Timeouts

        Timeouts.from_env()  # a bad timeout is refused here, before anything is written
        # This machine's copies, one directory per remote store: two prefixes never
        # see each other's output here either.
        digest = sha256(parsed.url.encode("utf-8")).hexdigest()[:16]
        return cls(_local_root() / _REMOTES / digest, parsed)

    @property
    def address(self) -> str:
        """What ``AGENTOUT_STORE`` would say for this store."""
        return str(self.remote_address) if self.remote_address is not None else str(self.root)

    @property
    def remote(self) -> RemoteStore | None:
        """The object store behind this one, if any (fsspec imported on first use)."""
        if self._remote is None and self.remote_address is not None:
            from agentout.store.remote import RemoteStore

            self._remote = RemoteStore(self.remote_address)
        return self._remote

    def _ensure(self) -> None:
        private_dir(self.root, "the spill store")

    def namespace(self, name: str) -> SpillStore:
        """The part of this store that belongs to one trust boundary (one MCP server's
        roots): a private store of its own in ``namespaces/NAME``, with the same
        guarantees. What is spilled there is not among this store's files (nor cleaned
        with them), and no reference resolves across: each sees only its own files."""
        if not NAMESPACE_PATTERN.match(name):
            raise SpillError(f"namespace {name!r}: use 1-64 of a-z, 0-9, '_' and '-'")
        remote = self.remote_address
        if remote is not None:
            remote = remote.child(_NAMESPACES).child(name)
        return SpillStore(self.root / _NAMESPACES / name, remote)

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
                self._clean_local(DEFAULT_RETENTION_DAYS * 86400)
        return SpillWriter(self.root, self.remote_address, kind, suffix, by_content=by_content)

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
        files that are gone, each with a message saying which. With a remote store, an
        object another machine spilled is copied here first (a tool that reads a spilled
        file whole, on any replica).
        """
        self._ensure()
        name = self._name(ref)
        path = self.root / name
        if self.remote_address is not None and not os.path.lexists(path):
            self._fetch(name)
        unreachable = None if self.remote_address is None else found_unreachable(self.address)
        try:
            info = os.lstat(path)
        except FileNotFoundError:
            raise self._missing(ref, "spilled file") from None
        if unreachable is not None:  # served from here: say so, once
            say_unreachable(self.address, unreachable, self.root)
        if stat.S_ISLNK(info.st_mode):
            raise SpillError(f"{ref}: is a symlink, not a spilled file; refusing to follow it")
        if not stat.S_ISREG(info.st_mode) or _foreign(info):
            raise SpillError(f"{ref}: not a file agentout spilled; refusing it")
        return path

    def _fetch(self, name: str) -> None:
        """Copy the object ``name`` here, atomically (as a spill is written); nothing if
        there is no such object or the store cannot be reached."""
        remote = self._reachable()
        if remote is None:
            return
        from agentout.store.remote import StoreUnreachable

        temp, fd = SpillWriter._create(self.root)
        try:
            size = remote.size(name)
            if size is None:
                return
            with remote.open(name, size) as source:
                while piece := source.read(BUFFER_BYTES):
                    view = memoryview(piece)
                    while view:
                        view = view[os.write(fd, view) :]
            os.fsync(fd)
            os.replace(temp, self.root / name)
        except StoreUnreachable as exc:
            self._degrade(str(exc))
        finally:
            os.close(fd)
            with contextlib.suppress(FileNotFoundError):
                os.unlink(temp)

    def _name(self, ref: str) -> str:
        """The stored name ``ref`` gives (a name, a path in this store, or with a remote
        store its URL there); ``SpillError`` for anything else."""
        remote = self.remote_address
        if remote is not None and "://" in ref:
            parent, _, name = ref.rpartition("/")
            if parent != remote.url:
                raise SpillError(f"{ref}: not in the spill store ({remote.url}); refusing it")
        else:
            candidate = Path(ref)
            if candidate.is_absolute() or len(candidate.parts) > 1:
                parent_dir = Path(os.path.abspath(candidate.parent))
                if ".." in candidate.parts or parent_dir != self.root:
                    raise SpillError(f"{ref}: not in the spill store ({self.address}); refusing it")
            name = candidate.name
        if _REF.match(name):  # what agentout printed, and nothing here has it
            raise self._missing(ref, "reference")
        if not NAME_PATTERN.match(name):
            raise SpillError(f"{ref}: not a file agentout spilled (names look like {_EXAMPLE})")
        return name

    def _missing(self, ref: str, what: str) -> SpillError:
        """``ref`` is in none of the places it was looked for: the error saying where."""
        unreachable = None if self.remote_address is None else found_unreachable(self.address)
        if unreachable is not None:
            return SpillError(
                f"{ref}: store {self.address} unreachable ({unreachable}), and no such "
                f"{what} in this machine's copies ({self.root})"
            )
        gone = f"removed by `agentout clean`, or older than {DEFAULT_RETENTION_DAYS} days?"
        if what == "reference":
            where = self.root if self.remote_address is None else f"{self.address}, {self.root}"
            return SpillError(
                f"{ref}: no such reference in the store (looked in {where}; {gone}); "
                "run the command again"
            )
        where = self.root if self.remote_address is None else self.address
        return SpillError(f"{ref}: no such {what} in {where} ({gone}); run the command again")

    def find_id(self, ident: str) -> str:
        """The name of the stored file whose 16 hex digits are ``ident`` (what agentout
        prints in markers and closing lines); ``ident`` itself if there is none."""
        if not _REF.match(ident):
            return ident
        remote = self._reachable()
        if remote is not None:
            from agentout.store.remote import StoreUnreachable

            try:
                for found in remote.objects():
                    if f"-{ident}." in found.name and NAME_PATTERN.match(found.name):
                        return found.name
            except StoreUnreachable as exc:
                self._degrade(str(exc))
        with contextlib.suppress(OSError):
            for entry in os.scandir(self.root):
                if f"-{ident}." in entry.name and NAME_PATTERN.match(entry.name):
                    return entry.name
        return ident

    def _reachable(self) -> RemoteStore | None:
        """The remote store, unless it was found unreachable already in this process."""
        if self.remote_address is None or found_unreachable(self.remote_address):
            return None
        return self.remote

    def _degrade(self, reason: str) -> None:
        """The object store failed: no more calls to it in this process. What is read
        from the local store instead says so on stderr (``resolve``), or the error does."""
        mark_unreachable(self.address, reason)

    def open_indexed(self, ref: str) -> tuple[BinaryIO, LineIndex | None]:
        """``open_ref``, and the object's line index when it is read from a remote store
        (``agentout.store.index``: where each line starts, so a page is a few ranged
        reads); None locally, where reading through is cheap."""
        remote = self._reachable()
        if remote is None:
            return self.open_ref(ref), None
        from agentout.store.index import INDEX_SUFFIX, LineIndex
        from agentout.store.remote import StoreUnreachable

        name = self._name(ref)
        try:
            size = remote.size(name)
            if size is not None:
                try:
                    index = LineIndex.open(lambda a, b: remote.read(name + INDEX_SUFFIX, a, b))
                except FileNotFoundError:
                    index = None  # written after the object: a crash can leave none
                if index is not None and index.size != size:
                    index = None
                return cast(BinaryIO, remote.open(name, size)), index
        except StoreUnreachable as exc:
            self._degrade(str(exc))
        return self._open_local(ref), None

    def open_ref(self, ref: str) -> BinaryIO:
        """A spilled file opened for reading in binary, never through a symlink. With a
        remote store, the object read in ranges, else this machine's copy."""
        remote = self._reachable()
        if remote is not None:
            from agentout.store.remote import StoreUnreachable

            name = self._name(ref)
            try:
                size = remote.size(name)
                if size is not None:
                    return cast(BinaryIO, remote.open(name, size))
            except StoreUnreachable as exc:
                self._degrade(str(exc))
        return self._open_local(ref)

    def _open_local(self, ref: str) -> BinaryIO:
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
        """agentout's own files: regular, yours, named as agentout names them; by name.
        With a remote store: its objects directly under the prefix, named so."""
        remote = self.remote
        if remote is None:
            return self._local_files()
        from pathlib import PurePosixPath

        from agentout.store.index import INDEX_SUFFIX
        from agentout.store.remote import StoreUnreachable

        try:
            found = remote.objects()
        except StoreUnreachable as exc:
            raise SpillError(f"{self.address}: cannot list the store ({exc})") from None
        return [
            StoredFile(PurePosixPath(remote.key(o.name)), o.size, o.mtime)
            for o in found
            if NAME_PATTERN.match(o.name.removesuffix(INDEX_SUFFIX))
        ]

    def _local_files(self) -> list[StoredFile]:
        self._ensure()
        out: list[StoredFile] = []
        with os.scandir(self.root) as entries:
            for entry in entries:
                if not (NAME_PATTERN.match(entry.name) or TEMP_PATTERN.match(entry.name)):
                    continue
                try:
                    info = entry.stat(follow_symlinks=False)
                except FileNotFoundError:
                    continue  # committed under its name, or removed, since it was listed
                if stat.S_ISREG(info.st_mode) and not _foreign(info):
                    out.append(StoredFile(Path(entry.path), info.st_size, info.st_mtime))
        return sorted(out, key=lambda f: f.path.name)

    def clean(self, older_than: float, *, dry_run: bool = False) -> list[StoredFile]:
        """Remove agentout's files last modified more than ``older_than`` seconds ago,
        each only if no live writer holds it (whatever its age).
        With a remote store, its objects (and their indexes) instead: nothing else under
        the prefix, nothing in its namespaces."""
        remote = self.remote
        if remote is None:
            return self._clean_local(older_than, dry_run=dry_run)
        from agentout.store.remote import StoreUnreachable

        cutoff = time.time() - older_than
        old = [stored for stored in self.files() if stored.mtime <= cutoff]
        if not dry_run:
            try:
                remote.remove([stored.name for stored in old])
            except StoreUnreachable as exc:
                raise SpillError(f"{self.address}: cannot remove objects ({exc})") from None
        return old

    def _clean_local(self, older_than: float, *, dry_run: bool = False) -> list[StoredFile]:
        cutoff = time.time() - older_than
        removed: list[StoredFile] = []
        for stored in self._local_files():
            if stored.mtime <= cutoff and _remove_unheld(stored.path, dry_run):
                removed.append(stored)
        return removed


_EXAMPLE = "run-0123456789abcdef.log"
_REF = re.compile(r"[0-9a-f]{16}\Z")


def _local_root() -> Path:
    """``$AGENTOUT_SPILL_DIR``, else the user cache dir's ``spill`` directory."""
    configured = os.environ.get(ENV_DIR)
    if configured:
        return Path(configured).expanduser()
    from agentout.dirs import user_dir

    return user_dir("cache") / "spill"


def _remove_unheld(path: PurePath, dry_run: bool) -> bool:
    """Remove a file unless a writer holds its lock (one being written, or committed and
    still being read back); whether it was (would be). Never through a symlink."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return False
    try:
        if not lock_file(fd, wait=False):
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
