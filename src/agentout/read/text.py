"""Reading a file or stdin as UTF-8 text, in pieces, with clear errors for what is not text.

Every source and command that reads a user's file goes through ``read_text``: it reads
1 MiB at a time (so memory is bounded by the caller, not by the file), strips a UTF-8
byte order mark, and turns the ways a file can fail to be text into an ``InputError``
naming the file: missing, a directory, unreadable, binary (a NUL byte), invalid UTF-8.
Invalid UTF-8 is an error, never silently replaced: counts and records would otherwise
describe a text that is not the file's.
"""

from __future__ import annotations

import codecs
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import BinaryIO

from agentout.errors import InputError

__all__ = [
    "CHUNK_BYTES",
    "STDIN_NAME",
    "display_name",
    "invalid_utf8",
    "open_input",
    "read_text",
    "unreadable",
]

CHUNK_BYTES = 1 << 20
STDIN_NAME = "<stdin>"

Source = str | os.PathLike[str] | BinaryIO | None
"""A path, ``-`` or None for stdin, or an open binary stream."""


def invalid_utf8(offset: int, byte: bytes) -> str:
    """How invalid UTF-8 is refused: the file offset of the bad ``byte``, and its value."""
    return f"invalid UTF-8 at byte {offset} (0x{byte.hex()}); agentout reads UTF-8 text"


def display_name(source: Source) -> str:
    """How messages and headers name the input: the path as given, or ``<stdin>``."""
    if source is None or source == "-":
        return STDIN_NAME
    if isinstance(source, (str, os.PathLike)):
        return os.fspath(source)
    return str(getattr(source, "name", "<stream>"))


def unreadable(exc: OSError, name: str, *, folder: bool = False) -> InputError:
    """A path that cannot be read, refused in the same words by every command: ``no such
    file`` (``no such folder`` where a folder is expected), ``is a directory, not a
    file``, ``permission denied``."""
    if isinstance(exc, (FileNotFoundError, NotADirectoryError)) and not folder:
        return InputError("no such file", name)
    if isinstance(exc, FileNotFoundError):
        return InputError("no such folder", name)
    if isinstance(exc, NotADirectoryError):
        return InputError("is a file, not a folder", name)
    if isinstance(exc, IsADirectoryError):
        return InputError("is a directory, not a file", name)
    if isinstance(exc, PermissionError):
        return InputError("permission denied", name)
    return InputError(exc.strerror or str(exc), name)


@contextmanager
def open_input(source: Source) -> Iterator[BinaryIO]:
    """The input as a binary stream; OS errors become an ``InputError`` naming the file.

    Streams passed in (and stdin) are left open; a file opened here is closed on exit.
    """
    if source is None or source == "-":
        yield sys.stdin.buffer
        return
    if not isinstance(source, (str, os.PathLike)):
        yield source
        return
    name = os.fspath(source)
    try:
        stream = open(name, "rb")  # noqa: SIM115 - closed below, after the caller is done
    except OSError as exc:
        raise unreadable(exc, name) from None
    with stream:
        yield stream


def read_text(
    source: Source, chunk_bytes: int = CHUNK_BYTES, name: str | None = None
) -> Iterator[str]:
    """The decoded text of ``source`` in pieces of at most ``chunk_bytes`` bytes each.

    ``name`` is what errors call the input (default: ``display_name(source)``).
    """
    name = display_name(source) if name is None else name
    decoder = codecs.getincrementaldecoder("utf-8")("strict")
    offset = 0  # bytes read before the current chunk
    first = True
    with open_input(source) as stream:
        while True:
            try:
                chunk = stream.read(chunk_bytes)
            except IsADirectoryError:
                raise InputError("is a directory, not a file", name) from None
            except OSError as exc:
                raise InputError(exc.strerror or str(exc), name) from None
            nul = chunk.find(b"\x00")
            if nul >= 0:
                raise InputError(
                    f"binary data (a NUL byte at byte {offset + nul}); "
                    "agentout reads UTF-8 text, JSON or JSONL",
                    name,
                )
            pending = len(decoder.getstate()[0])
            try:
                text = decoder.decode(chunk, final=not chunk)
            except UnicodeDecodeError as exc:
                bad = exc.object[exc.start : exc.start + 1]
                raise InputError(invalid_utf8(offset - pending + exc.start, bad), name) from None
            offset += len(chunk)
            if first and text:
                text = text.removeprefix("\ufeff")
                first = False
            if text:
                yield text
            if not chunk:
                return
