"""The ledger never loses a row: many writers while the database is locked for seconds at
random moments, a corrupt database swapped in, malformed pending lines, and ``gain``
still sums exactly what was delivered, with no traceback anywhere.

Sized for CI (8 writers, 2 s locks); ``AGENTOUT_STRESS_LEDGER=1`` runs the issue's
size: 20 writers x 200 deliveries, 5 s locks.
"""

from __future__ import annotations

import json
import os
import random
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

from agentout.tokens import count

FULL = os.environ.get("AGENTOUT_STRESS_LEDGER", "") not in ("", "0")
WRITERS = 20 if FULL else 8
PER_PHASE = 100 if FULL else 25  # deliveries of each writer in each of the two phases
LOCK_SECONDS = 5.0 if FULL else 2.0

WRITER = """
import sys
from agentout.ledger import book as ledger

writer, phase, count = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
for i in range(count):
    command = f"w{writer} p{phase} {i}"
    if writer % 2:  # counted here: written to the database at once, or waiting if busy
        ledger.record(tool="run", command=command, delivered_tokens=writer * 1000 + i)
    else:  # counted later, by whoever folds the pending file
        ledger.record_later(tool="run", command=command, delivered=TEXT(writer, phase, i))
"""


def _text(writer: int, phase: int, i: int) -> str:
    return f"writer {writer} phase {phase} delivery {i}\n" + "lorem ipsum " * (
        (writer * 37 + i * 11) % 400
    )


def _expected(phase: int) -> int:
    total = 0
    for writer in range(WRITERS):
        for i in range(PER_PHASE):
            total += writer * 1000 + i if writer % 2 else count(_text(writer, phase, i))
    return total


class Locker:
    """Holds the database's write lock for ``LOCK_SECONDS`` at random moments."""

    def __init__(self, db: Path) -> None:
        self.db, self.stop, self.locks = db, threading.Event(), 0
        self.thread = threading.Thread(target=self._loop, daemon=True)

    def _loop(self) -> None:
        chance = random.Random(28)
        # the first lock as soon as the database is there (writers on a fast machine may
        # be done within a second), the others at random moments
        while not self.stop.wait(chance.uniform(0.3, 1.5) if self.locks else 0.02):
            try:
                holder = sqlite3.connect(self.db, timeout=10, isolation_level=None)
                try:
                    holder.execute("BEGIN EXCLUSIVE")
                    self.locks += 1
                    self.stop.wait(LOCK_SECONDS)
                    holder.execute("COMMIT")
                finally:
                    holder.close()
            except sqlite3.Error:
                continue  # not a database (yet, or just now): try again later

    def __enter__(self) -> Locker:
        self.thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.stop.set()
        self.thread.join()


def _writers(phase: int, env: dict[str, str]) -> list[str]:
    code = WRITER.replace("TEXT(", "text(").replace(
        "from agentout.ledger import book as ledger",
        "from agentout.ledger import book as ledger\n"
        "def text(writer, phase, i):\n"
        "    return f'writer {writer} phase {phase} delivery {i}\\n' + 'lorem ipsum ' * "
        "((writer * 37 + i * 11) % 400)",
    )
    children = [
        subprocess.Popen(
            [sys.executable, "-c", code, str(w), str(phase), str(PER_PHASE)],
            env=env,
            stderr=subprocess.PIPE,
            text=True,
        )
        for w in range(WRITERS)
    ]
    errors = []
    for child in children:
        _, err = child.communicate(timeout=600)
        assert child.returncode == 0, err
        errors.append(err)
    return errors


def _gain(env: dict[str, str]) -> tuple[int, int, str]:
    done = subprocess.run(
        [sys.executable, "-m", "agentout", "gain", "--format", "json"],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    total = json.loads(done.stdout)["total"]
    return total["delivered_tokens"], total["deliveries"], done.stderr


def test_no_row_is_lost_to_locks_corruption_or_bad_lines(tmp_path: Path) -> None:
    db = tmp_path / "data" / "ledger.sqlite3"
    env = {k: v for k, v in os.environ.items() if not k.startswith("AGENTOUT_LEDGER")}
    env.update(AGENTOUT_LEDGER_DB=str(db), HOME=str(tmp_path))

    with Locker(db) as locker:
        errors = _writers(1, env)
    assert locker.locks >= 1
    assert not any("Traceback" in err for err in errors)
    delivered, deliveries, _ = _gain(env)
    assert (delivered, deliveries) == (_expected(1), WRITERS * PER_PHASE)

    # A corrupt database swapped in, and malformed lines among the pending ones.
    db.with_name("swapped").write_bytes(os.urandom(64 << 10))
    os.replace(db.with_name("swapped"), db)
    bad = [
        b'{"tool": "run", "command": "x", "time": "yesterday", "delivered": "x"}',
        b'{"tool": "run", "command": "x", "time": 1e300, "delivered": "x"}',
        b'{"tool": "run", "command": "x", "time": -5, "delivered": "x"}',
        b'{"tool": 7, "command": "x", "time": 1700000000, "delivered": "x"}',
        b'{"tool": "run", "command": "x", "time": 1700000000, "delivered": 12}',
        b'{"row": {"tool": "run", "delivered_tokens": -3, "time": 1700000000}}',
        b'{"tool": "run", "command": "x", "time": 1700000000, "delivered": "x", "secrets": "many"}',
        b"[1, 2, 3]",
        b"not json at all",
        b'{"tool": "run", "comm',
    ]
    with (db.parent / "ledger-pending.jsonl").open("ab") as pending:
        pending.write(b"\n".join(bad) + b"\n")
    with Locker(db) as locker:
        errors = _writers(2, env)
    assert not any("Traceback" in err for err in errors)
    moved = [line for err in errors for line in err.splitlines() if "is corrupt" in line]
    assert len(moved) == 1, moved  # moved aside once, by whoever found it first
    delivered, deliveries, said = _gain(env)
    assert (delivered, deliveries) == (_expected(2), WRITERS * PER_PHASE)
    assert "10 pending lines that are not deliveries were dropped" in said + "".join(errors)
    aside = [p.name for p in db.parent.glob("ledger.sqlite3.corrupt-*")]
    assert len([name for name in aside if not name.endswith(("-wal", "-shm"))]) == 1, aside
