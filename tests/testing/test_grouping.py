"""Root causes grouped as a person would: by assertion site, never hiding a test, never
merging two origins in project code (properties), and on real pytest runs."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.testing.conftest import error_type, failures, kinds, run

from agentout.sources.testing.model import Counts, Failure, Run, cause_key, group_causes
from agentout.sources.testing.readback import failures_of, named_tests
from agentout.sources.testing.report import render
from agentout.sources.testing.sites import site_shape

_SITES = ["self.assertEqual", "self.assertTrue", "assert Eq f", "self.check_wrap", ""]
_ORIGINS = [None, "src/a.py:10", "src/a.py:12", "src/b.py:3", "tests/test_a.py:40"]


@st.composite
def _failure_lists(draw: st.DrawFn) -> list[Failure]:
    count = draw(st.integers(1, 25))
    out = []
    for n in range(count):
        file = draw(st.sampled_from(["tests/test_a.py", "tests/test_b.py"]))
        scope = draw(st.sampled_from(["", "Cls", "Other"]))
        name = f"test_{n}"
        out.append(
            Failure(
                file=file,
                test=f"{scope}::{name}" if scope else name,
                error_type=draw(st.sampled_from(["AssertionError", "KeyError", "ValueError"])),
                message=draw(st.sampled_from(["assert 1 == 2", "'DE'", "Lists differ: [1]"])),
                line=draw(st.integers(1, 60)),
                origin=draw(st.sampled_from(_ORIGINS)),
                site=draw(st.sampled_from(_SITES)),
                expected=draw(st.sampled_from([None, "[1, 2]"])),
                got=draw(st.sampled_from([None, "[2]"])),
                position=n,
            )
        )
    return out


@settings(max_examples=150, deadline=None)
@given(_failure_lists())
def test_grouping_keeps_every_failure_once_and_never_merges_origins(
    given_failures: list[Failure],
) -> None:
    causes = group_causes(given_failures)
    grouped = [id(f) for c in causes for f in c.failures]
    assert Counter(grouped) == Counter(id(f) for f in given_failures)  # each exactly once
    for cause in causes:
        members = cause.failures
        assert len({f.error_type for f in members}) == 1
        if any(f.project_origin for f in members):  # raised in project code: one place
            assert len({f.location for f in members}) == 1
        assert len({cause_key(f) for f in members}) == 1
        if members[0].project_origin is None and members[0].site and members[0].is_assertion:
            assert len({(f.file, f.scope, f.site) for f in members}) == 1


@settings(max_examples=60, deadline=None)
@given(_failure_lists(), st.sampled_from(["records", "json"]))
def test_the_report_names_every_failing_test(
    given_failures: list[Failure], format_name: str
) -> None:
    failed = sum(f.kind == "failed" for f in given_failures)
    run_ = Run(Counts(failed=failed), tuple(sorted(given_failures, key=Failure.sort_key)), 2)
    text = render(run_, max_tokens=100_000, format=format_name)
    named = Counter(
        f"{row['file']}::{name}" for row in failures_of(text) for name in named_tests(row)
    )
    assert named == Counter(f.nodeid for f in given_failures)


INTERSPERSE = """
import unittest


def intersperse(e, items):  # the bug: the first item is dropped
    out = []
    for item in items:
        out += [e, item]
    return out[2:]


def helper_raises(x):
    raise ValueError(f"bad {x}")


class IntersperseTest(unittest.TestCase):
    def test_even(self):
        self.assertEqual(list(intersperse(None, "01")), ["0", None, "1"])

    def test_odd(self):
        self.assertEqual(list(intersperse(None, "012")), ["0", None, "1", None, "2"])

    def test_nested(self):
        actual = intersperse(("a", "b"), "012")
        expected = ["0", ("a", "b"), "1", ("a", "b"), "2"]
        self.assertEqual(actual, expected)

    def test_true(self):
        self.assertTrue(intersperse(None, "") == [1])

    def test_error(self):
        helper_raises(1)


class OtherTest(unittest.TestCase):
    def test_even(self):
        self.assertEqual(intersperse(0, "ab"), ["a", 0, "b"])
"""


def test_tests_failing_at_one_site_are_one_cause(pytester: pytest.Pytester) -> None:
    """Same type, same assertion call in the same class, different values: one cause
    whose values are its first test's, the others named with their lines in ``also``.
    Another assertion call, another class or an error stay apart."""
    pytester.makepyfile(test_mi=INTERSPERSE)
    result = run(pytester, "--agent", "-p", "no:cacheprovider")
    out = result.stdout.str()
    assert kinds(out, "S")[0]["causes"] == 4
    rows = failures(out)  # in pytest's order: unittest sorts a class's tests by name
    assert [named_tests(r) for r in rows] == [
        ["IntersperseTest::test_error"],
        ["IntersperseTest::test_even", "IntersperseTest::test_nested", "IntersperseTest::test_odd"],
        ["IntersperseTest::test_true"],
        ["OtherTest::test_even"],
    ]
    cause = rows[1]
    assert cause["test"] == "IntersperseTest::test_even"
    # whole names, as pytest takes them back; lines only where they differ from L
    assert cause["also"] == "IntersperseTest::test_nested L25, IntersperseTest::test_odd L20"
    assert cause["error"] == "AssertionError: Lists differ: [None, '1'] != ['0', None, '1']"
    assert "expected" not in cause  # the error line shows both values
    assert [error_type(r) for r in rows] == ["ValueError", *["AssertionError"] * 3]


def test_site_shapes(tmp_path: Path) -> None:
    path = tmp_path / "test_shapes.py"
    path.write_text(
        "def test():\n"
        "    self.assertEqual(\n"
        "        list(f(1)), [1, 2]\n"
        "    )\n"
        "    assert list(f(1)) == [1]\n"
        "    assert actual == expected, 'msg'\n"
        "    with pytest.raises(ValueError):\n"
        "        pass\n"
        "    x = d['key']\n"
        "    assert_that(x).is_equal_to(3)\n",
        encoding="utf-8",
    )
    assert [site_shape(path, line) for line in range(2, 11)] == [
        "self.assertEqual",  # a helper call: its arguments do not matter
        "self.assertEqual",  # any line of the statement
        "self.assertEqual",
        "assert Eq list f",  # an assert: its operator and what it calls
        "assert actual == expected",  # nothing called: the statement, message left out
        "with pytest.raises",
        "pass",
        "x = d['key']",  # nothing called: the statement itself
        "assert_that().is_equal_to",
    ]
    assert site_shape(path, 99) == ""
    broken = tmp_path / "test_broken.py"
    broken.write_text("def test(:\n", encoding="utf-8")
    assert site_shape(broken, 1) == ""
