"""The warm hook server in a private runtime folder of a test's own: started, called,
and ended with every process it started (tests/agents/test_hook_server.py for the hook,
tests/cli/test_run_warm.py for ``agentout run``)."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from agentout.agents import hook_client
from agentout.agents._routing import hook_command
from processes import alive

__all__ = [
    "CLIENT",
    "WAIT",
    "Runtime",
    "impostor",
    "outdated_by",
    "runtime",
    "serving",
    "taken_unanswered",
]

CLIENT = hook_command()
WAIT = 30.0  # the server imports its modules and builds the tokenizer before it listens


class Runtime:
    """A private runtime folder (``XDG_RUNTIME_DIR``), and the server started in it."""

    def __init__(self, base: Path, tmp: Path) -> None:
        self.base = base
        self.tmp = tmp
        self.folder = base / f"agentout-{os.getuid()}"
        name = hook_client.socket_path(sys.executable, hook_client.package_dir())
        self.socket = self.folder / os.path.basename(name)
        shadow = tmp / "shadow" / "agentout"
        shadow.mkdir(parents=True)
        (shadow / "__init__.py").write_text("raise RuntimeError('answered cold')\n")
        self.shadow = shadow.parent

    def env(self, *, warm: bool = True, **extra: str) -> dict[str, str]:
        env = {
            **os.environ,
            "XDG_RUNTIME_DIR": str(self.base),
            "AGENTOUT_HOOK_SERVER": "1",
            "AGENTOUT_HOOK_SERVER_IDLE": "120",
            "AGENTOUT_LEDGER": "0",
            **extra,
        }
        if warm:  # an answer given cold would now fail: proof the server gave it
            env["PYTHONPATH"] = str(self.shadow)
        return env

    def call(
        self, agent: str, payload: bytes, *, warm: bool = True, cwd: Path | None = None, **env: str
    ) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run(
            [*CLIENT, "hook", agent],
            input=payload,
            capture_output=True,
            env=self.env(warm=warm, **env),
            cwd=cwd or self.tmp,
            timeout=60,
            check=False,
        )

    def cold(self, agent: str, payload: bytes, **env: str) -> subprocess.CompletedProcess[bytes]:
        return self.call(agent, payload, warm=False, AGENTOUT_HOOK_SERVER="0", **env)

    def start(self) -> None:
        """The first call answers cold and starts the server; wait until it listens."""
        done = self.call("claude", b"{}", warm=False)
        assert done.returncode == 0
        self.wait_listening()

    def wait_listening(self) -> None:
        deadline = time.monotonic() + WAIT
        while not self.listening():
            assert time.monotonic() < deadline, "the hook server did not start"
            time.sleep(0.05)

    def listening(self) -> bool:
        import socket

        probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            probe.connect(str(self.socket))
        except OSError:
            return False
        finally:
            probe.close()
        return True

    def pid(self) -> int | None:
        try:
            return int(Path(str(self.socket) + ".lock").read_text().strip())
        except (OSError, ValueError):
            return None

    def stop(self) -> None:
        """Every server on this socket ended, and its spare: also one a call has just
        started (a server names the socket on its command line before it writes its
        pid), so none outlives the test."""
        deadline = time.monotonic() + WAIT
        quiet_since = None
        while time.monotonic() < deadline:
            pids = serving(self.socket)
            for pid in pids:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGTERM)
            if pids:
                quiet_since = None
            elif quiet_since is None:
                quiet_since = time.monotonic()
            elif time.monotonic() - quiet_since > 0.5:
                return
            time.sleep(0.05)


@pytest.fixture
def runtime(tmp_path: Path) -> Iterator[Runtime]:
    base = Path(tempfile.mkdtemp(prefix="ao-run-", dir="/tmp"))  # a socket path is short
    os.chmod(base, 0o700)
    made = Runtime(base, tmp_path)
    try:
        yield made
    finally:
        made.stop()
        shutil.rmtree(base, ignore_errors=True)


def taken_unanswered(probe: socket.socket) -> bool:
    """Whether all a call got back is the line that says a server's child took it (its
    pid), and then the end: taken, and no answer (the client then answers cold)."""
    received = b""
    while chunk := probe.recv(1 << 16):
        received += chunk
    pid, newline, rest = received.partition(b"\n")
    return pid.isdigit() and newline == b"\n" and rest == b""


def serving(path: Path) -> list[int]:
    """The processes of a server on ``path``: the server and its spare child."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                args = (entry / "cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if str(path).encode() in args and alive(int(entry.name)):
                found.append(int(entry.name))
    return found


@contextlib.contextmanager
def impostor(runtime: Runtime) -> Iterator[None]:
    """Something else listening on the server's socket: it takes one call, reads all of
    it and answers nonsense."""
    import socket
    import threading

    runtime.folder.mkdir(mode=0o700)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(runtime.socket))
    listener.listen(1)

    def answer_nonsense() -> None:
        conn, _ = listener.accept()
        with conn:
            while conn.recv(1 << 16):
                pass
            conn.sendall(b"twelve bytes\nnonsense")

    replier = threading.Thread(target=answer_nonsense, daemon=True)
    replier.start()
    try:
        yield
    finally:
        replier.join(WAIT)
        listener.close()


def outdated_by(runtime: Runtime, marker: Path) -> subprocess.Popen[bytes]:
    """A server started on the runtime's socket that takes ``marker`` for one of its
    module files: touching it outdates the server, as an upgrade would."""
    marker.write_text("x = 1\n")
    code = (
        "import sys; from agentout.cli import warm_server as h; real = h._sources;"
        f"h._sources = lambda: {{**real(), {str(marker)!r}: {marker.stat().st_mtime_ns}}};"
        f"sys.exit(h.serve({str(runtime.socket)!r}))"
    )
    runtime.folder.mkdir(mode=0o700)
    return subprocess.Popen([sys.executable, "-c", code], env=runtime.env(warm=False))
