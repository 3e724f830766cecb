"""The ledger's database: one SQLite file, a row per delivery, written in transactions.

``ledger.sqlite3`` in agentout's private data directory (0700; the file 0600), or
``$AGENTOUT_LEDGER_DB``; WAL journal and a busy timeout of ``BUSY_SECONDS``, so many
agents write at once and readers never wait for writers.

- ``insert`` stores rows in one transaction: all of them or none. Given a batch name (a
  pending file being counted), it stores the batch once: the name is stored in the same
  transaction, and a batch stored before is not stored again (a counter that died
  between its commit and removing its file leaves nothing counted twice).
- A database still locked after the busy timeout raises ``Busy``: the caller keeps its
  rows for later (``agentout.ledger.pending``), they are never dropped.
- A corrupt database (not a database at all, or a malformed image) is moved aside, with
  its journal, as ``ledger.sqlite3.corrupt-TIME``, with one line saying so, and a fresh
  one started; what it held cannot be read any more, the rows written since are kept.
- ``read`` gives the rows back, each checked as it was when stored (``row.checked``); a
  row that is not a delivery (written by an older version: a time of "yesterday") is
  left out with one line, never a traceback.
- A database an earlier version made lacks the columns added since (``agent``,
  ``shown_tokens``): the first write adds them (``ALTER TABLE``), and until then it is
  read as if it had them, its rows with no agent and no client's count.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from agentout.errors import AgentoutError
from agentout.ledger.news import note
from agentout.ledger.row import COLUMNS, Row, checked

if TYPE_CHECKING:  # record_later runs in every agentout run: no sqlite3 nor pathlib there
    import sqlite3
    from pathlib import Path

__all__ = ["BUSY_SECONDS", "ENV_DB", "Busy", "database_path", "insert", "read"]

ENV_DB = "AGENTOUT_LEDGER_DB"
BUSY_SECONDS = 2.0
_FOLDED_DAYS = 30  # batch names kept this long: a counter that died is found well before
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
    raw_exact INTEGER NOT NULL DEFAULT 1,
    agent TEXT NOT NULL DEFAULT '',
    shown_tokens INTEGER
);
CREATE INDEX IF NOT EXISTS deliveries_time ON deliveries (time);
CREATE TABLE IF NOT EXISTS folded (batch TEXT PRIMARY KEY, time REAL NOT NULL);
"""
# Columns added since the first version, each with what the rows before it hold: a
# database of an earlier version gets them when it is next written to (``_migrate``), and
# is read meanwhile as if it had them.
_ADDED = (("agent", "TEXT NOT NULL DEFAULT ''", "''"), ("shown_tokens", "INTEGER", "NULL"))
_SQLITE_BUSY, _SQLITE_LOCKED, _SQLITE_CORRUPT, _SQLITE_NOTADB = 5, 6, 11, 26


class Busy(AgentoutError):
    """The database stayed locked by another process past the busy timeout."""


def database_path() -> Path:
    from pathlib import Path

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
    connection = sqlite3.connect(uri, uri=True, timeout=BUSY_SECONDS, isolation_level=None)
    try:
        connection.execute(f"PRAGMA busy_timeout={int(BUSY_SECONDS * 1000)}")
        if create:
            if connection.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
                connection.execute("PRAGMA journal_mode=WAL")
            connection.executescript(_SCHEMA)
            _migrate(connection)
    except BaseException:
        connection.close()
        raise
    return connection


def _columns(connection: sqlite3.Connection) -> set[str]:
    return {row[1] for row in connection.execute("PRAGMA table_info(deliveries)")}


def _migrate(connection: sqlite3.Connection) -> None:
    """Add the columns an earlier version's table lacks (``_ADDED``); its rows keep what
    they held and read as rows of no known agent with no client's count. Two writers
    migrating at once: the second finds the column there."""
    import sqlite3

    for name, declared, _ in _ADDED:
        if name in _columns(connection):
            continue
        try:
            connection.execute(f"ALTER TABLE deliveries ADD COLUMN {name} {declared}")
        except sqlite3.OperationalError as exc:
            if "duplicate column" not in str(exc):
                raise


def insert(rows: Sequence[Row], *, batch: str | None = None, path: Path | None = None) -> bool:
    """Store ``rows`` in one transaction; False if ``batch`` was stored before (then
    nothing is stored again). ``Busy`` if the database stays locked; a corrupt database
    is moved aside and the rows stored in a fresh one. Other failures (a read-only
    directory, a full disk) raise ``sqlite3.Error`` or ``OSError``: nothing was stored."""
    path = database_path() if path is None else path
    for attempt in (1, 2):
        seen = _identity(path)
        try:
            return _insert(path, rows, batch)
        except Exception as exc:
            if _busy(exc):
                raise Busy(f"{path} is busy (locked past {BUSY_SECONDS:g} s)") from None
            if not _corrupt(exc) or attempt == 2:
                raise
            _move_aside(path, exc, seen)
    raise AssertionError("unreachable")


def _insert(path: Path, rows: Sequence[Row], batch: str | None) -> bool:
    connection = _connect(path, create=True)
    try:
        connection.execute("BEGIN IMMEDIATE")  # the write lock now, or Busy
        try:
            if batch is not None:
                found = connection.execute("SELECT 1 FROM folded WHERE batch = ?", (batch,))
                if found.fetchone() is not None:
                    connection.execute("ROLLBACK")
                    return False
                now = time.time()
                connection.execute("INSERT INTO folded (batch, time) VALUES (?, ?)", (batch, now))
                old = now - _FOLDED_DAYS * 86400
                connection.execute("DELETE FROM folded WHERE time < ?", (old,))
            marks = ", ".join("?" * len(COLUMNS))
            connection.executemany(
                f"INSERT INTO deliveries ({', '.join(COLUMNS)}) VALUES ({marks})",
                [_values(row) for row in rows],
            )
            connection.execute("COMMIT")
        except BaseException:
            with contextlib.suppress(Exception):
                connection.execute("ROLLBACK")
            raise
    finally:
        connection.close()
    return True


def _values(row: Row) -> tuple[Any, ...]:
    values = [getattr(row, name) for name in COLUMNS]
    values[COLUMNS.index("raw_exact")] = int(row.raw_exact)
    return tuple(values)


def read(path: Path, since: float | None = None) -> Iterator[Row]:
    """Every row, oldest first (nothing if there is no ledger yet); rows that are not
    deliveries are left out with one line. A corrupt database is moved aside (nothing
    to read); any other failure is an ``AgentoutError`` naming the file."""
    seen = _identity(path)
    try:
        found = list(_read(path, since))
    except FileNotFoundError:
        return
    except Exception as exc:
        if _corrupt(exc):
            _move_aside(path, exc, seen)
            return
        raise AgentoutError(f"ledger: {path}: {_said(exc)}") from None
    bad = [reason for reason in found if isinstance(reason, str)]
    if bad:
        what = (
            "a row that is not a delivery"
            if len(bad) == 1
            else f"{len(bad)} rows that are not deliveries"
        )
        note(f"{path}: {what} left out (the first: {bad[0]})")
    yield from (row for row in found if isinstance(row, Row))


def _read(path: Path, since: float | None) -> Iterator[Row | str]:
    connection = _connect(path, create=False)
    try:
        # A writer creates the file, then its table: read between the two, no rows yet.
        found = "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'deliveries'"
        if connection.execute(found).fetchone() is None:
            return
        have = _columns(connection)  # an earlier version's table: its rows as they were
        missing = {name: value for name, _, value in _ADDED if name not in have}
        selected = ", ".join(f"{missing[name]} AS {name}" if name in missing else name
                             for name in COLUMNS)  # fmt: skip
        query = f"SELECT id, {selected} FROM deliveries"
        args: tuple[Any, ...] = ()
        if since is not None:
            query, args = query + " WHERE time >= ?", (since,)
        for ident, *values in connection.execute(query + " ORDER BY time, id", args):
            try:
                yield checked(dict(zip(COLUMNS, values, strict=True)))
            except ValueError as exc:
                yield f"id {ident}: {exc}"
    finally:
        connection.close()


def _code(exc: BaseException) -> int | None:
    code = getattr(exc, "sqlite_errorcode", None)  # Python 3.11 and later
    return code & 0xFF if isinstance(code, int) else None


def _busy(exc: BaseException) -> bool:
    import sqlite3

    if not isinstance(exc, sqlite3.OperationalError):
        return False
    code = _code(exc)
    if code is not None:
        return code in (_SQLITE_BUSY, _SQLITE_LOCKED)
    return "locked" in str(exc) or "busy" in str(exc)


def _corrupt(exc: BaseException) -> bool:
    import sqlite3

    if not isinstance(exc, sqlite3.DatabaseError):
        return False
    code = _code(exc)
    if code is not None:
        return code in (_SQLITE_CORRUPT, _SQLITE_NOTADB)
    text = str(exc)
    return type(exc) is sqlite3.DatabaseError and ("not a database" in text or "malformed" in text)


def _identity(path: Path) -> tuple[int, int] | None:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return info.st_dev, info.st_ino


def _move_aside(path: Path, exc: BaseException, seen: tuple[int, int] | None) -> None:
    """Move the corrupt database (the file found corrupt: ``seen``) and its journal aside,
    once, under a lock: another process that found it corrupt too finds it gone."""
    import fcntl

    flags = os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0)
    lock = os.open(path.with_name(path.name + ".lock"), flags, 0o600)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if seen is None or _identity(path) != seen:
            return  # moved aside, or replaced, since: nothing of ours to move
        stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
        aside = path.with_name(f"{path.name}.corrupt-{stamp}-{os.getpid()}")
        os.rename(path, aside)
        for journal in ("-wal", "-shm"):  # never replayed into the fresh database
            with contextlib.suppress(FileNotFoundError):
                os.rename(f"{path}{journal}", f"{aside}{journal}")
        note(
            f"{path} is corrupt ({_said(exc)}); moved it aside to {aside}; a fresh one "
            "takes the rows from now on"
        )
    finally:
        os.close(lock)


def _said(exc: BaseException) -> str:
    return str(exc).strip() or type(exc).__name__
