"""A command killed by a signal is reported as a shell reports it, 128+N, whatever the
launcher did to agentout's signals: started with SIGCHLD ignored (which makes the kernel
reap children, and ``wait`` read 0 for a child killed by SIGTERM), it still says 143."""

from __future__ import annotations

import os
import signal
import subprocess

import pytest
from adversarial_support import AGENTOUT

from agentout.formats.raw import closing_fields


def _ignore_sigchld() -> None:
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)


@pytest.mark.parametrize("ignored", [False, True])
def test_a_child_killed_by_sigterm_is_143(ignored: bool, tmp_path: object) -> None:
    done = subprocess.run(
        [*AGENTOUT, "run", "--", "sh", "-c", "echo started; kill -TERM $$"],
        env={**os.environ, "AGENTOUT_LEDGER": "0"},
        capture_output=True,
        timeout=60,
        preexec_fn=_ignore_sigchld if ignored else None,
        check=False,
    )
    assert done.returncode == 128 + signal.SIGTERM, done.stdout
    text = done.stdout.decode()
    assert text.startswith("started\n")
    fields = closing_fields(text)
    assert (fields["exit"], fields["signal"]) == ("143", "SIGTERM")
