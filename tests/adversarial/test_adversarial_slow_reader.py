"""A slow reader loses nothing: every byte the command wrote is read, stored and counted,
however long agentout's own writes take (a slow or busy disk), on the cold path and on
the warm one; only a pipe a daemon the command left behind still holds is given up, and
the output then says so.

The slow disk is played by strace holding each of agentout's write(2) calls past the
2 s linger (``-e inject=write:delay_enter=...``): the command writes its output with
writev(2), which strace leaves alone, so only agentout is slowed.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from adversarial_support import AGENTOUT, stored

from agentout import process
from agentout.formats.raw import closing_fields
from warm_server import Runtime, runtime

__all__ = ["runtime"]  # the fixture

SCRIPT = str(Path(sys.executable).parent / "agentout")  # as the hooks' rewrite starts it
HOLD_US = 2_100_000  # each write held just past the linger (process.LINGER_SECONDS)
STRACE = shutil.which("strace")


def _writer(lines: int) -> list[str]:
    """A command printing ``lines`` numbered lines 4 KiB at a time (as seq does), each
    piece with writev(2), pausing 0.3 s after the first 64 KiB (agentout has read them
    and is writing them to the store when the rest comes)."""
    code = (
        "import os, time; data = b''.join(b'%d\\n' % i for i in range(1, "
        f"{lines + 1})); view = memoryview(data); done = 0\n"
        "while view:\n"
        "    n = os.writev(1, [view[:4096]]); view = view[n:]; done += n\n"
        "    if done - n < 65536 <= done: time.sleep(0.3)"
    )
    return [sys.executable, "-S", "-c", code]


def _expected(lines: int) -> bytes:
    return b"".join(b"%d\n" % i for i in range(1, lines + 1))


def _slowed(argv: list[str], *, threads: bool) -> list[str]:
    """``argv`` with every write(2) of its process (and, with ``threads``, of its threads
    and children) held ``HOLD_US`` microseconds."""
    assert STRACE is not None
    follow = ["-f"] if threads else []
    inject = f"write:delay_enter={HOLD_US}"
    return [STRACE, *follow, "-qq", "-o", "/dev/null", "-e", "trace=write", "-e",
            f"inject={inject}", *argv]  # fmt: skip


def test_a_reader_slower_than_the_linger_still_reads_every_byte() -> None:
    """The first piece takes 2.5 s to take in: the command has long exited and the linger
    passed, yet what waits in the pipe is read to the last byte."""
    got = bytearray()
    calls = []

    def slow(chunk: bytes) -> None:
        calls.append(len(chunk))
        got.extend(chunk)
        if len(calls) == 1:
            time.sleep(2.5)

    outcome = process.run(["seq", "1", "100000"], slow)
    assert bytes(got) == _expected(100000)
    assert outcome.exit_status == 0
    assert outcome.held_open is None  # the pipe closed: nothing given up


def test_a_pipe_a_daemon_holds_is_given_up_and_said(tmp_path: Path) -> None:
    """A background process keeps the pipe open: reading stops ``linger`` seconds after
    the command exited, what was written before is all there, and the outcome says so."""
    pgid_file = tmp_path / "pgid"
    script = f"echo before; (sleep 20; echo late) & echo $$ > {pgid_file}; echo after"
    got = bytearray()
    started = time.monotonic()
    outcome = process.run(["sh", "-c", script], got.extend, linger=0.5)
    try:
        assert time.monotonic() - started < 10
        assert bytes(got) == b"before\nafter\n"
        assert outcome.held_open == 0.5
    finally:
        os.killpg(int(pgid_file.read_text()), signal.SIGKILL)


def test_agentout_run_says_when_it_stopped_reading_a_held_pipe(agentout, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    pgid_file = tmp_path / "pgid"
    script = f"echo before; (sleep 20; echo late) & echo $$ > {pgid_file}; echo after"
    try:
        done = agentout("run", "--", "sh", "-c", script)
    finally:
        os.killpg(int(pgid_file.read_text()), signal.SIGKILL)
    text = done.stdout.decode()
    assert done.returncode == 0
    assert text.startswith("before\nafter\n")
    assert "[… not read: a process the command started held its output open 2s" in text
    assert closing_fields(text)["held_open"] == "2s"


def test_a_held_pipe_is_said_warm_as_cold(runtime: Runtime, tmp_path: Path) -> None:
    """The same run served warm: the client read the pipe, and the server's child, which
    delivers, says what the client gave up, byte for byte as the cold run says it."""
    runtime.start()
    pgid_file = tmp_path / "pgid"
    script = f"echo before; (sleep 20; echo late) & echo $$ > {pgid_file}; echo after"
    env = {**runtime.env(warm=False), "AGENTOUT_SPILL_DIR": str(tmp_path / "spill")}
    outputs = []
    for served in ("1", "0"):
        try:
            done = subprocess.run(
                [SCRIPT, "run", "--", "sh", "-c", script],
                capture_output=True,
                env={**env, "AGENTOUT_HOOK_SERVER": served, "PYTHONPROFILEIMPORTTIME": served},
                timeout=120,
                check=False,
            )
        finally:
            os.killpg(int(pgid_file.read_text()), signal.SIGKILL)
        outputs.append(done.stdout)
        if served == "1":  # the client imported none of the delivery: the server gave it
            assert b"import time:" in done.stderr
            assert b"agentout.deliver" not in done.stderr
    assert outputs[0] == outputs[1]
    assert closing_fields(outputs[0].decode())["held_open"] == "2s"


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@pytest.mark.skipif(STRACE is None, reason="strace plays the slow disk")
def test_every_byte_is_stored_and_counted_with_every_write_held_cold(store: Path) -> None:
    """The cold path (the main thread reads and writes the store): 400,000 lines (2.7 MB,
    more than the pipe holds), each of agentout's writes held 2.1 s, so the command exits
    while agentout is held in one."""
    lines = 400_000
    done = subprocess.run(
        _slowed([*AGENTOUT, "run", "--", *_writer(lines)], threads=False),
        env={**os.environ, "AGENTOUT_SPILL_DIR": str(store), "AGENTOUT_HOOK_SERVER": "0"},
        capture_output=True,
        timeout=300,
        check=False,
    )
    text = done.stdout.decode()
    fields = closing_fields(text)
    assert done.returncode == 0, done.stderr
    assert fields["lines"] == str(lines)
    assert "held_open" not in fields
    [kept] = stored(store)
    assert _sha(kept.read_bytes()) == _sha(_expected(lines))


@pytest.mark.skipif(STRACE is None, reason="strace plays the slow disk")
def test_every_byte_is_stored_and_counted_with_every_write_held_warm(runtime: Runtime) -> None:
    """The warm path with output past what it sends the server: the client delivers it
    as it comes, a thread writing the store while the main one reads the pipe; each
    write of both held 2.1 s, so the reader waits on a full queue past the linger."""
    runtime.start()
    lines = 1_200_000  # 8.3 MB: past the client's memory, its queue and the pipe
    store = runtime.tmp / "spill"
    env = {**runtime.env(warm=False), "AGENTOUT_SPILL_DIR": str(store)}
    done = subprocess.run(
        _slowed([SCRIPT, "run", "--", *_writer(lines)], threads=True),
        env=env,
        cwd=runtime.tmp,
        capture_output=True,
        timeout=600,
        check=False,
    )
    fields = closing_fields(done.stdout.decode())
    assert done.returncode == 0, done.stderr
    assert fields["lines"] == str(lines)
    [kept] = stored(store)
    assert _sha(kept.read_bytes()) == _sha(_expected(lines))
