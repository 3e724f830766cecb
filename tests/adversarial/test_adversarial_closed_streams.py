"""``agentout run`` started with stdout (or stderr) closed (``... >&-``): the command's
exit status and its ledger row, never a traceback and exit 1; and nothing agentout opens
afterwards (the store, the ledger, the server's socket) takes the closed descriptor's
number and receives what is printed. Cold, on the first call before a server exists,
and warm."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from warm_server import WAIT, Runtime, runtime

__all__ = ["runtime"]  # the fixture

SCRIPT = str(Path(sys.executable).parent / "agentout")


def _closed(fd: int):  # type: ignore[no-untyped-def]
    def close() -> None:  # in the child, before agentout starts
        os.close(fd)

    return close


def _deliveries(env: dict[str, str], cwd: Path) -> int:
    done = subprocess.run(
        [SCRIPT, "gain", "--format", "json"],
        capture_output=True,
        env={**env, "AGENTOUT_HOOK_SERVER": "0"},
        cwd=cwd,
        check=True,
    )
    return int(json.loads(done.stdout)["total"]["deliveries"])


@pytest.mark.parametrize("fd", [1, 2])
def test_a_closed_stream_is_the_commands_status_and_a_row(runtime: Runtime, fd: int) -> None:
    db = runtime.tmp / "ledger.db"
    env = {
        **runtime.env(warm=False),
        "AGENTOUT_SPILL_DIR": str(runtime.tmp / "spill"),
        "AGENTOUT_LEDGER": "1",
        "AGENTOUT_LEDGER_DB": str(db),
    }
    other = subprocess.PIPE

    def run(**extra: str) -> tuple[int, bytes]:
        done = subprocess.run(
            [SCRIPT, "run", "--", "sh", "-c", "echo x; seq 1 20000; exit 4"],
            stdout=other if fd == 2 else None,
            stderr=other if fd == 1 else None,
            env={**env, **extra},
            cwd=runtime.tmp,
            preexec_fn=_closed(fd),
            timeout=120,
            check=False,
        )
        said = done.stderr if fd == 1 else done.stdout
        return done.returncode, said or b""

    cold = run(AGENTOUT_HOOK_SERVER="0")
    first = run()  # no server yet: delivered by the client, which starts one
    deadline = time.monotonic() + WAIT
    while not runtime.listening():
        assert time.monotonic() < deadline
        time.sleep(0.05)
    warm = run()
    for status, said in (cold, first, warm):
        assert status == 4
        assert b"Traceback" not in said
        assert b"AttributeError" not in said
    if fd == 2:  # stdout is there: the answer is, whole, on it
        assert cold[1] == first[1] == warm[1]
        assert cold[1].startswith(b"x\n1\n")
    deadline = time.monotonic() + WAIT
    while (found := _deliveries(env, runtime.tmp)) < 3:
        assert time.monotonic() < deadline, found
        time.sleep(0.1)
    assert found == 3
    for stored in (runtime.tmp / "spill").iterdir():  # nothing printed went into a file
        assert b"[agentout" not in stored.read_bytes()
