"""Faults for the ledger examples of docs/cli/gain.md, made on a ledger database DB:

    python3 examples/docs/ledger_faults.py lock DB SECONDS   # another process holds it
    python3 examples/docs/ledger_faults.py bad-line DB       # a pending line with a bad time
    python3 examples/docs/ledger_faults.py corrupt DB        # the database overwritten with text

``lock`` returns once the lock is held; a child process keeps it for SECONDS.
"""

from __future__ import annotations

import json
import os
import sqlite3
import sys
import time
from pathlib import Path


def lock(db: Path, seconds: float) -> None:
    db.parent.mkdir(parents=True, exist_ok=True)
    ready, told = os.pipe()
    if os.fork() == 0:  # the holder, on no terminal: whoever waits for the output goes on
        os.close(ready)
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        connection = sqlite3.connect(db, isolation_level=None)
        connection.execute("BEGIN EXCLUSIVE")
        os.write(told, b"1")
        os.close(told)
        time.sleep(seconds)
        os._exit(0)
    os.close(told)
    os.read(ready, 1)  # returns once the holder has the lock


def bad_line(db: Path) -> None:
    pending = db.parent / "ledger-pending.jsonl"
    last = json.loads(pending.read_text(encoding="utf-8").splitlines()[-1])
    with pending.open("a", encoding="utf-8") as out:
        out.write(json.dumps({"row": {**last["row"], "time": "yesterday"}}) + "\n")


def corrupt(db: Path) -> None:
    db.write_text("this is not a database\n" * 100, encoding="utf-8")


if __name__ == "__main__":
    action, path = sys.argv[1], Path(sys.argv[2])
    if action == "lock":
        lock(path, float(sys.argv[3]))
    elif action == "bad-line":
        bad_line(path)
    else:
        corrupt(path)
