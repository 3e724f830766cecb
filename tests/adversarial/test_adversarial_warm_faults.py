"""The warm path's faults: no wait without a limit, no ledger row lost in silence.

A stopped server (SIGSTOP), a killed idle spare, a half-sent call, Ctrl-C while the
client waits: ``agentout run`` delivers by itself within a bounded time, whatever its
``--timeout``, and a hook call is answered cold rather than not at all. A server gone
while its child answers (killed, or outdated by an upgrade) costs no ledger row, and a
row that cannot be kept (a full disk) is said on stderr, warm as cold.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import textwrap
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from agentout.agents import hook_client
from processes import alive
from warm_server import WAIT, Runtime, outdated_by, runtime, serving

__all__ = ["runtime"]  # the fixture

SCRIPT = str(Path(sys.executable).parent / "agentout")  # as the hooks' rewrite starts it
# A limit on every wait: the spare's take, and what delivering here takes.
BOUND = hook_client.TAKE_WAIT + 20.0
POST = json.dumps(
    {
        "hook_event_name": "PostToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "git status"},
        "tool_response": {
            "stdout": "On branch main\nChanges not staged for commit:\n"
            + "".join(f"\tmodified:   src/m{i}.py\n" for i in range(40)),
            "stderr": "",
            "interrupted": False,
        },
    }
).encode()


def _env(runtime: Runtime, **extra: str) -> dict[str, str]:
    env = {**runtime.env(warm=False), "AGENTOUT_SPILL_DIR": str(runtime.tmp / "spill")}
    return {**env, **extra}


def _run(
    runtime: Runtime, args: list[str], timeout: float = 120, **extra: str
) -> tuple[subprocess.CompletedProcess[bytes], float]:
    """``agentout run ARGS`` as the hooks' rewrite starts it, and how long it took."""
    started = time.monotonic()
    done = subprocess.run(
        [SCRIPT, "run", *args],
        capture_output=True,
        env=_env(runtime, **extra),
        cwd=runtime.tmp,
        timeout=timeout,
        check=False,
    )
    return done, time.monotonic() - started


def _served(done: subprocess.CompletedProcess[bytes]) -> bool:
    """Whether a run with PYTHONPROFILEIMPORTTIME=1 was delivered by the server: its
    client reported its imports, and none of the delivery's."""
    imported = [line for line in done.stderr.splitlines() if line.startswith(b"import time:")]
    return bool(imported) and not any(b"agentout.deliver" in line for line in imported)


def _cold(runtime: Runtime, args: list[str]) -> bytes:
    return _run(runtime, args, AGENTOUT_HOOK_SERVER="0")[0].stdout


def _server_and_spare(runtime: Runtime) -> tuple[int, int]:
    """The server and its spare: its one child, the same for half a second (a child
    that took a call, such as the probe that saw the server listen, ends first)."""
    deadline = time.monotonic() + WAIT
    seen, since = None, time.monotonic()
    while True:
        server = runtime.pid()
        children = [pid for pid in serving(runtime.socket) if server and _parent(pid) == server]
        now = time.monotonic()
        if len(children) != 1 or children[0] != seen:
            seen, since = (children[0] if len(children) == 1 else None), now
        elif server is not None and now - since >= 0.5:
            return server, seen
        assert now < deadline, serving(runtime.socket)
        time.sleep(0.05)


def _parent(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return int(stat.read().rsplit(")", 1)[-1].split()[1])
    except (OSError, ValueError, IndexError):
        return None


def _signal_all(pids: list[int], sig: int) -> None:
    for pid in pids:
        if alive(pid):
            os.kill(pid, sig)


def _deliveries(runtime: Runtime, db: Path) -> int:
    env = _env(runtime, AGENTOUT_HOOK_SERVER="0", AGENTOUT_LEDGER="1")
    env["AGENTOUT_LEDGER_DB"] = str(db)
    done = subprocess.run(
        [SCRIPT, "gain", "--format", "json"],
        capture_output=True,
        env=env,
        cwd=runtime.tmp,
        check=True,
    )
    return int(json.loads(done.stdout)["total"]["deliveries"])


def _ledger(db: Path) -> dict[str, str]:
    """A ledger of the test's own, written as in use: kept before the answer, counted
    after it (not at once, as the suite's AGENTOUT_LEDGER_SYNC=1 would)."""
    return {"AGENTOUT_LEDGER": "1", "AGENTOUT_LEDGER_DB": str(db), "AGENTOUT_LEDGER_SYNC": "0"}


# -- no wait without a limit ------------------------------------------------------------


def test_a_stopped_server_leaves_the_run_to_the_client_in_bounded_time(runtime: Runtime) -> None:
    """Server and spare stopped: the call is queued and never taken. The client gives up
    waiting after TAKE_WAIT and delivers itself, once: when the server goes on, the
    call it finds is its client's no more, and nothing is answered or counted twice."""
    runtime.start()
    stopped = list(_server_and_spare(runtime))
    db = runtime.tmp / "ledger.db"
    args = ["--timeout", "600", "--", "sh", "-c", "echo from the command; exit 3"]
    expected = _cold(runtime, args)
    _signal_all(stopped, signal.SIGSTOP)
    try:
        done, took = _run(runtime, args, **_ledger(db))
        hook, hook_took = _hook(runtime)
    finally:
        _signal_all(stopped, signal.SIGCONT)
    assert (done.stdout, done.returncode) == (expected, 3)
    assert b"Traceback" not in done.stderr
    assert took < BOUND
    assert hook.returncode == 0
    assert hook_took < BOUND
    assert b"agentout: hook: no answer" not in hook.stderr  # answered cold, not dropped
    assert hook.stdout == _hook(runtime, AGENTOUT_HOOK_SERVER="0")[0].stdout
    time.sleep(3)  # the server goes on: its spare takes the abandoned call and drops it
    assert _deliveries(runtime, db) == 1
    warm, _ = _run(runtime, args, PYTHONPROFILEIMPORTTIME="1")
    assert warm.stdout == expected
    assert _served(warm)  # and it serves the next run


def _hook(runtime: Runtime, **extra: str) -> tuple[subprocess.CompletedProcess[bytes], float]:
    started = time.monotonic()
    done = runtime.call("claude", POST, warm=False, **extra)
    return done, time.monotonic() - started


def test_a_killed_idle_spare_is_replaced_at_once(runtime: Runtime) -> None:
    """kill -9 of the spare waiting for a call: the server forks the next one, and the
    next calls are answered warm, at once (before, they waited for the server's idle
    exit, 10 minutes, without an answer)."""
    runtime.start()
    _, spare = _server_and_spare(runtime)
    os.kill(spare, signal.SIGKILL)
    started = time.monotonic()
    served = runtime.call("claude", POST)  # fails unless the warm server answered
    assert served.returncode == 0
    assert served.stdout == runtime.cold("claude", POST).stdout
    assert time.monotonic() - started < hook_client.TAKE_WAIT
    args = ["--", "seq", "1", "3000"]
    warm, took = _run(runtime, args, PYTHONPROFILEIMPORTTIME="1")
    assert warm.stdout == _cold(runtime, args)
    assert _served(warm)
    assert took < hook_client.TAKE_WAIT


def test_a_half_sent_call_leaves_the_run_to_the_client(runtime: Runtime) -> None:
    """The spare stopped (its server running): the client's call of 900 KB of output
    fills the socket and stops half sent. The client gives up within its limit and
    delivers itself."""
    runtime.start()
    _, spare = _server_and_spare(runtime)
    args = ["--", "sh", "-c", "seq 1 130000; exit 2"]  # 900 KB: sent to the server whole
    expected = _cold(runtime, args)
    os.kill(spare, signal.SIGSTOP)
    try:
        done, took = _run(runtime, args)
    finally:
        os.kill(spare, signal.SIGCONT)
    assert (done.stdout, done.returncode) == (expected, 2)
    assert took < BOUND


def _waiting_on_the_server(pid: int) -> bool:
    """Whether the client ``pid`` holds a socket (it is connected to the server)."""
    try:
        return any(
            os.readlink(f"/proc/{pid}/fd/{fd}").startswith("socket:")
            for fd in os.listdir(f"/proc/{pid}/fd")
        )
    except OSError:
        return False


def test_ctrl_c_while_waiting_delivers_here_and_names_the_stored_output(
    runtime: Runtime,
) -> None:
    """Ctrl-C while the client waits for a stopped server: no traceback; the output is
    delivered here, kept in the store, and its reference printed."""
    runtime.start()
    stopped = list(_server_and_spare(runtime))
    _signal_all(stopped, signal.SIGSTOP)
    try:
        client = subprocess.Popen(
            [SCRIPT, "run", "--", "sh", "-c", "echo kept; exit 5"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=_env(runtime),
            cwd=runtime.tmp,
        )
        deadline = time.monotonic() + WAIT
        while not _waiting_on_the_server(client.pid):
            assert time.monotonic() < deadline
            assert client.poll() is None
            time.sleep(0.02)
        client.send_signal(signal.SIGINT)
        out, err = client.communicate(timeout=BOUND)
    finally:
        _signal_all(stopped, signal.SIGCONT)
    text = out.decode()
    assert b"Traceback" not in err
    assert client.returncode == 5
    assert text.startswith("kept\n")
    ref = text.rsplit("agentout show ", 1)[1].split("]")[0]
    shown = subprocess.run(
        [SCRIPT, "show", ref], capture_output=True, env=_env(runtime), check=True
    ).stdout
    assert shown.startswith(b"kept\n")


def test_a_taken_call_not_answered_in_time_is_ended_and_left_to_the_client() -> None:
    """Something that takes the call (it names a child) and never answers: after the
    wait the client ends that child (so no late answer or row comes) and says so."""
    import tempfile
    import threading

    folder = Path(tempfile.mkdtemp(prefix="ao-", dir="/tmp"))  # a socket path is short
    path = str(folder / "s.sock")
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(1)
    child = subprocess.Popen(["sleep", "60"])  # the "child" that took the call
    done = threading.Event()

    def take() -> None:
        conn, _ = listener.accept()
        with conn:
            conn.sendall(b"%d\n" % child.pid)
            done.wait(30)  # and never answers

    taker = threading.Thread(target=take)
    taker.start()
    try:
        started = time.monotonic()
        with pytest.raises(hook_client.NoAnswer):
            hook_client.ask(path, ["run", "--", "true"], b"payload", wait=1.0)
        assert time.monotonic() - started < 10
        assert child.wait(timeout=5) == -signal.SIGKILL
    finally:
        done.set()
        taker.join()
        if child.poll() is None:
            child.kill()
            child.wait()
        listener.close()
        os.unlink(path)
        folder.rmdir()


# -- no ledger row lost in silence -----------------------------------------------------------


def test_a_row_is_kept_before_the_server_is_told(tmp_path: Path) -> None:
    """The server gone (killed) while its child answers: telling it fails, and the row
    was kept before that, in the pending file; counted later, once."""
    db = tmp_path / "ledger.db"
    code = textwrap.dedent(
        """
        import os, socket, sys
        from agentout.agents.hook_client import PROTOCOL, package_dir
        from agentout.cli import warm_server
        from agentout.ledger import book
        here = os.getcwd()
        fields = [PROTOCOL, os.fsencode(sys.executable), os.fsencode(package_dir()),
                  b"agentout", here.encode(), b"22", b"4", b"run", b"--", b"echo", b"hi",
                  *(k + b"=" + v for k, v in os.environb.items())]
        header = b"\\0".join(fields)
        outcome = b"\\0".join([b"0", b"0.01", b"", b"", b"", b"", b""])
        ours, theirs = socket.socketpair()
        ours.sendall(b"%010d" % len(header) + header + b"%08d" % len(outcome) + outcome
                     + b"hi\\n")
        ours.shutdown(socket.SHUT_WR)
        def server_gone():
            raise BrokenPipeError(32, "the server is gone")
        try:
            warm_server._answer(theirs, server_gone)
        except BrokenPipeError:
            pass
        print(ours.recv(1 << 16).decode())
        """
    )
    env = {**os.environ, "AGENTOUT_LEDGER": "1", "AGENTOUT_LEDGER_DB": str(db)}
    env.pop("AGENTOUT_LEDGER_SYNC", None)
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        env=env,
        cwd=tmp_path,
        check=True,
    )
    assert done.stdout.decode().startswith("0 3 0\nhi\n")  # the answer went out
    gain = subprocess.run(
        [SCRIPT, "gain", "--format", "json"],
        capture_output=True,
        env={**env, "AGENTOUT_HOOK_SERVER": "0"},
        cwd=tmp_path,
        check=True,
    )
    assert json.loads(gain.stdout)["total"]["deliveries"] == 1


def _call(runtime: Runtime, words: list[bytes], output: bytes) -> bytes:
    """What ``agentout run WORDS`` sends the server for a command that printed
    ``output`` and exited 0 (agentout.cli.run_client)."""
    fields = [
        hook_client.PROTOCOL,
        os.fsencode(sys.executable),
        os.fsencode(hook_client.package_dir()),
        SCRIPT.encode(),
        str(runtime.tmp).encode(),
        b"22",
        b"%d" % len(words),
        *words,
        *(
            k.encode() + b"=" + v.encode()
            for k, v in _env(runtime, **_ledger(runtime.tmp / "ledger.db")).items()
        ),
    ]
    header = b"\0".join(fields)
    outcome = b"\0".join([b"0", b"0.01", b"", b"", b"", b"", b""])
    return b"%010d" % len(header) + header + b"%08d" % len(outcome) + outcome + output


@pytest.mark.parametrize("gone", ["killed", "outdated"])
def test_a_server_gone_while_its_child_answers_costs_no_row(runtime: Runtime, gone: str) -> None:
    """A call taken by the server's child, which is still reading it when the server
    goes (kill -9, or an upgrade noticed by the next call): the child answers, fails to
    tell the server, and the row is kept all the same."""
    marker = runtime.tmp / "module.py"
    server = outdated_by(runtime, marker)
    db = runtime.tmp / "ledger.db"
    try:
        runtime.wait_listening()
        call = _call(runtime, [b"run", b"--", b"echo", b"in flight"], b"in flight\n")
        conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        conn.settimeout(WAIT)
        conn.connect(str(runtime.socket))
        conn.sendall(call[:100])  # half of it: the child has taken it, and reads on
        taken = b""
        while not taken.endswith(b"\n"):
            taken += conn.recv(1)
        if gone == "killed":
            os.kill(server.pid, signal.SIGKILL)
        else:  # the next call finds the server outdated: it leaves, that call goes cold
            os.utime(marker, ns=(0, marker.stat().st_mtime_ns + 1_000_000))
            _run(runtime, ["--", "echo", "next"], **_ledger(db))
        server.wait(timeout=WAIT)
        conn.sendall(call[100:])
        conn.shutdown(socket.SHUT_WR)
        answer = b""
        while chunk := conn.recv(1 << 16):
            answer += chunk
        conn.close()
        assert answer == b"0 10 0\nin flight\n"
        deadline = time.monotonic() + WAIT
        expected = 1 if gone == "killed" else 2
        while (found := _deliveries(runtime, db)) < expected:
            assert time.monotonic() < deadline, found
            time.sleep(0.2)
        assert found == expected
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()


def test_an_upgrade_with_calls_in_flight_loses_no_row(runtime: Runtime) -> None:
    """20 runs at once, and the server outdated (an upgrade) while they are answered:
    each is delivered, by a child of the old server or by its client, and each is
    counted, once."""
    marker = runtime.tmp / "module.py"
    old = outdated_by(runtime, marker)
    db = runtime.tmp / "ledger.db"
    try:
        runtime.wait_listening()

        def call(i: int) -> subprocess.CompletedProcess[bytes]:
            if i == 8:
                os.utime(marker, ns=(0, marker.stat().st_mtime_ns + 1_000_000))
            # 350 KB each: a child takes a moment to deliver it, so several are at it
            # when the server goes
            command = f"echo run {i}; seq 1 60000"
            return _run(runtime, ["--", "sh", "-c", command], **_ledger(db))[0]

        with ThreadPoolExecutor(max_workers=20) as pool:
            done = list(pool.map(call, range(20)))
        assert [d.stdout.split(b"\n", 1)[0] for d in done] == [
            f"run {i}".encode() for i in range(20)
        ]
        assert all(d.returncode == 0 for d in done)
        assert old.wait(timeout=WAIT) == 0
        deadline = time.monotonic() + WAIT
        while (found := _deliveries(runtime, db)) < 20:  # counted after the answers
            assert time.monotonic() < deadline, found
            time.sleep(0.2)
        assert found == 20
    finally:
        if old.poll() is None:
            old.kill()
            old.wait()


_FULL_DISK = """
import json, os, subprocess, sys, time, socket
script, runtime_sock, env = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
def call(**extra):
    done = subprocess.run([script, "run", "--", "echo", "hi"], capture_output=True,
                          env={**env, **extra}, cwd=env["HOME"], timeout=120)
    return [done.stdout.decode(), done.stderr.decode(), done.returncode]
results = {"cold": call(AGENTOUT_HOOK_SERVER="0"), "first": call()}
deadline = time.monotonic() + 60
while True:
    probe = socket.socket(socket.AF_UNIX)
    try:
        probe.connect(runtime_sock)
        break
    except OSError:
        assert time.monotonic() < deadline, "no server"
        time.sleep(0.05)
    finally:
        probe.close()
results["warm"] = call(PYTHONPROFILEIMPORTTIME="1")
print(json.dumps(results))
"""


def test_a_full_disk_under_the_ledger_is_said_warm_as_cold(runtime: Runtime) -> None:
    """The ledger's folder on a full tmpfs (a mount namespace of the test's own): the
    row cannot be kept, and each run says so in one line on stderr, on the cold path,
    on the first run (no server yet) and on a warm one, and still delivers."""
    if os.geteuid() != 0 or not _can_unshare():
        pytest.skip("a tmpfs of its own needs root and unshare (util-linux)")
    full = runtime.tmp / "full"
    full.mkdir()
    env = _env(runtime, **_ledger(full / "ledger.db"), HOME=str(runtime.tmp))
    mount = (
        f"mount -t tmpfs -o size=64k tmpfs {full} && "
        f"(head -c 1000000 /dev/zero > {full}/filler; true) && "
        f'exec {sys.executable} -c "$0" "$@"'
    )
    done = subprocess.run(
        [
            "unshare",
            "-m",
            "--propagation",
            "private",
            "sh",
            "-c",
            mount,
            _FULL_DISK,
            SCRIPT,
            str(runtime.socket),
            json.dumps(env),
        ],
        capture_output=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr.decode()
    results = json.loads(done.stdout)
    for name in ("cold", "first", "warm"):
        stdout, stderr, status = results[name]
        said = [line for line in stderr.splitlines() if not line.startswith("import time:")]
        assert (stdout, status) == ("hi\n", 0), name
        assert len(said) == 1, (name, said)
        assert said[0].startswith("agentout: ledger: ")
        assert "No space left on device" in said[0]
        assert said[0].endswith("this delivery is not counted")
    warm_imports = results["warm"][1]
    assert "import time:" in warm_imports
    assert "agentout.deliver" not in warm_imports  # delivered by the server's child


def _can_unshare() -> bool:
    return (
        subprocess.run(["unshare", "-m", "true"], capture_output=True, check=False).returncode == 0
    )
