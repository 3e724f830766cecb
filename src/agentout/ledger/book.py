"""The savings ledger: one row per delivery to an agent, in a local SQLite database.

Every command and tool that hands output to an agent (``run``, ``test``, ``fit``,
``records``, ``notes``, ``show``, the MCP tools) calls ``record`` once: when, in which
project, which tool and command, the tokens of the raw output (None when the raw output
is not at hand), the tokens delivered (exactly the ``tokens=`` of what was printed), the
facts kept where a reducer declares them, how long it took, the exit status and how many
secrets were kept out. Counts only: never a byte of the output itself.

The database is ``ledger.sqlite3`` in agentout's private data directory (platformdirs,
0700; the file 0600), or ``$AGENTOUT_LEDGER_DB``; WAL journal and a busy timeout, so many
agents can write at once. ``AGENTOUT_LEDGER=0`` turns it off. ``record`` never raises and
never delays a delivery for long: a locked, read-only or corrupt database costs one line
on stderr, and the delivery has already happened.

Counting needs a tokenizer, which costs more to load than a small ``agentout run`` takes
in all, so ``record_later`` appends what is to be counted to ``ledger-pending.jsonl``
beside the database (0600, redacted text as it was delivered) and the counting is done
later, in one go: when the ledger is read (``rows``, so ``agentout gain``), before
``agentout clean`` removes stored files, or by one detached ``python -m agentout.ledger.book``
once the file passes ``PENDING_BYTES``. A raw output that was stored is counted from its
file; one the store has removed since (past its retention) is estimated from its size at
the delivered output's tokens per byte (``raw_exact`` false). Counted lines are deleted.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentout.ledger.row import COLUMNS as _COLUMNS
from agentout.ledger.row import Row

if TYPE_CHECKING:  # record_later runs in every agentout run: no sqlite3 there
    import sqlite3

__all__ = [
    "ENV",
    "ENV_DB",
    "PENDING_BYTES",
    "Row",
    "count_pending",
    "count_raw",
    "database_path",
    "enabled",
    "pending_path",
    "record",
    "record_later",
    "rows",
]

ENV = "AGENTOUT_LEDGER"
ENV_DB = "AGENTOUT_LEDGER_DB"
ENV_SYNC = "AGENTOUT_LEDGER_SYNC"  # count and write before returning (tests, scripts)
_OFF = {"0", "off", "false", "no"}
_BUSY_MS = 2000
_COMMAND_CHARS = 200
_SCHEMA = """
CREATE TABLE IF NOT EXISTS deliveries (
    id INTEGER PRIMARY KEY,
    time REAL NOT NULL,
    project TEXT NOT NULL,
    tool TEXT NOT NULL,
    command TEXT NOT NULL,
    raw_tokens INTEGER,
    delivered_tokens INTEGER NOT NULL,
    facts_kept INTEGER,
    facts_total INTEGER,
    duration REAL,
    exit_status INTEGER,
    secrets INTEGER NOT NULL DEFAULT 0,
    raw_exact INTEGER NOT NULL DEFAULT 1
);
CREATE INDEX IF NOT EXISTS deliveries_time ON deliveries (time);
"""
RAW_EXACT_BYTES = 4 << 20  # raw output counted exactly up to here, then extrapolated
_CHEAP = 64 << 10  # raw output counted in the answering process only up to here
PENDING_BYTES = 1 << 20  # pending texts counted by a detached recorder from this size on
_PENDING = "ledger-pending.jsonl"


def enabled() -> bool:
    return os.environ.get(ENV, "1").strip().lower() not in _OFF


def database_path() -> Path:
    configured = os.environ.get(ENV_DB, "").strip()
    if configured:
        return Path(configured).expanduser()
    from agentout.dirs import user_dir

    return user_dir("data") / "ledger.sqlite3"


def _connect(path: Path, *, create: bool) -> sqlite3.Connection:
    import sqlite3

    if create:
        from agentout.dirs import private_dir

        private_dir(path.parent, "the ledger directory")
        with contextlib.suppress(FileExistsError):
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    elif not path.exists():
        raise FileNotFoundError(path)
    uri = path.absolute().as_uri() + ("" if create else "?mode=ro")
    connection = sqlite3.connect(uri, uri=True, timeout=_BUSY_MS / 1000, isolation_level=None)
    connection.execute(f"PRAGMA busy_timeout={_BUSY_MS}")
    if create:
        if connection.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
            connection.execute("PRAGMA journal_mode=WAL")
        connection.executescript(_SCHEMA)
    return connection


def record(
    *,
    tool: str,
    command: str,
    delivered_tokens: int,
    raw_tokens: int | None = None,
    raw_exact: bool = True,
    facts_kept: int | None = None,
    facts_total: int | None = None,
    duration: float | None = None,
    exit_status: int | None = None,
    secrets: int = 0,
    project: str | None = None,
    when: float | None = None,
) -> bool:
    """Append one delivery (made at ``when``, default now); True if it was written.
    Never raises."""
    if not enabled():
        return False
    values: tuple[Any, ...] = (
        time.time() if when is None else when,
        project if project is not None else os.getcwd(),
        tool,
        _without_secrets(command[:_COMMAND_CHARS]),
        raw_tokens,
        delivered_tokens,
        facts_kept,
        facts_total,
        duration,
        exit_status,
        secrets,
        int(raw_exact),
    )
    path: Path | None = None
    try:
        path = database_path()
        connection = _connect(path, create=True)
        try:
            marks = ", ".join("?" * len(_COLUMNS))
            connection.execute(
                f"INSERT INTO deliveries ({', '.join(_COLUMNS)}) VALUES ({marks})", values
            )
        finally:
            connection.close()
    except Exception as exc:  # the delivery already happened: say so, and go on
        where = f"{path}: " if path is not None else ""
        with contextlib.suppress(OSError):
            sys.stderr.write(f"agentout: ledger: {where}{exc}; this delivery is not counted\n")
        return False
    if os.environ.get("AGENTOUT_LEDGER_EXPORT", "").strip():  # the team's copy, at exit
        from agentout.ledger.export import queue

        fields = dict(zip(_COLUMNS, values, strict=True))
        fields["raw_exact"] = bool(fields["raw_exact"])
        queue(Row(**fields))
    return True


def rows(path: Path | None = None, *, since: float | None = None) -> Iterator[Row]:
    """Every recorded delivery, oldest first (nothing if there is no ledger yet), the
    pending ones counted first when this is the ledger ``record_later`` writes to."""
    if path is None:
        path = database_path()
        if enabled() and pending_path().exists():
            count_pending()
    try:
        connection = _connect(path, create=False)
    except FileNotFoundError:
        return
    try:
        # A writer creates the file, then its table: read between the two, no rows yet.
        found = "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'deliveries'"
        if connection.execute(found).fetchone() is None:
            return
        query = f"SELECT {', '.join(_COLUMNS)} FROM deliveries"
        args: tuple[Any, ...] = ()
        if since is not None:
            query, args = query + " WHERE time >= ?", (since,)
        for values in connection.execute(query + " ORDER BY time, id", args):
            fields = dict(zip(_COLUMNS, values, strict=True))
            fields["raw_exact"] = bool(fields["raw_exact"])
            yield Row(**fields)
    finally:
        connection.close()


def count_raw(data: bytes | str | Path | None, tokenizer: Any = None) -> tuple[int | None, bool]:
    """(tokens of the raw output, whether the count is exact): exact up to
    ``RAW_EXACT_BYTES``; beyond, the exact count of that much scaled by size."""
    if data is None:
        return None, True
    from agentout.tokens import get_tokenizer

    counter = get_tokenizer(tokenizer)
    if isinstance(data, Path):
        try:
            size = data.stat().st_size
            with data.open("rb") as handle:
                head = handle.read(RAW_EXACT_BYTES)
        except OSError:
            return None, True
    else:
        head = data.encode("utf-8", "surrogateescape") if isinstance(data, str) else data
        size = len(head)
        head = head[:RAW_EXACT_BYTES]
    counted = counter.count(head.decode("utf-8", "replace"))
    if size <= len(head):
        return counted, True
    return round(counted * size / max(len(head), 1)), False


def _without_secrets(text: str | None) -> Any:
    """``text`` with its secrets hidden (``agentout.redact``) before it is written: a
    command line can hold a token (``curl -H "Authorization: Bearer ..."``), and a hook's
    raw output is the tool's as it was. Its tokens are then counted with the markers."""
    if not text:
        return text
    from agentout.redact import default_redactor

    return default_redactor().redact_text(text)[0]


# -- counted after the command has answered ------------------------------------------------


def record_later(
    *,
    tool: str,
    command: str,
    delivered: str,
    raw: str | None = None,
    raw_path: str | None = None,
    tokenizer: str | None = None,
    duration: float | None = None,
    exit_status: int | None = None,
    secrets: int = 0,
) -> None:
    """Record a delivery whose tokens are not counted yet, without making the caller wait
    for a tokenizer: it is counted later (see the module docstring). With
    ``AGENTOUT_LEDGER_SYNC=1``, or once the tokenizer is loaded anyway, it is done here.
    Never raises."""
    if not enabled():
        return
    command, raw = _without_secrets(command), _without_secrets(raw)
    payload = {
        "tool": tool,
        "command": command,
        "time": time.time(),
        "delivered": delivered,
        "raw": None if raw == delivered else raw,
        "raw_same": raw == delivered,
        "raw_path": raw_path,
        "raw_bytes": _size(raw_path),
        "tokenizer": tokenizer,
        "duration": duration,
        "exit_status": exit_status,
        "secrets": secrets,
        "project": os.getcwd(),
    }
    # In this process only when it costs nothing noticeable: the tokenizer is loaded and
    # the raw output is small (counting 4 MiB of it takes about half a second).
    cheap = "agentout.tokens" in sys.modules and raw_path is None and len(raw or "") <= _CHEAP
    if os.environ.get(ENV_SYNC, "").strip() in ("1", "true", "yes") or cheap:
        _record_payload(payload)
        return
    try:
        size = _append_pending(payload)
    except (OSError, ValueError) as exc:
        with contextlib.suppress(OSError):
            sys.stderr.write(f"agentout: ledger: {exc}; this delivery is not counted\n")
        return
    if size >= PENDING_BYTES:
        _start_recorder()


def _size(path: str | None) -> int | None:
    if path is None:
        return None
    try:
        return os.stat(path).st_size
    except OSError:
        return None


def pending_path() -> Path:
    """Where deliveries wait to be counted: beside the database."""
    return database_path().with_name(_PENDING)


def _append_pending(payload: dict[str, Any]) -> int:
    """Append one JSON line under an exclusive lock; the file's size after it. A file
    that ``count_pending`` renamed away while we waited for the lock is not written to
    (its lines are being counted): the line goes to a new file."""
    import fcntl
    import json

    line = json.dumps(payload, ensure_ascii=False).encode("utf-8", "surrogatepass") + b"\n"
    path = pending_path()
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0)
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
            os.write(fd, line)
            return held.st_size + len(line)
        finally:
            os.close(fd)


def _start_recorder() -> None:
    """A detached ``python -m agentout.ledger.book`` that counts the pending deliveries."""
    import subprocess

    try:
        subprocess.Popen(
            [sys.executable, "-m", "agentout.ledger.book"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
    except OSError as exc:
        with contextlib.suppress(OSError):
            sys.stderr.write(f"agentout: ledger: {exc}\n")


def count_pending() -> int:
    """Count and record every pending delivery (see the module docstring); how many.

    The pending file is renamed first, so writers start a new one, and read once the
    writers that opened it before are done (they hold its lock while they write). A file
    left by a recorder that died is counted by the next one."""
    import fcntl
    import json

    path = pending_path()
    taken = path.with_name(f"{_PENDING}.{os.getpid()}.{time.time_ns()}")
    with contextlib.suppress(FileNotFoundError):
        os.rename(path, taken)
    done = 0
    for each in sorted(path.parent.glob(f"{_PENDING}.*")):
        try:
            fd = os.open(each, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        except OSError:
            continue
        try:
            try:  # ours: wait for late writers; another recorder's: leave it to that one
                fcntl.flock(fd, fcntl.LOCK_EX if each == taken else fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                continue
            with os.fdopen(os.dup(fd), "rb") as stream:
                lines = stream.read().splitlines()
            for line in lines:
                try:
                    _record_payload(json.loads(line.decode("utf-8", "surrogatepass")))
                except (ValueError, KeyError, TypeError, AttributeError):
                    continue  # a line cut short by a full disk, or not ours: not counted
                done += 1
            os.unlink(each)
        finally:
            os.close(fd)
    return done


def _record_payload(payload: dict[str, Any]) -> None:
    from agentout.tokens import get_tokenizer

    counter = get_tokenizer(payload.get("tokenizer"))
    delivered = counter.count(payload["delivered"])
    source: bytes | str | Path | None = payload.get("raw")
    if payload.get("raw_same"):
        source = payload["delivered"]
    if payload.get("raw_path"):
        source = Path(payload["raw_path"])
    raw_tokens, exact = count_raw(source, counter) if source is not None else (None, True)
    raw_bytes = payload.get("raw_bytes")
    if raw_tokens is None and isinstance(raw_bytes, int) and raw_bytes >= 0:
        # The stored file is gone (cleaned past its retention): its size, at the delivered
        # output's tokens per byte.
        per_byte = delivered / max(len(payload["delivered"].encode("utf-8", "replace")), 1)
        raw_tokens, exact = round(raw_bytes * per_byte), False
    record(
        tool=payload["tool"],
        command=payload["command"],
        delivered_tokens=delivered,
        raw_tokens=raw_tokens,
        raw_exact=exact,
        duration=payload.get("duration"),
        exit_status=payload.get("exit_status"),
        secrets=int(payload.get("secrets") or 0),
        project=payload.get("project"),
        when=payload.get("time"),
    )


if __name__ == "__main__":  # the detached recorder of ``record_later``
    count_pending()
