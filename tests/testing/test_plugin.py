"""The pytest plugin end to end, with pytester: real pytest runs, in process."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest
from tests.testing.conftest import (
    FAST,
    error_type,
    failures,
    full_report,
    kinds,
    line_of,
    run,
    values_of,
)

from agentout.formats.records import parse
from agentout.sources.testing.readback import named_tests
from agentout.tokens import count

FAILING = """
import pytest

def helper(rates, key):
    return rates[key.upper()]

def test_passes():
    assert 1 + 1 == 2

def test_compare():
    total = 50
    assert total == 200

@pytest.mark.parametrize("n", [1, 2, 3])
def test_param(n):
    assert n * 10 == 5

def test_cascade_a():
    helper({"de": 19}, "de")

def test_cascade_b():
    helper({"de": 19}, "fr")
"""


def run_agent(pytester: pytest.Pytester, *args: str) -> tuple[pytest.RunResult, str]:
    result = run(pytester, "--agent", *args)
    return result, result.stdout.str() + ("\n" if result.stdout.str() else "")


def test_inactive_by_default_pytest_report_untouched(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_inactive=FAILING)
    result = run(pytester)
    assert result.ret == 1
    result.stdout.fnmatch_lines(["*short test summary info*", "*6 failed, 1 passed*"])
    assert "H agentout=" not in result.stdout.str()


def test_agent_report_replaces_the_terminal_report(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_replaced=FAILING)
    result, out = run_agent(pytester)
    assert result.ret == 1  # pytest's exit status, unchanged
    lines = out.strip().splitlines()
    assert lines[0].startswith("H agentout=1 ")
    assert lines[1].startswith("S status=FAIL ")
    assert lines[-1].startswith("F full=")
    assert "short test summary" not in out
    assert "====" not in out
    assert "passed in" not in out
    parse(out)  # every line is a well-formed record


def test_report_fields(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_fields=FAILING)
    _, out = run_agent(pytester)
    status = kinds(out, "S")[0]
    assert (status["passed"], status["failed"], status["causes"]) == (1, 6, 3)
    assert "files" not in status  # the P lines name them
    rows = failures(out)
    compare = next(r for r in rows if r.get("test") == "test_compare")
    # pytest's own error line, which shows both values: no expected/got beside it, and
    # no "AssertionError: " before the statement (pytest leaves it out too)
    assert (compare["L"], compare["error"]) == (
        line_of(FAILING, "total == 200"),
        "assert 50 == 200",
    )
    assert "expected" not in compare
    param = next(r for r in rows if str(r.get("test")).startswith("test_param"))
    # pytest's node ids, whole: what an agent gives pytest back to run one case again
    assert (param["test"], param["also"]) == ("test_param[1]", "test_param[2], test_param[3]")
    assert named_tests(param) == ["test_param[1]", "test_param[2]", "test_param[3]"]
    assert param["L"] == line_of(FAILING, "n * 10 == 5")
    cascade = next(r for r in rows if error_type(r) == "KeyError")
    a, b = line_of(FAILING, '"de")'), line_of(FAILING, '"fr")')
    assert (cascade["test"], cascade["L"]) == ("test_cascade_a", a)
    assert cascade["also"] == f"test_cascade_b L{b}"
    # the helper's line, not the test's
    assert cascade["origin"] == f"test_fields.py:{line_of(FAILING, 'key.upper()')}"


def test_origin_is_project_code_never_the_standard_library(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        mylib="""
import json

def load(text):
    return json.loads(text)
""",
        test_origin="""
import mylib

def test_bad_json():
    mylib.load("{not json")
""",
    )
    _, out = run_agent(pytester)
    row = failures(out)[0]
    assert error_type(row) == "json.decoder.JSONDecodeError"
    assert row["origin"] == "mylib.py:4"  # innermost project frame, below it is json/
    assert row["L"] == 4


def test_exit_codes_are_pytests(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_ok="def test_ok():\n    pass\n")
    result, out = run_agent(pytester)
    assert result.ret == 0
    assert kinds(out, "S")[0]["status"] == "PASS"
    assert kinds(out, "F") == [{"status": "PASS"}]  # nothing left out: no full report
    result, out = run_agent(pytester, "-k", "nothing_matches")
    assert result.ret == 5
    assert kinds(out, "S")[0]["exit"] == 5


@pytest.mark.parametrize(
    "variable", ["CLAUDECODE", "AI_AGENT", "CURSOR_AGENT", "GEMINI_CLI", "CODEX_SANDBOX"]
)
def test_detected_agent_turns_it_on(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, variable: str
) -> None:
    pytester.makepyfile(test_detect="def test_ok():\n    pass\n")
    monkeypatch.setenv(variable, "1")
    assert run(pytester).stdout.str().startswith("H agentout=1")


def test_forced_off_and_no_agent_win_over_detection(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makepyfile(test_off="def test_ok():\n    pass\n")
    monkeypatch.setenv("CLAUDECODE", "1")
    assert "H agentout" not in run(pytester, "--no-agent").stdout.str()
    monkeypatch.setenv("AGENTOUT_AGENT", "0")
    assert "H agentout" not in run(pytester).stdout.str()


@pytest.mark.parametrize(
    ("how", "where"),
    [("cli", "--agent-limit: "), ("env", "AGENTOUT_LIMIT: "), ("ini", "agent_limit (ini): ")],
)
def test_bad_setting_is_a_usage_error_naming_its_source(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, how: str, where: str
) -> None:
    pytester.makepyfile(test_bad="def test_ok():\n    pass\n")
    args = ["--agent"]
    if how == "cli":
        args.append("--agent-limit=many")
    elif how == "env":
        monkeypatch.setenv("AGENTOUT_LIMIT", "many")
    else:
        pytester.makeini("[pytest]\nagent_limit = many\n")
    result = run(pytester, *args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert f"{where}expected a whole number, got 'many'" in result.stderr.str()


def test_ini_settings_apply(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\nagent = true\nagent_format = json\n")
    pytester.makepyfile(test_ini="def test_ok():\n    pass\n")
    data = json.loads(run(pytester).stdout.str())
    assert data["records"][0]["status"] == "PASS"


def test_collection_setup_and_teardown_errors(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_broken="import no_such_module\n",
        test_fixtures="""
import pytest

@pytest.fixture
def db():
    raise RuntimeError("database is down")

@pytest.fixture
def leaky():
    yield
    raise OSError("could not close")

def test_setup(db):
    pass

def test_teardown(leaky):
    pass
""",
    )
    result, out = run_agent(pytester, "--continue-on-collection-errors")
    assert result.ret == 1
    status = kinds(out, "S")[0]
    assert (status["errors"], status["passed"]) == (3, 1)  # test_teardown's call passed
    rows = {r["file"]: r for r in failures(out) if r["file"] == "test_broken.py"}
    assert rows["test_broken.py"]["when"] == "collect"
    assert (
        rows["test_broken.py"]["error"] == "ModuleNotFoundError: No module named 'no_such_module'"
    )
    assert rows["test_broken.py"]["L"] == 1
    by_when = {r["when"]: r for r in failures(out) if r["file"] == "test_fixtures.py"}
    setup = by_when["setup"]
    # raised in the test file itself: L is the raising line, no separate origin
    assert (error_type(setup), setup["L"], "origin" in setup) == ("RuntimeError", 5, False)
    assert error_type(by_when["teardown"]) == "OSError"


def test_collection_error_interrupts_like_pytest(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_broken="import no_such_module\n", test_fine="def test_ok():\n    pass\n"
    )
    result, out = run_agent(pytester)
    assert result.ret == pytest.ExitCode.INTERRUPTED
    status = kinds(out, "S")[0]
    assert status["status"] == "FAIL"
    assert status["exit"] == 2
    assert status["errors"] == 1


def test_outcomes_xfail_xpass_skip_and_strict_xpass(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_outcomes="""
import pytest

@pytest.mark.xfail(reason="known")
def test_xfail():
    assert False

@pytest.mark.xfail(reason="fixed?")
def test_xpass():
    pass

@pytest.mark.xfail(reason="must fail", strict=True)
def test_strict():
    pass

@pytest.mark.skip(reason="later")
def test_skip():
    pass
"""
    )
    result, out = run_agent(pytester)
    assert result.ret == 1
    status = kinds(out, "S")[0]
    assert (status["xfailed"], status["xpassed"], status["skipped"], status["failed"]) == (
        1,
        1,
        1,
        1,
    )
    (row,) = failures(out)
    assert (row["test"], row["error"]) == ("test_strict", "XPASS(strict): must fail")


def test_subtests_are_listed_under_their_test(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_sub="""
def test_amounts(subtests):
    for n in range(5):
        with subtests.test(n=n):
            assert n % 2 == 0
"""
    )
    result, out = run_agent(pytester)
    assert result.ret == 1
    status = kinds(out, "S")[0]
    assert status["subtests_passed"] == 3
    (row,) = failures(out)  # the parent's "contains 2 failed subtests" is not repeated
    assert row["test"] == "test_amounts"
    assert row["subtests"] == ["(n=1)", "(n=3)"]
    # the line shows the expression; got, the value it was (expected is in the line)
    assert (row["error"], row["got"]) == ("assert (1 % 2) == 0", 1)
    assert "expected" not in row
    assert values_of(row) == ("0", "1")


MIXED = """
import pytest

@pytest.fixture
def broken():
    raise RuntimeError("no db")

def test_pass():
    pass

def test_fail():
    assert 1 == 2

def test_error(broken):
    pass

@pytest.mark.skip(reason="later")
def test_skip():
    pass

@pytest.mark.xfail(reason="known")
def test_xfail():
    assert 0

@pytest.mark.xfail(reason="fixed?")
def test_xpass():
    pass

def test_subs(subtests):
    for n in range(4):
        with subtests.test(n=n):
            assert n != 2

def test_subs_then_own(subtests):
    with subtests.test(n=9):
        assert False
    assert "own" == "failure"
"""


@pytest.mark.parametrize("terminal", [True, False], ids=["terminal", "no-terminal"])
def test_counts_are_pytests_own(pytester: pytest.Pytester, terminal: bool) -> None:
    """Every outcome counted as pytest counts it, with or without its terminal reporter;
    pytest adds failed subtests to "failed", the report names them apart."""
    pytester.makepyfile(test_mix=MIXED)
    own = run(pytester).parseoutcomes()
    _, out = run_agent(pytester, *([] if terminal else ["-p", "no:terminal"]))
    status = kinds(out, "S")[0]
    assert status["subtests_failed"] == 2
    status["failed"] += status.pop("subtests_failed")
    # pytest lists passed subtests only at some verbosities: they are checked on their own
    assert {k: v for k, v in own.items() if k not in ("seconds", "subtests passed")} == {
        k: v
        for k, v in status.items()
        if k not in ("status", "files", "causes", "time", "subtests_passed")
    }
    assert status["subtests_passed"] == 3
    listed = [row["test"] for row in failures(out)]  # the test's own failure is kept too
    assert listed == [
        "test_fail",
        "test_error",
        "test_subs (n=2)",
        "test_subs_then_own (n=9)",
        "test_subs_then_own",
    ]


def test_a_comparison_from_an_earlier_test_is_not_reused(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_stale="""
import pytest

def test_raises_on_a_comparison():
    with pytest.raises(AssertionError):
        assert [1, 2] == [1, 3]

def test_plain_assert():
    flag = False
    assert flag
"""
    )
    _, out = run_agent(pytester)
    (row,) = failures(out)
    assert row["test"] == "test_plain_assert"
    assert "expected" not in row
    assert "got" not in row


def test_unicode_parametrize_ids_keep_pytests_node_ids(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_uni="""
import pytest

@pytest.mark.parametrize("word", ["crème", "緑茶", "plain"])
def test_word(word):
    assert word == "x"
"""
    )
    _result, out = run_agent(pytester)
    (row,) = failures(out)
    # pytest's own node ids
    assert named_tests(row) == [
        "test_word[cr\\xe8me]",
        "test_word[\\u7dd1\\u8336]",
        "test_word[plain]",
    ]
    full = full_report(out).read_text(encoding="utf-8")
    assert "test_uni.py::test_word[cr\\xe8me]" in full


def test_captured_output_last_lines_first(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_noisy="""
def test_noisy():
    for i in range(100):
        print(f"step {i}")
    assert False
"""
    )
    _, out = run_agent(pytester)
    (row,) = failures(out)
    # 101 lines ("[stdout call]" and 100 steps): the last 5, and how many came before
    assert row["out"].splitlines() == ["… 96 lines before"] + [f"step {i}" for i in range(95, 100)]


@pytest.mark.parametrize("focus", ["summary", "critical", "first-failure", "failures", "debug"])
def test_focus_modes(pytester: pytest.Pytester, focus: str) -> None:
    pytester.makepyfile(
        test_focus_a=FAILING, test_focus_b="def test_b():\n    raise ValueError('boom')\n"
    )
    result, out = run_agent(pytester, f"--agent-focus={focus}")
    assert result.ret == 1
    rows = failures(out)
    types = {error_type(r) for r in rows if "error" in r}
    if focus == "summary":
        assert rows == []
        assert {p["file"]: p["failed"] for p in kinds(out, "P")} == {
            "test_focus_a.py": 6,
            "test_focus_b.py": 1,
        }
    elif focus == "critical":
        assert "AssertionError" not in types
        assert {"KeyError", "ValueError"} <= types
    elif focus == "first-failure":
        assert sorted(r["file"] for r in rows) == ["test_focus_a.py", "test_focus_b.py"]
        assert all("also" not in r for r in rows)
    else:
        assert {"AssertionError", "KeyError", "ValueError"} <= types
        assert all(("src" in r) == (focus == "debug") for r in rows if "error" in r)


def test_formats_json_and_text(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_fmt=FAILING)
    _, records_out = run_agent(pytester, "--agent-format=records")
    _, out = run_agent(pytester, "--agent-format=json")
    data = json.loads(out)
    assert data["records"][0]["_kind"] == "S"
    assert data["summary"]["full"]
    # the same failures, each with its file, read back from either format
    assert failures(out) == failures(records_out)
    assert {row["file"] for row in failures(out)} == {"test_fmt.py"}
    _, out = run_agent(pytester, "--agent-format=text")
    assert out.startswith("agentout ·")
    assert "test_compare" in out


def test_budget_keeps_the_report_within_the_limit_and_the_rest_in_the_full_report(
    pytester: pytest.Pytester, clean_env: Path
) -> None:
    pytester.makepyfile(
        test_many="""
import pytest

@pytest.mark.parametrize("n", range(60))
def test_many(n):
    raise ValueError(f"case {n} broke in its own way {n}" * (n % 3 + 1) + str(n % 7) * n)
"""
    )
    _, out = run_agent(pytester, "--agent-limit=300")
    assert count(out) <= 300
    header = kinds(out, "H")[0]
    assert header["truncated"] is True
    assert header["tokens"] == count(out)
    full = full_report(out)
    assert full.parent == clean_env
    assert stat.S_IMODE(os.stat(full).st_mode) == 0o600
    text = full.read_text(encoding="utf-8")
    assert all(f"test_many.py::test_many[{n}]" in text for n in range(60))
    assert "raise ValueError" in text  # full tracebacks


def test_stop_after_first_failure_is_said(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_x=FAILING)
    result, out = run_agent(pytester, "-x")
    assert result.ret == 1
    status = kinds(out, "S")[0]
    assert status["failed"] == 1
    assert "stopping after 1 failures" in status["stopped"]


def test_keyboard_interrupt_in_a_test(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_ctrl_c="def test_a():\n    pass\n\ndef test_b():\n    raise KeyboardInterrupt\n"
    )
    # in process: keep pytester from passing the inner Ctrl-C on to this run
    result = pytester.runpytest_inprocess(*FAST, "--agent", no_reraise_ctrlc=True)
    out = result.stdout.str()
    assert result.ret == pytest.ExitCode.INTERRUPTED
    status = kinds(out, "S")[0]
    assert status["interrupted"] is True
    assert status["passed"] == 1
    assert status["exit"] == 2


def test_pathological_failures_still_render_within_budget(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_weird="""
class Weird:
    def __repr__(self):
        raise RuntimeError("no repr for you")
    def __eq__(self, other):
        return False

class BadStr(Exception):
    def __str__(self):
        raise RuntimeError("no str either")

def test_repr_raises():
    assert Weird() == 1

def test_str_raises():
    raise BadStr()

def test_huge():
    raise ValueError("x" * 10_000_000)

def test_binary():
    assert b"\\x00\\xff\\x1b[31m" * 50 == b""

def test_surrogate():
    raise ValueError("bad \\udcff byte and \\x00 nul and \\x1b[31m escape")
"""
    )
    result, out = run_agent(pytester, "--agent-limit=1000")
    assert result.ret == 1
    assert count(out) <= 1000
    rows = {r["test"]: r for r in failures(out)}
    assert set(rows) == {
        "test_repr_raises",
        "test_str_raises",
        "test_huge",
        "test_binary",
        "test_surrogate",
    }
    assert values_of(rows["test_repr_raises"])[1].startswith("<Weird instance at 0x")
    assert rows["test_str_raises"]["error"] == "test_weird.BadStr: <str() raised RuntimeError>"
    assert len(rows["test_huge"]["error"]) < 200
    assert "\\udcff" in rows["test_surrogate"]["error"]


def test_no_terminal_plugin_still_reports(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_quiet="def test_ok():\n    pass\n")
    result, out = run_agent(pytester, "-p", "no:terminal")
    assert result.ret == 0
    assert kinds(out, "S")[0]["status"] == "PASS"


def test_collect_only_keeps_pytests_own_output(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_listed="def test_ok():\n    pass\n")
    _result, out = run_agent(pytester, "--collect-only", "-q")
    assert "test_listed.py::test_ok" in out
    assert "H agentout" not in out
    _result, out = run_agent(pytester, "--help")
    assert "--agent-focus=FOCUS" in out
    assert "H agentout" not in out


def test_same_run_same_bytes_but_the_time(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_det=FAILING)

    def stable(text: str) -> str:
        return "\n".join(
            line for line in text.splitlines() if not line.startswith(("S ", "F ", "H "))
        )

    first, second = run_agent(pytester)[1], run_agent(pytester)[1]
    assert stable(first) == stable(second)
    assert stable(first)


def test_junitxml_beside_the_report_keeps_full_tracebacks(pytester: pytest.Pytester) -> None:
    """The report stops pytest's own summary from formatting tracebacks again; the other
    outputs of the run are made before that and keep theirs."""
    import xml.etree.ElementTree as ET

    pytester.makepyfile(test_xml=FAILING)
    run_agent(pytester, "--junitxml=out.xml")
    reported = ET.parse(pytester.path / "out.xml").getroot().iter("failure")
    cascade = next(f for f in reported if "KeyError" in (f.text or ""))
    assert "def helper(rates, key):" in (cascade.text or "")  # the frame's source: a full traceback
    assert "return rates[key.upper()]" in (cascade.text or "")


def test_subtests_of_parametrized_cases_keep_whole_names(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_mix="""
import pytest

@pytest.mark.parametrize("n", [1, 2])
def test_x(n, subtests):
    with subtests.test(i=n):
        assert n == 0
"""
    )
    _, out = run_agent(pytester)
    (row,) = failures(out)
    assert (row["test"], row["also"]) == ("test_x[1] (i=1)", "test_x[2] (i=2)")
    assert named_tests(row) == ["test_x[1] (i=1)", "test_x[2] (i=2)"]
