"""Tests run in the project's Python, not agentout's own.

Installed with ``uv tool install`` (or pipx), agentout lives in an environment of its own
with no pytest: ``agentout test -- ARGS`` and MCP ``run_tests`` ran pytest there and found
none. They run the project's Python now (``.venv/bin/python`` of the project, else
``python``, then ``python3`` on PATH) and say which (``python=`` in the header). A project
whose Python has no agentout still gets its report: pytest writes JUnit XML, which
agentout reads.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from agentout.formats.records import parse
from agentout.sources.testing.readback import failures_of
from agentout.sources.testing.runners.detect import project_python
from project_venv import SHOP_TESTS, outside_env, shop, with_this_environment

AGENTOUT = [sys.executable, "-m", "agentout"]


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A project whose own .venv has pytest and not agentout."""
    return shop(tmp_path_factory.mktemp("project"))


def _header(report: str) -> dict[str, object]:
    return parse(report)[0][1]


def test_agentout_test_runs_the_project_venv_without_agentout(
    project: Path, tmp_path: Path
) -> None:
    venv_python = project / ".venv" / "bin" / "python"
    alone = subprocess.run([str(venv_python), "-c", "import agentout"], capture_output=True)
    assert b"No module named 'agentout'" in alone.stderr  # pytest yes, agentout no
    for cwd, said in ((project, ".venv/bin/python"), (project / "tests", "../.venv/bin/python")):
        done = subprocess.run(
            [*AGENTOUT, "test", "--", "-p", "no:cacheprovider"],
            cwd=cwd, env=outside_env(tmp_path), capture_output=True, text=True, timeout=300,
        )  # fmt: skip
        assert done.returncode == 1, done.stdout + done.stderr
        assert _header(done.stdout)["python"] == said
        status = next(fields for kind, fields in parse(done.stdout) if kind == "S")
        assert (status["passed"], status["failed"]) == (1, 2)
        rows = {row["test"]: row for row in failures_of(done.stdout)}
        assert set(rows) == {"test_where", "test_sum"}
        # pytest ran in the project's environment: its sys.prefix is the .venv
        assert rows["test_where"]["error"] == f"RuntimeError: {project / '.venv'}"
        assert rows["test_sum"]["L"] == 10


def test_a_project_with_agentout_gets_the_plugins_report(tmp_path: Path) -> None:
    """The same suite in a project whose .venv has agentout: the plugin's own results
    (the values compared, which JUnit XML does not hold)."""
    root = tmp_path / "with"
    (root / "tests").mkdir(parents=True)
    (root / "setup.cfg").write_text("")
    (root / "tests" / "test_shop.py").write_text(SHOP_TESTS)
    with_this_environment(root)
    done = subprocess.run(
        [*AGENTOUT, "test", "--", "-p", "no:cacheprovider", "-p", "no:hypothesispytest"],
        cwd=root, env=outside_env(tmp_path), capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 1, done.stderr
    assert _header(done.stdout)["python"] == ".venv/bin/python"
    rows = {row["test"]: row for row in failures_of(done.stdout)}
    assert rows["test_sum"]["error"] == "assert 3 == 4"


# -- which Python ------------------------------------------------------------------------------


def _program(folder: Path, name: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text("#!/bin/sh\nexit 0\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def test_the_venv_first_then_python_then_python3(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bin_a, bin_b = tmp_path / "a", tmp_path / "b"
    _program(bin_b, "python3")
    monkeypatch.setenv("PATH", os.pathsep.join([str(bin_a), str(bin_b)]))
    project = tmp_path / "p"
    (project / "src" / "deep").mkdir(parents=True)
    assert project_python(project) == (str(bin_b / "python3"), "python3")
    _program(bin_a, "python")
    assert project_python(project) == (str(bin_a / "python"), "python")
    venv_python = _program(project / ".venv" / "bin", "python")
    assert project_python(project) == (str(venv_python), ".venv/bin/python")
    # from a folder inside: up to the project's root, which a pyproject.toml marks
    assert project_python(project / "src" / "deep") == (str(bin_a / "python"), "python")
    (project / "pyproject.toml").write_text("")
    expected = (str(venv_python), "../../.venv/bin/python")
    assert project_python(project / "src" / "deep") == expected
    # never past the project's root: a .venv above it is another project's
    (project / "src" / "pyproject.toml").write_text("")
    assert project_python(project / "src" / "deep") == (str(bin_a / "python"), "python")


def test_a_broken_venv_is_passed_over(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A .venv whose python is a link to an interpreter since removed."""
    bin_a = tmp_path / "a"
    _program(bin_a, "python")
    monkeypatch.setenv("PATH", str(bin_a))
    (tmp_path / "p" / ".venv" / "bin").mkdir(parents=True)
    (tmp_path / "p" / ".venv" / "bin" / "python").symlink_to(tmp_path / "gone")
    assert project_python(tmp_path / "p") == (str(bin_a / "python"), "python")
    monkeypatch.setenv("PATH", str(tmp_path / "nothing"))
    assert project_python(tmp_path / "p") == (sys.executable, sys.executable)
