"""Faults: the store full mid-stream, read-only, or agentout killed outright. The output
still reaches the agent within the budget, the exit status is the command's, memory stays
bounded, and no file ``show`` accepts is ever partial."""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import time
from pathlib import Path

import pytest
from adversarial_support import AGENTOUT, peak_rss_kib, stored

from agentout.deliver.text import client_limit
from agentout.formats.raw import closing_fields
from agentout.tokens import count


def _file_limit(limit: int):  # type: ignore[no-untyped-def]
    def apply() -> None:  # a "full disk" for this process: writes past it fail (EFBIG)
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return apply


def test_a_full_disk_mid_stream_still_delivers_within_budget(agentout, store: Path) -> None:  # type: ignore[no-untyped-def]
    done = agentout(
        "run",
        "--max-tokens",
        "300",
        "--shell",
        "seq 1 2000000; echo 'error: the end'; exit 7",
        preexec=_file_limit(2 << 20),
    )
    text = done.stdout.decode()
    assert done.returncode == 7
    assert count(text) <= 300
    assert "error: the end" in text
    fields = closing_fields(text)
    assert "not writable" in fields["warning"]
    assert "ref" not in fields
    assert stored(store) == []  # the failed partial file was removed
    assert b"Traceback" not in done.stderr


def test_no_budget_and_no_store_keeps_memory_bounded(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("x")
    peak, stdout = peak_rss_kib(
        ["run", "--", "seq", "1", "3000000"], {"AGENTOUT_SPILL_DIR": str(blocker)}
    )
    assert len(stdout) <= client_limit() + 300  # the default cap: what the client shows
    assert peak < 150 * 1024, f"peak RSS {peak} KiB for 21 MB of output and no store"
    assert "only what is shown here was kept" in stdout.decode()


def test_killed_mid_run_leaves_nothing_show_would_accept(store: Path) -> None:
    process = subprocess.Popen(
        [*AGENTOUT, "run", "--shell", "seq 1 1000000; sleep 30"],
        env={**os.environ, "AGENTOUT_SPILL_DIR": str(store)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    deadline = time.monotonic() + 30
    while not (store.exists() and any(store.iterdir())):
        assert time.monotonic() < deadline
        time.sleep(0.05)
    time.sleep(0.3)
    os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    assert stored(store) == []  # only a .partial- file, which no reference names
    assert [p.name.startswith(".partial-") for p in store.iterdir()] == [True]


@pytest.mark.parametrize(
    "args",
    [["run", "--timeout", "0", "--", "true"], ["run", "--max-tokens", "-1", "--", "true"], ["run"]],
)
def test_bad_options_are_one_line_and_exit_2(agentout, args: list[str]) -> None:  # type: ignore[no-untyped-def]
    done = agentout(*args)
    assert done.returncode == 2
    assert b"Traceback" not in done.stderr
