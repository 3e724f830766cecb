from __future__ import annotations

import pytest

from agentout.sources.testing.assertions import expected_got, narrow, split_comparison
from agentout.sources.testing.model import (
    Failure,
    clean,
    format_duration,
    group_causes,
    normalize_message,
)


@pytest.mark.parametrize(
    ("seconds", "shown"),
    [
        (0.0000004, "0us"),
        (0.000123, "123us"),
        (0.0009996, "1ms"),
        (0.042, "42ms"),
        (0.9999, "1.00s"),
        (1.5, "1.50s"),
        (75.456, "75.46s"),
    ],
)
def test_durations_as_tryouts_prints_them(seconds: float, shown: str) -> None:
    assert format_duration(seconds) == shown


def test_clean_cuts_before_anything_else_and_escapes_lone_surrogates() -> None:
    assert clean("x" * 10, 5) == "xxxx…"
    assert clean("a\udcffb", 10) == "a\\udcffb"
    assert clean("short", 10) == "short"


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("KeyError: 'DE'", "KeyError: 'FR'"),
        ("assert 50 == 200", "assert 450 == 900"),
        ("object at 0x7f3a2c1d5e50", "object at 0x55d0c1a2b3c4"),
        (
            "user 3f2a9c1e-1b2c-4d5e-8f90-a1b2c3d4e5f6 gone",
            "user 0a1b2c3d-1111-2222-3333-444455556666 gone",
        ),
        ("timeout after 1.5s\nsecond line differs", "timeout after 30s\nanother"),
    ],
)
def test_messages_that_differ_only_in_what_varies_normalize_alike(a: str, b: str) -> None:
    assert normalize_message(a) == normalize_message(b)


def test_different_words_stay_different() -> None:
    assert normalize_message("division by zero") != normalize_message("math domain error")


def _failure(test: str, error: str, message: str, origin: str | None, line: int) -> Failure:
    return Failure(
        file="tests/test_x.py",
        test=test,
        error_type=error,
        message=message,
        origin=origin,
        line=line,
    )


def test_root_causes_need_type_message_and_location_alike() -> None:
    failures = [
        _failure("a", "KeyError", "'DE'", "src/m.py:12", 5),
        _failure("b", "KeyError", "'FR'", "src/m.py:12", 9),  # same cause as a
        _failure("c", "KeyError", "'DE'", "src/m.py:40", 14),  # raised elsewhere
        _failure("d", "ValueError", "'DE'", "src/m.py:12", 20),  # another type
        _failure("e", "AssertionError", "assert 1 == 2", None, 30),
        _failure("f", "AssertionError", "assert 5 == 7", None, 30),  # same line as e
        _failure("g", "AssertionError", "assert 1 == 2", None, 31),  # another line
    ]
    causes = group_causes(failures)
    assert [[f.test for f in c.failures] for c in causes] == [
        ["a", "b"],
        ["c"],
        ["d"],
        ["e", "f"],
        ["g"],
    ]
    assert [c.number for c in causes] == [1, 2, 3, 4, 5]


@pytest.mark.parametrize(
    ("message", "expected", "got"),
    [
        ("AssertionError: assert 50 == 200\n +  where 50 = f()", "200", "50"),
        ("assert 'a == b' == 'c'", "'c'", "'a == b'"),
        ("assert [1, (2, 3)] != [1, (2, 3)]", "!= [1, (2, 3)]", "[1, (2, 3)]"),
        ("assert 3 in [1, 2]", "in [1, 2]", "3"),
        ("{'apple': 6} != {'apple': 10}", "{'apple': 10}", "{'apple': 6}"),
        ("Lists differ: [1, 2] != [1, 3]\n\nFirst differing element 1:", "[1, 3]", "[1, 2]"),
        ("50 != 200 : subtotal of 4 apples", "200", "50"),
        ("expected:<200> but was:<50>", "200", "50"),
        ("subtotal ==> expected: <200> but was: <50>", "200", "50"),
        ("\nExpecting actual:\n  50\nexpected: 200\n but was: 50", "200", "50"),
        ("Expected: is <200>\n     but: was <50>", "is <200>", "was <50>"),
        ("expect(received).toBe(expected)\n\nExpected: 200\nReceived: 50", "200", "50"),
        (
            "\x1b[2mexpect(\x1b[22mreceived\nExpected: \x1b[32m200\x1b[39m\nReceived: 50",
            "200",
            "50",
        ),
        ("Error: Not equal: \n\texpected: 200\n\tactual  : 50", "200", "50"),
        ("assertion `left == right` failed\n  left: 50\n right: 200", "200", "50"),
        ("assertion failed: `(left == right)`\n  left: `50`,\n right: `200`", "200", "50"),
        ("cart_test.go:21: got 50, want 200", "200", "50"),
        ("Subtotal() = 50, want 200", "200", "50"),
    ],
)
def test_expected_and_got_as_each_runner_words_them(message: str, expected: str, got: str) -> None:
    assert expected_got(message) == (expected, got)


@pytest.mark.parametrize("message", ["assert x", "division by zero", "", "assert f(a, b)"])
def test_no_comparison_no_pair(message: str) -> None:
    assert expected_got(message) is None


def test_split_ignores_operators_inside_quotes_and_brackets() -> None:
    assert split_comparison("f(a == b) == 'x == y'") == ("f(a == b)", "==", "'x == y'")
    assert split_comparison("'it''s' == 1") == ("'it''s'", "==", "1")


def test_narrow_shows_only_the_differing_items() -> None:
    assert narrow("{'a': 1, 'b': 2}", "{'a': 1, 'b': 3}") == ("['b']=2", "['b']=3")
    assert narrow("{'a': 1}", "{'a': 1, 'z': 0}") == ("['z'] missing", "['z']=0")
    assert narrow("[1, 2, 3]", "[1, 5, 3]") == ("[1]=2", "[1]=5")
    # wholly different, different lengths, or not literals: kept whole
    assert narrow("{'a': 1}", "{'a': 2}") == ("{'a': 1}", "{'a': 2}")
    assert narrow("[1, 2]", "[1, 2, 3]") == ("[1, 2]", "[1, 2, 3]")
    assert narrow("<Cart object>", "<Cart object>") == ("<Cart object>", "<Cart object>")
