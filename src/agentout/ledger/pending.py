"""Deliveries waiting to be counted, and counting them into the database in one go.

Counting needs a tokenizer, which costs more to load than a small ``agentout run`` takes
in all, so what is to be counted waits in ``ledger-pending.jsonl`` beside the database
(0600), one JSON line a delivery: the redacted text as it was delivered (or, for a row
the database was too busy to take, the row itself). ``fold`` counts them and stores
them:

- The file is renamed first (writers start a new one) and read once the writers that
  opened it before are done (each holds its lock while it writes).
- Each line is checked against the row's schema (``row.checked``: texts, whole counts
  from 0, a time between 1970 and 2200) before it is stored; a line that is not a
  delivery is dropped with one line naming it. An unfinished last line (a write cut
  short) is kept for the next count, and a writer never appends to one: it starts its
  own line.
- The rows go in one transaction that also stores the file's name
  (``database.insert``); the file is removed only after it. A database still busy
  after its timeout leaves the file, and its rows, for the next count, with one line.

``fold`` runs when the ledger is read (``agentout gain``), before ``agentout clean``
removes stored outputs, or in a detached ``python -m agentout.ledger.pending`` once the
file passes a size; that recorder's stderr is its log (``agentout.ledger.news``).
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from typing import TYPE_CHECKING, Any

from agentout.ledger import database
from agentout.ledger.news import note
from agentout.ledger.row import COLUMNS, Row, checked

if TYPE_CHECKING:  # pathlib is imported where a path is made: every run appends a line
    from pathlib import Path

__all__ = ["PENDING", "append", "count_raw", "fold", "pending_path", "start_recorder", "store"]

PENDING = "ledger-pending.jsonl"
RAW_EXACT_BYTES = 4 << 20  # raw output counted exactly up to here, then extrapolated


def pending_path() -> Path:
    """Where deliveries wait to be counted: beside the database."""
    return database.database_path().with_name(PENDING)


def _pending_file() -> str:
    """``pending_path()`` as a string, found without pathlib when the database's path is
    plain (absolute or relative, normalized, no ``~`` left): what every run appends to."""
    configured = os.environ.get(database.ENV_DB, "").strip()
    if configured:
        db = os.path.expanduser(configured)
    else:
        from agentout.dirs import user_folder

        db = os.path.join(user_folder("data"), "ledger.sqlite3")
    if os.sep != "/" or db.startswith("~") or os.path.normpath(db) != db or db in (".", "/"):
        return str(pending_path())  # pathlib reads it as it always has
    return os.path.join(os.path.dirname(db), PENDING)


# -- writing ----------------------------------------------------------------------------------


def append(payload: dict[str, Any]) -> int:
    """Append one JSON line under an exclusive lock; the file's size after it. A file
    that ``fold`` renamed away while we waited for the lock is not written to (its lines
    are being counted): the line goes to a new file."""
    line = json.dumps(payload, ensure_ascii=False).encode("utf-8", "surrogatepass") + b"\n"
    return _append(line)


def _append(data: bytes) -> int:
    import fcntl

    path = _pending_file()
    os.makedirs(os.path.dirname(path) or ".", mode=0o700, exist_ok=True)
    flags = os.O_RDWR | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0)
    while True:
        fd = os.open(path, flags, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            held = os.fstat(fd)
            try:
                current = os.stat(path, follow_symlinks=False)
            except FileNotFoundError:
                continue
            if (current.st_dev, current.st_ino) != (held.st_dev, held.st_ino):
                continue
            if data.endswith(b"\n") and held.st_size and os.pread(fd, 1, held.st_size - 1) != b"\n":
                data = b"\n" + data  # a line cut short before: ours starts a line of its own
            view = memoryview(data)
            while view:  # a short write is finished, never left for the next line to join
                view = view[os.write(fd, view) :]
            return held.st_size + len(data)
        finally:
            os.close(fd)


def store(row: Row) -> bool:
    """Store one counted row now, or, while the database is busy, leave it in the
    pending file for the next count (one line says so); False if neither was possible
    (one line says why)."""
    try:
        database.insert([row])
    except database.Busy as exc:
        try:
            append({"row": _fields(row)})
        except (OSError, ValueError) as failed:
            note(f"{exc}, and {failed}; this delivery is not counted")
            return False
        note(f"{exc}; this delivery waits in {pending_path().name} for the next count")
        return True
    except Exception as exc:  # the delivery already happened: say so, and go on
        note(f"{database.database_path()}: {exc}; this delivery is not counted")
        return False
    _export(row)
    return True


def _fields(row: Row) -> dict[str, Any]:
    return {name: getattr(row, name) for name in COLUMNS}


def _export(row: Row) -> None:
    if os.environ.get("AGENTOUT_LEDGER_EXPORT", "").strip():  # the team's copy, at exit
        from agentout.ledger.export import queue

        queue(row)


def start_recorder() -> None:
    """A detached ``python -m agentout.ledger.pending`` that counts the pending deliveries;
    its stderr goes to the recorder's log."""
    import subprocess

    from agentout.ledger.news import open_log
    from agentout.process import python_module

    try:
        log = open_log(database.database_path())
    except OSError:
        log = subprocess.DEVNULL
    try:
        subprocess.Popen(
            python_module("agentout.ledger.pending"),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=log,
            start_new_session=True,
        )
    except OSError as exc:
        note(str(exc))
    finally:
        if log != subprocess.DEVNULL:
            os.close(log)


# -- counting -------------------------------------------------------------------------------


def fold() -> int:
    """Count and store every pending delivery (see the module docstring); how many were
    stored. Stops at the first file the database is too busy to take."""
    path = pending_path()
    taken = path.with_name(f"{PENDING}.{os.getpid()}.{time.time_ns()}")
    with contextlib.suppress(FileNotFoundError):
        os.rename(path, taken)
    done = 0
    for each in sorted(path.parent.glob(f"{PENDING}.*")):
        stored = _fold_file(each, wait=each == taken)
        if stored is None:
            break
        done += stored
    return done


def _fold_file(each: Path, *, wait: bool) -> int | None:
    """The rows stored from one renamed pending file (0: another counter has it); None
    if the database could not take them (they wait, with their file)."""
    import fcntl

    try:
        fd = os.open(each, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return 0
    try:
        try:  # ours: wait for late writers; another counter's: leave it to that one
            fcntl.flock(fd, fcntl.LOCK_EX if wait else fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return 0
        if not _same(fd, each):
            return 0  # counted and removed by another counter meanwhile
        with os.fdopen(os.dup(fd), "rb") as stream:
            *lines, tail = stream.read().split(b"\n")
        rows, bad = _rows(lines, each.name)
        try:
            stored = database.insert(rows, batch=each.name)
        except database.Busy as exc:
            note(f"{exc}; {len(rows)} deliveries wait for the next count")
            return None
        except Exception as exc:
            note(
                f"{database.database_path()}: {exc}; {len(rows)} deliveries wait for the next count"
            )
            return None
        if not stored:  # stored by a counter that died before it removed the file
            rows = []
        for row in rows:
            _export(row)
        if tail.strip():
            _append(tail)  # unfinished: kept, never joined to the next line
        os.unlink(each)
    finally:
        os.close(fd)
    if bad:
        what = (
            "a pending line that is not a delivery was"
            if len(bad) == 1
            else f"{len(bad)} pending lines that are not deliveries were"
        )
        note(f"{what} dropped (the first: {bad[0]})")
    return len(rows)


def _same(fd: int, path: Path) -> bool:
    try:
        return os.path.samestat(os.fstat(fd), os.lstat(path))
    except OSError:
        return False


def _rows(lines: list[bytes], name: str) -> tuple[list[Row], list[str]]:
    rows: list[Row] = []
    bad: list[str] = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            rows.append(_row_of(json.loads(line.decode("utf-8", "surrogatepass"))))
        except (ValueError, TypeError, KeyError, AttributeError, RecursionError) as exc:
            bad.append(f"{name}:{number}: {str(exc)[:200]}")
    return rows, bad


_TEXTS = ("raw", "raw_path", "tokenizer", "agent")


def _row_of(payload: Any) -> Row:
    """The row a pending line stands for, checked; ``ValueError`` saying what is wrong."""
    if not isinstance(payload, dict):
        raise ValueError("not a JSON object")
    if "row" in payload:  # counted already, waiting for a busy database
        fields = payload["row"]
        if not isinstance(fields, dict):
            raise ValueError("row: not a JSON object")
        return checked(fields)
    delivered = payload.get("delivered")
    if not isinstance(delivered, str):
        raise ValueError(f"delivered: expected text, got {type(delivered).__name__}")
    for name in _TEXTS:
        if payload.get(name) is not None and not isinstance(payload[name], str):
            raise ValueError(f"{name}: expected text, got {type(payload[name]).__name__}")
    raw_bytes = payload.get("raw_bytes")
    if raw_bytes is not None and (type(raw_bytes) is not int or raw_bytes < 0):
        raise ValueError(f"raw_bytes: expected a whole number from 0, got {raw_bytes!r}")
    secrets = payload.get("secrets") or 0
    limit = payload.get("limit")
    if limit is not None and (type(limit) is not int or limit < 1):
        raise ValueError(f"limit: expected a whole number from 1, got {limit!r}")
    fields = {
        "time": payload.get("time"),
        "project": payload.get("project"),
        "tool": payload.get("tool"),
        "command": payload.get("command"),
        "raw_tokens": None,
        "delivered_tokens": 0,
        "facts_kept": None,
        "facts_total": None,
        "duration": payload.get("duration"),
        "exit_status": payload.get("exit_status"),
        "secrets": secrets,
        "raw_exact": True,
        "agent": payload.get("agent") or "",
    }
    checked(fields)  # the rest is sound before anything is counted
    raw_tokens, exact, delivered_tokens, shown_tokens = _counted(payload, delivered)
    fields.update(raw_tokens=raw_tokens, raw_exact=exact, delivered_tokens=delivered_tokens)
    fields["shown_tokens"] = shown_tokens
    return checked(fields)


def _counted(payload: dict[str, Any], delivered: str) -> tuple[int | None, bool, int, int | None]:
    """(raw tokens, whether exact, delivered tokens, what the agent's client would have
    shown of the raw output) of a pending delivery."""
    from agentout.tokens import get_tokenizer

    try:
        counter = get_tokenizer(payload.get("tokenizer"))
    except Exception as exc:  # an unknown name: the line is not one agentout wrote
        raise ValueError(f"tokenizer: {exc}") from None
    delivered_tokens = counter.count(delivered)
    source: bytes | str | Path | None = payload.get("raw")
    if payload.get("raw_same"):
        source = delivered
    if payload.get("raw_path"):
        from pathlib import Path

        source = Path(payload["raw_path"])
    raw_tokens, exact = count_raw(source, counter) if source is not None else (None, True)
    raw_bytes = payload.get("raw_bytes")
    if raw_tokens is None and raw_bytes is not None:
        # The stored file is gone (cleaned past its retention): its size, at the delivered
        # output's tokens per byte.
        per_byte = delivered_tokens / max(len(delivered.encode("utf-8", "replace")), 1)
        raw_tokens, exact = round(raw_bytes * per_byte), False
    status, agent, limit = (
        payload.get("exit_status"),
        payload.get("agent") or "",
        payload.get("limit"),
    )
    shown = count_shown(source, counter, agent, status, limit, raw_tokens)
    return raw_tokens, exact, delivered_tokens, shown


def count_raw(data: bytes | str | Path | None, tokenizer: Any = None) -> tuple[int | None, bool]:
    """(tokens of the raw output, whether the count is exact): exact up to
    ``RAW_EXACT_BYTES``; beyond, the exact count of that much scaled by size."""
    if data is None:
        return None, True
    from pathlib import Path

    from agentout.tokens import get_tokenizer

    counter = get_tokenizer(tokenizer)
    if isinstance(data, Path):
        try:
            with data.open("rb") as handle:
                size = os.fstat(handle.fileno()).st_size
                counted, read = _count_file(handle, counter)
        except OSError:
            return None, True
    else:
        head = data.encode("utf-8", "surrogateescape") if isinstance(data, str) else data
        size, read = len(head), min(len(head), RAW_EXACT_BYTES)
        counted = counter.count(head[:read].decode("utf-8", "replace"))
    if size <= read:
        return counted, True
    return round(counted * size / max(read, 1)), False


def count_shown(
    data: bytes | str | Path | None,
    tokenizer: Any,
    agent: str,
    exit_status: int | None,
    limit: int | None = None,
    raw_tokens: int | None = None,
) -> int | None:
    """Tokens of what ``agent``'s client would have shown the model of the raw output
    ``data`` (``agentout.ledger.clients``): read from its start, never whole; the raw
    output's tokens (``raw_tokens``) where that client's rules are not known, and None
    where the raw output is not at hand."""
    from agentout.ledger import clients

    if data is None or raw_tokens is None or not agent:
        return raw_tokens
    head, chars = _head(data, clients.head_chars(limit))
    if head is None:
        return raw_tokens
    text = clients.shown(head, chars, agent, exit_status, limit)
    if text is None:
        return raw_tokens
    from agentout.tokens import get_tokenizer

    return int(get_tokenizer(tokenizer).count(text))


def _head(data: bytes | str | Path, chars: int) -> tuple[str | None, int]:
    """(the first ``chars`` characters of ``data``, how many characters it has: exact
    when read whole, else its size in bytes, at least as many); None if it is gone."""
    from pathlib import Path

    if isinstance(data, str):
        return data[:chars], len(data)
    if isinstance(data, Path):
        try:
            with data.open("rb") as handle:
                size = os.fstat(handle.fileno()).st_size
                raw = handle.read(chars * 4)
        except OSError:
            return None, 0
    else:
        raw, size = data[: chars * 4], len(data)
    text = raw.decode("utf-8", "replace")
    return text[:chars], (len(text) if len(raw) >= size else size)


_PIECE = 256 << 10


def _count_file(handle: Any, counter: Any) -> tuple[int, int]:
    """(tokens, bytes read) of a file's first ``RAW_EXACT_BYTES``, counted whole, as
    ``count`` counts a text; read and decoded a piece at a time, so the bytes and the text
    are never both held (4 MiB less at the end of a ``fit`` of a big file, which keeps
    it under 100 MiB)."""
    import codecs

    decoder = codecs.getincrementaldecoder("utf-8")("replace")
    pieces: list[str] = []
    read = 0
    while read < RAW_EXACT_BYTES:
        data = handle.read(min(_PIECE, RAW_EXACT_BYTES - read))
        if not data:
            break
        read += len(data)
        pieces.append(decoder.decode(data))
    pieces.append(decoder.decode(b"", final=True))
    text = "".join(pieces)
    del pieces
    return counter.count(text), read


def count_now(payload: dict[str, Any]) -> bool:
    """Count one delivery in this process and store it (``store``); a payload that is
    not a delivery is not stored (one line says why)."""
    try:
        row = _row_of(payload)
    except ValueError as exc:
        note(f"{exc}; this delivery is not counted")
        return False
    return store(row)


if __name__ == "__main__":  # the detached recorder of ``agentout.ledger.book.record_later``
    from agentout.ledger.news import in_recorder

    in_recorder()
    fold()
