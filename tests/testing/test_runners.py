"""Every runner from one command: detection, the flags added, results read back.

The results read here were recorded from real runs of the example projects in
examples/runners/ by examples/runners/record.py (the command each ran and the folder it
ran in are in ``NAME.meta.json``); the folder they ran in, a temporary copy, is put back
as the example's own path, so the readers find the test files as a live run does. node
and cargo run live too.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import sys
from pathlib import Path
from typing import Any

import pytest
from tests.testing.conftest import error_type, values_of

from agentout.sources.testing.model import Run, origin_file
from agentout.sources.testing.readback import failures_of, file_counts, named_tests
from agentout.sources.testing.report import render
from agentout.sources.testing.runners import RunnerError, TestRun, detect, readers, run_tests
from agentout.sources.testing.runners.detect import pytest_args

ROOT = Path(__file__).resolve().parents[2]
RUNS = Path(__file__).resolve().parent / "runs"
EXAMPLES = ROOT / "examples" / "runners"
FOLDERS = {
    "jest": "jest",
    "vitest": "vitest",
    "node": "node",
    "go": "go",
    "cargo": "rust",
    "nextest": "rust",
    "maven": "maven",
}


@pytest.mark.parametrize(
    ("argv", "name", "program"),
    [
        (["pytest", "-x"], "pytest", "pytest"),
        (["python3", "-m", "pytest", "tests"], "pytest", "pytest"),
        (["uv", "run", "--with", "hypothesis", "pytest"], "pytest", "pytest"),
        (["poetry", "run", "python", "-m", "pytest"], "pytest", "pytest"),
        (["env", "-u", "CI", "A=1", "B=2", "npx", "--yes", "jest"], "jest", "jest"),
        (["./node_modules/.bin/jest", "src/"], "jest", "./node_modules/.bin/jest"),
        (["pnpm", "exec", "vitest", "run"], "vitest", "vitest"),
        (["yarn", "vitest"], "vitest", "vitest"),
        (["go", "test", "./..."], "go", "test"),
        (["CGO_ENABLED=0", "go", "test", "-run", "X"], "go", "test"),
        (["cargo", "test", "--workspace"], "cargo", "test"),
        (["cargo", "nextest", "run"], "nextest", "run"),
        (["mvn", "-o", "verify"], "maven", "mvn"),
        (["./mvnw", "test"], "maven", "./mvnw"),
        (["./gradlew", "test"], "gradle", "./gradlew"),
        (["node", "--test", "test/"], "node", "node"),
    ],
)
def test_detect_looks_past_launchers(argv: list[str], name: str, program: str) -> None:
    runner = detect(argv)
    assert runner is not None
    assert runner.name == name
    assert runner.argv[runner.at] == program


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["ls", "-l"],
        ["go", "build", "./..."],
        ["cargo", "build"],
        ["node", "script.js"],
        ["python", "-m", "unittest"],
        ["env", "A=1"],
        ["npx"],
    ],
)
def test_detect_knows_what_is_no_runner(argv: list[str]) -> None:
    assert detect(argv) is None


def _private(tmp_path: Path) -> Path:
    private = tmp_path / "private"
    private.mkdir(mode=0o700)
    return private


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["npx", "jest", "src"], ["npx", "jest", "src", "--json", "--outputFile={P}/results.json",
                                  "--testLocationInResults"]),
        (["vitest", "src"], ["vitest", "run", "src", "--reporter=json",
                             "--outputFile={P}/results.json", "--includeTaskLocation"]),
        (["vitest", "run"], ["vitest", "run", "--reporter=json", "--outputFile={P}/results.json",
                             "--includeTaskLocation"]),
        (["go", "test", "./..."], ["go", "test", "-json", "./..."]),
        (["go", "test", "-json", "./..."], ["go", "test", "-json", "./..."]),
        (["cargo", "test"], ["cargo", "test", "--", "-Z", "unstable-options", "--format", "json",
                             "--report-time"]),
        (["cargo", "test", "--", "--nocapture"], ["cargo", "test", "--", "--nocapture", "-Z",
                                                  "unstable-options", "--format", "json",
                                                  "--report-time"]),
        (["cargo", "nextest", "run", "--", "x"], ["cargo", "nextest", "run", "--message-format",
                                                  "libtest-json", "--", "x"]),
        (["node", "--test"], ["node", "--test-reporter=junit",
                              "--test-reporter-destination={P}/results.xml", "--test"]),
        (["pytest", "-x"], ["pytest", "-x", "--junitxml={P}/junit.xml"]),
        (["pytest", "--junitxml=mine.xml"], ["pytest", "--junitxml=mine.xml"]),
        (["mvn", "test"], ["mvn", "test"]),
    ],
)  # fmt: skip
def test_prepare_adds_what_writes_results_into_the_private_folder(
    tmp_path: Path, argv: list[str], expected: list[str]
) -> None:
    private = _private(tmp_path)
    runner = detect(argv)
    assert runner is not None
    prepared = runner.prepare(private)
    assert list(prepared.argv) == [word.replace("{P}", str(private)) for word in expected]
    if prepared.results is not None:
        assert prepared.results == private or prepared.results.parent == private


def test_prepare_sets_the_environment_the_runner_needs(tmp_path: Path) -> None:
    private = _private(tmp_path)
    environments = {
        name: detect(argv).prepare(private).env  # type: ignore[union-attr]
        for name, argv in {
            "cargo": ["cargo", "test"],
            "nextest": ["cargo", "nextest", "run"],
            "pytest": ["pytest"],
        }.items()
    }
    assert environments["cargo"] == {"RUSTC_BOOTSTRAP": "1"}
    assert environments["nextest"] == {"NEXTEST_EXPERIMENTAL_LIBTEST_JSON": "1"}
    assert environments["pytest"] == {
        "AGENTOUT_AGENT": "1",
        "AGENTOUT_RESULTS": str(private / "run.json"),
    }


def test_gradle_gets_a_private_init_script_sending_its_xml_to_the_private_folder(
    tmp_path: Path,
) -> None:
    private = _private(tmp_path)
    prepared = detect(["./gradlew", "test", "--info"]).prepare(private)  # type: ignore[union-attr]
    script = private / "agentout.gradle"
    assert list(prepared.argv) == ["./gradlew", "--init-script", str(script), "test", "--info"]
    assert stat.S_IMODE(script.stat().st_mode) == 0o600
    assert prepared.results == private / "reports"
    assert f"'{private / 'reports'}'" in script.read_text()
    assert "withType(Test)" in script.read_text()


# -- results recorded from real runs -----------------------------------------------------


def _recorded(name: str) -> Run:
    meta = json.loads((RUNS / f"{name}.meta.json").read_text(encoding="utf-8"))
    folder = EXAMPLES / FOLDERS[name]

    def text(file: str) -> str:
        return (RUNS / file).read_text(encoding="utf-8").replace(meta["cwd"], str(folder))

    if name in ("jest", "vitest"):
        return readers.read_js(text(meta["files"][0]), name, folder)
    if name == "go":
        return readers.read_go(text(meta["files"][0]), folder, meta["stderr"])
    if name in ("cargo", "nextest"):
        return readers.read_libtest(text(meta["files"][0]), name, folder)
    copies = []
    for file in meta["files"]:
        copy = folder.parent / f".{name}-{file}"
        copies.append(copy)
    try:
        for file, copy in zip(meta["files"], copies, strict=True):
            copy.write_text(text(file), encoding="utf-8")
        return readers.read_junit_files(copies, name, folder)
    finally:
        for copy in copies:
            copy.unlink(missing_ok=True)


def _report(run: Run) -> list[dict[str, Any]]:
    return failures_of(render(run, max_tokens=5000))


# What each example's run must say: its counts and, per failing test, the bug it shows.
EXPECTED_COUNTS = {
    "jest": {"passed": 2, "failed": 5, "skipped": 1},
    "vitest": {"passed": 2, "failed": 5, "skipped": 1},
    "node": {"passed": 2, "failed": 5, "skipped": 1},
    "go": {"passed": 1, "failed": 4, "subtests_failed": 2, "subtests_passed": 1},
    "cargo": {"passed": 2, "failed": 4, "skipped": 1},
    "nextest": {"passed": 2, "failed": 4, "skipped": 1},
    "maven": {"passed": 2, "failed": 4, "errors": 1, "skipped": 1},
}


@pytest.mark.parametrize("name", sorted(EXPECTED_COUNTS))
def test_recorded_results_read_into_the_same_report(name: str) -> None:
    run = _recorded(name)
    counts = {k: v for k, v in vars(run.counts).items() if v}
    assert counts == EXPECTED_COUNTS[name]
    assert run.source == name
    rows = _report(run)
    named = [f"{row['file']}::{test}" for row in rows for test in named_tests(row)]
    assert len(named) == len(set(named)) == len(run.failures)  # every failure, once
    # each file's counts, said or (no count on its P line) its records', add up to the run's
    text = render(run, max_tokens=5000)
    for key in ("failed", "subtests_failed", "errors"):
        said = sum(c.get(key, 0) for c in file_counts(text).values())
        assert said == EXPECTED_COUNTS[name].get(key, 0), key
    # the quantity bug, with expected vs got, at a line of the test file
    quantity = next(r for r in rows if (values_of(r) or ("",))[0] in ("200", "130"))
    assert values_of(quantity) in (("200", "50"), ("130", "60"))
    assert isinstance(quantity["L"], int)
    files = {row["file"] for row in rows}
    assert not any(file.startswith("/") for file in files)  # relative to their root
    # the cents bug
    assert any((values_of(r) or ("",))[0].strip("'\"") == "0.05" for r in rows)


@pytest.mark.parametrize("name", ["jest", "vitest", "node", "go", "maven", "cargo", "nextest"])
def test_an_error_raised_in_project_code_names_its_origin(name: str) -> None:
    rows = _report(_recorded(name))
    if name == "go":
        raised = next(r for r in rows if error_type(r) == "panic")
        assert raised["origin"] == "cart/cart.go:20"
        return
    raised = next(r for r in rows if "origin" in r and values_of(r) is None)
    assert origin_file(raised["origin"]) in (
        "src/money.js",
        "com/example/shop/Money.java",
        "src/lib.rs",
    )


@pytest.mark.parametrize("name", ["jest", "node", "go", "maven", "cargo"])
def test_the_same_assertion_in_one_file_is_one_cause(name: str) -> None:
    """The subtotal bug fails two tests at the same assertion (their values differ):
    one record, the other test in also=."""
    rows = _report(_recorded(name))
    subtotal = [r for r in rows if (values_of(r) or ("",))[0] in ("200", "130")]
    assert len(subtotal) == 1
    assert "also" in subtotal[0]


def test_go_subtests_are_counted_apart_and_the_parent_not_repeated() -> None:
    run = _recorded("go")
    names = [f.test for f in run.failures]
    assert "TestSubtotalCases" not in names  # failed by its subtests only
    assert {"TestSubtotalCases/two_lines", "TestSubtotalCases/three_teas"} <= set(names)


def test_a_reader_refuses_what_its_runner_does_not_write(tmp_path: Path) -> None:
    for read, said in (
        (lambda: readers.read_js("[]", "jest", tmp_path), "no testResults"),
        (lambda: readers.read_js("{broken", "jest", tmp_path), "Expecting property name"),
        (lambda: readers.read_go("ok  \texample.com/x\t0.01s\n", tmp_path), "no go test"),
        (lambda: readers.read_go('{"no": "action"}\n', tmp_path), "not a go test"),
        (lambda: readers.read_libtest("running 1 test\n", "cargo", tmp_path), "no libtest"),
        (lambda: readers.read_libtest('{"type": "x"}\n', "cargo", tmp_path), "not libtest"),
    ):
        with pytest.raises(ValueError, match=said):
            read()


# -- live runs ---------------------------------------------------------------------------


def _live(argv: list[str], folder: Path, **options: Any) -> TestRun:
    done = run_tests(argv, cwd=folder, **options)
    private = next((Path(w).parent for w in done.argv if "agentout-test-" in w), None)
    if private is not None:
        assert not private.exists()  # the private folder is gone
    return done


def test_node_test_live(tmp_path: Path) -> None:
    folder = tmp_path / "node"
    shutil.copytree(EXAMPLES / "node", folder)
    done = _live(["node", "--test"], folder)
    assert (done.runner, done.exit_status, done.results) == ("node", 1, True)
    assert {k: v for k, v in vars(done.counts).items() if v} == EXPECTED_COUNTS["node"]
    assert done.text.splitlines()[1].startswith("S status=FAIL ")
    assert done.full is not None
    assert "ERR_ASSERTION" in Path(done.full).read_text()  # the complete traces


def test_cargo_test_live(tmp_path: Path) -> None:
    folder = tmp_path / "rust"
    shutil.copytree(EXAMPLES / "rust", folder)
    env = {**os.environ, "CARGO_TARGET_DIR": str(tmp_path / "target")}
    done = _live(["cargo", "test", "--no-fail-fast", "-q"], folder, env=env)
    assert (done.runner, done.exit_status, done.results) == ("cargo", 101, True)
    assert {k: v for k, v in vars(done.counts).items() if v} == EXPECTED_COUNTS["cargo"]


def test_a_runner_that_writes_no_results_is_said_so(tmp_path: Path) -> None:
    folder = tmp_path / "rust"
    shutil.copytree(EXAMPLES / "rust", folder)
    (folder / "src" / "lib.rs").write_text("pub fn broken( {\n", encoding="utf-8")
    env = {**os.environ, "CARGO_TARGET_DIR": str(tmp_path / "target")}
    done = _live(["cargo", "test"], folder, env=env)
    assert done.results is False
    assert done.exit_status == 101
    (row,) = failures_of(done.text)
    assert row["error"] == "no results: error: this file contains an unclosed delimiter"
    assert "out" in row
    # each of rustc's errors, with the location it printed, after the failure
    assert done.full is not None
    printed = Path(done.full).read_text(encoding="utf-8")  # the full report holds it all
    located = re.findall(r"^error(?:\[\w+\])?: .*\n\s*--> (src/lib\.rs:\d+:\d+)$", printed, re.M)
    shown = re.findall(r"^E at=(\S+)", done.text, re.M)
    assert located
    assert shown == list(dict.fromkeys(located))  # each once


def test_pytest_through_the_plugin_and_without_it(tmp_path: Path) -> None:
    (tmp_path / "test_x.py").write_text(
        "import pytest\n\n@pytest.mark.parametrize('n', [1, 2])\n"
        "def test_n(n):\n    assert n * 10 == 5\n\ndef test_ok():\n    pass\n",
        encoding="utf-8",
    )
    base = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:hypothesispytest"]
    with_plugin = _live(base, tmp_path)
    without = _live([*base, "-p", "no:agentout"], tmp_path)
    for done in (with_plugin, without):
        assert (done.exit_status, done.results) == (1, True)
        assert (done.counts.passed, done.counts.failed) == (1, 2)
        (row,) = failures_of(done.text)
        assert (row["file"], row["test"], row["also"]) == ("test_x.py", "test_n[1]", "test_n[2]")
    # what the plugin knows: the values compared, where pytest's line shows the expression
    assert failures_of(with_plugin.text)[0]["error"] == "assert (1 * 10) == 5"
    assert values_of(failures_of(with_plugin.text)[0]) == ("5", "10")
    assert not list(tmp_path.glob("*.xml"))  # nothing written beside the tests


def test_pytest_args_run_this_interpreter() -> None:
    runner = pytest_args(["-x", "tests/"])
    assert runner.argv == (sys.executable, "-m", "pytest", "-x", "tests/")
    assert runner.name == "pytest"


def test_a_missing_program_and_an_unknown_command(tmp_path: Path) -> None:
    with pytest.raises(RunnerError, match="command not found"):
        run_tests([str(tmp_path / "no-such-folder" / "jest"), "x"], cwd=tmp_path)
    with pytest.raises(ValueError, match="not a test runner"):
        run_tests(["ls"], cwd=tmp_path)


def test_every_panic_keeps_its_line_and_column() -> None:
    """libtest prints where each test panicked (``src/lib.rs:19:19``): a record keeps its
    first test's, as ``L`` and ``col`` when that is the test's own line, else as the
    origin (the test's own line is then ``L``, from its backtrace frame)."""
    meta = json.loads((RUNS / "cargo.meta.json").read_text(encoding="utf-8"))
    printed = (RUNS / meta["files"][0]).read_text(encoding="utf-8")
    panics = set(re.findall(r"panicked at ([\w/.]+):(\d+):(\d+)", printed))
    rows = _report(_recorded("cargo"))
    shown = {(r["file"], str(r["L"]), str(r["col"])) for r in rows if "origin" not in r}
    shown |= {tuple(r["origin"].split(":")) for r in rows if "origin" in r}
    assert len(rows) == len(shown) == 3
    assert shown <= panics
    assert ("src/lib.rs", "19", "19") in shown  # raised in project code: the origin
    assert ("src/lib.rs", "40", "9") in shown  # the test's own assertion: L and col


def test_node_keeps_an_assertion_diff_as_lines_and_an_es_module_path_relative(
    tmp_path: Path,
) -> None:
    """node's junit reporter writes the message attribute with its line breaks taken out
    (``deep-equal:+ actual - expected  {+   average: NaN,...``); the cause in the text has
    them. An ES module's frames name it by URL (``file:///...``)."""
    recorded = (RUNS / "node-deep-equal.results.xml").read_text(encoding="utf-8")
    copy = tmp_path / "results.xml"
    copy.write_text(recorded.replace("/tmp/agentout-web", str(tmp_path)), encoding="utf-8")
    run = readers.read_junit_files([copy], "node", tmp_path)
    deep = next(f for f in run.failures if f.test == "totals of nothing is zero")
    assert deep.message.split("\n") == [
        "Expected values to be strictly deep-equal:",
        "+ actual - expected",
        "",
        "  {",
        "+   average: NaN,",
        "-   average: 0,",
        "    sum: 0",
        "  }",
    ]
    assert "+   average: NaN,\n-   average: 0," in deep.diff
    rows = _report(run)
    assert {row["file"] for row in rows} == {"test/cart.test.js"}
    row = next(r for r in rows if r["test"] == "totals of nothing is zero")
    assert row["error"] == "AssertionError: Expected values to be strictly deep-equal:"
    assert (row["expected"], row["got"]) == ("{ sum: 0, average: 0 }", "{ sum: 0, average: NaN }")
    assert row["L"] == 14
