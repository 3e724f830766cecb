"""The few things that need a real process: xdist workers, a real Ctrl-C, the CLI."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from tests.testing.conftest import FAST, failures, full_report, kinds, run

from project_venv import with_this_environment

SUITE = """
import pytest

def broken(key):
    return {"de": 19}[key]

@pytest.mark.parametrize("n", range(6))
def test_param(n):
    assert n < 3

@pytest.mark.parametrize("key", ["DE", "FR", "de"])
def test_cascade(key):
    assert broken(key) == 19

def test_subtests(subtests):
    for n in range(4):
        with subtests.test(n=n):
            assert n != 2
"""


def _failure_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("R ")]


def test_xdist_reports_the_same_failures_in_the_same_order(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_dist_a=SUITE, test_dist_b=SUITE)
    plain = run(pytester, "--agent").stdout.str()
    result = pytester.runpytest_subprocess(*FAST, "--agent", "-n", "2")
    assert result.ret == 1
    dist = result.stdout.str()
    assert dist.startswith("H agentout=1")  # workers' chatter silenced too
    assert _failure_lines(dist) == _failure_lines(plain) != []
    plain_status, dist_status = kinds(plain, "S")[0], kinds(dist, "S")[0]
    for key in ("passed", "failed", "subtests_passed", "causes"):
        assert plain_status[key] == dist_status[key], key


def test_real_ctrl_c_still_writes_the_report(pytester: pytest.Pytester) -> None:
    marker = pytester.path / "started"
    pytester.makepyfile(
        test_slow=f"""
import time
from pathlib import Path

def test_fast():
    assert 1 == 2

def test_slow():
    Path({str(marker)!r}).write_text("go")
    time.sleep(60)
"""
    )
    child = subprocess.Popen(
        [sys.executable, "-m", "pytest", *FAST, "--agent", "-p", "no:cacheprovider"],
        cwd=pytester.path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # a real Ctrl-C reaches it even where this suite runs with SIGINT ignored (a
        # background job of a non-interactive shell): Python then installs no handler
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    deadline = time.monotonic() + 60
    while not marker.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    child.send_signal(signal.SIGINT)
    out, _ = child.communicate(timeout=60)
    assert child.returncode == pytest.ExitCode.INTERRUPTED
    status = kinds(out, "S")[0]
    assert status["interrupted"] is True
    assert status["failed"] == 1
    assert [r.get("test") for r in failures(out)] == ["test_fast"]


def test_agentout_test_runs_pytest_and_keeps_its_exit_status(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(test_cli_run="def test_a():\n    assert 2 + 2 == 5\n")
    with_this_environment(pytester.path)  # the project's Python has agentout's plugin
    command = [sys.executable, "-c", "from agentout.cli import main; main()", "test"]
    done = subprocess.run(
        [*command, "--focus", "debug", "--", *FAST, "-p", "no:cacheprovider"],
        cwd=pytester.path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1, done.stderr
    (row,) = failures(done.stdout)
    assert (row["error"], row["got"]) == ("assert (2 + 2) == 5", 4)
    assert ">2:     assert 2 + 2 == 5" in row["src"].splitlines()
    header = kinds(done.stdout, "H")[0]
    assert (header["focus"], header["python"]) == ("debug", ".venv/bin/python")
    done = subprocess.run(
        [*command, "--", *FAST, "-p", "no:cacheprovider", "-k", "nothing"],
        cwd=pytester.path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 5


def test_plugin_import_is_cheap() -> None:
    heavy = {"bpe_openai", "rich", "toon_format", "defusedxml", "platformdirs", "click"}
    code = (
        "import sys, agentout.sources.testing.plugin\n"
        f"print(sorted(m for m in sys.modules if m.split('.')[0] in {heavy!r}))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, env=os.environ
    )
    assert done.stdout.strip() == "[]", done.stderr


def test_spill_dir_is_the_one_configured(pytester: pytest.Pytester, clean_env: Path) -> None:
    pytester.makepyfile(test_spill="def test_a():\n    assert 0\n")
    out = run(pytester, "--agent").stdout.str()
    full = full_report(out)
    assert full.parent == clean_env
    assert full.is_file()
