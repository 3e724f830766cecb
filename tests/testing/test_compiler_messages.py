"""``cargo test`` builds before it runs: the compiler's warnings are part of the report.

runs/cargo-warnings.{stdout,stderr} were recorded from a real ``cargo test`` of a crate
with two unused variables and two failing tests (stdout the libtest JSON that
``agentout test`` asks for, stderr what cargo printed while it built).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from agentout.reducers.facts import extract, lost
from agentout.reducers.lint import compiler_messages
from agentout.sources.testing.model import Diagnostic, Run, run_from_json, run_to_json
from agentout.sources.testing.readback import failures_of
from agentout.sources.testing.report import render
from agentout.sources.testing.runners import readers

RUNS = Path(__file__).resolve().parent / "runs"
STDOUT = (RUNS / "cargo-warnings.stdout").read_text(encoding="utf-8")
STDERR = (RUNS / "cargo-warnings.stderr").read_text(encoding="utf-8")
# What an agent needs of a rustc warning: its message and where it is, line and column.
WARNING = r"^warning: (.+)\n\s*--> (\S+?):(\d+):(\d+)$"


def _run() -> Run:
    return readers.read_libtest(STDOUT, "cargo", Path("."), STDERR)


def test_every_warning_is_read_once_with_its_location() -> None:
    run = _run()
    wanted = [(f"{path}:{line}:{col}", msg) for msg, path, line, col in _groups(STDERR)]
    assert [(d.at, d.message) for d in run.diagnostics] == wanted
    assert len(wanted) == 2  # "generated 2 warnings" and the duplicates line are no warnings
    assert {d.severity for d in run.diagnostics} == {"warning"}
    assert run.counts.warnings == 2
    assert (run.counts.passed, run.counts.failed) == (3, 2)


def test_the_report_keeps_every_warning_after_the_failures() -> None:
    text = render(_run(), max_tokens=5000)
    facts = extract(WARNING, STDERR, "warning")
    assert len(facts) == 2
    assert lost(facts, text) == []
    lines = text.splitlines()
    w_lines = [i for i, line in enumerate(lines) if line.startswith("W ")]
    r_lines = [i for i, line in enumerate(lines) if line.startswith("R ")]
    assert len(w_lines) == 2
    assert max(r_lines) < min(w_lines)
    assert 'W at=src/lib.rs:4:9 msg="unused variable: `scale`"' in lines
    assert lines[1].startswith("S status=FAIL passed=3 failed=2 warnings=2 ")
    assert len(failures_of(text)) == 2  # W records are not failures


def test_a_tight_budget_gives_warnings_up_before_failures() -> None:
    whole = render(_run(), max_tokens=5000)
    without = whole.count("\nW ")
    assert without == 2
    seen = set()
    for budget in range(60, 400, 7):
        text = render(_run(), max_tokens=budget)
        shown_failures = len(failures_of(text))
        seen.add((shown_failures, text.count("\nW ")))
        if "\nW " in text:
            assert shown_failures == 2  # a warning is shown only once every failure is
    assert {(2, 0), (2, 2)} <= seen  # budgets that leave the warnings out, and that show them


def test_compiler_errors_say_their_code() -> None:
    text = "error[E0308]: mismatched types\n --> src/a.rs:3:5\n  |\n3 | x\n"
    assert compiler_messages(text) == [("src/a.rs:3:5", "error[E0308]", "mismatched types")]
    error = Diagnostic("src/a.rs:3:5", "mismatched types", "error[E0308]")
    run = Run(_run().counts, diagnostics=(error,))
    assert 'E at=src/a.rs:3:5 code=E0308 msg="mismatched types"' in render(run).splitlines()


def test_diagnostics_survive_the_plugins_json() -> None:
    run = _run()
    assert run_from_json(run_to_json(run)) == run


@pytest.mark.parametrize(
    "stderr",
    [
        "",
        "\x00\x01binary\xff\n" * 50,
        "warning: no location follows\n\nerror: could not compile `x`\n",
        "warning: " + "x" * 1_000_000 + "\n --> src/a.rs:1:1\n",
        " --> src/a.rs:1:1\n" * 1000,  # arrows with no message above them
    ],
)
def test_odd_compiler_output_reads_without_error(stderr: str) -> None:
    run = readers.read_libtest(STDOUT, "cargo", Path("."), stderr)
    text = render(run, max_tokens=2000)
    assert text.splitlines()[1].startswith("S status=FAIL")
    assert len(failures_of(text)) == 2
    assert all(len(d.message) <= 1_000_000 for d in run.diagnostics)
    assert int(text.split(" tokens=", 1)[1].split()[0]) <= 2000


def _groups(text: str) -> list[tuple[str, ...]]:
    return [fact.values for fact in extract(WARNING, text, "warning")]
