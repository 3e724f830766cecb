"""Reading a file someone else may have put there (a cloned repository's reducers and
their recorded cases, the config): a regular file only, and no more than a limit.

A FIFO would hold the reader until a writer comes, ``/dev/zero`` never ends, and a
socket or a terminal is not data at all; a symlink to any of them is the same thing.
The file is looked at before it is opened (so a device is never opened), opened without
waiting (a FIFO that appears in between does not block), looked at again through the
open descriptor, and read to at most ``limit`` bytes (a file that grows while it is
read is refused too).

Only ``os`` and ``stat``: the hooks read the config through this module.
"""

from __future__ import annotations

import os
import stat

__all__ = ["read_regular"]

_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
)


def _kind(mode: int) -> str:
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def read_regular(path: str | os.PathLike[str], limit: int) -> bytes:
    """The bytes of ``path``, a regular file (symlinks followed) of at most ``limit``
    bytes. ``InputError`` naming the file when it is something else or larger; the
    ``OSError`` of a file that cannot be opened (``FileNotFoundError``...) as it is."""
    from agentout.errors import InputError

    where = os.fspath(path)

    def check(info: os.stat_result) -> None:
        if not stat.S_ISREG(info.st_mode):
            raise InputError(f"{_kind(info.st_mode)}, not a regular file; not read", where)
        if info.st_size > limit:
            raise InputError(f"{info.st_size:,} bytes, over the {limit:,}-byte limit", where)

    check(os.stat(where))
    flags = os.O_RDONLY
    for name in ("O_NONBLOCK", "O_NOCTTY", "O_CLOEXEC"):  # not all exist on every system
        flags |= getattr(os, name, 0)
    fd = os.open(where, flags)
    try:
        check(os.fstat(fd))
        chunks: list[bytes] = []
        size = 0
        while True:
            chunk = os.read(fd, limit + 1 - size)
            if not chunk:
                return b"".join(chunks)
            chunks.append(chunk)
            size += len(chunk)
            if size > limit:
                raise InputError(f"grew past the {limit:,}-byte limit while read", where)
    finally:
        os.close(fd)
