"""An object store through fsspec: what ``SpillStore`` does with a URL behind it.

Every key is ``PREFIX/NAME`` with a name ``agentout.store.spill`` made and checked (no slash,
no ``..``, the spill name pattern), so nothing is read, listed or removed outside the
prefix, and a namespace is ``PREFIX/namespaces/NAME``: listing is one level deep, so two
prefixes never see each other's objects. Reads are ranged (``RangedReader``): a page
fetches a few small ranges, growing only while the reader keeps going (``grep`` streams
the object in pieces of at most 4 MiB). Credentials come from each cloud's own chain
(environment, profile, instance role): agentout passes none.

Every call has a deadline (``agentout.store.timeouts``): the connect and read timeouts
go to the S3 client, and the whole call, retries included, is cancelled when it passes
``AGENTOUT_STORE_DEADLINE``, on every backend: ``StoreUnreachable`` says so.
"""

from __future__ import annotations

import contextlib
import io
import os
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from agentout.errors import AgentoutError
from agentout.store.address import EXTRAS, RemoteAddress
from agentout.store.timeouts import Timeouts

__all__ = [
    "RangedReader",
    "RemoteObject",
    "RemoteStore",
    "StoreUnreachable",
    "in_thread",
    "reason",
]

_FIRST_RANGE = 8 << 10
_LAST_RANGE = 4 << 20
_S3_ATTEMPTS = 2  # botocore's attempts of one request (fail fast: the local store serves)
_S3_RETRIES = 2  # s3fs's own retries around botocore's (5 by default, with sleeps)


class StoreUnreachable(AgentoutError):
    """The object store could not be used (network, credentials, missing package, no
    answer within the deadline)."""


@dataclass(frozen=True)
class RemoteObject:
    name: str
    size: int
    mtime: float


class RemoteStore:
    """The objects under one ``RemoteAddress``; ``fetched`` counts the bytes read."""

    def __init__(self, address: RemoteAddress, timeouts: Timeouts | None = None) -> None:
        self.address = address
        self.timeouts = timeouts if timeouts is not None else Timeouts.from_env()
        self.fetched = 0

    @cached_property
    def fs(self) -> Any:
        """The fsspec filesystem (imported on first use: the CLI starts without it)."""
        protocol = self.address.protocol
        try:
            import fsspec

            options = self._s3_options() if protocol == "s3" else {}
            fs = fsspec.filesystem(protocol, **options)
        except ImportError as exc:
            extra, package = EXTRAS[protocol]
            from agentout.errors import install_hint

            raise StoreUnreachable(
                f"{protocol}:// needs {package}: {install_hint(extra)} ({exc})"
            ) from None
        except Exception as exc:
            raise StoreUnreachable(reason(exc)) from exc
        if protocol == "s3":
            fs.retries = _S3_RETRIES
        return fs

    def _s3_options(self) -> dict[str, Any]:
        limits = self.timeouts
        return {
            "config_kwargs": {
                "connect_timeout": limits.connect,
                "read_timeout": limits.read,
                "retries": {"max_attempts": _S3_ATTEMPTS, "mode": "standard"},
            }
        }

    def call(self, method: str, *args: Any, **kwargs: Any) -> Any:
        """``fs.METHOD(*args, **kwargs)`` within the deadline; ``StoreUnreachable`` past it
        or on any failure but a missing object (``FileNotFoundError``, raised as it is).
        An async filesystem (s3fs, gcsfs, adlfs) has the call cancelled at the deadline;
        another is left to finish in a thread of its own while the caller goes on."""
        fs = self.fs
        deadline = self.timeouts.deadline
        try:
            if getattr(fs, "async_impl", False):
                from fsspec.asyn import sync

                return sync(fs.loop, getattr(fs, "_" + method), *args, timeout=deadline, **kwargs)
            return in_thread(getattr(fs, method), args, kwargs, deadline)
        except FileNotFoundError:
            raise
        except Exception as exc:
            if _timed_out(exc):
                limit = self.timeouts.describe("deadline")
                raise StoreUnreachable(f"no answer within {limit}") from None
            raise StoreUnreachable(reason(exc)) from exc

    def key(self, name: str) -> str:
        return f"{self.address.root}/{name}"

    def url(self, name: str) -> str:
        return f"{self.address.url}/{name}"

    # -- reading ------------------------------------------------------------------------

    def size(self, name: str) -> int | None:
        """The object's size; None if there is no such object."""
        try:
            info = self.call("info", self.key(name))
        except FileNotFoundError:
            return None
        if info.get("type") not in (None, "file"):
            return None
        return int(info["size"])

    def open(self, name: str, size: int) -> RangedReader:
        return RangedReader(self, self.key(name), size)

    def read(self, name: str, start: int, end: int) -> bytes:
        """Bytes ``start`` to ``end`` of an object (fewer at its end); FileNotFoundError
        if there is no such object."""
        data: bytes = self.call("cat_file", self.key(name), start=start, end=end)
        self.fetched += len(data)
        return data

    def objects(self) -> list[RemoteObject]:
        """The objects directly under the prefix (not in namespaces), by name."""
        try:
            entries = self.call("ls", self.address.root, detail=True, refresh=True)
        except FileNotFoundError:
            return []
        found = []
        for entry in entries:
            if entry.get("type") != "file":
                continue
            name = str(entry["name"]).rsplit("/", 1)[-1]
            if self.key(name) != str(entry["name"]).rstrip("/"):
                continue  # not directly under the prefix
            found.append(RemoteObject(name, int(entry.get("size") or 0), _mtime(entry)))
        return sorted(found, key=lambda o: o.name)

    # -- writing and removing ----------------------------------------------------------

    def put(self, name: str, data: bytes) -> None:
        try:
            self.call("pipe_file", self.key(name), data)
        except FileNotFoundError as exc:  # no such bucket
            raise StoreUnreachable(reason(exc)) from exc

    def remove(self, names: list[str]) -> None:
        if not names:
            return
        with contextlib.suppress(FileNotFoundError):
            self.call("rm", [self.key(name) for name in names])


def _mtime(entry: dict[str, Any]) -> float:
    for field in ("LastModified", "mtime", "updated", "last_modified"):
        value = entry.get(field)
        if value is None:
            continue
        if hasattr(value, "timestamp"):
            return float(value.timestamp())
        if isinstance(value, (int, float)):
            return float(value)
        from datetime import datetime

        try:
            return datetime.fromisoformat(str(value).replace("Z", "+00:00")).timestamp()
        except ValueError:
            continue
    return 0.0


def in_thread(function: Any, args: Any, kwargs: Any, seconds: float) -> Any:
    """``function(*args, **kwargs)`` in a daemon thread, waited for ``seconds`` at most."""
    import threading

    done: list[Any] = []
    failed: list[BaseException] = []

    def call() -> None:
        try:
            done.append(function(*args, **kwargs))
        except BaseException as exc:
            failed.append(exc)

    worker = threading.Thread(target=call, name="agentout-store-call", daemon=True)
    worker.start()
    worker.join(seconds)
    if worker.is_alive():
        raise TimeoutError
    if failed:
        raise failed[0]
    return done[0]


def _timed_out(exc: BaseException) -> bool:
    """A call cancelled at its deadline (fsspec's FSTimeoutError, asyncio's, ours)."""
    import asyncio

    return isinstance(exc, (TimeoutError, asyncio.TimeoutError)) or (
        type(exc).__name__ == "FSTimeoutError"
    )


def reason(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


class RangedReader(io.RawIOBase):
    """An object read with ranged GETs: 8 KiB first, each next range twice the last, up
    to 4 MiB, so one page costs a few small reads and a whole read few requests. Reads
    return at most one range (short reads), ``readline`` is buffered here."""

    def __init__(self, store: RemoteStore, key: str, size: int) -> None:
        super().__init__()
        self._store, self._key, self._size = store, key, size
        self._pos = 0  # of the next byte not yet fetched
        self._buffer = b""
        self._range = _FIRST_RANGE

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self._pos - len(self._buffer)

    def seek(self, offset: int, whence: int = os.SEEK_SET) -> int:
        if whence != os.SEEK_SET:
            raise io.UnsupportedOperation("only absolute seeks")
        self._pos, self._buffer, self._range = max(0, offset), b"", _FIRST_RANGE
        return self._pos

    def _fetch(self) -> bytes:
        if self._pos >= self._size:
            return b""
        end = min(self._size, self._pos + self._range)
        try:
            data: bytes = self._store.call("cat_file", self._key, start=self._pos, end=end)
        except FileNotFoundError:
            raise OSError(f"{self._key}: removed while it was read") from None
        except StoreUnreachable as exc:
            where = self._store.address
            name = self._key.rsplit("/", 1)[-1]
            raise StoreUnreachable(f"store {where} unreachable reading {name} ({exc})") from None
        if not data:
            raise OSError(f"{self._key}: the object ended early (at byte {self._pos})")
        self._store.fetched += len(data)
        self._pos += len(data)
        self._range = min(self._range * 2, _LAST_RANGE)
        return data

    def read(self, size: int | None = -1) -> bytes:
        if size is None or size < 0:
            pieces = [self._buffer]
            self._buffer = b""
            while piece := self._fetch():
                pieces.append(piece)
            return b"".join(pieces)
        if not self._buffer:
            self._buffer = self._fetch()
        out, self._buffer = self._buffer[:size], self._buffer[size:]
        return out

    def readinto(self, buffer: Any) -> int:
        data = self.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)

    def readline(self, limit: int | None = -1) -> bytes:
        limit = -1 if limit is None else limit
        while True:
            end = self._buffer.find(b"\n")
            if end >= 0 and (limit < 0 or end < limit):
                cut = end + 1
                break
            if 0 <= limit <= len(self._buffer):
                cut = limit
                break
            more = self._fetch()
            if not more:
                cut = len(self._buffer)
                break
            self._buffer += more
        out, self._buffer = self._buffer[:cut], self._buffer[cut:]
        return out
