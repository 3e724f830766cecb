"""Streaming a spilled file to the object store while the output still arrives.

The spill is written to the local store as always (``SpillWriter``: large writes, the
child never waits on us); an uploader process reads that file through a descriptor it
inherits and uploads it in parts of ``PART`` bytes as soon as each part is on disk, so
when the command ends only the last part is left to send. Memory stays flat on both
sides: agentout holds nothing more, the uploader one part; and agentout never imports
boto or fsspec for a ``run`` (a process of its own keeps their memory out of the one
that loads the tokenizer).

The object is written under its final name: on S3 a multipart upload (one part on the
way while the next is read) that appears only when it is completed (a single PUT under one part);
elsewhere through fsspec's buffered file: on GCS a resumable upload that appears when
finalised, on Azure blocks that appear when the block list is committed. So a reader
never sees a partial object; an upload that fails or is abandoned is aborted (an abort
that never ran, after a crash, leaves parts that S3 keeps invisible until a lifecycle
rule removes them: see docs/store.md).

Talking to the uploader: agentout writes ``end SIZE`` on its stdin once the file is
complete (closing stdin without it abandons the upload); it answers one line on stdout,
``ok`` or ``error REASON``.
"""

from __future__ import annotations

import contextlib
import os
import select
import subprocess
import sys
from typing import Any

from agentout.store.address import RemoteAddress, parse_address

__all__ = ["PART", "Upload"]

PART = 5 << 20  # S3's smallest part: the least the uploader holds
_POLL = 0.02


class Upload:
    """The agentout side: start the uploader, then ``finish`` or ``abort``."""

    def __init__(self, address: RemoteAddress, name: str, fd: int) -> None:
        self.address, self.name = address, name
        self.error: str | None = None
        self._child: subprocess.Popen[bytes] | None = None
        try:
            self._child = subprocess.Popen(
                [sys.executable, "-m", "agentout.store.upload", address.url, name, str(fd)],
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

    def wait(self) -> str | None:
        """Wait for the uploader's answer after ``end``; None, or why there is no object."""
        child = self._child
        if child is None:
            return self.error
        assert child.stdout is not None
        answer = child.stdout.readline().decode("utf-8", "replace").strip()
        status = child.wait()
        self._child = None
        if answer == "ok" and status == 0:
            return None
        self.error = answer.removeprefix("error ").strip() or f"the uploader exited {status}"
        return self.error

    def abort(self) -> None:
        """Abandon the upload: the uploader aborts it and nothing appears in the store."""
        child, self._child = self._child, None
        if child is not None and child.stdin is not None:
            with contextlib.suppress(OSError):
                child.stdin.close()


# -- the uploader process ---------------------------------------------------------------

_IN_FLIGHT = 1  # parts on the way while the next is read: more would pass 100 MB RSS


class _S3Parts:
    """An S3 multipart upload, ``_IN_FLIGHT`` parts on the way while the next is read
    (fsspec's buffered file reads and sends in turn, and copies each part more); one PUT
    when the whole object is under a part."""

    def __init__(self, fs: Any, key: str) -> None:
        from concurrent.futures import ThreadPoolExecutor

        self.fs = fs
        self.bucket, self.key = key.split("/", 1)
        self.buffer: list[bytes] = []
        self.buffered = 0
        self.upload_id: str | None = None
        self.parts: list[Any] = []
        self.pool = ThreadPoolExecutor(_IN_FLIGHT, thread_name_prefix="agentout-part")

    def write(self, data: bytes) -> None:
        self.buffer.append(data)  # a whole part as one piece is sent as it is
        self.buffered += len(data)
        if self.buffered >= PART:
            self._send()

    def _send(self) -> None:
        if self.upload_id is None:
            made = self.fs.call_s3("create_multipart_upload", Bucket=self.bucket, Key=self.key)
            self.upload_id = made["UploadId"]
        while sum(not part.done() for part in self.parts) >= _IN_FLIGHT:
            next(part for part in self.parts if not part.done()).result()
        pieces, self.buffer, self.buffered = self.buffer, [], 0
        body = pieces[0] if len(pieces) == 1 else b"".join(pieces)
        del pieces
        self.parts.append(self.pool.submit(self._part, len(self.parts) + 1, body))

    def _part(self, number: int, body: bytes) -> dict[str, Any]:
        answer = self.fs.call_s3(
            "upload_part",
            Bucket=self.bucket,
            Key=self.key,
            UploadId=self.upload_id,
            PartNumber=number,
            Body=body,
        )
        return {"PartNumber": number, "ETag": answer["ETag"]}

    def close(self) -> None:
        """Complete the upload: the object appears, whole."""
        if self.upload_id is None:
            body = b"".join(self.buffer)
            self.fs.call_s3("put_object", Bucket=self.bucket, Key=self.key, Body=body)
            return
        if self.buffer:
            self._send()
        done = [part.result() for part in self.parts]
        self.fs.call_s3(
            "complete_multipart_upload",
            Bucket=self.bucket,
            Key=self.key,
            UploadId=self.upload_id,
            MultipartUpload={"Parts": done},
        )
        self.pool.shutdown()

    def discard(self) -> None:
        self.pool.shutdown(cancel_futures=True)
        if self.upload_id is not None:
            self.fs.call_s3(
                "abort_multipart_upload",
                Bucket=self.bucket,
                Key=self.key,
                UploadId=self.upload_id,
            )


def _serve(address: RemoteAddress, name: str, fd: int) -> str:
    from agentout.store.index import INDEX_SUFFIX, IndexBuilder
    from agentout.store.remote import RemoteStore

    remote = RemoteStore(address)
    index = IndexBuilder()
    if address.protocol == "s3":
        out: Any = _S3Parts(remote.fs, remote.key(name))
    else:  # fsspec's buffered file: GCS resumable uploads, Azure blocks
        out = remote.fs.open(remote.key(name), "wb", block_size=PART)
    sent = 0
    end: int | None = None
    stdin = sys.stdin.buffer.raw if hasattr(sys.stdin.buffer, "raw") else sys.stdin.buffer
    pending = b""
    try:
        while True:
            available = end if end is not None else os.fstat(fd).st_size
            while available - sent >= PART or (end is not None and sent < end):
                data = os.pread(fd, min(PART, available - sent), sent)  # a part, in one piece
                if not data:
                    raise OSError(f"the spilled file ended at {sent} of {available} bytes")
                index.feed(data)
                out.write(data)
                sent += len(data)
                del data
                if end is None:
                    available = os.fstat(fd).st_size
            if end is not None:
                break
            ready, _, _ = select.select([stdin], [], [], _POLL)
            if ready:
                chunk = os.read(stdin.fileno(), 64)
                if not chunk:
                    raise EOFError("abandoned")
                pending += chunk
                if pending.endswith(b"\n"):
                    end = int(pending.split()[1])
        out.close()  # completes the upload: the object appears, whole
    except BaseException:
        with contextlib.suppress(Exception):
            out.discard()  # aborts a multipart upload
        raise
    remote.put(name + INDEX_SUFFIX, index.finish())
    return "ok"


def main(argv: list[str]) -> int:
    url, name, fd = argv[0], argv[1], int(argv[2])
    address = parse_address(url)
    if not isinstance(address, RemoteAddress):
        print(f"error {url}: not an object store", flush=True)
        return 2
    try:
        answer = _serve(address, name, fd)
    except EOFError:
        return 1
    except BaseException as exc:
        from agentout.store.remote import _reason

        print(f"error {_reason(exc)}", flush=True)
        return 1
    print(answer, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
