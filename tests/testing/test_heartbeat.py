"""``agentout test`` at a terminal shows the heartbeat ``agentout run`` shows: one line on
stderr while the runner is quiet, cleared before the report; never on a pipe."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from tests.testing.conftest import FAST, failures

from agentout.cli import quick
from agentout.cli.main import cli
from agentout.read import visible
from agentout.sources.testing.runners import run_tests

SLOW = """
import time

def test_slow():
    print("one\\ntwo")
    time.sleep(1.6)
    assert 1 == 2
"""
BEAT = re.compile(r"\r\x1b\[Kagentout: running (\d+)s, ([\d,]+) lines so far")
CLEAR = "\r\x1b[K"


def _heartbeats(stderr: str) -> list[tuple[int, int]]:
    return [(int(s), int(n.replace(",", ""))) for s, n in BEAT.findall(stderr)]


@pytest.mark.parametrize(
    "args",
    [
        ["test", "--", *FAST, "-p", "no:cacheprovider", "test_slow.py"],
        ["run", "--", sys.executable, "-c", "import time; print('a'); time.sleep(1.6)"],
    ],
    ids=["test", "run"],
)
def test_test_and_run_show_one_heartbeat_at_a_terminal(
    args: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "test_slow.py").write_text(SLOW, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(quick, "_HEARTBEAT_AFTER", 0.0)  # a beat from the first second
    monkeypatch.setattr(visible, "is_terminal", lambda stream: stream is sys.stderr)
    result = CliRunner().invoke(cli, args)
    beats = _heartbeats(result.stderr)
    assert beats, result.stderr
    assert [s for s, _ in beats] == sorted(s for s, _ in beats)
    assert result.stderr.endswith(CLEAR)  # the line is gone before the answer is read
    assert "agentout: running" not in result.stdout


def test_no_heartbeat_on_a_pipe(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "test_slow.py").write_text(SLOW, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(quick, "_HEARTBEAT_AFTER", 0.0)
    result = CliRunner().invoke(cli, ["test", "--", *FAST, "-p", "no:cacheprovider"])
    assert result.exit_code == 1
    assert result.stderr == ""
    assert [row["test"] for row in failures(result.stdout)] == ["test_slow"]


def test_run_tests_ticks_with_the_lines_printed_so_far(tmp_path: Path) -> None:
    (tmp_path / "test_slow.py").write_text(SLOW, encoding="utf-8")
    ticks: list[tuple[float, int]] = []
    done = run_tests(
        [sys.executable, "-m", "pytest", *FAST, "-p", "no:cacheprovider", "-s"],
        cwd=tmp_path,
        on_tick=lambda seconds, lines: ticks.append((seconds, lines)),
    )
    assert done.exit_status == 1
    assert ticks
    assert all(seconds >= 1.0 for seconds, _ in ticks)
    assert [lines for _, lines in ticks] == sorted(lines for _, lines in ticks)
    assert ticks[-1][1] >= 2  # what the test printed (-s) is counted as it comes
