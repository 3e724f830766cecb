"""The attacks and faults of the reliability issue, each fed for real: one module a family
(load, faults, signals, hostile output). Helpers shared by them."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from adversarial_support import AGENTOUT


@pytest.fixture
def store(tmp_path: Path) -> Path:
    return tmp_path / "store"


@pytest.fixture
def agentout(store: Path) -> Callable[..., subprocess.CompletedProcess[bytes]]:
    """``agentout ARGS`` as a process of its own, with a store of its own."""

    def call(
        *args: str,
        env: dict[str, str] | None = None,
        preexec: Callable[[], None] | None = None,
        timeout: float = 60,
    ) -> subprocess.CompletedProcess[bytes]:
        environ = {**os.environ, "AGENTOUT_SPILL_DIR": str(store), **(env or {})}
        return subprocess.run(
            [*AGENTOUT, *args],
            env=environ,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=timeout,
            preexec_fn=preexec,
            check=False,
        )

    return call
