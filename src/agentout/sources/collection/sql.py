"""``--sql``: a DuckDB query over JSON and JSONL files, for files too large to stream fast.

The files are one view named ``records`` (DuckDB's ``read_json_auto``: JSON arrays or
newline-delimited JSON, columns inferred); the query's rows come back as JSON text
(``to_json``), a batch at a time, so every value is plain JSON and memory stays bounded
by DuckDB's own limits. The SQL runs with the user's rights, as the ``duckdb`` command
would: it can read any file the user can. DuckDB is an optional extra:
``pip install 'agentout[sql]'``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator
from typing import Any

from agentout.errors import InputError
from agentout.sources.collection.load import Item, LoadReport, expand

__all__ = ["sql_items"]

_KINDS = frozenset({"json", "jsonl"})
_BATCH = 2048


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def sql_items(
    paths: Iterable[str | os.PathLike[str]], sql: str, report: LoadReport
) -> Iterator[Item]:
    """The rows of ``sql`` over the JSON/JSONL files under ``paths``, in the query's order."""
    try:
        import duckdb
    except ImportError:
        from agentout.errors import install_hint

        raise ValueError(f"--sql needs DuckDB: {install_hint('sql')}") from None

    files: list[str] = []
    for path in paths:
        for name, kind in expand(os.fspath(path), report):
            if kind in _KINDS:
                files.append(name)
            else:
                report.skip(InputError("--sql reads JSON and JSONL files only", name))
    if not files:
        return
    connection = duckdb.connect(":memory:")
    try:
        listed = ", ".join(_literal(f) for f in files)
        # Text stays text: a format no date can match keeps DuckDB from re-spelling dates.
        connection.execute(
            f"CREATE VIEW records AS SELECT * FROM read_json_auto([{listed}], "
            "dateformat='%%', timestampformat='%%')"
        )
        cursor = connection.execute(f"SELECT to_json(q) FROM ({sql.rstrip().rstrip(';')}) AS q")
        report.files += len(files)
        number = 0
        while rows := cursor.fetchmany(_BATCH):
            for (text,) in rows:
                number += 1
                value: Any = json.loads(text)
                record = value if isinstance(value, dict) else {"value": value}
                yield Item(record, f"sql:{number}", text.encode("utf-8"))
    except duckdb.Error as exc:
        raise InputError(f"--sql: {' '.join(str(exc).split())}") from None
    finally:
        connection.close()
