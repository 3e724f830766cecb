"""Every recorded command of the shell corpus, delivered as ``agentout run`` delivers it:
every fact the agent needs is kept, and the result never costs more tokens than the raw
output did (plus the one ``[exit N]`` line a failing command gets)."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentout.deliver.text import TextDelivery, TextSettings, deliver_output
from agentout.reducers import find
from agentout.reducers.facts import lost
from agentout.store.capture import Capture
from agentout.store.spill import SpillStore
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


def test_a_complete_reduced_form_may_take_twice_the_threshold_only_unbudgeted(
    store: SpillStore,
) -> None:
    """157 grep matches reduce to about 10 KB: shown whole without a budget (cutting them
    loses matches), cut when the caller gives one."""
    files = [f"src/pkg/module_{i:02}.py" for i in range(40)]
    body = "".join(
        f"{files[i // 4]}:{10 + i}:    raise InputError(f'bad value {i}', path)  # checked\n"
        for i in range(157)
    ).encode()
    argv = ("grep", "-rn", "InputError", "src")

    def run(**budget: int) -> TextDelivery:
        capture = Capture(threshold=8192, store=store)
        capture.feed(body)
        capture.close()
        return deliver_output(capture, TextSettings(8192, **budget), argv=argv, reducer=find(argv))

    whole = run()
    assert whole.form == "reduced"
    assert 8192 < len(whole.text.encode()) <= 2 * 8192
    assert all(f"{10 + i}:" in whole.text for i in range(157))
    cut = run(max_chars=8192)
    assert cut.form == "cut"
    assert len(cut.text) <= 8192
