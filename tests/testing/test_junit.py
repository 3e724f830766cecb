"""JUnit XML from each runner, and bad input, through the library and `agentout test`."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from click.testing import CliRunner
from tests.testing.conftest import error_type, failures, kinds, values_of

from agentout.cli.main import cli
from agentout.errors import InputError
from agentout.sources.testing.junit import read_junit
from agentout.sources.testing.readback import named_tests
from agentout.sources.testing.report import render
from agentout.tokens import count

SAMPLES = Path(__file__).parents[2] / "examples" / "junit"


def _declared(path: Path) -> tuple[int, int, int]:
    """(tests, failures, errors) as the file itself declares them, summed over suites."""
    root = ET.parse(path).getroot()
    suites = [root] if root.tag == "testsuite" else root.findall(".//testsuite")
    return tuple(  # type: ignore[return-value]
        sum(int(s.get(k, 0)) for s in suites) for k in ("tests", "failures", "errors")
    )


@pytest.mark.parametrize("name", sorted(p.name for p in SAMPLES.glob("*.xml")))
def test_counts_agree_with_what_each_file_declares(name: str) -> None:
    run = read_junit([str(SAMPLES / name)])
    tests, failures, errors = _declared(SAMPLES / name)
    counts = run.counts
    # pytest counts the subtests that passed, which its XML does not list; it lists the
    # failed ones, and a test whose subtests failed once more ("contains 2 failed
    # subtests"), which the report counts but does not list again
    unlisted, parents = (3, 1) if name == "pytest.xml" else (0, 0)
    listed = (counts.passed, counts.failed, counts.errors, counts.skipped, counts.xfailed)
    assert sum(listed) + counts.subtests_failed == tests - unlisted
    assert (counts.failed + counts.subtests_failed, counts.errors) == (failures, errors)
    assert len(run.failures) == failures + errors - parents


def _rows(name: str) -> list[dict[str, object]]:
    return failures(render(read_junit([str(SAMPLES / name)]), max_tokens=5000))


def test_surefire() -> None:
    rows = _rows("surefire-TEST-com.example.shop.CartTest.xml")
    assertion = rows[0]
    assert (assertion["test"], assertion["L"]) == ("subtotalCountsQuantity", 31)
    assert assertion["error"] == (  # JUnit's line shows both values: no expected/got
        "org.opentest4j.AssertionFailedError: "
        "subtotal of 4 apples ==> expected: <200> but was: <50>"
    )
    assert "expected" not in assertion
    npe = rows[1]
    assert named_tests(npe) == ["taxForGermany", "totalIncludesTax"]  # one root cause
    assert (npe["L"], npe["also"]) == (38, "totalIncludesTax L45")
    assert npe["origin"] == "com/example/shop/Money.java:18"  # not a java.* frame
    assert "country=DE" in str(npe["out"])


def test_go_junit_report() -> None:
    rows = {r["file"]: r for r in _rows("go-junit-report.xml")}
    cart = rows["example.com/shop/cart/cart_test.go"]
    assert named_tests(cart) == [
        "TestSubtotalCountsQuantity",
        "TestSubtotalCountsQuantity/three_teas",
    ]
    assert (cart["L"], values_of(cart)) == (21, ("200", "50"))
    panic = next(r for r in rows.values() if error_type(r) == "panic")
    # not testing.go; absolute paths relative to their common root
    assert (panic["file"], panic["origin"]) == ("inventory_test.go", "inventory.go:27")
    assert panic["L"] == 19
    testify = rows["example.com/shop/money/money_test.go"]
    assert (testify["expected"], testify["got"]) == ("0.05", "0.5")  # not on its first line


def test_jest_junit() -> None:
    rows = _rows("jest-junit.xml")
    assert (rows[0]["expected"], rows[0]["got"], rows[0]["L"]) == (200, 50, 18)
    assert rows[1]["error"] == "TypeError: Cannot read properties of undefined (reading 'rate')"
    assert rows[1]["origin"] == "money.js:9"  # relative to the files' common root
    # no expected/got: the diff, its changed lines without jest's legend over them
    assert rows[2]["diff"] == '-   "2 x Apple: 1.00",\n+   "2 x Apple: 1.0",'


def test_cargo_nextest() -> None:
    rows = _rows("nextest-junit.xml")
    assert rows[0]["error"] == "panic: assertion `left == right` failed: subtotal of 4 apples"
    assert (rows[0]["expected"], rows[0]["got"]) == (200, 50)
    assert rows[0]["origin"] == "src/cart.rs:88"
    assert rows[1]["error"] == "panic: called `Option::unwrap()` on a `None` value"
    assert "out" not in rows[0]  # libtest's own chatter and the repeated panic are dropped


def test_pytest_junitxml_matches_the_live_plugins_report() -> None:
    rows = _rows("pytest.xml")
    by_test = {r.get("test"): r for r in rows}
    cascade = next(r for r in rows if r.get("error") == "KeyError: 'DE'")
    assert cascade["origin"] == "src/shop/money.py:12"
    assert by_test["test_coupon_with_dash"]["file"] == "tests/test_discounts.py"
    setup = next(r for r in rows if r.get("when") == "setup")
    assert setup["file"] == "tests/test_orders.py"
    assert setup["error"] == "sqlite3.OperationalError: unable to open database file"
    collect = next(r for r in rows if r.get("when") == "collect")
    assert (collect["file"], error_type(collect)) == (
        "tests/test_reports.py",
        "ModuleNotFoundError",
    )


BOMB = """<?xml version="1.0"?>
<!DOCTYPE lolz [
 <!ENTITY lol "lol">
 <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
]>
<testsuites><testsuite name="&lol3;"/></testsuites>
"""


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("", "empty file, expected JUnit XML"),
        ("  \n", "empty file, expected JUnit XML"),
        ("<testsuites><testsuite>", "1:24: not well-formed XML (no element found)"),
        (
            "<testsuites>\n  <testcase name='a'>\n</testsuites>",
            "3:3: not well-formed XML (mismatched tag)",
        ),
        (BOMB, "refusing XML that declares entities or loads external ones (EntitiesForbidden)"),
        ("<html><body>hi</body></html>", "not JUnit XML: the root element is <html>"),
        ("\x00\xff binary", "not well-formed XML"),
    ],
)
def test_bad_input_names_the_file_and_exits_2(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "report.xml"
    path.write_bytes(content.encode("latin-1"))
    with pytest.raises(InputError) as error:
        read_junit([str(path)])
    assert str(error.value).startswith(f"{path}:")
    assert message in str(error.value)
    result = CliRunner().invoke(cli, ["test", str(path)])
    assert result.exit_code == 2
    assert result.output.startswith(f"agentout: {path}:")
    assert "Traceback" not in result.output


def test_external_entity_is_never_loaded(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("TOPSECRET")
    path = tmp_path / "xxe.xml"
    path.write_text(
        f'<?xml version="1.0"?><!DOCTYPE x [<!ENTITY s SYSTEM "file://{secret}">]>'
        '<testsuite name="&s;"><testcase name="a"/></testsuite>'
    )
    result = CliRunner().invoke(cli, ["test", str(path)])
    assert result.exit_code == 2
    assert "TOPSECRET" not in result.output
    assert result.output.startswith(f"agentout: {path}: refusing XML")


def test_missing_file(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["test", str(tmp_path / "nope.xml")])
    assert result.exit_code == 2
    assert result.output == f"agentout: {tmp_path / 'nope.xml'}: no such file\n"


def test_exit_status_one_for_failures_zero_for_a_pass(tmp_path: Path) -> None:
    runner = CliRunner()
    assert runner.invoke(cli, ["test", str(SAMPLES / "jest-junit.xml")]).exit_code == 1
    passing = tmp_path / "ok.xml"
    passing.write_text('<testsuite name="s"><testcase name="a"/><testcase name="b"/></testsuite>')
    result = runner.invoke(cli, ["test", str(passing)])
    assert result.exit_code == 0
    assert kinds(result.output, "S")[0] == {"status": "PASS", "passed": 2}


def test_several_files_one_report_in_json(tmp_path: Path) -> None:
    files = [str(SAMPLES / "jest-junit.xml"), str(SAMPLES / "nextest-junit.xml")]
    result = CliRunner().invoke(cli, ["test", "--format", "json", *files])
    assert result.exit_code == 1
    data = json.loads(result.output)
    assert data["records"][0]["failed"] == 5
    assert data["header"]["source"] == "junit"


def test_cli_small_budget_still_prints_the_status_within_it() -> None:
    runner = CliRunner()
    result = runner.invoke(cli, ["test", "--max-tokens", "36", str(SAMPLES / "pytest.xml")])
    assert result.exit_code == 1
    lines = result.output.splitlines()
    assert "over_budget" not in lines[0]
    assert count(result.output) <= 36  # the barest header beside the status line
    assert lines[1].startswith("S status=FAIL")
    result = runner.invoke(cli, ["test", "--max-tokens", "0", str(SAMPLES / "pytest.xml")])
    assert result.exit_code == 2
    assert "--max-tokens must be at least 1" in result.output


def test_cli_refuses_files_with_a_command_and_test_files_as_xml() -> None:
    runner = CliRunner()
    result = runner.invoke(cli, ["test", str(SAMPLES / "pytest.xml"), "--", "-x"])
    assert result.exit_code == 2
    assert "not both" in result.output
    result = runner.invoke(cli, ["test", "tests/test_cart.py"])
    assert result.exit_code == 2
    assert "use: agentout test -- tests/test_cart.py" in result.output
    assert "Traceback" not in result.output
