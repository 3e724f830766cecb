"""The report rendered by a process started with the session: the same bytes as pytest's
own process renders, and pytest's process renders it when that process cannot."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest
from tests.testing.conftest import run

from agentout.sources.testing import reporter
from agentout.sources.testing.model import Counts, Failure, Run
from agentout.sources.testing.report import render

SUITE = """
def test_ok():
    assert True

def test_bad():
    assert {"a": 1} == {"a": 2}

def test_text():
    print("caf\\u00e9 \\u2603")
    raise ValueError("no \\u2603 here")
"""


def _run() -> Run:
    failure = Failure(
        file="tests/test_x.py",
        test="test_bad",
        line=5,
        error_type="AssertionError",
        message="assert {'a': 1} == {'a': 2}",
        expected="{'a': 2}",
        got="{'a': 1}",
    )
    return Run(
        counts=Counts(passed=1, failed=1),
        failures=(failure,),
        files=1,
        duration=0.25,
        interrupted=False,
        stopped="",
        exit_status=1,
        source="pytest",
    )


SETTINGS = dict(focus="failures", max_tokens=5000, max_chars=None, tokenizer="o200k_base")


@pytest.mark.parametrize("format", ["records", "json"])
def test_same_bytes_as_rendered_here(format: str) -> None:
    warm = reporter.Reporter("o200k_base")
    theirs = warm.render(_run(), **SETTINGS, format=format)
    ours = render(_run(), **SETTINGS, format=format)
    assert theirs is not None
    assert theirs == ours


@pytest.mark.parametrize(
    "argv",
    [
        ["/nonexistent/python"],
        [sys.executable, "-c", "import sys; sys.exit(3)"],
        [sys.executable, "-c", "import sys; sys.stdin.read(); raise SystemExit(0)"],  # silent
        [sys.executable, "-c", "import sys; sys.stdin.read(); 1/0"],  # a traceback
    ],
    ids=["missing", "exits", "says-nothing", "crashes"],
)
def test_a_child_that_cannot_render_leaves_it_to_pytest(
    argv: list[str], capfd: pytest.CaptureFixture[str]
) -> None:
    child = reporter.Reporter("o200k_base", argv)
    assert child.render(_run(), **SETTINGS, format="records") is None
    assert "Traceback" not in capfd.readouterr().err


def test_a_stuck_child_is_stopped(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(reporter, "_WAIT_SECONDS", 0.5)
    child = reporter.Reporter("o200k_base", [sys.executable, "-c", "import time; time.sleep(60)"])
    process = child._child
    assert child.render(_run(), **SETTINGS, format="records") is None
    assert process is not None
    assert process.returncode is not None


def test_an_unasked_child_is_stopped() -> None:
    child = reporter.Reporter("o200k_base")
    process = child._child
    assert process is not None
    child.close()
    assert process.returncode is not None
    assert child.render(_run(), **SETTINGS, format="records") is None


def test_the_child_exits_quietly_when_pytest_sends_nothing() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "agentout.sources.testing.reporter", "o200k_base"],
        input=b"",
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")


def test_plugin_report_is_the_same_when_pytest_renders_it(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makepyfile(SUITE)
    warm = run(pytester, "--agent").stdout.str()
    monkeypatch.setattr(reporter.sys, "executable", "/nonexistent/python")
    here = run(pytester, "--agent").stdout.str()

    def body(text: str) -> list[str]:  # the two runs differ in their time, and so tokens=
        lines = [line for line in text.splitlines() if line[:2] in ("S ", "P ", "R ")]
        return [re.sub(r" time=\S+", "", line) for line in lines]

    assert "test=test_bad" in warm
    assert "caf\u00e9" in warm or "ValueError" in warm
    assert body(warm) == body(here)
