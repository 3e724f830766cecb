"""Project environments for the tests that run a project's tests through agentout.

``agentout test`` and MCP ``run_tests`` run pytest in the project's Python (its
``.venv/bin/python``, else ``python`` on PATH: ``runners.detect.project_python``), so a
test that runs a suite says which Python that is, never the machine's PATH:
``with_this_environment`` gives a project the environment the tests run in (agentout and
its plugin installed), ``without_agentout`` a real virtual environment of its own that has
pytest and not agentout.
"""

from __future__ import annotations

import importlib.metadata
import os
import subprocess
import sys
import sysconfig
from pathlib import Path

from packaging.requirements import Requirement

__all__ = ["SHOP_TESTS", "outside_env", "shop", "with_this_environment", "without_agentout"]

SHOP_TESTS = """\
import sys

def test_where():
    raise RuntimeError(sys.prefix)

def test_fine():
    pass

def test_sum():
    assert sum([1, 2]) == 4
"""


def shop(root: Path) -> Path:
    """``root``: a project (pyproject.toml, tests/) whose own .venv has pytest, not
    agentout."""
    root.mkdir(exist_ok=True)
    (root / "pyproject.toml").write_text('[project]\nname = "shop"\nversion = "0"\n')
    (root / "tests").mkdir()
    (root / "tests" / "test_shop.py").write_text(SHOP_TESTS)
    without_agentout(root)
    return root


def outside_env(tmp: Path) -> dict[str, str]:
    """PATH without this environment's folder: nothing but the project's .venv has pytest
    with agentout's plugin here."""
    own = os.path.dirname(sys.executable)
    path = os.pathsep.join(p for p in os.environ["PATH"].split(os.pathsep) if p != own)
    return {**os.environ, "PATH": path, "AGENTOUT_SPILL_DIR": str(tmp / "store"),
            "AGENTOUT_LEDGER": "0"}  # fmt: skip


def with_this_environment(project: Path) -> Path:
    """``project/.venv``: this interpreter's environment (where agentout is installed),
    as a project that installs agentout in its own virtual environment has it."""
    venv = project / ".venv"
    if (Path(sys.prefix) / "bin" / "python").exists():
        venv.symlink_to(sys.prefix, target_is_directory=True)
    else:  # not a virtual environment: its interpreter, by a link
        (venv / "bin").mkdir(parents=True)
        (venv / "bin" / "python").symlink_to(sys.executable)
    return venv / "bin" / "python"


def _needed(name: str, seen: set[str]) -> None:
    """``name`` and every distribution it needs here, in ``seen`` (lowercase names)."""
    if name.lower() in seen:
        return
    seen.add(name.lower())
    for line in importlib.metadata.requires(name) or []:
        requirement = Requirement(line)
        if requirement.marker is None or requirement.marker.evaluate({"extra": ""}):
            _needed(requirement.name, seen)


def without_agentout(project: Path) -> Path:
    """``project/.venv``: a real virtual environment (``python -m venv``) with pytest and
    what pytest needs, linked from this environment's own copies, and no agentout; its
    Python."""
    venv = project / ".venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    wanted: set[str] = set()
    _needed("pytest", wanted)
    assert "agentout" not in wanted
    deps = project / ".venv-deps"
    deps.mkdir()
    for name in sorted(wanted):
        dist = importlib.metadata.distribution(name)
        tops = {Path(str(file)).parts[0] for file in dist.files or ()}
        for top in sorted(tops):
            source = Path(str(dist.locate_file(top)))
            if top.endswith((".pth", ".pyc")) or top in ("..", "__pycache__"):
                continue
            if source.exists() and not (deps / top).exists():
                (deps / top).symlink_to(source)
    python = venv / "bin" / "python"
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    Path(purelib, "pytest-only.pth").write_text(f"{deps}\n", encoding="utf-8")
    assert sysconfig.get_paths()["purelib"] != purelib  # its own, not this environment's
    found = subprocess.run(
        [str(python), "-c", "import pytest, importlib.util as u; print(u.find_spec('agentout'))"],
        capture_output=True, text=True, env={**os.environ, "PYTHONPATH": ""}, check=True,
    ).stdout.strip()  # fmt: skip
    assert found == "None", found
    return python
