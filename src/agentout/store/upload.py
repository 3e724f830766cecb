"""Sending a spilled file to the object store: streamed while it is written, or queued.

The spill is written to the local store as always (``SpillWriter``: large writes, the
child never waits on us). Then one of two senders takes it to the object store:

- **A process of its own** (``Upload``), for a command that ends once it has answered
  (``agentout run``): it reads the file through a descriptor it inherits and uploads it
  in parts of ``PART`` bytes as soon as each part is on disk, so when the command ends
  only the last part is left to send. agentout never imports boto or fsspec for a
  ``run`` (the uploader's memory stays out of the process that loads the tokenizer).
- **One uploader in the process** (``Uploads``), for a long-lived server (``agentout
  serve``): a bounded queue and a few worker threads sharing one client, so a spill
  costs its requests and nothing more (no interpreter started, no client built).

The object is written under its final name: on S3 a multipart upload (one part on the
way while the next is read) that appears only when it is completed (a single PUT under one part);
elsewhere through fsspec's buffered file: on GCS a resumable upload that appears when
finalised, on Azure blocks that appear when the block list is committed. So a reader
never sees a partial object; an upload that fails or is abandoned is aborted (an abort
that never ran, after a crash, leaves parts that S3 keeps invisible until a lifecycle
rule removes them: see docs/store.md). Every request has the store's deadline
(``agentout.store.timeouts``); a backend whose requests cannot be cancelled is watched
instead, and the upload given up when it makes no progress for a deadline.

Talking to the uploader process: agentout writes ``end SIZE`` on its stdin once the file
is complete (closing stdin without it abandons the upload); it says ``sent N`` on stdout
as each part is taken, and answers one last line, ``ok`` or ``error REASON``.
"""

from __future__ import annotations

import contextlib
import os
import select
import subprocess
import sys
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from agentout.process import python_module
from agentout.store.address import RemoteAddress, parse_address
from agentout.store.remote import RemoteStore, StoreUnreachable, in_thread, reason

if TYPE_CHECKING:
    from concurrent.futures import Future

__all__ = ["PART", "Upload", "Uploads", "in_process"]

PART = 5 << 20  # S3's smallest part: the least the uploader holds
_POLL = 0.02


class Upload:
    """The agentout side of an uploader process: start it, then ``finish`` or ``abort``."""

    def __init__(self, address: RemoteAddress, name: str, fd: int) -> None:
        self.address, self.name = address, name
        self.error: str | None = None
        self._child: subprocess.Popen[bytes] | None = None
        self._said = b""  # what the uploader wrote that is not a whole line yet
        try:
            self._child = subprocess.Popen(
                [*python_module("agentout.store.upload"), address.url, name, str(fd)],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                pass_fds=(fd,),
            )
        except OSError as exc:
            self.error = f"cannot start the uploader: {exc.strerror or exc}"

    def finish(self, size: int) -> str | None:
        """Wait for the object to be complete in the store; None, or why it is not."""
        self.end(size)
        return self.wait()

    def end(self, size: int) -> None:
        """Tell the uploader the file is complete at ``size`` bytes (without waiting)."""
        child = self._child
        if child is None or child.stdin is None or child.stdin.closed:
            return
        with contextlib.suppress(OSError):  # an uploader that failed has gone already
            child.stdin.write(f"end {size}\n".encode("ascii"))
            child.stdin.close()

    def wait(self, stall: float | None = None) -> str | None:
        """Wait for the uploader's answer after ``end``; None, or why there is no object.
        With ``stall``: ``TimeoutError`` once the uploader has said nothing for that many
        seconds (it says ``sent N`` as each part is taken), so a store that works, however
        slowly, is waited for, and one that stopped answering is not; the uploader then
        goes on, detached, each of its calls bounded by the store's deadline."""
        child = self._child
        if child is None:
            return self.error
        assert child.stdout is not None
        fd = child.stdout.fileno()
        while True:
            line = self._line(fd, stall)
            if not line.startswith("sent "):
                break
        status = child.wait()
        self._child = None
        if line == "ok" and status == 0:
            return None
        self.error = line.removeprefix("error ").strip() or f"the uploader exited {status}"
        return self.error

    def _line(self, fd: int, stall: float | None) -> str:
        """The uploader's next line ('' at its end); ``TimeoutError`` after ``stall``
        seconds of silence. Read from the descriptor itself: a buffered reader would hide
        lines already read from ``select``."""
        while b"\n" not in self._said:
            if stall is not None:
                ready, _, _ = select.select([fd], [], [], max(0.0, stall))
                if not ready:
                    raise TimeoutError(self.name)
            piece = os.read(fd, 4096)
            if not piece:
                break
            self._said += piece
        line, _, self._said = self._said.partition(b"\n")
        return line.decode("utf-8", "replace").strip()

    def abort(self) -> None:
        """Abandon the upload: the uploader aborts it and nothing appears in the store."""
        child, self._child = self._child, None
        if child is not None and child.stdin is not None:
            with contextlib.suppress(OSError):
                child.stdin.close()


# -- one uploader in the process ------------------------------------------------------------

WORKERS = 4  # requests on the way at once: enough to hide a round trip, few for memory
QUEUED = 32  # uploads waiting or on the way; one more waits for room (within the deadline)


class Uploads:
    """The in-process uploader: ``send`` queues a complete file and returns a future that
    gives None, or why there is no object. At most ``QUEUED`` uploads wait or run, by
    ``WORKERS`` threads; a file is read through its own descriptor, a part at a time."""

    def __init__(self, workers: int = WORKERS, queued: int = QUEUED) -> None:
        from concurrent.futures import ThreadPoolExecutor

        self._pool = ThreadPoolExecutor(workers, thread_name_prefix="agentout-upload")
        self._room = threading.BoundedSemaphore(queued)
        self._stores: dict[str, RemoteStore] = {}
        self._lock = threading.Lock()

    def _store(self, address: RemoteAddress) -> RemoteStore:
        with self._lock:
            store = self._stores.get(address.url)
            if store is None:
                store = self._stores[address.url] = RemoteStore(address)
            return store

    def send(self, address: RemoteAddress, name: str, fd: int, size: int) -> Future[str | None]:
        """Upload ``size`` bytes of ``fd`` (a descriptor of the caller's, read with
        ``pread``: the caller keeps it open until the future is done) as ``name``."""
        from concurrent.futures import Future

        store = self._store(address)
        if not self._room.acquire(timeout=store.timeouts.deadline):
            waited: Future[str | None] = Future()
            limit = store.timeouts.describe("deadline")
            waited.set_result(f"{QUEUED} uploads waiting for the store for more than {limit}")
            return waited

        def job() -> str | None:
            try:
                send_file(store, name, fd, size)
            except Exception as exc:
                return _why(exc)
            finally:
                self._room.release()
            return None

        return self._pool.submit(job)


_uploads: Uploads | None = None
_uploads_lock = threading.Lock()


def in_process(start: bool | None = None) -> Uploads | None:
    """The process's uploader, if this process uses one; ``in_process(True)`` starts it
    (a long-lived server, once), ``in_process(False)`` stops using it."""
    global _uploads
    with _uploads_lock:
        if start is True and _uploads is None:
            _uploads = Uploads()
        elif start is False:
            _uploads = None
        return _uploads


def send_file(store: RemoteStore, name: str, fd: int, size: int) -> None:
    """Upload a complete file, then its line index (``StoreUnreachable`` on failure)."""
    send(store, name, fd, lambda: size)


# -- sending: the same for both ---------------------------------------------------------------

_IN_FLIGHT = 1  # parts on the way while the next is read: more would pass 100 MB RSS


class _S3Parts:
    """An S3 multipart upload, ``_IN_FLIGHT`` parts on the way while the next is read
    (fsspec's buffered file reads and sends in turn, and copies each part more); one PUT
    when the whole object is under a part. Each request within the store's deadline."""

    def __init__(self, store: RemoteStore, key: str) -> None:
        self.store = store
        self.bucket, self.key = key.split("/", 1)
        self.buffer: list[bytes] = []
        self.buffered = 0
        self.upload_id: str | None = None
        self.parts: list[Any] = []
        self.pool: Any = None

    def _s3(self, method: str, **kwargs: Any) -> Any:
        return self.store.call("call_s3", method, Bucket=self.bucket, Key=self.key, **kwargs)

    def write(self, data: bytes) -> None:
        self.buffer.append(data)  # a whole part as one piece is sent as it is
        self.buffered += len(data)
        if self.buffered >= PART:
            self._send()

    def _send(self) -> None:
        if self.upload_id is None:
            from concurrent.futures import ThreadPoolExecutor

            self.upload_id = self._s3("create_multipart_upload")["UploadId"]
            self.pool = ThreadPoolExecutor(_IN_FLIGHT, thread_name_prefix="agentout-part")
        while sum(not part.done() for part in self.parts) >= _IN_FLIGHT:
            next(part for part in self.parts if not part.done()).result()
        pieces, self.buffer, self.buffered = self.buffer, [], 0
        body = pieces[0] if len(pieces) == 1 else b"".join(pieces)
        del pieces
        self.parts.append(self.pool.submit(self._part, len(self.parts) + 1, body))

    def _part(self, number: int, body: bytes) -> dict[str, Any]:
        answer = self._s3("upload_part", UploadId=self.upload_id, PartNumber=number, Body=body)
        return {"PartNumber": number, "ETag": answer["ETag"]}

    def close(self) -> None:
        """Complete the upload: the object appears, whole."""
        if self.upload_id is None:
            self._s3("put_object", Body=b"".join(self.buffer))
            return
        if self.buffer:
            self._send()
        done = [part.result() for part in self.parts]
        parts = {"Parts": done}
        self._s3("complete_multipart_upload", UploadId=self.upload_id, MultipartUpload=parts)
        self.pool.shutdown()

    def discard(self) -> None:
        if self.pool is not None:
            self.pool.shutdown(cancel_futures=True)
        if self.upload_id is not None:
            self._s3("abort_multipart_upload", UploadId=self.upload_id)


class _Watched:
    """fsspec's buffered file (GCS resumable uploads, Azure blocks), whose requests take
    no deadline: each write and the close run in a thread, waited for a deadline."""

    def __init__(self, store: RemoteStore, key: str) -> None:
        self.store = store
        self.out = self._bounded(lambda: store.fs.open(key, "wb", block_size=PART))

    def _bounded(self, work: Callable[[], Any]) -> Any:
        try:
            return in_thread(work, (), {}, self.store.timeouts.deadline)
        except TimeoutError:
            limit = self.store.timeouts.describe("deadline")
            raise StoreUnreachable(f"no answer within {limit}") from None
        except Exception as exc:
            raise StoreUnreachable(reason(exc)) from exc

    def write(self, data: bytes) -> None:
        self._bounded(lambda: self.out.write(data))

    def close(self) -> None:
        self._bounded(self.out.close)

    def discard(self) -> None:
        self._bounded(self.out.discard)


def send(
    store: RemoteStore,
    name: str,
    fd: int,
    end: Callable[[], int | None],
    sent: Callable[[int], None] | None = None,
) -> None:
    """Upload what ``fd`` holds as ``name`` as it grows, a part at a time, until ``end()``
    gives the complete size (None: not known yet); then the line index beside it.
    ``sent(bytes)`` is told each time a part is taken. Anything raised aborts the upload
    (nothing appears) and goes on up."""
    from agentout.store.index import INDEX_SUFFIX, IndexBuilder

    index = IndexBuilder()
    key = store.key(name)
    out: Any = _S3Parts(store, key) if store.address.protocol == "s3" else _Watched(store, key)
    done = 0
    try:
        while True:
            size = end()
            available = size if size is not None else os.fstat(fd).st_size
            while available - done >= PART or (size is not None and done < size):
                data = os.pread(fd, min(PART, available - done), done)  # a part, in one piece
                if not data:
                    raise OSError(f"the spilled file ended at {done} of {available} bytes")
                index.feed(data)
                out.write(data)
                done += len(data)
                del data
                if sent is not None:
                    sent(done)
                if size is None:
                    available = os.fstat(fd).st_size
            if size is not None:
                break
        out.close()  # completes the upload: the object appears, whole
    except BaseException:
        with contextlib.suppress(Exception):
            out.discard()  # aborts a multipart upload
        raise
    store.put(name + INDEX_SUFFIX, index.finish())


def _why(exc: BaseException) -> str:
    """Why an upload failed, in one line."""
    return str(exc) if isinstance(exc, StoreUnreachable) else reason(exc)


# -- the uploader process ---------------------------------------------------------------


class _Stdin:
    """``end SIZE`` as it arrives on stdin, looked at for ``_POLL`` seconds at a time;
    ``EOFError`` if stdin closes without it (the upload is abandoned)."""

    def __init__(self) -> None:
        buffer = sys.stdin.buffer
        self.stream = buffer.raw if hasattr(buffer, "raw") else buffer
        self.pending = b""
        self.size: int | None = None

    def __call__(self) -> int | None:
        if self.size is None:
            ready, _, _ = select.select([self.stream], [], [], _POLL)
            if ready:
                chunk = os.read(self.stream.fileno(), 64)
                if not chunk:
                    raise EOFError("abandoned")
                self.pending += chunk
                if self.pending.endswith(b"\n"):
                    self.size = int(self.pending.split()[1])
        return self.size


def _say_sent(done: int) -> None:
    with contextlib.suppress(OSError):  # agentout may have stopped listening: go on
        print(f"sent {done}", flush=True)


def main(argv: list[str]) -> int:
    url, name, fd = argv[0], argv[1], int(argv[2])
    address = parse_address(url)
    if not isinstance(address, RemoteAddress):
        print(f"error {url}: not an object store", flush=True)
        return 2
    try:
        send(RemoteStore(address), name, fd, _Stdin(), _say_sent)
        answer, status = "ok", 0
    except EOFError:
        return 1
    except BaseException as exc:
        answer, status = f"error {_why(exc)}", 1
    with contextlib.suppress(OSError):  # agentout may have stopped waiting (its grace)
        print(answer, flush=True)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
