"""The savings ledger as data: JSONL or Parquet files any engine can load.

``agentout gain --export FILE`` writes the ledger's rows (``agentout.ledger.book``) to FILE,
JSONL or Parquet by its extension (Parquet needs ``agentout[parquet]``); FILE may be a
URL of an object store (``s3://…``), written through fsspec like the spill store. With
``AGENTOUT_LEDGER_EXPORT=DIR-or-URL``, each process also writes the rows it recorded as
one new JSONL object there when it exits (object stores do not append: one object per
session), so a team's machines fill one prefix that DuckDB, BigQuery or ClickHouse
reads whole. Counts and names only, never a byte of anyone's output.

The columns, in this order, are the stable schema (``SCHEMA_VERSION`` 2; a later
version only adds columns at the end: version 2 added ``agent``, ``shown_tokens`` and
``shown_saved_tokens``): see docs/ledger-export.md.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import re
import secrets
import socket
import sys
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, Any

from agentout.errors import InputError
from agentout.ledger.row import Row
from agentout.process import python_module

__all__ = [
    "COLUMNS",
    "ENV_EXPORT",
    "SCHEMA_VERSION",
    "export",
    "queue",
    "read_export",
    "repository",
    "to_record",
]

ENV_EXPORT = "AGENTOUT_LEDGER_EXPORT"
SCHEMA_VERSION = 2
# name -> Arrow type name (the JSONL has the same names and JSON's types; null = unknown)
COLUMNS: dict[str, str] = {
    "schema_version": "int32",
    "time": "float64",  # seconds since the epoch, UTC
    "machine": "string",  # host name
    "project": "string",  # the directory the delivery was made in
    "repository": "string",  # owner/name of its git remote "origin", else its top folder
    "tool": "string",  # run, hook, test, fit, records, notes, show, mcp
    "command": "string",  # the command line (200 characters at most)
    "raw_tokens": "int64",
    "delivered_tokens": "int64",
    "saved_tokens": "int64",  # raw_tokens - delivered_tokens
    "raw_exact": "bool",  # false: raw_tokens extrapolated from the first 4 MiB
    "facts_kept": "int64",
    "facts_total": "int64",
    "duration": "float64",  # seconds
    "exit_status": "int64",
    "secrets": "int64",  # secrets kept out of what was shown
    # version 2
    "agent": "string",  # whose client the output was for: claude, gemini, ... ("" none known)
    "shown_tokens": "int64",  # what that client would have shown the model of the raw output
    "shown_saved_tokens": "int64",  # shown_tokens - delivered_tokens
}
_FLUSH_ROWS = 100
_NAME = re.compile(r"[^A-Za-z0-9._-]+")


def to_record(row: Row, machine: str | None = None) -> dict[str, Any]:
    """One ledger row as the export's columns."""
    saved = None if row.raw_tokens is None else row.raw_tokens - row.delivered_tokens
    return {
        "schema_version": SCHEMA_VERSION,
        "time": row.time,
        "machine": machine if machine is not None else socket.gethostname(),
        "project": row.project,
        "repository": repository(row.project),
        "tool": row.tool,
        "command": row.command,
        "raw_tokens": row.raw_tokens,
        "delivered_tokens": row.delivered_tokens,
        "saved_tokens": saved,
        "raw_exact": row.raw_exact,
        "facts_kept": row.facts_kept,
        "facts_total": row.facts_total,
        "duration": row.duration,
        "exit_status": row.exit_status,
        "secrets": row.secrets,
        "agent": row.agent,
        "shown_tokens": row.baseline,
        "shown_saved_tokens": None if row.baseline is None else row.shown_saved,
    }


_repositories: dict[str, str] = {}
_ORIGIN = re.compile(r'^\[remote "origin"\]\s*$(.*?)(?=^\[|\Z)', re.M | re.S)
_URL = re.compile(r"^\s*url\s*=\s*(\S+)\s*$", re.M)


def repository(project: str) -> str:
    """``owner/name`` from the git remote ``origin`` of the repository holding
    ``project``, else the name of its top folder, else of ``project`` itself: the same
    on every machine that cloned it, wherever it was cloned."""
    if project in _repositories:
        return _repositories[project]
    found = Path(project).name or project
    for folder in (Path(project), *Path(project).parents):
        marker = folder / ".git"
        if not marker.exists():
            continue
        found = folder.name
        url = _origin(marker)
        if url:
            tail = re.split(r"[:/]", url.rstrip("/").removesuffix(".git"))
            found = "/".join(part for part in tail[-2:] if part) or found
        break
    _repositories[project] = found
    return found


def _origin(marker: Path) -> str | None:
    """The url of remote "origin" in a repository's config (a worktree's too)."""
    try:
        common = marker
        if marker.is_file():  # a worktree: "gitdir: /repo/.git/worktrees/NAME"
            text = marker.read_text(encoding="utf-8").strip()
            common = Path(text.removeprefix("gitdir:").strip())
            if (common / "commondir").is_file():
                common = common / (common / "commondir").read_text(encoding="utf-8").strip()
        config = (common / "config").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    section = _ORIGIN.search(config)
    url = _URL.search(section.group(1)) if section else None
    return url.group(1) if url else None


# -- writing and reading files ------------------------------------------------------------


def _kind(target: str) -> str:
    name = target.lower()
    for ending, kind in ((".jsonl", "jsonl"), (".ndjson", "jsonl"), (".parquet", "parquet")):
        if name.endswith(ending):
            return kind
    raise InputError("expected a file name ending in .jsonl or .parquet", target)


@contextlib.contextmanager
def _open(target: str, mode: str) -> Iterator[IO[bytes]]:
    """A local file, or an object through fsspec (written whole when closed)."""
    if "://" in target and not target.startswith("file://"):
        try:
            import fsspec
        except ImportError:
            from agentout.errors import install_hint

            raise InputError(f"a URL needs fsspec: {install_hint('s3')}", target) from None
        with fsspec.open(target, mode) as handle:
            yield handle
        return
    path = Path(target.removeprefix("file://"))
    with path.open(mode) as handle:
        yield handle


def export(rows: Iterable[Row], target: str, *, machine: str | None = None) -> int:
    """Write ``rows`` to ``target`` (a path or URL, .jsonl or .parquet); how many."""
    kind = _kind(target)
    records = [to_record(row, machine) for row in rows]
    try:
        if kind == "jsonl":
            with _open(target, "wb") as out:
                for record in records:
                    out.write(_line(record))
        else:
            _write_parquet(records, target)
    except OSError as exc:
        raise InputError(f"cannot write ({exc.strerror or exc})", target) from None
    return len(records)


def _line(record: dict[str, Any]) -> bytes:
    return (json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n").encode()


def _write_parquet(records: list[dict[str, Any]], target: str) -> None:
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        from agentout.errors import install_hint

        raise InputError(f"Parquet needs pyarrow: {install_hint('parquet')}", target) from None
    schema = pa.schema([(name, pa.type_for_alias(kind)) for name, kind in COLUMNS.items()])
    columns = {name: [r[name] for r in records] for name in COLUMNS}
    table = pa.Table.from_pydict(columns, schema=schema)
    with _open(target, "wb") as out:
        pq.write_table(table, out)


def read_export(target: str) -> list[dict[str, Any]]:
    """The rows of an export, as written (the round trip's other half)."""
    if _kind(target) == "jsonl":
        with _open(target, "rb") as handle:
            return [json.loads(line) for line in handle if line.strip()]
    import pyarrow.parquet as pq

    with _open(target, "rb") as handle:
        rows: list[dict[str, Any]] = pq.read_table(handle).to_pylist()
    return rows


# -- AGENTOUT_LEDGER_EXPORT: each session's rows, one new object ----------------------------

_pending: list[dict[str, Any]] = []
_registered = False


def queue(row: Row) -> None:
    """Keep ``row`` for this session's object (written at exit, or every 100 rows)."""
    global _registered
    if not os.environ.get(ENV_EXPORT, "").strip():
        return
    _pending.append(to_record(row))
    if not _registered:
        _registered = True
        atexit.register(flush)
    if len(_pending) >= _FLUSH_ROWS:
        flush()


def flush() -> None:
    """Write the rows kept so far as one new JSONL object; never raises. An object store
    is written by a detached ``python -m agentout.ledger.export`` (its client is not
    loaded in the process that delivered, nor at its exit), a directory here."""
    where = os.environ.get(ENV_EXPORT, "").strip()
    if not _pending or not where:
        return
    rows, _pending[:] = list(_pending), []
    if "://" not in where or where.startswith("file://"):
        _write_session(where, rows)
        return
    import subprocess

    try:
        child = subprocess.Popen(
            [*python_module("agentout.ledger.export"), where],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            start_new_session=True,
        )
        assert child.stdin is not None
        child.stdin.write(b"".join(_line(r) for r in rows))
        child.stdin.close()
    except (OSError, ValueError) as exc:
        _complain(where, exc)


def _write_session(where: str, rows: list[dict[str, Any]]) -> None:
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    host = _NAME.sub("-", socket.gethostname())[:64] or "host"
    target = f"{where.rstrip('/')}/ledger-{stamp}-{host}-{secrets.token_hex(4)}.jsonl"
    try:
        if "://" not in where or where.startswith("file://"):
            Path(where.removeprefix("file://")).mkdir(parents=True, exist_ok=True)
        with _open(target, "wb") as out:
            out.write(b"".join(_line(r) for r in rows))
    except Exception as exc:
        _complain(target, exc)


def _complain(target: str, exc: BaseException) -> None:
    with contextlib.suppress(OSError):
        sys.stderr.write(f"agentout: ledger export: {target}: {exc}; rows not exported\n")


if __name__ == "__main__":  # the detached writer of ``flush``
    _write_session(sys.argv[1], [json.loads(line) for line in sys.stdin.buffer if line.strip()])
