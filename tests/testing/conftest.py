"""Shared by the tests of the test-run source: pytester, a clean environment, helpers.

Every test here runs with the agent-detection variables cleared and the spill store in
its own temporary directory, so it behaves the same inside an agent's shell (where
CLAUDECODE may be set) and in CI.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agentout.formats.records import parse
from agentout.sources.testing.readback import failures_of
from agentout.sources.testing.settings import AGENT_ENV_VARS, SETTINGS

pytest_plugins = ["pytester"]

_CLEARED = (*AGENT_ENV_VARS, "AGENTOUT_AGENT", *(s.env for s in SETTINGS), "PYTEST_ADDOPTS")


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    for name in _CLEARED:
        monkeypatch.delenv(name, raising=False)
    spill = tmp_path / "spill"
    monkeypatch.setenv("AGENTOUT_SPILL_DIR", str(spill))
    return spill


def full_report(text: str) -> Path:
    """The file the report's last line names (``F full=REF``: the reference ``agentout
    show`` takes), in the spill store the test set."""
    from agentout.store.spill import SpillStore

    ref = str(kinds(text, "F")[0]["full"])
    assert len(ref) == 16, ref  # a reference, never a path
    store = SpillStore.default()
    return store.resolve(store.find_id(ref))


def records(text: str) -> list[tuple[str, dict[str, Any]]]:
    """The report read back with the records format's own parser (so it must parse)."""
    return parse(text)


def kinds(text: str, kind: str) -> list[dict[str, Any]]:
    return [fields for k, fields in records(text) if k == kind]


def failures(text: str) -> list[dict[str, Any]]:
    """The report's ``R`` records, each with the file of the ``P`` line above it."""
    return failures_of(text)


# Hypothesis's pytest plugin costs seconds per in-process run; these runs never need it.
FAST = ("-p", "no:hypothesispytest")


def run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest(*FAST, *args)


def line_of(source: str, text: str) -> int:
    """The line number of ``text`` in a file pytester made from ``source``."""
    lines = source.strip("\n").splitlines()
    return next(n for n, line in enumerate(lines, start=1) if text in line)


def error_type(row: dict[str, Any]) -> str:
    """The error type a failure record shows (see readback.error_type)."""
    from agentout.sources.testing.readback import error_type as named

    return named(row)


def values_of(row: dict[str, Any]) -> tuple[str, str] | None:
    """The expected and got values a record shows: as its error line words them
    (``assert 50 == 200``, ``expected: <200> but was: <50>``, ``Subtotal() = 50, want
    200``), each replaced by the ``expected``/``got`` field where the record has one (the
    line shows an expression, or a value cut short); None if neither."""
    from agentout.sources.testing.assertions import expected_got

    error = str(row.get("error", ""))
    line = error if error.startswith("assert ") else error.split(": ", 1)[-1]
    shown = expected_got(line)
    if shown is None and "expected" not in row:
        return None
    expected, got = shown or (None, None)
    return str(row.get("expected", expected)), str(row.get("got", got))
