"""A recipe line killed by SIGKILL under a routed ``make`` ended in a Python traceback
(``signal.signal(SIGKILL, ...)`` in the line shell) and make said ``Error 1`` where it
says ``Killed``. Each case runs the real make twice, with and without agentout."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from adversarial_support import AGENTOUT

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
_OUTER = ("MAKELEVEL", "MAKEFLAGS", "MFLAGS", "MAKEFILES")  # `make test` runs this suite


def _both(root: Path, store: Path, *args: str) -> tuple[str, subprocess.CompletedProcess[str]]:
    """make's merged output without agentout, and ``agentout run -- make ARGS``."""
    env = {k: v for k, v in os.environ.items() if k not in _OUTER}
    env["AGENTOUT_SPILL_DIR"] = str(store)
    plain = subprocess.run(
        ["make", *args], cwd=root, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        text=True, timeout=60, check=False,
    )  # fmt: skip
    routed = subprocess.run(
        [*AGENTOUT, "run", "--", "make", *args], cwd=root, env=env, capture_output=True,
        text=True, timeout=60, check=False,
    )  # fmt: skip
    assert routed.returncode == plain.returncode == 2
    return plain.stdout, routed


def test_a_recipe_line_killed_by_sigkill_is_reported_as_make_reports_it(
    tmp_path: Path, store: Path
) -> None:
    listing = tmp_path / "listing"  # a long listing the ls reducer shortens: its label
    listing.mkdir()  # shows the recipe's lines went through the line shell
    for i in range(40):
        (listing / f"file_{i:02d}.txt").write_text("x" * i)
    recipe = "all:\n\t@ls -la listing\n\t@echo before; kill -9 $$$$\n\t@echo never\n"
    (tmp_path / "Makefile").write_text(recipe)
    plain, routed = _both(tmp_path, store, "all")
    assert "make: *** [Makefile:3: all] Killed" in plain.splitlines()
    assert "make: *** [Makefile:3: all] Killed" in routed.stdout.splitlines()
    assert "[agentout task all: ls -la listing]" in routed.stdout
    # the killed line's output as printed, and make's own line says how it ended
    assert routed.stdout.endswith("before\nmake: *** [Makefile:3: all] Killed\n")
    assert "Traceback" not in routed.stdout + routed.stderr
    assert "Error 1" not in routed.stdout


def test_a_sub_make_line_killed_by_sigkill_is_reported_at_both_levels(
    tmp_path: Path, store: Path
) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "Makefile").write_text("inner:\n\t@echo inside; kill -KILL $$$$\n")
    (tmp_path / "Makefile").write_text("outer:\n\t@$(MAKE) -s -C sub inner\n")
    plain, routed = _both(tmp_path, store, "outer")
    reported = [line for line in plain.splitlines() if line.startswith("make")]
    assert any(line.endswith("[Makefile:2: inner] Killed") for line in reported)
    for line in reported:
        assert line in routed.stdout.splitlines()
    assert "Traceback" not in routed.stdout + routed.stderr
