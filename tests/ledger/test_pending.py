"""Deliveries counted later: appended to a private pending file, counted in one go when
the ledger is read or the file grows, none lost or counted twice under many writers."""

from __future__ import annotations

import json
import os
import sqlite3
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from agentout.ledger import book as ledger
from agentout.tokens import count

WRITER = """
import sys
from agentout.ledger import book as ledger
for i in range(int(sys.argv[2])):
    ledger.record_later(tool="run", command=f"{sys.argv[1]} {i}", delivered=f"line {i}\\n")
"""
DELIVER = """
import json, sys
from agentout.ledger import book as ledger
for delivery in json.loads(sys.argv[1]):
    ledger.record_later(tool="run", **delivery)
"""


@pytest.fixture
def db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "private" / "ledger.sqlite3"
    monkeypatch.setenv(ledger.ENV_DB, str(path))
    monkeypatch.delenv(ledger.ENV, raising=False)
    monkeypatch.delenv(ledger.ENV_SYNC, raising=False)
    return path


def _deliver(db: Path, *deliveries: dict[str, str]) -> None:
    """record_later in a process of its own, as ``agentout run`` calls it: no tokenizer
    loaded there, so the deliveries wait in the pending file."""
    env = {**os.environ, ledger.ENV_DB: str(db)}
    env.pop(ledger.ENV_SYNC, None)
    argv = [sys.executable, "-c", DELIVER, json.dumps(list(deliveries))]
    subprocess.run(argv, env=env, check=True, timeout=60)


def _in_database(path: Path) -> list[ledger.Row]:
    return list(ledger.rows(path))  # a path given: read as it is, nothing counted first


def test_pending_until_read_then_counted_once(db: Path) -> None:
    before = time.time()
    _deliver(db, {"command": "seq 3", "delivered": "1\n2\n3\n", "raw": "1\n2\n3\n"})
    pending = ledger.pending_path()
    assert pending.exists()
    assert stat.S_IMODE(pending.stat().st_mode) == 0o600
    assert not db.exists()
    (row,) = ledger.rows()
    assert row.command == "seq 3"
    assert row.delivered_tokens == row.raw_tokens == count("1\n2\n3\n")
    assert before <= row.time <= time.time()  # when it was delivered, not when counted
    assert not pending.exists()
    assert len(list(ledger.rows())) == 1


def test_raw_other_than_delivered_is_counted_apart(db: Path) -> None:
    raw = "warning: unused\n" * 50
    _deliver(db, {"command": "make", "delivered": "warning: unused (x50)\n", "raw": raw})
    (row,) = ledger.rows()
    assert (row.raw_tokens, row.delivered_tokens) == (count(raw), count("warning: unused (x50)\n"))


def test_a_broken_line_costs_only_itself(db: Path) -> None:
    _deliver(db, {"command": "a", "delivered": "a\n"})
    with ledger.pending_path().open("ab") as stream:
        stream.write(b'{"tool": "run", "command": "cut sho\n\xff\xfe not json\n{"no": "keys"}\n')
    _deliver(db, {"command": "b", "delivered": "b\n"})
    assert [row.command for row in ledger.rows()] == ["a", "b"]


def test_many_writers_while_counting_lose_nothing(db: Path, tmp_path: Path) -> None:
    env = {**os.environ, ledger.ENV_DB: str(db)}
    env.pop(ledger.ENV_SYNC, None)
    writers = [
        subprocess.Popen([sys.executable, "-c", WRITER, f"w{n}", "40"], env=env) for n in range(4)
    ]
    counted = 0
    while any(w.poll() is None for w in writers):
        counted += ledger.count_pending()  # renames the file under the writers' feet
    assert all(w.wait(timeout=120) == 0 for w in writers)
    counted += ledger.count_pending()
    rows = _in_database(db)
    assert counted == len(rows) == 160
    wanted = sorted(f"w{n} {i}" for n in range(4) for i in range(40))
    assert sorted(r.command for r in rows) == wanted


def test_a_large_pending_file_is_counted_by_a_detached_recorder(db: Path) -> None:
    env = {**os.environ, ledger.ENV_DB: str(db)}
    env.pop(ledger.ENV_SYNC, None)
    code = WRITER.replace("as ledger\n", "as ledger\nledger.PENDING_BYTES = 1\n")
    subprocess.run([sys.executable, "-c", code, "big", "1"], env=env, check=True, timeout=60)
    deadline = time.monotonic() + 60
    while ledger.pending_path().exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    deadline = time.monotonic() + 60
    while not (db.exists() and _in_database(db)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert [row.command for row in _in_database(db)] == ["big 0"]


def test_off_writes_nothing(db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ledger.ENV, "0")
    ledger.record_later(tool="run", command="x", delivered="x\n")
    _deliver(db, {"command": "y", "delivered": "y\n"})  # its environment says off too
    assert not ledger.pending_path().exists()
    assert not db.exists()


def test_a_stored_raw_output_starts_no_counting_process(
    db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # An agent runs hundreds of commands: each whose output was stored started a Python
    # process that loaded a tokenizer. The stored file is counted with the rest, later.
    started: list[int] = []
    monkeypatch.setattr("agentout.ledger.pending.start_recorder", lambda: started.append(1))
    monkeypatch.setattr(ledger, "_CHEAP", -1)  # as in a run: not counted in this process
    stored = tmp_path / "run-0123456789abcdef.txt"
    stored.write_text("raw line\n" * 500)
    ledger.record_later(tool="run", command="seq", delivered="x\n", raw_path=str(stored))
    assert started == []
    (line,) = ledger.pending_path().read_text().splitlines()
    assert json.loads(line)["raw_bytes"] == stored.stat().st_size
    monkeypatch.setattr(ledger, "PENDING_BYTES", 1)
    ledger.record_later(tool="run", command="seq", delivered="x\n", raw_path=str(stored))
    assert started == [1]  # a pending file past its size is counted in the background


def test_a_stored_raw_output_is_counted_from_its_file_or_estimated_once_gone(
    db: Path, tmp_path: Path
) -> None:
    kept, gone = tmp_path / "run-00000000000000aa.txt", tmp_path / "run-00000000000000bb.txt"
    raw = "2025-03-03 08:01:22 ERROR [db] connection refused\n" * 200
    for path in (kept, gone):
        path.write_text(raw)
    delivered = "2025-03-03 08:01:22 ERROR [db] connection refused ×200\n"
    _deliver(
        db,
        {"command": "kept", "delivered": delivered, "raw_path": str(kept)},
        {"command": "gone", "delivered": delivered, "raw_path": str(gone)},
    )
    gone.unlink()  # cleaned past its retention before the ledger was read
    rows = {row.command: row for row in ledger.rows()}
    assert (rows["kept"].raw_tokens, rows["kept"].raw_exact) == (count(raw), True)
    per_byte = count(delivered) / len(delivered.encode())
    assert rows["gone"].raw_tokens == round(len(raw.encode()) * per_byte)
    assert rows["gone"].raw_exact is False


def test_clean_counts_what_is_pending_before_it_removes_the_stored_outputs(
    db: Path, tmp_path: Path
) -> None:
    env = {**os.environ, ledger.ENV_DB: str(db), "AGENTOUT_SPILL_DIR": str(tmp_path / "spill")}
    env.pop(ledger.ENV_SYNC, None)
    agentout = [sys.executable, "-m", "agentout"]
    lines = "".join(f"line {i} of the output\n" for i in range(20000))
    write = "import sys\nfor i in range(20000): sys.stdout.write(f'line {i} of the output\\n')"
    run = [*agentout, "run", "--", sys.executable, "-c", write]
    ran = subprocess.run(run, env=env, capture_output=True, timeout=120)
    assert ran.returncode == 0
    assert list((tmp_path / "spill").glob("run-*"))  # the raw output was stored
    assert ledger.pending_path().exists()
    cleaned = subprocess.run(
        [*agentout, "clean", "--older-than", "0"], env=env, capture_output=True, timeout=120
    )
    assert cleaned.returncode == 0, cleaned.stderr
    assert not list((tmp_path / "spill").glob("run-*"))
    (row,) = _in_database(db)
    assert row.raw_exact is True
    assert row.raw_tokens == count(lines)


def test_clean_goes_on_over_a_broken_pending_file(db: Path, tmp_path: Path) -> None:
    env = {**os.environ, ledger.ENV_DB: str(db), "AGENTOUT_SPILL_DIR": str(tmp_path / "spill")}
    env.pop(ledger.ENV_SYNC, None)
    db.parent.mkdir(mode=0o700)
    pending = ledger.pending_path()
    pending.write_bytes(b'{"tool": "run", "comm\n\x00\xff not json\n{"tool": 1}\n')
    pending.chmod(0o600)
    cleaned = subprocess.run(
        [sys.executable, "-m", "agentout", "clean", "--older-than", "0"],
        env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert cleaned.returncode == 0, cleaned.stderr
    assert "Traceback" not in cleaned.stderr
    assert cleaned.stdout.startswith("0 files, freed 0 bytes")
    assert _in_database(db) == []  # lines cut short or not ours: not counted


# -- faults: a busy database, a cut line, rows that are not deliveries, the recorder's log ----


def _hold(path: Path) -> sqlite3.Connection:
    """Another process's write lock on the database, until the connection is closed."""
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    return holder


def test_a_busy_database_keeps_the_pending_rows_for_the_next_count(
    db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The audit's case: folding while another process held the lock dropped every
    pending delivery (5 of 5) and still removed the file."""
    for i in range(5):
        _deliver(db, {"command": f"c{i}", "delivered": f"delivery {i}\n"})
    assert ledger.record(tool="run", command="first", delivered_tokens=1)  # the database
    holder = _hold(db)
    try:
        assert ledger.count_pending() == 0
    finally:
        holder.close()
    said = capsys.readouterr().err.splitlines()
    assert len(said) == 1
    assert said[0] == (
        f"agentout: ledger: {db} is busy (locked past 2 s); 5 deliveries wait for the next count"
    )
    assert [row.command for row in _in_database(db)] == ["first"]
    assert ledger.count_pending() == 5
    assert sorted(row.command for row in _in_database(db)) == [
        "c0",
        "c1",
        "c2",
        "c3",
        "c4",
        "first",
    ]
    assert not list(db.parent.glob("ledger-pending.jsonl*"))


def test_a_row_for_a_busy_database_waits_and_is_counted_once(
    db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert ledger.record(tool="run", command="before", delivered_tokens=1)
    holder = _hold(db)
    try:
        assert ledger.record(tool="run", command="during", delivered_tokens=7, raw_tokens=9)
    finally:
        holder.close()
    assert "this delivery waits in ledger-pending.jsonl" in capsys.readouterr().err
    rows = {row.command: row for row in ledger.rows()}
    assert set(rows) == {"before", "during"}
    assert (rows["during"].delivered_tokens, rows["during"].raw_tokens) == (7, 9)
    assert len(list(ledger.rows())) == 2


def test_a_file_already_stored_is_not_stored_twice(db: Path) -> None:
    """A counter that died between its commit and removing its file: the next one
    removes the file and stores nothing again."""
    from agentout.ledger import database

    _deliver(db, {"command": "once", "delivered": "x\n"})
    taken = ledger.pending_path().with_name("ledger-pending.jsonl.1.1")
    ledger.pending_path().rename(taken)
    (row,) = pending_rows(taken)
    assert database.insert([row], batch=taken.name)
    assert ledger.count_pending() == 0
    assert not taken.exists()
    assert [row.command for row in _in_database(db)] == ["once"]


def pending_rows(path: Path) -> list[ledger.Row]:
    from agentout.ledger.pending import _rows

    rows, bad = _rows(path.read_bytes().split(b"\n")[:-1], path.name)
    assert bad == []
    return rows


def test_lines_that_are_not_deliveries_are_dropped_and_named(
    db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = {"tool": "run", "command": "ok", "time": 1_700_000_000.0, "delivered": "x",
            "project": "/p"}  # fmt: skip
    bad = [
        {**good, "time": "yesterday"},
        {**good, "time": 1e300},
        {**good, "duration": -1},
        {**good, "exit_status": 1.5},
        {**good, "raw_bytes": "big"},
        {"row": {**good, "delivered_tokens": 2**60}},
    ]
    db.parent.mkdir(mode=0o700)
    with ledger.pending_path().open("w") as stream:
        for line in [good, *bad, good]:
            stream.write(json.dumps(line) + "\n")
    assert ledger.count_pending() == 2
    said = capsys.readouterr().err.splitlines()
    assert said == [
        "agentout: ledger: 6 pending lines that are not deliveries were dropped (the first: "
        f"{ledger.pending_path().name}.{os.getpid()}" + said[0].split(f"{os.getpid()}", 1)[1]
    ]
    assert ":2: time: expected seconds from 0 to 7258118400, got 'yesterday')" in said[0]
    assert [row.command for row in _in_database(db)] == ["ok", "ok"]


def test_a_cut_last_line_waits_and_never_joins_the_next(db: Path) -> None:
    """A write cut short (a full disk) leaves a line without its end: the count keeps it
    for later, and the next delivery starts a line of its own."""
    _deliver(db, {"command": "first", "delivered": "a\n"})
    with ledger.pending_path().open("ab") as stream:
        stream.write(b'{"tool": "run", "command": "cut", "del')
    assert ledger.count_pending() == 1
    assert ledger.pending_path().read_bytes() == b'{"tool": "run", "command": "cut", "del'
    _deliver(db, {"command": "next", "delivered": "b\n"})
    lines = ledger.pending_path().read_bytes().split(b"\n")
    assert lines[0] == b'{"tool": "run", "command": "cut", "del'
    assert json.loads(lines[1])["command"] == "next"
    assert ledger.count_pending() == 1
    assert sorted(row.command for row in _in_database(db)) == ["first", "next"]


def test_rows_an_older_version_stored_badly_are_left_out_of_gain(db: Path) -> None:
    assert ledger.record(tool="run", command="good", delivered_tokens=3, raw_tokens=5)
    connection = sqlite3.connect(db)
    for when in ("'yesterday'", "1e300"):
        connection.execute(
            "INSERT INTO deliveries (time, project, tool, command, delivered_tokens) "
            f"VALUES ({when}, '/p', 'run', 'bad', 1)"
        )
    connection.commit()
    connection.close()
    for fmt in ("text", "json", "csv"):
        done = subprocess.run(
            [sys.executable, "-m", "agentout", "gain", "--format", fmt],
            env={**os.environ, ledger.ENV_DB: str(db)}, capture_output=True, text=True,
            timeout=120,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        assert "Traceback" not in done.stderr
        assert "2 rows that are not deliveries left out" in done.stderr
    assert [row.command for row in ledger.rows()] == ["good"]


@pytest.mark.parametrize("fmt", ["text", "json", "csv", "export"])
def test_gain_over_a_corrupt_database_moves_it_aside_and_counts_what_waits(
    db: Path, tmp_path: Path, fmt: str
) -> None:
    _deliver(db, {"command": "waiting", "delivered": "w\n"})
    db.write_bytes(b"this is not a database" * 100)
    args = ["--export", str(tmp_path / "rows.jsonl")] if fmt == "export" else ["--format", fmt]
    done = subprocess.run(
        [sys.executable, "-m", "agentout", "gain", *args],
        env={**os.environ, ledger.ENV_DB: str(db)}, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    (said,) = done.stderr.splitlines()
    assert said.startswith(f"agentout: ledger: {db} is corrupt (file is not a database); moved")
    assert "waiting" in (done.stdout if fmt != "export" else (tmp_path / "rows.jsonl").read_text())
    (aside,) = db.parent.glob("ledger.sqlite3.corrupt-*")
    assert aside.read_bytes() == b"this is not a database" * 100


def test_the_recorders_problems_go_to_its_log_and_gain_tells_them_once(db: Path) -> None:
    env = {**os.environ, ledger.ENV_DB: str(db)}
    env.pop(ledger.ENV_SYNC, None)
    db.parent.mkdir(mode=0o700)
    ledger.pending_path().write_text('{"tool": "run", "time": "yesterday"}\n')
    from agentout.ledger.pending import start_recorder

    start_recorder()
    log = db.with_name("ledger-recorder.log")
    deadline = time.monotonic() + 60
    while ledger.pending_path().exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    while "dropped" not in (log.read_text() if log.exists() else ""):
        assert time.monotonic() < deadline
        time.sleep(0.05)
    assert oct(log.stat().st_mode & 0o777) == "0o600"
    gain = [sys.executable, "-m", "agentout", "gain"]
    first = subprocess.run(gain, env=env, capture_output=True, text=True, timeout=120)
    assert first.returncode == 0
    assert first.stderr.startswith(
        f"agentout: ledger: the background recorder wrote a line to {log}.seen since this "
        "was last shown; the last: a pending line that is not a delivery was dropped"
    ), first.stderr
    again = subprocess.run(gain, env=env, capture_output=True, text=True, timeout=120)
    assert again.stderr == ""


@pytest.mark.parametrize(
    "configured",
    ["", "{tmp}/l.sqlite3", "{tmp}//x/./l.sqlite3", "{tmp}/x/../l.sqlite3", "rel.db", "~/l.db"],
)
def test_the_pending_file_found_without_pathlib_is_pending_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, configured: str
) -> None:
    from agentout.ledger import pending

    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("AGENTOUT_LEDGER_DB", configured.format(tmp=tmp_path))
    assert pending._pending_file() == str(pending.pending_path())
