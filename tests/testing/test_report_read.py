"""Reading an agent report back (``failures_of``): its failures, or a clear error."""

from __future__ import annotations

import pytest

from agentout.errors import InputError
from agentout.sources.testing.readback import failures_of


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"records": [', "report.json:1:14: not a JSON report"),
        ('{"total": 1}', "report.json: not an agentout report"),
        ('{"records": [1]}', "report.json: not an agentout report"),
        ("H agentout=1\nR bad", "report.json:2:"),
        ("\x00\x01", "report.json:1:"),
    ],
)
def test_failures_of_names_what_it_cannot_read(text: str, message: str) -> None:
    with pytest.raises(InputError) as refused:
        failures_of(text, path="report.json")
    assert str(refused.value).startswith(message)


def test_both_formats_read_back_to_the_same_failures_with_their_files() -> None:
    from agentout.sources.testing.model import Counts, Failure, Run
    from agentout.sources.testing.report import render

    run = Run(
        Counts(failed=3),
        (
            Failure("tests/test_a.py", "test_x", "KeyError", "'k'", line=3),
            Failure("tests/test_a.py", "test_y", "AssertionError", "", expected="1", got="2"),
            Failure("tests/test_b.py", "test_z", "ValueError", "bad", line=9),
        ),
    )
    rows = [failures_of(render(run, format=fmt)) for fmt in ("records", "json")]
    assert rows[0] == rows[1]
    assert [(row["file"], row["test"]) for row in rows[0]] == [
        ("tests/test_a.py", "test_x"),
        ("tests/test_a.py", "test_y"),
        ("tests/test_b.py", "test_z"),
    ]
