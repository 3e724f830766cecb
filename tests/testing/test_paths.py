"""Paths relative to their common root, one file under one name."""

from __future__ import annotations

from agentout.sources.testing.model import Counts, Failure, Run
from agentout.sources.testing.paths import relative_paths


def _run(*files: tuple[str, str | None]) -> Run:
    failures = tuple(
        Failure(file=file, test=f"t{n}", error_type="Error", origin=origin, position=n)
        for n, (file, origin) in enumerate(files)
    )
    return Run(Counts(failed=len(failures)), failures)


def test_a_file_named_absolute_and_relative_is_listed_once() -> None:
    """jest names a test file absolute in its trace and relative as its suite."""
    run = relative_paths(
        _run(
            ("/home/ci/shop/src/cart.test.js", "/home/ci/shop/src/money.js:9"),
            ("src/cart.test.js", None),
            ("/home/ci/shop/lib/other.test.js", None),
        ),
        cwd="/somewhere/else",
    )
    assert [f.file for f in run.failures] == [
        "lib/other.test.js",
        "src/cart.test.js",
        "src/cart.test.js",
    ]
    assert {f.origin for f in run.failures} == {None, "src/money.js:9"}


def test_absolute_paths_under_the_working_directory_are_relative_to_it() -> None:
    run = relative_paths(_run(("/w/p/tests/a.py", "/w/p/src/m.py:3")), cwd="/w/p")
    assert (run.failures[0].file, run.failures[0].origin) == ("tests/a.py", "src/m.py:3")


def test_elsewhere_they_are_relative_to_their_common_folder() -> None:
    run = relative_paths(
        _run(("/ci/build/x/a_test.go", "/ci/build/x/a.go:27"), ("/ci/build/y/b_test.go", None)),
        cwd="/home/me",
    )
    assert [f.file for f in run.failures] == ["x/a_test.go", "y/b_test.go"]
    assert run.failures[0].origin == "x/a.go:27"


def test_relative_paths_and_library_origins_are_left_alone() -> None:
    run = _run(("tests/a.py", "<frozen os>:12"))
    assert relative_paths(run, cwd="/w") is run
