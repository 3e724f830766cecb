"""The benchmarks still run: each bench module on a tiny input, no timing asserted."""

from __future__ import annotations

import importlib
import importlib.util
import re
from pathlib import Path
from types import ModuleType

import pytest

from processes import without_agentout_settings

BENCH = Path(__file__).resolve().parent.parent / "bench"


@pytest.fixture(autouse=True)
def _bench_on_path(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(BENCH))


def test_exactness_identical_on_a_small_corpus(tmp_path: Path) -> None:
    bench_tokens = importlib.import_module("bench_tokens")
    samples = bench_tokens.corpus(scale=0.005)
    rows, identical = bench_tokens.exactness(samples, str(tmp_path))
    assert identical
    assert [row[0] for row in rows] == list(samples)
    assert all(row[-1] == "yes" for row in rows)


def test_mixed_text_is_the_size_asked_for() -> None:
    bench_tokens = importlib.import_module("bench_tokens")
    text = bench_tokens.mixed_text(20_000)
    assert 19_990 <= len(text.encode("utf-8")) <= 20_000
    assert len(bench_tokens.short_lines_text(5_000)) == 5_000
    assert len(bench_tokens.log_text(5_000)) == 5_000


def test_auto_is_never_larger_than_a_lossless_candidate() -> None:
    bench_formats = importlib.import_module("bench_formats")
    flat = bench_formats.flat_rows(15)
    nested = bench_formats.nested_objects(15)
    assert bench_formats.is_flat(flat)
    assert not bench_formats.is_flat(nested)
    for name, items in (("flat", flat), ("nested", nested)):
        data = bench_formats.DataSet(items, bench_formats.json.dumps(items))
        sizes = bench_formats.measure(name, data)
        assert sizes.items == 15
        assert sizes.auto <= min(sizes.lossless().values())
        assert sizes.compact < sizes.pretty
        assert sizes.auto_choice.startswith("auto:")


def test_help_imports_no_heavy_module() -> None:
    bench_startup = importlib.import_module("bench_startup")
    names = {name for name, _, _ in bench_startup.imported_modules()}
    assert "click" in names  # the parse found the imports at all
    assert not [n for n in names if n.split(".")[0] in bench_startup.HEAVY]


@pytest.fixture
def runner() -> ModuleType:
    spec = importlib.util.spec_from_file_location("_bench_runner", BENCH / "run.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_runner_reports_a_failing_module_and_goes_on(runner: ModuleType) -> None:
    section, _, ok = runner.run_one("bench_no_such_module")
    assert not ok
    assert "FAILED" in section
    assert "bench_tokens" in runner.modules([])
    assert runner.modules(["startup"]) == ["bench_startup"]
    with pytest.raises(SystemExit, match="no such benchmark"):
        runner.modules(["nope"])


def test_pytest_overhead_section_runs_and_times_the_plugin(tmp_path: Path) -> None:
    bench_pytest = importlib.import_module("bench_pytest")
    lines = bench_pytest._overhead(tmp_path, tmp_path / "spill", scale=0.005, rounds=1)
    text = "\n".join(lines)
    total = re.search(r"\*\*total\*\* \| \*\*([\d.]+)\*\*", text)
    assert total is not None
    assert float(total.group(1)) > 0
    # the tables load in the report's own process, whose CPU is shown apart
    assert re.search(r"of which loading the o200k tables here \| 0\.0 \|", text)
    assert re.search(r"another core: [1-9]\d* ms of CPU", text)
    assert "| no plugin |" in text
    assert "| --agent |" in text


def test_agent_reports_are_read_back_with_their_files() -> None:
    bench_pytest = importlib.import_module("bench_pytest")
    report = (
        "H agentout=1 total=3 included=3 omitted=0 truncated=false tokens=1 tokenizer=chars4\n"
        "S status=FAIL failed=3\n"
        "P file=tests/test_a.py failed=3\n"
        'R test=test_x L=3 error="KeyError: k" origin=src/m.py:4 also="test_y L9"\n'
        'R test="test_z[1]" L=12 error="assert 2 == 1" also="test_z[2]"\n'
        "P file=tests/test_b.py errors=1\n"
        'R L=1 when=collect error="ImportError: nope"\n'
    )
    assert bench_pytest._named(report) == {
        "tests/test_a.py::test_x",
        "tests/test_a.py::test_y",
        "tests/test_a.py::test_z[1]",
        "tests/test_a.py::test_z[2]",
        "tests/test_b.py",
    }
    assert bench_pytest._causes_complete(report) == (3, 3)
    bare = bench_pytest._bare(report)
    assert 0 < bare < bench_pytest.count(report)  # the same content, without the syntax


def test_each_report_is_set_against_its_minimal_report_written_by_hand() -> None:
    """Every minimal report in bench/minimal/ reads back (records format), and the bench
    finds the same facts in it as in itself with its run's time and full report filled in."""
    bench_pytest = importlib.import_module("bench_pytest")
    names = sorted(p.stem for p in bench_pytest.MINIMAL.glob("*.records"))
    assert names == [
        "failing_suite",
        "heldout_suite",
        "jest_junit",
        "more_itertools",
        "textwrap",
    ]
    for name in names:
        template = (bench_pytest.MINIMAL / f"{name}.records").read_text(encoding="utf-8")
        run = template.replace("<time>", "1.25s").replace("<full>", "/tmp/s/test-1.txt")
        assert bench_pytest._minimal(name, run) == run  # time and path taken from the run
        lines = "\n".join(bench_pytest._against_minimal(name, run))
        assert "**1.00 x**" in lines
        assert "same counts: yes" in lines


def test_pytest_counts_are_checked_against_pytests_summary(tmp_path: Path) -> None:
    bench_pytest = importlib.import_module("bench_pytest")
    text = "\n".join(bench_pytest._counts_check(tmp_path, tmp_path / "spill", suites=2))
    assert "2 generated suites" in text
    assert "0 mismatches" in text


def test_pytest_fixed_costs_are_measured() -> None:
    bench_pytest = importlib.import_module("bench_pytest")
    text = "\n".join(bench_pytest._fixed_costs(rounds=1))
    imported = re.search(r"([\d.]+) ms of agentout modules' own import time", text)
    assert imported is not None
    assert 0 < float(imported.group(1)) < 1000
    assert re.search(r"another Python thread runs at \d+% of its speed", text)


def test_shell_report_counts_facts_and_tokens_from_recorded_output() -> None:
    """bench_shell's report on recorded fixtures: a copy keeps every fact at the same cost,
    an empty output loses them all (no tools needed)."""
    import sys

    bench_shell = importlib.import_module("bench_shell")
    from shell.capture import Captured
    from shell.cases import BENCH

    tests_dir = str(Path(__file__).resolve().parent)
    sys.path.insert(0, tests_dir)
    try:
        from command_fixtures import Fixture, fixtures
    finally:
        sys.path.remove(tests_dir)
    recorded: dict[str, Fixture] = {f.name: f for f in fixtures()}
    measured = []
    for case in BENCH[:3]:
        raw = Captured(recorded[case.name].output, recorded[case.name].exit, 0.01)
        empty = Captured(b"", raw.exit, 0.2)
        measured.append(bench_shell.Measured.of(case, raw, raw, case.argv, empty))
    facts = sum(len(m.facts) for m in measured)
    assert facts > 0
    assert all(m.rtk_lost == () and m.rtk_tokens == m.raw_tokens for m in measured)
    assert all(len(m.ours_lost) == len(m.facts) and m.ours_tokens == 0 for m in measured)
    timed = [bench_shell.Timed(BENCH[0], (0.010, 0.012, 0.011), (0.02,) * 3, (0.1, 0.1, 0.2))]
    text = bench_shell.section(measured, timed, ["`x` skipped: no tool"], [])
    assert "Median time agentout adds to a small command: **90.0 ms**" in text
    without_rtk, ok = bench_shell.timing_table([bench_shell.Timed(BENCH[0], (0.01,), (), (0.03,))])
    assert "| `git-status` | 10.0 ms | n/a | 30.0 ms | n/a | 20.0 ms |" in without_rtk
    assert ok
    assert f"agentout **0/{facts:,} (0%)**" in text
    assert f"rtk {facts:,}/{facts:,} (100%)" in text
    assert "`x` skipped: no tool" in text
    assert "All targets met: FAIL" in text


def test_shell_cases_are_chosen_by_name(monkeypatch: pytest.MonkeyPatch) -> None:
    bench_shell = importlib.import_module("bench_shell")
    monkeypatch.setenv(bench_shell.CASES_ENV, "ruff, git-status")
    assert [c.name for c in bench_shell.selected()] == ["ruff", "git-status"]
    monkeypatch.setenv(bench_shell.CASES_ENV, "git-status,nope")
    with pytest.raises(SystemExit, match="no such case: nope"):
        bench_shell.selected()
    monkeypatch.delenv(bench_shell.CASES_ENV)
    assert len(bench_shell.selected()) == len(bench_shell.BENCH)


def test_store_bench_runs_agentout_and_samples_its_memory(tmp_path: Path) -> None:

    bench_store = importlib.import_module("bench_store")
    source = tmp_path / "server.log"
    lines = bench_store.write_log(source, 50_000)
    assert lines == sum(1 for _ in source.open())
    env = without_agentout_settings()
    env.update(AGENTOUT_SPILL_DIR=str(tmp_path / "spill"), AGENTOUT_LEDGER="0")
    done = bench_store.run_once(env, source)
    assert re.fullmatch(r"[0-9a-f]{16}", done["ref"])
    assert done["seconds"] > 0


def test_update_replaces_only_the_sections_rerun() -> None:
    run = importlib.import_module("run")
    written = (
        "# Benchmarks\n\n- Date: then\n\n<!-- bench_a -->\n## A\n\nold a\n\n"
        "<!-- bench_b -->\n## B\n\nold b\n"
    )
    once = run.updated(written, {"bench_b": "## B\n\nnew b"})
    assert "old a" in once
    assert "new b" in once
    assert "old b" not in once
    assert once.count("- `bench_b` rerun on ") == 1
    twice = run.updated(once, {"bench_b": "## B\n\nnewer b", "bench_c": "## C"})
    assert twice.count("- `bench_b` rerun on ") == 1  # one line per module, the latest
    assert twice.index("<!-- bench_a -->") < twice.index("<!-- bench_b -->")
    assert twice.index("<!-- bench_b -->") < twice.index("<!-- bench_c -->")
    assert "newer b" in twice
    assert "new b\n" not in twice
    assert "old a" in twice


def test_tasks_token_section_runs_make_check(tmp_path: Path) -> None:
    import shutil

    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    bench_tasks = importlib.import_module("bench_tasks")
    text, ok = bench_tasks.tokens(tmp_path, bench_tasks._env(tmp_path / ".private"))
    assert ok
    assert "| `agentout run -- make check` | 2 |" in text


def test_run_bench_reads_the_raw_envelope(tmp_path: Path) -> None:
    bench_run = importlib.import_module("bench_run")
    from agentout.store.spill import SpillStore

    lines = ["a", "b", "error: x", "c", "d"]
    shown = "[… 2 lines · agentout show 0123456789abcdef --lines 1:2]\nerror: x\nwarning ×3\nd"
    assert bench_run.kept_by_agentout(shown, lines) == {3, 5}
    text, ok = bench_run.error_lines(SpillStore(tmp_path))
    assert ok, text


def test_throughput_bench_finds_the_stored_copy(tmp_path: Path) -> None:
    import os

    bench = importlib.import_module("bench_throughput")
    env = {**os.environ, "AGENTOUT_SPILL_DIR": str(tmp_path), "AGENTOUT_LEDGER": "0"}
    argv = ["seq", "1", "300000"]
    wall, rss, out = bench._timed([*bench._agentout(), "run", "--", *argv], env)
    assert wall > 0
    assert rss > 1024
    kept = bench._stored(tmp_path, out)
    assert kept is not None
    assert bench._file_digest(kept) == bench._digest(argv)
