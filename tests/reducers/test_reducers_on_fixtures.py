"""Every recorded command of the shell corpus, delivered as ``agentout run`` delivers it:
every fact the agent needs is kept, and the result never costs more tokens than the raw
output did (plus the one ``[exit N]`` line a failing command gets)."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentout.capture import Capture
from agentout.facts import lost
from agentout.reducers import find
from agentout.sources.output import TextDelivery, TextSettings, deliver_output
from agentout.spill import SpillStore
from agentout.tokens import count
from command_fixtures import Fixture, fixtures

ALL = fixtures()


def deliver(fixture: Fixture, store: SpillStore, **budget: int) -> TextDelivery:
    capture = Capture(threshold=8192, store=store)
    capture.feed(fixture.output)
    capture.close()
    settings = TextSettings(8192, **budget)
    return deliver_output(
        capture,
        settings,
        argv=fixture.argv,
        exit_status=fixture.exit,
        header={"exit": fixture.exit},
        reducer=find(fixture.argv),
    )


@pytest.fixture
def store(tmp_path: Path) -> SpillStore:
    return SpillStore(tmp_path / "spill")


@pytest.mark.parametrize("fixture", ALL, ids=lambda f: f.id)
def test_every_fact_is_kept(fixture: Fixture, store: SpillStore) -> None:
    delivered = deliver(fixture, store)
    assert lost(fixture.facts, delivered.text) == []


@pytest.mark.parametrize("fixture", ALL, ids=lambda f: f.id)
def test_never_more_tokens_than_the_raw_output(fixture: Fixture, store: SpillStore) -> None:
    delivered = deliver(fixture, store)
    raw = fixture.output.decode("utf-8", "replace")
    allowance = count(f"[exit {fixture.exit}]\n") if fixture.exit else 0
    assert count(delivered.text) <= count(raw) + allowance


@pytest.mark.parametrize("fixture", ALL, ids=lambda f: f.id)
def test_what_is_left_out_is_in_the_store_byte_for_byte(
    fixture: Fixture, store: SpillStore
) -> None:
    delivered = deliver(fixture, store)
    if delivered.form == "whole":
        assert delivered.ref is None
    elif delivered.ref is not None:
        assert delivered.ref.path.read_bytes() == fixture.output
