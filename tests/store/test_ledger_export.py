"""The ledger as data: JSONL and Parquet round trips, and each session's rows on S3."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from agentout.ledger import book as ledger
from agentout.ledger.export import COLUMNS, export, read_export, repository, to_record

AGENTOUT = [sys.executable, "-m", "agentout"]


@pytest.fixture
def rows(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[ledger.Row]:
    monkeypatch.setenv(ledger.ENV_DB, str(tmp_path / "db" / "ledger.sqlite3"))
    monkeypatch.delenv(ledger.ENV, raising=False)
    monkeypatch.delenv("AGENTOUT_LEDGER_EXPORT", raising=False)
    repo = tmp_path / "clone" / "checkout"
    (repo / ".git").mkdir(parents=True)
    (repo / ".git" / "config").write_text(
        '[core]\n\tbare = false\n[remote "origin"]\n\turl = git@github.com:acme/widgets.git\n'
    )
    (repo / "src").mkdir()
    ledger.record(tool="run", command="git log", raw_tokens=900, delivered_tokens=120,
                  project=str(repo / "src"), duration=0.25, exit_status=0)  # fmt: skip
    ledger.record(tool="mcp", command="", delivered_tokens=40, project=str(tmp_path), secrets=2)
    ledger.record(tool="test", command="pytest -x", raw_tokens=5000, raw_exact=False,
                  delivered_tokens=700, facts_kept=3, facts_total=3, project=str(repo))  # fmt: skip
    return list(ledger.rows())


def test_repository_is_the_origins_name_wherever_it_was_cloned(tmp_path: Path) -> None:
    repo = tmp_path / "anywhere"
    (repo / ".git").mkdir(parents=True)
    assert repository(str(repo / "a" / "b")) == "anywhere"
    other = tmp_path / "other"
    (other / ".git").mkdir(parents=True)
    (other / ".git" / "config").write_text('[remote "origin"]\n\turl = https://h/x/y.git\n')
    assert repository(str(other)) == "x/y"


@pytest.mark.parametrize("suffix", [".jsonl", ".parquet"])
def test_export_round_trip(rows: list[ledger.Row], tmp_path: Path, suffix: str) -> None:
    target = str(tmp_path / f"ledger{suffix}")
    assert export(rows, target, machine="m1") == 3
    back = read_export(target)
    assert back == [to_record(row, "m1") for row in rows]
    assert list(back[0]) == list(COLUMNS)
    assert back[0]["repository"] == "acme/widgets"
    assert back[0]["saved_tokens"] == 780
    assert back[1]["saved_tokens"] is None
    assert back[2]["raw_exact"] is False


def test_parquet_has_the_documented_types(rows: list[ledger.Row], tmp_path: Path) -> None:
    import pyarrow.parquet as pq

    target = tmp_path / "ledger.parquet"
    export(rows, str(target))
    schema = pq.read_schema(target)
    assert [(f.name, str(f.type)) for f in schema] == [
        (name, {"float64": "double"}.get(kind, kind)) for name, kind in COLUMNS.items()
    ]


def test_gain_export_cli(rows: list[ledger.Row], tmp_path: Path) -> None:
    env = {**os.environ}
    done = subprocess.run(
        [*AGENTOUT, "gain", "--export", str(tmp_path / "out.jsonl")],
        env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"3 deliveries written to {tmp_path / 'out.jsonl'}\n"
    bad = subprocess.run(
        [*AGENTOUT, "gain", "--export", str(tmp_path / "out.csv")],
        env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert bad.returncode == 2
    assert bad.stderr == (
        f"agentout: {tmp_path / 'out.csv'}: expected a file name ending in .jsonl or .parquet\n"
    )


def test_export_to_s3_and_each_session_appends_an_object(
    rows: list[ledger.Row], s3: Any, bucket: str, tmp_path: Path
) -> None:
    assert export(rows, f"s3://{bucket}/exports/m1.parquet") == 3
    assert read_export(f"s3://{bucket}/exports/m1.parquet")[0]["command"] == "git log"

    env = {**os.environ, **s3.env, "AGENTOUT_LEDGER_EXPORT": f"s3://{bucket}/team/ledger"}
    env["AGENTOUT_LEDGER_SYNC"] = "1"
    for word in ("one", "two"):
        done = subprocess.run(
            [*AGENTOUT, "run", "--", "echo", word], env=env, capture_output=True, text=True,
            timeout=60, cwd=tmp_path,
        )  # fmt: skip
        assert done.returncode == 0
        assert done.stderr == ""
    deadline = time.monotonic() + 60  # written by a detached process, after the run
    while len(keys := s3.keys(bucket, "team/ledger/")) < 2:
        assert time.monotonic() < deadline, keys
        time.sleep(0.1)
    assert len(keys) == 2  # object stores do not append: one object per session
    sessions = [read_export(f"s3://{bucket}/{key}") for key in keys]
    assert sorted(r[0]["command"] for r in sessions) == ["echo one", "echo two"]
    assert all(len(r) == 1 and list(r[0]) == list(COLUMNS) for r in sessions)


def test_unwritable_export_is_one_line_and_the_delivery_stands(
    rows: list[ledger.Row], tmp_path: Path
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    env = {
        **os.environ,
        "AGENTOUT_LEDGER_EXPORT": str(blocker / "sub"),
        "AGENTOUT_LEDGER_SYNC": "1",
    }
    done = subprocess.run(
        [*AGENTOUT, "run", "--", "echo", "hi"], env=env, capture_output=True, text=True,
        timeout=60,
    )  # fmt: skip
    assert done.returncode == 0
    assert done.stdout.startswith("hi")
    assert len(done.stderr.splitlines()) == 1
    assert done.stderr.startswith("agentout: ledger export: ")
