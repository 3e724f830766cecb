"""Real task runners (make, just, npm) run with and without agentout in a private tree."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

Run = Callable[..., subprocess.CompletedProcess[str]]
BIN = str(Path(sys.executable).parent)  # ruff, pytest and just of this environment
_OUTER_MAKE = ("MAKELEVEL", "MAKEFLAGS", "MFLAGS", "MAKEFILES", "MAKE_TERMOUT", "MAKE_TERMERR")


def _default_signals() -> None:
    """Signals as a terminal's shell leaves them: a suite started under ``nohup`` (or a
    CI runner ignoring SIGHUP) must not make ``kill -HUP`` in a recipe a no-op."""
    for number in (signal.SIGHUP, signal.SIGINT, signal.SIGQUIT, signal.SIGTERM):
        signal.signal(number, signal.SIG_DFL)


@pytest.fixture
def task_env(tmp_path: Path) -> dict[str, str]:
    """The environment both runs get: this environment's tools first, agentout's store,
    config and cache private to the test, no npmrc of the user's, no pytest of ours."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "AGENTOUT_"))}
    for name in _OUTER_MAKE:  # `make test` runs this suite: its make is not the tests' parent
        env.pop(name, None)
    env["PATH"] = BIN + os.pathsep + env.get("PATH", "")
    private = tmp_path / ".private"
    env["AGENTOUT_SPILL_DIR"] = str(private / "spill")
    env["AGENTOUT_CONFIG_DIR"] = str(private / "config")
    env["AGENTOUT_CACHE_DIR"] = str(private / "cache")
    env["AGENTOUT_LEDGER"] = "0"
    npmrc = private / "npmrc"
    npmrc.parent.mkdir(parents=True, exist_ok=True)
    npmrc.write_text("")
    env["NPM_CONFIG_USERCONFIG"] = str(npmrc)
    env["NPM_CONFIG_UPDATE_NOTIFIER"] = "false"
    env["NO_COLOR"] = "1"
    return env


@pytest.fixture
def plain(task_env: dict[str, str]) -> Run:
    """``plain(argv, cwd, input=None)``: the command as it runs without agentout, its
    stdout and stderr merged as agentout merges them."""

    def run(argv: Sequence[str], cwd: Path, input: str | None = None) -> Any:
        return subprocess.run(
            list(argv),
            cwd=cwd,
            env=task_env,
            input=input if input is not None else "",
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            timeout=120,
            check=False,
            preexec_fn=_default_signals,
        )

    return run


@pytest.fixture
def routed(task_env: dict[str, str]) -> Run:
    """``routed(argv, cwd, input=None, env=None)``: the same through ``agentout run --``."""

    def run(
        argv: Sequence[str],
        cwd: Path,
        input: str | None = None,
        env: dict[str, str] | None = None,
        options: Sequence[str] = (),
    ) -> Any:
        return subprocess.run(
            [sys.executable, "-m", "agentout", "run", *options, "--", *argv],
            cwd=cwd,
            env={**task_env, **(env or {})},
            input=input if input is not None else "",
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
            preexec_fn=_default_signals,
        )

    return run
