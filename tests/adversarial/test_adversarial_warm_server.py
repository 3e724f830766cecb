"""The warm server serves only what its caller could do itself.

It sits outside the agent's sandbox: a caller in another mount or user namespace (a
sandbox) is declined and does its work cold, where it is; a call sent in part and never
finished is dropped after ``CALL_WAIT`` seconds; and no more than ``MAX_CHILDREN``
children live at once, whatever reaches the socket (calls past that are declined and
answered cold by their clients)."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from agentout.cli import warm_server
from warm_server import CLIENT, Runtime, runtime, serving

__all__ = ["runtime"]  # the fixture

SCRIPT = str(Path(sys.executable).parent / "agentout")
PIPELINE = ("agentout.sources.command", "agentout.reducers", "agentout.deliver")
SANDBOXES = {
    "mount namespace": ["unshare", "--mount", "--"],
    "user namespace": ["unshare", "--user", "--map-root-user", "--"],
    "both": ["unshare", "--user", "--map-root-user", "--mount", "--"],
}


def _status(files: int) -> str:
    lines = ["On branch main", "Changes not staged for commit:"]
    lines += [f"\tmodified:   src/pkg/module_{i}.py" for i in range(files)]
    return "\n".join(lines) + "\n\nno changes added to commit\n"


PAYLOAD = json.dumps({
    "hook_event_name": "PostToolUse", "tool_name": "Bash",
    "tool_input": {"command": "git status"},
    "tool_response": {"stdout": _status(40), "stderr": "", "interrupted": False},
}).encode()  # fmt: skip


def _sandbox(kind: str) -> list[str]:
    words = SANDBOXES[kind]
    done = subprocess.run([*words, "true"], capture_output=True, check=False)
    if done.returncode != 0:
        pytest.skip(f"this system makes no {kind}: {done.stderr.decode().strip()}")
    return words


def _hook(runtime: Runtime, prefix: list[str], *, warm: bool) -> subprocess.CompletedProcess[bytes]:
    argv = [*prefix, *CLIENT, "hook", "claude"]
    return subprocess.run(argv, input=PAYLOAD, capture_output=True, env=runtime.env(warm=warm),
                          cwd=runtime.tmp, timeout=60, check=False)  # fmt: skip


@pytest.mark.parametrize("kind", sorted(SANDBOXES))
def test_a_hook_call_from_a_sandbox_is_answered_cold(runtime: Runtime, kind: str) -> None:
    sandbox = _sandbox(kind)
    runtime.start()
    here = _hook(runtime, [], warm=True)
    assert here.returncode == 0
    assert b"unstaged" in here.stdout  # served: a cold answer would have failed
    inside = _hook(runtime, sandbox, warm=True)  # cold answers load a package that fails
    assert b"answered cold" in inside.stderr
    inside = _hook(runtime, sandbox, warm=False)
    assert (inside.returncode, inside.stdout, inside.stderr) == (
        0, runtime.cold("claude", PAYLOAD).stdout, b""
    )  # fmt: skip
    assert _hook(runtime, [], warm=True).stdout == here.stdout  # and the server goes on


def _run(
    runtime: Runtime, prefix: list[str]
) -> tuple[subprocess.CompletedProcess[bytes], set[str]]:
    env = {**runtime.env(warm=False), "AGENTOUT_SPILL_DIR": str(runtime.tmp / "spill"),
           "PYTHONPROFILEIMPORTTIME": "1"}  # fmt: skip
    done = subprocess.run([*prefix, SCRIPT, "run", "--", "seq", "1", "3000"], capture_output=True,
                          env=env, cwd=runtime.tmp, timeout=60, check=False)  # fmt: skip
    lines = done.stderr.decode().splitlines()
    imported = {line.split("|")[-1].strip() for line in lines if line.startswith("import time:")}
    return done, imported


@pytest.mark.parametrize("kind", sorted(SANDBOXES))
def test_a_run_from_a_sandbox_is_delivered_cold(runtime: Runtime, kind: str) -> None:
    sandbox = _sandbox(kind)
    runtime.start()
    here, loaded = _run(runtime, [])
    assert not {name for name in loaded if name.startswith(PIPELINE)}  # served warm
    inside, loaded = _run(runtime, sandbox)
    assert {name for name in loaded if name.startswith(PIPELINE)}  # delivered by the client
    assert (inside.returncode, inside.stdout) == (here.returncode, here.stdout)


def test_the_namespace_check_compares_the_callers(tmp_path: Path) -> None:
    """The check itself: a socket pair in this process is its own caller; a caller
    started in a new mount namespace is not."""
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    with ours, theirs:
        assert warm_server._own_caller(ours)
    sandbox = _sandbox("mount namespace")
    path = str(tmp_path / "s.sock")
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(1)
    code = (
        f"import socket,time; s=socket.socket(socket.AF_UNIX); s.connect({path!r}); time.sleep(5)"
    )
    child = subprocess.Popen([*sandbox, sys.executable, "-c", code])
    try:
        conn, _ = listener.accept()
        with conn:
            assert not warm_server._own_caller(conn)
    finally:
        child.kill()
        child.wait()
        listener.close()


def _half_sent(runtime: Runtime) -> socket.socket:
    """A call begun and never finished: part of a header, no end of writing."""
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    probe.connect(str(runtime.socket))
    probe.sendall(b"0000000400agentout-hook 2\0")
    return probe


def test_a_half_sent_call_is_dropped_and_the_server_goes_on(runtime: Runtime) -> None:
    runtime.start()
    probe = _half_sent(runtime)
    probe.settimeout(warm_server.CALL_WAIT + 30)
    started = time.monotonic()
    taken = probe.recv(1 << 16)  # the child that took it says its pid first
    assert re.fullmatch(rb"\d+\n", taken)
    assert probe.recv(1 << 16) == b""  # closed by the server: no answer
    took = time.monotonic() - started
    probe.close()
    assert warm_server.CALL_WAIT - 1 <= took <= warm_server.CALL_WAIT + 10
    assert b"unstaged" in _hook(runtime, [], warm=True).stdout  # served warm still


def test_children_are_capped_and_calls_past_the_cap_are_answered_cold(runtime: Runtime) -> None:
    """Twice as many half-sent calls as children allowed: the server never has more
    than ``MAX_CHILDREN`` children, a call meanwhile is answered (cold) at once, and once
    the stuck calls are dropped, calls are served warm again."""
    runtime.start()
    probes = []
    try:
        for _ in range(2 * warm_server.MAX_CHILDREN):
            probes.append(_half_sent(runtime))
            time.sleep(0.02)
        deadline = time.monotonic() + 5
        peak = 0
        while time.monotonic() < deadline:
            peak = max(peak, len(serving(runtime.socket)))
            time.sleep(0.05)
        assert peak <= warm_server.MAX_CHILDREN + 1  # the children and the server
        started = time.monotonic()
        cold = _hook(runtime, [], warm=False)
        assert time.monotonic() - started < warm_server.CALL_WAIT
        assert cold.stdout == runtime.cold("claude", PAYLOAD).stdout
    finally:
        for probe in probes:
            probe.close()
    deadline = time.monotonic() + warm_server.CALL_WAIT + 30
    while b"unstaged" not in _hook(runtime, [], warm=True).stdout:
        assert time.monotonic() < deadline, "never served warm again"
        time.sleep(0.5)


# -- persisted outputs: read only where the client keeps them -------------------------------

KEY = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n"


def _persisted(path: Path, *, cwd: Path, tool: str = "Bash") -> bytes:
    return json.dumps({
        "hook_event_name": "PostToolUse", "tool_name": tool, "session_id": "s1",
        "cwd": str(cwd), "tool_input": {"command": "./build.sh"},
        "tool_response": {"stdout": "start of it\n", "stderr": "", "interrupted": False,
                          "persistedOutputPath": str(path), "persistedOutputSize": 40_000},
    }).encode()  # fmt: skip


def _planted(root: Path) -> dict[str, Path]:
    """Claude Code's folder (``CLAUDE_CONFIG_DIR``), a file it persisted, and paths a
    hostile payload names instead."""
    claude = root / "claude"
    results = claude / "projects" / "-work-app" / "s1" / "tool-results"
    results.mkdir(parents=True)
    kept = results / "toolu_1.txt"
    kept.write_text("".join(f"step {i} compiled\n" for i in range(3000)) + "LAST LINE kept\n")
    secret = root / "home" / ".ssh" / "id_ed25519"
    secret.parent.mkdir(parents=True)
    secret.write_text(KEY * 400)  # long enough to be worth replacing
    (results / "link.txt").symlink_to(secret)
    transcript = claude / "projects" / "-work-app" / "s1.jsonl"
    transcript.write_text(KEY * 400)
    default = root / "home" / ".claude" / "projects" / "-x" / "s" / "tool-results" / "a.txt"
    default.parent.mkdir(parents=True)
    default.write_text(KEY * 400)
    return {"kept": kept, "secret": secret, "link": results / "link.txt",
            "transcript": transcript, "default home": default, "claude": claude}  # fmt: skip


REFUSED = ["secret", "link", "transcript", "default home"]


def _env(root: Path, base: dict[str, str]) -> dict[str, str]:
    return {**base, "HOME": str(root / "home"), "CLAUDE_CONFIG_DIR": str(root / "claude"),
            "AGENTOUT_SPILL_DIR": str(root / "spill")}  # fmt: skip


def _assert_refused(done: subprocess.CompletedProcess[bytes], path: Path, root: Path) -> None:
    assert (done.returncode, done.stdout) == (0, b"")
    assert done.stderr.count(b"\n") == 1, done.stderr
    assert str(path).encode() in done.stderr
    assert b"not in Claude Code's" in done.stderr
    assert b"OPENSSH" not in done.stderr
    assert not (root / "spill").exists() or not any((root / "spill").iterdir())


@pytest.mark.parametrize("name", REFUSED)
def test_a_persisted_output_outside_claudes_folder_is_not_read_cold(
    tmp_path: Path, name: str
) -> None:
    paths = _planted(tmp_path)
    env = _env(tmp_path, {k: v for k, v in os.environ.items()})
    done = subprocess.run([SCRIPT, "hook", "claude"], input=_persisted(paths[name], cwd=tmp_path),
                          env=env, capture_output=True, timeout=60, check=False)  # fmt: skip
    _assert_refused(done, paths[name], tmp_path)


def test_a_persisted_output_outside_claudes_folder_is_not_read_warm(runtime: Runtime) -> None:
    paths = _planted(runtime.tmp)
    runtime.start()
    for name in REFUSED:
        env = _env(runtime.tmp, runtime.env(warm=True))
        done = subprocess.run([*CLIENT, "hook", "claude"], env=env, cwd=runtime.tmp,
                              input=_persisted(paths[name], cwd=runtime.tmp),
                              capture_output=True, timeout=60, check=False)  # fmt: skip
        _assert_refused(done, paths[name], runtime.tmp)
    env = _env(runtime.tmp, runtime.env(warm=True))  # and Claude Code's own file is read
    done = subprocess.run([*CLIENT, "hook", "claude"], env=env, cwd=runtime.tmp,
                          input=_persisted(paths["kept"], cwd=runtime.tmp),
                          capture_output=True, timeout=60, check=False)  # fmt: skip
    assert b"LAST LINE kept" in done.stdout, done.stderr


def test_claudes_own_persisted_output_is_read(tmp_path: Path) -> None:
    paths = _planted(tmp_path)
    env = _env(tmp_path, dict(os.environ))
    done = subprocess.run([SCRIPT, "hook", "claude"], input=_persisted(paths["kept"], cwd=tmp_path),
                          env=env, capture_output=True, timeout=60, check=False)  # fmt: skip
    assert done.returncode == 0
    assert b"LAST LINE kept" in done.stdout, done.stderr  # only in the file: stdout held its start


def test_an_opencode_output_path_outside_its_folder_is_not_read(tmp_path: Path) -> None:
    paths = _planted(tmp_path)
    data = tmp_path / "data"
    own = data / "opencode" / "tool-output" / "tool_1"
    own.parent.mkdir(parents=True)
    own.write_text(paths["kept"].read_text())
    env = {**_env(tmp_path, dict(os.environ)), "XDG_DATA_HOME": str(data)}
    for path, read in ((paths["secret"], False), (paths["kept"], False), (own, True)):
        payload = json.dumps({"hook_event_name": "PostToolUse", "tool_name": "bash",
                              "tool_input": {"command": "./build.sh"},
                              "tool_response": {"output": "start of it\n", "exit": 0,
                                                "outputPath": str(path)}}).encode()  # fmt: skip
        done = subprocess.run([SCRIPT, "hook", "opencode"], input=payload, env=env,
                              capture_output=True, timeout=60, check=False)  # fmt: skip
        assert done.returncode == 0
        assert (b"LAST LINE kept" in done.stdout) is read, (path, done.stderr)
        assert b"OPENSSH" not in done.stdout + done.stderr
        if not read:
            assert b"not in OpenCode's" in done.stderr
