"""The report's counts against pytest's own terminal summary, on generated suites.

Each suite mixes every outcome pytest knows (passes, failures, setup and teardown errors,
skips, xfail and xpass, strict xpass, warnings, a module that does not import, a module
skipped whole, pytest's ``subtests`` fixture and unittest's ``subTest``), chosen by a
seeded generator. pytest counts each failed subtest in its ``failed``; the report names
them apart, so pytest's ``failed`` is the report's ``failed`` plus ``subtests_failed``
(or, for a pytest that names them itself, each equals its own). The ``P`` lines add up
to the ``S`` line.
"""

from __future__ import annotations

import random

import pytest
from tests.testing.conftest import kinds, run

from agentout.sources.testing.readback import file_counts

BLOCKS = {
    "pass": "def test_pass_{n}():\n    pass\n",
    "fail": "def test_fail_{n}():\n    assert {n} == -1\n",
    "setup_error": (
        "@pytest.fixture\ndef broken_{n}():\n    raise RuntimeError('no db')\n\n"
        "def test_setup_error_{n}(broken_{n}):\n    pass\n"
    ),
    "teardown_error": (
        "@pytest.fixture\ndef leaky_{n}():\n    yield\n    raise OSError('leak')\n\n"
        "def test_teardown_error_{n}(leaky_{n}):\n    pass\n"
    ),
    "fail_and_teardown_error": (
        "@pytest.fixture\ndef both_{n}():\n    yield\n    raise OSError('leak')\n\n"
        "def test_both_{n}(both_{n}):\n    assert False\n"
    ),
    "skip": "@pytest.mark.skip(reason='later')\ndef test_skip_{n}():\n    pass\n",
    "xfail": "@pytest.mark.xfail(reason='known')\ndef test_xfail_{n}():\n    assert 0\n",
    "xpass": "@pytest.mark.xfail(reason='fixed?')\ndef test_xpass_{n}():\n    pass\n",
    "strict_xpass": "@pytest.mark.xfail(strict=True)\ndef test_strict_{n}():\n    pass\n",
    "warning": (
        "def test_warns_{n}():\n    import warnings\n    warnings.warn(UserWarning('old'))\n"
    ),
    "param": (
        "@pytest.mark.parametrize('v', range({k}))\ndef test_param_{n}(v):\n    assert v % 3 != 1\n"
    ),
    "subtests": (
        "def test_subtests_{n}(subtests):\n    for v in range({k}):\n"
        "        with subtests.test(v=v):\n            assert v % {m} != 1\n"
    ),
    "subtests_then_own": (
        "def test_subtests_own_{n}(subtests):\n    with subtests.test():\n"
        "        assert False\n    assert 'own' == 'failure'\n"
    ),
    "subtests_skip": (
        "def test_subtests_skip_{n}(subtests):\n    with subtests.test(v=1):\n"
        "        pytest.skip('not here')\n    with subtests.test(v=2):\n        pass\n"
    ),
    "unittest_subtest": (
        "class Case{n}(unittest.TestCase):\n    def test_sub(self):\n"
        "        for v in range({k}):\n            with self.subTest(v=v):\n"
        "                self.assertNotEqual(v % {m}, 1)\n"
        "    def test_plain(self):\n        self.assertEqual({k}, {k})\n"
    ),
    "unittest_fail": (
        "class Broken{n}(unittest.TestCase):\n    def test_it(self):\n"
        "        self.assertEqual([1, {n}], [1, -1])\n"
    ),
}
HEADER = "import unittest\n\nimport pytest\n\n"
WHOLE_FILES = {
    "collect_error": "import not_a_module_anywhere_{n}\n\ndef test_never():\n    pass\n",
    "module_skip": (
        "import pytest\n\npytest.skip('not on this platform', allow_module_level=True)\n\n"
        "def test_never():\n    pass\n"
    ),
}


def generated_suite(seed: int) -> dict[str, str]:
    """Test modules by name for ``seed`` (also used by bench/bench_pytest.py)."""
    rng = random.Random(seed)
    files: dict[str, str] = {}
    for index in range(rng.randint(1, 3)):
        chosen = rng.sample(sorted(BLOCKS), rng.randint(3, 9))
        body = [
            BLOCKS[name].format(n=i, k=rng.randint(1, 5), m=rng.randint(1, 3))
            for i, name in enumerate(chosen)
        ]
        files[f"test_gen_{seed}_{index}"] = HEADER + "\n\n".join(body)
    for name, text in WHOLE_FILES.items():
        if rng.random() < 0.3:
            files[f"test_{name}_{seed}"] = text.format(n=seed)
    return files


_PLURAL = {"error": "errors", "warning": "warnings"}


def pytest_summary(text: str) -> dict[str, int]:
    """pytest's own counts from its last summary line: ``8 failed, 3 subtests passed in
    0.20s`` -> ``{"failed": 8, "subtests_passed": 3}`` (pytester's ``parseoutcomes`` reads
    one word per count, so it misses "subtests passed")."""
    line = text.strip().splitlines()[-1].strip("= ")
    counts = line.rsplit(" in ", 1)[0]
    out = {}
    for part in counts.split(", "):
        number, _, words = part.partition(" ")
        name = words.replace(" ", "_")
        out[_PLURAL.get(name, name)] = int(number)
    return out


def _pytest_summary(pytester: pytest.Pytester, *args: str) -> dict[str, int]:
    """pytest's own counts, at the verbosity where it also counts passed subtests."""
    return pytest_summary(run(pytester, "-q", "-p", "no:cacheprovider", *args).stdout.str())


def _report_counts(
    pytester: pytest.Pytester, *args: str
) -> tuple[dict[str, int], list[dict[str, int]]]:
    result = run(pytester, "--agent", "-p", "no:cacheprovider", *args)
    out = result.stdout.str()
    status = kinds(out, "S")[0]
    counts = {k: v for k, v in status.items() if type(v) is int and k not in ("causes", "exit")}
    return counts, [{"file": file, **said} for file, said in file_counts(out).items()]


def _as_pytest_says(counts: dict[str, int], pytest_names_subtests: bool) -> dict[str, int]:
    said = {k: v for k, v in counts.items() if k != "exit"}
    if not pytest_names_subtests:  # pytest counts a failed subtest in "failed"
        folded = said.pop("subtests_failed", 0)
        if folded:
            said["failed"] = said.get("failed", 0) + folded
    return said


@pytest.mark.parametrize("seed", range(12))
def test_counts_agree_with_pytests_own_summary(pytester: pytest.Pytester, seed: int) -> None:
    pytester.makepyfile(**generated_suite(seed))
    args = ("--continue-on-collection-errors",) if seed % 2 else ()
    own = _pytest_summary(pytester, *args)
    counts, files = _report_counts(pytester, *args)
    assert _as_pytest_says(counts, "subtests_failed" in own) == own
    for key in ("failed", "subtests_failed", "errors"):
        assert sum(p.get(key, 0) for p in files) == counts.get(key, 0), key


def test_subtests_are_counted_apart_from_tests(pytester: pytest.Pytester) -> None:
    """A unittest test whose subTests fail stays passed (as pytest counts it); a test
    whose pytest subtests fail is failed; each failed subtest is in subtests_failed."""
    pytester.makepyfile(
        test_both="""
import unittest

class Case(unittest.TestCase):
    def test_sub(self):
        for v in range(4):
            with self.subTest(v=v):
                self.assertEqual(v % 2, 0)

def test_fixture(subtests):
    for v in range(3):
        with subtests.test(v=v):
            assert v < 1
"""
    )
    counts, files = _report_counts(pytester)
    assert counts == {"passed": 1, "failed": 1, "subtests_failed": 4, "subtests_passed": 3}
    assert files == [{"file": "test_both.py", "failed": 1, "subtests_failed": 4}]


# Every shape of subtest and phase error that pytest's JUnit XML can tell apart, in one run.
BOTH_WAYS = """
import unittest

import pytest

@pytest.fixture
def leaky():
    yield
    raise OSError("leak")

@pytest.fixture
def broken():
    raise RuntimeError("no db")

def test_subtests(subtests):
    for v in range(4):
        with subtests.test(v=v):
            assert v % 2 == 0

def test_subtests_then_own(subtests):
    with subtests.test():
        assert False
    assert "own" == "failure"

class Case(unittest.TestCase):
    def test_sub(self):
        for v in range(4):
            with self.subTest(v=v):
                self.assertEqual(v % 2, 0)

def test_teardown_error(leaky):
    pass

def test_fails_then_teardown_error(leaky):
    assert False

def test_setup_error(broken):
    pass

@pytest.mark.parametrize("n", range(3))
def test_param(n):
    assert n != 1

@pytest.mark.skip(reason="later")
def test_skip():
    pass

@pytest.mark.xfail(reason="known")
def test_xfail():
    assert 0
"""


def test_the_plugin_and_junit_xml_count_one_run_alike(pytester: pytest.Pytester) -> None:
    """The report of pytest's JUnit XML counts as the plugin does (and as pytest's own
    summary): a failed subtest in subtests_failed, the test it failed in once."""
    from agentout.sources.testing.junit import read_junit
    from agentout.sources.testing.report import render

    pytester.makepyfile(test_both_ways=BOTH_WAYS)
    out = run(pytester, "--agent", "-p", "no:cacheprovider", "--junitxml=out.xml").stdout.str()
    xml = render(read_junit([str(pytester.path / "out.xml")], cwd=str(pytester.path)))
    # the XML does not say these; causes come from what each source knows of a failure
    unlisted = ("time", "subtests_passed", "causes")
    plugin, junit = ({k: v for k, v in kinds(text, "S")[0].items() if k not in unlisted}
                     for text in (out, xml))  # fmt: skip
    assert (
        plugin
        == junit
        == {
            "status": "FAIL",
            "passed": 4,  # test_teardown_error passed, then erred in teardown
            "failed": 4,
            "subtests_failed": 5,
            "errors": 3,
            "skipped": 1,
            "xfailed": 1,
        }
    )
    assert file_counts(out) == file_counts(xml)
