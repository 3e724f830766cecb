"""``run_tests``, called through the SDK's own client, in process."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp_support import (
    call,
    links,
    make_server,
    texts,
)

from agentout.formats.records import parse
from agentout.sources.testing.readback import failures_of
from agentout.store.spill import SpillStore
from project_venv import outside_env, shop


def test_run_tests_reports_the_failure_and_links_the_full_report(
    project: Path, store: SpillStore
) -> None:
    result = call(make_server(project, store), "run_tests", tests=["suite/test_small.py"])
    assert not result.is_error, texts(result)
    rows = parse(texts(result))
    status = next(fields for kind, fields in rows if kind == "S")
    assert status["status"] == "FAIL"
    assert status["passed"] == 1
    assert status["failed"] == 1
    failing = [fields for kind, fields in rows if kind == "R"]
    assert [row["test"] for row in failing] == ["test_bad"]
    assert result.meta["agentout"]["exit"] == 1
    (uri,) = links(result)
    assert "test_bad" in (store.root / uri.removeprefix("agentout://spill/")).read_text()


@pytest.mark.parametrize(
    ("tests", "message"),
    [
        (["../elsewhere/test_x.py"], "outside the allowed roots"),
        (["--rootdir=/"], "a test, not an option"),
        (["@/etc/hostname"], "a test, not an option"),
    ],
)
def test_run_tests_refuses_paths_out_and_options(
    project: Path, store: SpillStore, tests: list[str], message: str
) -> None:
    result = call(make_server(project, store), "run_tests", tests=tests)
    assert result.is_error
    assert message in texts(result)


def test_run_tests_never_lets_pytest_read_an_argument_file(
    project: Path, store: SpillStore, tmp_path: Path
) -> None:
    """pytest expands @FILE into arguments: a test named so must never reach it."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.env").write_text("SECRET_TOKEN=hunter2\n")
    (project / "args.txt").write_text(f"--basetemp={outside}\n")
    for test in (f"@{outside / 'secret.env'}", "@args.txt"):
        result = call(make_server(project, store), "run_tests", tests=[test])
        assert result.is_error
        assert "hunter2" not in texts(result)
    assert (outside / "secret.env").exists()


def test_run_tests_takes_a_keyword_starting_with_a_dash_as_an_expression(
    project: Path, store: SpillStore, tmp_path: Path
) -> None:
    """pytest's -k idents may start with "-" (ids like ``x-fast``): never an option."""
    (project / "suite" / "test_ids.py").write_text(
        "import pytest\n\n"
        "@pytest.mark.parametrize('speed', ['x-fast', 'x-slow'])\n"
        "def test_speed(speed):\n    assert speed != 'x-fast'\n"
    )
    server = make_server(project, store)
    result = call(server, "run_tests", tests=["suite/test_ids.py"], keyword="-fast")
    status = next(fields for kind, fields in parse(texts(result)) if kind == "S")
    assert (status.get("failed"), status.get("deselected")) == (1, 1)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("mine\n")
    for field in ("keyword", "marker"):  # `--basetemp=DIR` as an option would clear DIR
        call(server, "run_tests", tests=["suite/test_ids.py"], **{field: f"--basetemp={outside}"})
        # an empty expression filters nothing, and never takes the test path as its own
        empty = call(server, "run_tests", tests=["suite/test_ids.py"], **{field: ""})
        status = next(fields for kind, fields in parse(texts(empty)) if kind == "S")
        assert (status.get("failed"), status.get("passed")) == (1, 1), field
    assert (outside / "keep.txt").read_text() == "mine\n"


def test_run_tests_runs_the_projects_python_without_agentout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """This server's own Python is not the project's: pytest runs in the project's .venv,
    which has no agentout (its JUnit XML is read), and the header says so."""
    root = shop(tmp_path / "shop")
    for name, value in outside_env(tmp_path).items():
        monkeypatch.setenv(name, value)
    store = SpillStore(tmp_path / "mcp-store")
    result = call(make_server(root, store), "run_tests", tests=["tests/test_shop.py"])
    report = texts(result)
    assert not result.is_error, report
    assert parse(report)[0][1]["python"] == ".venv/bin/python"
    rows = {row["test"]: row for row in failures_of(report)}
    assert set(rows) == {"test_where", "test_sum"}
    assert rows["test_where"]["error"] == f"RuntimeError: {root / '.venv'}"
    assert result.meta is not None
    assert result.meta["agentout"]["exit"] == 1
