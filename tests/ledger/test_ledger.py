"""The savings ledger: counts only, safe under many writers, never in the way of a delivery."""

from __future__ import annotations

import json
import os
import re
import sqlite3
import stat
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from agentout.cli.gain import parse_since
from agentout.cli.main import cli
from agentout.ledger import book as ledger
from agentout.ledger.report import Report, as_csv, period_key

AGENTOUT = [sys.executable, "-c", "from agentout.cli import main; main()"]
MARKER = "zq-output-marker-7f3a"


@pytest.fixture
def db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "private" / "ledger.sqlite3"
    monkeypatch.setenv(ledger.ENV_DB, str(path))
    monkeypatch.delenv(ledger.ENV, raising=False)
    return path


def _cli(
    *args: str, env: dict[str, str] | None = None, stdin: str = ""
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*AGENTOUT, *args],
        input=stdin,
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        check=False,
        timeout=120,
    )


def test_record_and_read_back(db: Path) -> None:
    assert ledger.record(tool="run", command="git log", raw_tokens=900, delivered_tokens=120)
    assert ledger.record(tool="mcp", command="", delivered_tokens=40, project="/p", secrets=2)
    rows = list(ledger.rows())
    assert [(r.tool, r.raw_tokens, r.delivered_tokens, r.saved) for r in rows] == [
        ("run", 900, 120, 780),
        ("mcp", None, 40, 0),
    ]
    assert rows[1].project == "/p"
    assert rows[1].secrets == 2
    assert stat.S_IMODE(db.stat().st_mode) == 0o600
    assert stat.S_IMODE(db.parent.stat().st_mode) == 0o700
    connection = sqlite3.connect(db)
    assert connection.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_off_by_environment(db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ledger.ENV, "0")
    assert not ledger.record(tool="run", command="x", delivered_tokens=1)
    assert not db.exists()


@pytest.mark.parametrize("problem", ["corrupt", "parent-is-a-file", "locked"])
def test_a_broken_ledger_never_stops_the_delivery(
    tmp_path: Path, problem: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "ledger.sqlite3"
    holder = None
    if problem == "corrupt":
        path.write_bytes(b"this is not a database" * 100)
        path.chmod(0o600)
    elif problem == "parent-is-a-file":
        (tmp_path / "file").write_text("x")
        path = tmp_path / "file" / "ledger.sqlite3"
    else:
        monkeypatch.setenv(ledger.ENV_DB, str(path))
        assert ledger.record(tool="x", command="x", delivered_tokens=1)
        holder = sqlite3.connect(path, isolation_level=None)
        holder.execute("BEGIN EXCLUSIVE")
    rows = "".join(f'{{"id": {i}}}\n' for i in range(50))
    done = _cli("fit", "--max-tokens", "50", "-", env={ledger.ENV_DB: str(path)}, stdin=rows)
    if holder is not None:
        holder.close()
    assert done.returncode == 0
    assert "tokens=" in done.stdout.splitlines()[0]
    ledger_lines = [line for line in done.stderr.splitlines() if "ledger" in line]
    assert len(ledger_lines) == 1
    assert ledger_lines[0].startswith("agentout: ledger: ")
    assert "Traceback" not in done.stderr


def _writer(path: str, count: int) -> None:
    os.environ[ledger.ENV_DB] = path
    for index in range(count):
        assert ledger.record(tool="run", command=f"w {index}", raw_tokens=10, delivered_tokens=3)


def test_many_writers_at_once(db: Path) -> None:
    here = str(Path(__file__).parent)
    code = f"import sys; sys.path.insert(0, {here!r}); from test_ledger import _writer; "
    code += "_writer(sys.argv[1], 25)"
    children = [
        subprocess.Popen([sys.executable, "-c", code, str(db)], stderr=subprocess.PIPE)
        for _ in range(8)
    ]
    for child in children:
        _, err = child.communicate(timeout=120)
        assert child.returncode == 0, err
    report = Report.of(ledger.rows())
    assert report.total.deliveries == 200
    assert report.total.saved == 200 * 7


def _delivered_tokens(output: str, reference: Any) -> int:
    """The tokens= of what was printed; a command's output given whole has none, and is
    counted as printed."""
    found = re.findall(r"\btokens[=\":]+(\d+)", output)
    if found:
        return int(found[0]) if output.startswith(("H ", "{")) else int(found[-1])
    return len(reference("o200k_base").encode(output))


def test_a_ledger_caught_between_its_file_and_its_table_reads_as_empty(db: Path) -> None:
    # A first writer creates the file (0600, O_EXCL), then its table: a reader in between
    # (gain, or a detached recorder's check) saw "no such table" and a traceback.
    db.parent.mkdir(mode=0o700)
    db.touch(mode=0o600)
    assert list(ledger.rows(db)) == []
    done = _cli("gain", "--format", "json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["total"]["deliveries"] == 0
    assert ledger.record(tool="run", command="x", delivered_tokens=3)  # then written as ever
    assert [row.command for row in ledger.rows(db)] == ["x"]


def test_gain_agrees_with_what_was_delivered(
    db: Path, tmp_path: Path, reference_tiktoken: Any
) -> None:
    data = tmp_path / "rows.jsonl"
    data.write_text("".join(json.dumps({"id": i, "note": MARKER * 3}) + "\n" for i in range(500)))
    runs = [
        ("fit", str(data), "--max-tokens", "300"),
        ("fit", str(data), "--max-tokens", "80", "--format", "json"),
        ("records", str(data), "--max-tokens", "200"),
        ("run", "--", sys.executable, "-c", f"print('{MARKER[:5]}' + '{MARKER[5:]}\\n' * 5000)"),
        ("run", "--", sys.executable, "-c", "print('short')"),
        ("run", "--", "git", "--version"),
    ]
    delivered = 0
    outputs = []
    for args in runs:
        done = _cli(*args)
        assert done.returncode == 0, done.stderr
        outputs.append(done.stdout)
        delivered += _delivered_tokens(done.stdout, reference_tiktoken)
    ref = re.search(r"agentout show ([0-9a-f]{16})", outputs[3])
    assert ref is not None
    done = _cli("show", ref.group(1), "--max-tokens", "100")
    delivered += _delivered_tokens(done.stdout, reference_tiktoken)
    summary = json.loads(_cli("gain", "--format", "json").stdout)["total"]
    assert summary["deliveries"] == len(runs) + 1
    assert summary["delivered_tokens"] == delivered
    assert summary["saved_tokens"] > 0
    assert MARKER.encode() not in db.read_bytes()  # counts only, never output
    wal = db.with_name(db.name + "-wal")
    assert not wal.exists() or MARKER.encode() not in wal.read_bytes()


def test_gain_formats(db: Path, tmp_path: Path) -> None:
    for index, when in enumerate((1_700_000_000.0, 1_700_100_000.0, 1_800_000_000.0)):
        assert ledger.record(
            tool="run", command=f"pytest -k t{index}", raw_tokens=1000, delivered_tokens=100
        )
        connection = sqlite3.connect(db)
        connection.execute("UPDATE deliveries SET time = ? WHERE id = ?", (when, index + 1))
        connection.commit()
        connection.close()
    runner = CliRunner()
    text = runner.invoke(cli, ["gain"])
    assert text.exit_code == 0, text.output
    assert "2,700 tokens saved of the 3,000 the model would have read (90.0%)" in text.output
    csv_out = runner.invoke(cli, ["gain", "--format", "csv"]).output.splitlines()
    assert csv_out[0].startswith("time,project,tool,command,raw_tokens")
    assert len(csv_out) == 4
    weekly = json.loads(runner.invoke(cli, ["gain", "--format", "json", "--by", "week"]).output)
    # 2023-11-14 and 2023-11-16 share an ISO week; 2027-01-15 is in week 2
    weeks = [(p["week"], p["deliveries"]) for p in weekly["periods"]]
    assert weeks == [("2023-W46", 2), ("2027-W02", 1)]
    since = json.loads(
        runner.invoke(cli, ["gain", "--format", "json", "--since", "2026-01-01"]).output
    )
    assert since["total"]["deliveries"] == 1
    other = json.loads(
        runner.invoke(cli, ["gain", "--format", "json", "--project", "/nowhere"]).output
    )
    assert other["total"]["deliveries"] == 0
    page = tmp_path / "gain.html"
    assert runner.invoke(cli, ["gain", "--html", str(page), "--format", "json"]).exit_code == 0
    html = page.read_text()
    assert html.startswith("<!DOCTYPE html>")
    assert '<b id="saved">2,700</b>' in html
    for remote in ("http://", "https://", "<script", " src=", "@import", "url("):
        assert remote not in html


def test_bad_since_and_unwritable_html(db: Path, tmp_path: Path) -> None:
    runner = CliRunner()
    bad = runner.invoke(cli, ["gain", "--since", "yesterday"])
    assert bad.exit_code == 2
    assert "expected 7d, 12h, 2w or YYYY-MM-DD" in bad.output
    unwritable = runner.invoke(cli, ["gain", "--html", str(tmp_path / "no" / "x.html")])
    assert unwritable.exit_code == 2
    assert "cannot write" in unwritable.output


def test_periods_and_since_are_utc() -> None:
    assert period_key(0, "day") == "1970-01-01"
    assert period_key(0, "week") == "1970-W01"
    assert period_key(0, "month") == "1970-01"
    assert parse_since("2d", now=1_000_000.0) == 1_000_000.0 - 2 * 86400
    assert parse_since("1970-01-02") == 86400.0


def test_count_raw_is_exact_then_scaled(tmp_path: Path) -> None:
    small = tmp_path / "small.txt"
    small.write_text("hello world\n" * 10)
    assert ledger.count_raw(small) == (ledger.count_raw(small.read_text())[0], True)
    big = tmp_path / "big.txt"
    big.write_bytes(b"hello world\n" * ((ledger.RAW_EXACT_BYTES // 12) * 3))
    tokens, exact = ledger.count_raw(big)
    assert not exact
    assert tokens is not None
    assert tokens > 2 * ledger.count_raw(b"hello world\n" * (ledger.RAW_EXACT_BYTES // 12))[0]


def test_csv_never_holds_output() -> None:
    row = ledger.Row(time.time(), "/p", "run", "echo hi", 5, 2, None, None, 0.1, 0, 0, True)
    assert as_csv([row]).splitlines()[1].split(",")[2:6] == ["run", "echo hi", "5", "True"]


def test_run_records_after_it_answered_without_waiting_for_a_tokenizer(tmp_path: Path) -> None:
    """The detached recorder: agentout run returns, then the row appears, exactly counted."""
    path = tmp_path / "private" / "ledger.sqlite3"
    env = {**os.environ, ledger.ENV_DB: str(path), "AGENTOUT_SPILL_DIR": str(tmp_path / "s")}
    env.pop("AGENTOUT_LEDGER_SYNC", None)
    done = subprocess.run(
        [sys.executable, "-c", "from agentout.cli import main; main()", "run", "--", "seq", "3"],
        env=env,
        capture_output=True,
        timeout=60,
        check=True,
    )
    assert done.stdout == b"1\n2\n3\n"
    deadline = time.monotonic() + 30
    while True:
        os.environ[ledger.ENV_DB] = str(path)
        try:
            found = [row for row in ledger.rows() if row.tool == "run"]
        except Exception:
            found = []
        if found or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    assert len(found) == 1
    from agentout.tokens import count

    assert found[0].delivered_tokens == count("1\n2\n3\n")
    assert found[0].raw_tokens == found[0].delivered_tokens
    assert found[0].command == "seq 3"


def test_the_html_labels_never_overlap() -> None:
    """Per-command labels as long as commands get: each slants from under its bars, and
    two neighbours are parallel lines further apart than the text is tall."""
    import itertools
    import math
    import xml.etree.ElementTree as ElementTree

    rows = [
        ledger.Row(1_700_000_000.0 + i, "/p", "run", f"npm run build:production-{i}", 900, 90,
                   None, None, None, 0, 0, True)
        for i in range(10)
    ]  # fmt: skip
    page = Report.of(rows).as_html()
    charts = re.findall(r"<svg .*?</svg>", page)
    assert len(charts) == 2
    for chart in charts:
        texts = ElementTree.fromstring(chart).findall("text")
        assert texts
        anchors = []
        for text in texts:
            angle, x, y = map(float, re.fullmatch(
                r"rotate\((\S+) (\S+) (\S+)\)", text.attrib["transform"]).groups()
            )  # fmt: skip
            assert (x, y) == (float(text.attrib["x"]), float(text.attrib["y"]))
            assert len(text.text or "") <= 24
            anchors.append((x, angle))
        for (left, angle), (right, _) in itertools.pairwise(anchors):
            apart = (right - left) * math.sin(math.radians(angle))
            assert apart >= 3 * 11, apart  # 11 px text: room for three lines between
        width = float(ElementTree.fromstring(chart).attrib["width"])
        longest = max(len(t.text or "") for t in texts) * 11 * 0.6  # px, a generous glyph
        assert anchors[-1][0] + longest * math.cos(math.radians(anchors[-1][1])) <= width
