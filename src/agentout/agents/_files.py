"""Reading a file a hook is pointed at, bounded: a regular file only, its size checked
before a byte is read.

A hook reads files that other people write: a repository's ``.claude/settings.json``, a
path in a payload. Such a path may be a symlink to ``/dev/zero`` (an endless read that
holds the interpreter inside one C call, where no time limit can stop it), a FIFO (an
``open`` that waits for a writer forever) or a file of gigabytes. So the file is opened
without blocking, checked to be a regular file with ``fstat`` on the open descriptor (no
race with a rename), and refused past ``limit`` bytes; reads are in pieces.
"""

from __future__ import annotations

import os
import stat

TYPE_CHECKING = False  # typing is not imported at run time: the hook is timed
if TYPE_CHECKING:
    from collections.abc import Iterator

__all__ = ["NotRegular", "TooLarge", "chunks", "read_regular"]

_PIECE = 1 << 20


class NotRegular(OSError):
    """A device, FIFO, socket or directory where a file was expected."""


class TooLarge(OSError):
    """A regular file over the size it may have."""


def _open(path: str, limit: int) -> tuple[int, int]:
    """(descriptor, size) of a regular file of at most ``limit`` bytes; OSError
    (``FileNotFoundError``, ``NotRegular``, ``TooLarge``...) otherwise."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(path, flags)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise NotRegular(f"{path}: not a regular file")
        if info.st_size > limit:
            raise TooLarge(f"{path}: over {limit} bytes ({info.st_size})")
    except BaseException:
        os.close(fd)
        raise
    return fd, info.st_size


def read_regular(path: str, limit: int) -> bytes:
    """The whole of a regular file of at most ``limit`` bytes (see the module doc)."""
    fd, size = _open(path, limit)
    try:
        pieces: list[bytes] = []
        total = 0
        while total <= limit:  # a file that grows while read is cut at limit + 1
            piece = os.read(fd, min(_PIECE, limit + 1 - total))
            if not piece:
                break
            pieces.append(piece)
            total += len(piece)
    finally:
        os.close(fd)
    data = b"".join(pieces)
    if len(data) > limit:
        raise TooLarge(f"{path}: over {limit} bytes (it grew while read; {size} before)")
    return data


def chunks(path: str, limit: int) -> Iterator[bytes]:
    """A regular file of at most ``limit`` bytes, in pieces (bounded memory)."""
    fd, _ = _open(path, limit)
    try:
        total = 0
        while True:
            piece = os.read(fd, _PIECE)
            if not piece:
                return
            total += len(piece)
            if total > limit:
                raise TooLarge(f"{path}: over {limit} bytes (it grew while read)")
            yield piece
    finally:
        os.close(fd)
