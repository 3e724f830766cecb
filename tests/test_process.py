"""Children in their own process group: statuses, timeouts, cancels, signals, the whole
group ended, background writers waited for a moment and no longer."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from agentout import process
from agentout.process import CommandOutcome
from processes import alive

PY = sys.executable


def _run(argv: list[str], **kwargs: object) -> tuple[CommandOutcome, bytes]:
    out = bytearray()
    outcome = process.run(argv, out.extend, **kwargs)  # type: ignore[arg-type]
    return outcome, bytes(out)


def _wait_gone(pid: int, seconds: float = 5.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not alive(pid):
            return True
        time.sleep(0.05)
    return False


def test_statuses_as_a_shell_reports_them(tmp_path: Path) -> None:
    assert _run(["sh", "-c", "exit 3"])[0].exit_status == 3
    missing = _run(["agentout-no-such-command"])[0]
    assert (missing.exit_status, missing.error) == (
        127,
        "agentout-no-such-command: command not found",
    )
    script = tmp_path / "script"
    script.write_text("#!/bin/sh\necho hi\n")
    assert _run([str(script)])[0].exit_status == 126  # not executable
    killed = _run(["sh", "-c", "kill -USR1 $$"])[0]
    assert (killed.exit_status, killed.signal) == (128 + signal.SIGUSR1, signal.SIGUSR1)


def test_stdout_and_stderr_merged_in_order() -> None:
    code = (
        "import sys\n"
        "for i in range(50):\n"
        "    stream = sys.stdout if i % 2 else sys.stderr\n"
        "    stream.write(f'{i}\\n')\n"
        "    stream.flush()\n"
    )
    outcome, out = _run([PY, "-c", code])
    assert outcome.exit_status == 0
    assert out.decode().split() == [str(i) for i in range(50)]


def test_duration_is_the_childs_own_time_not_the_readers() -> None:
    def slow_reader(_chunk: bytes) -> None:
        time.sleep(1.0)

    wall = time.monotonic()
    outcome = process.run([PY, "-c", "print('x' * 1000)"], slow_reader)
    wall = time.monotonic() - wall
    assert wall >= 1.0
    assert outcome.duration < wall - 0.5, (outcome.duration, wall)


def test_a_timeout_ends_the_whole_group_even_one_that_ignores_sigterm(tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    script = f"trap '' TERM; sleep 60 & echo $! > {pids}; echo started; wait"
    outcome, out = _run(["sh", "-c", script], timeout=0.5, grace=0.5)
    assert outcome.timed_out
    assert outcome.exit_status == process.TIMEOUT_STATUS
    assert outcome.error == "timed out after 0.5s; stopped"
    assert out == b"started\n"
    assert _wait_gone(int(pids.read_text()))


def test_cancel_from_another_thread_ends_the_group(tmp_path: Path) -> None:
    cancel = threading.Event()
    threading.Timer(0.3, cancel.set).start()
    outcome, _ = _run(["sleep", "60"], cancel=cancel, grace=0.5)
    assert outcome.cancelled
    assert outcome.exit_status == 128 + signal.SIGTERM
    assert outcome.error == "cancelled; stopped"


def test_output_a_background_child_writes_after_the_exit_is_kept() -> None:
    outcome, out = _run(["sh", "-c", "(sleep 0.3; echo late) & echo early"])
    assert outcome.exit_status == 0
    assert out == b"early\nlate\n"


def test_a_background_child_holding_the_pipe_does_not_keep_us_waiting(tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    wall = time.monotonic()
    outcome, out = _run(["sh", "-c", f"sleep 60 & echo $! > {pids}; echo done"], linger=0.3)
    assert time.monotonic() - wall < 30
    assert (outcome.exit_status, out) == (0, b"done\n")
    os.kill(int(pids.read_text()), signal.SIGKILL)


def test_end_all_ends_every_group_that_is_still_running(tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    results: list[CommandOutcome] = []
    script = f"trap '' TERM; sleep 60 & echo $! > {pids}; wait"
    worker = threading.Thread(target=lambda: results.append(_run(["sh", "-c", script])[0]))
    worker.start()
    deadline = time.monotonic() + 10
    while not pids.exists() or not pids.read_text().strip():
        assert time.monotonic() < deadline
        time.sleep(0.05)
    process.end_all(grace=0.5)
    worker.join(10)
    assert not worker.is_alive()
    assert results[0].exit_status == 128 + signal.SIGKILL
    assert _wait_gone(int(pids.read_text()))


def test_the_heartbeat_ticks_while_the_command_is_quiet() -> None:
    ticks: list[float] = []
    _run(["sleep", "1.6"], on_tick=ticks.append)
    assert ticks
    assert ticks == sorted(ticks)
    assert all(tick >= 1.0 for tick in ticks)


def test_shell_argv_is_bash_whatever_shell_says(monkeypatch: pytest.MonkeyPatch) -> None:
    for shell in ("bash", "/bin/sh", "/usr/bin/fish"):
        monkeypatch.setenv("SHELL", shell)
        program, flag, command = process.shell_argv("a && b")
        assert os.path.basename(program) == "bash"
        assert (flag, command) == ("-c", "a && b")
    monkeypatch.delenv("SHELL")
    assert os.path.basename(process.shell_argv("x")[0]) == "bash"


def test_shell_argv_runs_bash_syntax_with_shell_unset(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SHELL", raising=False)
    done = subprocess.run(
        process.shell_argv("[[ a == a ]] && echo out; { echo err >&2; } |& cat"),
        capture_output=True,
        check=False,
    )
    assert done.returncode == 0
    assert done.stdout == b"out\nerr\n"


def test_no_command_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="no command given"):
        process.run([], lambda _chunk: None)


def test_a_child_gets_no_descriptor_of_ours_beyond_its_output() -> None:
    """As Popen with close_fds: one this process inherited (made inheritable here) is
    not passed on, whichever way the child was started."""
    read, write = os.pipe()
    os.set_inheritable(write, True)
    try:
        listing = [
            sys.executable,
            "-c",
            "import os; print(sorted(map(int, os.listdir('/proc/self/fd'))))",
        ]
        for cwd in (None, "/"):  # posix_spawnp, and subprocess for another folder
            outcome, out = _run(listing, cwd=cwd)
            assert outcome.exit_status == 0
            assert write not in json.loads(out)
    finally:
        os.close(read)
        os.close(write)


def test_a_child_starts_with_sigpipe_as_a_shell_gives_it() -> None:
    """Python ignores SIGPIPE, and an ignored signal stays ignored across exec: `yes`
    would then report a broken pipe. Started at the default, it ends quietly."""
    for cwd in (None, "/"):
        outcome, out = _run(["sh", "-c", "yes | head -n 1"], cwd=cwd)
        assert outcome.exit_status == 0
        assert out == b"y\n"
