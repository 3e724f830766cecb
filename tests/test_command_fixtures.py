"""The recorded command fixtures are what they claim: real output with its facts in it.

Only what is true of the fixtures themselves; the reducers' tests build on them.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from agentout.reducers.facts import lost
from command_fixtures import COMMANDS, Fixture, fixtures

FAMILIES = ("git", "files", "search", "tests", "lint", "build", "logs", "generic")
ALL = fixtures()
# Fixtures whose output holds nothing an agent needs as a value (binary data).
FACTLESS = {"generic/binary"}


def test_every_family_has_recorded_output() -> None:
    assert sorted({f.family for f in ALL}) == sorted(FAMILIES)
    assert len(ALL) >= 60
    for family in FAMILIES:
        assert len(fixtures(family)) >= 3, family


@pytest.mark.parametrize("fixture", ALL, ids=lambda f: f.id)
def test_fixture_is_complete(fixture: Fixture) -> None:
    names = {p.name for p in fixture.path.iterdir()}
    assert names in (
        {"cmd", "output", "exit", "facts.json"},
        {"cmd", "output.gz", "exit", "facts.json"},
    )
    assert fixture.argv, "cmd is an empty argv"
    assert isinstance(fixture.exit, int)
    assert 0 <= fixture.exit <= 255
    assert fixture.output  # every recorded command printed something
    if "output.gz" in names:
        assert len(fixture.output) > 200_000  # only large outputs are stored compressed


@pytest.mark.parametrize("fixture", ALL, ids=lambda f: f.id)
def test_every_fact_is_kept_by_its_own_output(fixture: Fixture) -> None:
    assert bool(fixture.facts) != (fixture.id in FACTLESS)
    assert lost(fixture.facts, fixture.output) == []


@pytest.fixture(scope="module")
def corpus() -> dict[str, Any]:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
    try:
        from shell.cases import ALL as CASES
    finally:
        sys.path.pop(0)
    return {f"{case.family}/{case.name}": case for case in CASES}


@pytest.mark.parametrize("fixture", ALL, ids=lambda f: f.id)
def test_fixture_matches_its_corpus_case(fixture: Fixture, corpus: dict[str, Any]) -> None:
    """The same command, and the case's extractor finds the recorded facts in the recorded
    output: fixtures and corpus do not drift apart (re-record with
    scripts/record_command_fixtures.py after changing a case)."""
    case = corpus.get(fixture.id)
    assert case is not None, f"{fixture.id} is no case of bench/shell/cases.py"
    assert list(case.argv) == fixture.argv
    extracted = case.facts(fixture.output.decode("utf-8", "replace"))
    assert extracted == fixture.facts


def test_hostile_outputs_are_there() -> None:
    outputs = {f.id: f.output for f in ALL}
    assert b"\x1b[" in outputs["search/grep-color"]  # ANSI colour
    assert b"\x1b[" in outputs["git/git-diff-color"]
    assert b"\r" in outputs["generic/progress-bar"]  # a redrawn progress bar
    assert b"\x00" in outputs["generic/binary"] or not outputs["generic/binary"].isascii()
    with pytest.raises(UnicodeDecodeError):
        outputs["generic/invalid-utf8"].decode("utf-8")
    assert b"\n" not in outputs["generic/long-line"].rstrip(b"\n")
    assert (COMMANDS / "logs" / "build-log" / "output.gz").exists()
    assert len(outputs["logs/build-log"]) > 500_000
