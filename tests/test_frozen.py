"""agentout.frozen: frozen value classes without dataclasses, as the run path needs."""

from __future__ import annotations

import copy
import pickle

import pytest

from agentout.process import CommandOutcome
from agentout.records import Record, Result
from agentout.reducers.spec import Spec


def test_fields_are_frozen() -> None:
    outcome = CommandOutcome(("true",), 0, 0.1)
    with pytest.raises(AttributeError, match="immutable"):
        outcome.exit_status = 1
    with pytest.raises(AttributeError, match="immutable"):
        del outcome.argv
    assert outcome.exit_status == 0


def test_equality_hash_and_repr_come_from_the_fields_in_order() -> None:
    a = CommandOutcome(("ls",), 2, 0.5, error="no such file")
    b = CommandOutcome(("ls",), 2, 0.5, error="no such file")
    assert a == b
    assert hash(a) == hash(b)
    assert a != CommandOutcome(("ls",), 3, 0.5, error="no such file")
    assert a != ("ls", 2, 0.5)  # another type is never equal
    assert repr(a) == (
        "CommandOutcome(argv=('ls',), exit_status=2, duration=0.5, signal=None, "
        "error='no such file', timed_out=False, cancelled=False, held_open=None)"
    )


def test_replace_goes_through_init_and_its_checks() -> None:
    record = Record.of({"a": 1}, kind="E")
    assert record.replace(views=({"a": 2},)) == Record.of({"a": 2}, kind="E")
    with pytest.raises(ValueError, match="at least one view"):
        record.replace(views=())
    result = Result.of([record], header={"mode": "fit"})
    changed = result.replace(header={})
    assert (changed.records, changed.header, result.header) == ((record,), {}, {"mode": "fit"})


def test_private_fields_are_no_part_of_equality() -> None:
    spec = Spec("x/y", "", (("x",),), (), ({"keep": "a"},))
    other = Spec("x/y", "", (("x",),), (), ({"keep": "a"},))
    spec._re("a+")  # fills its cache of compiled patterns
    assert spec == other
    assert "_compiled" not in repr(spec)


def test_copies_and_pickles_are_equal() -> None:
    outcome = CommandOutcome(("sleep", "1"), 124, 1.0, timed_out=True)
    assert copy.copy(outcome) == outcome
    assert copy.deepcopy(outcome) == outcome
    assert pickle.loads(pickle.dumps(outcome)) == outcome
