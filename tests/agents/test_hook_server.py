"""The hook as ``agentout init`` installs it: the warm server's thin client
(``python -S .../hook_client.py hook AGENT``). A call the warm server answers is the
same, byte for byte, as the call answered cold; each call is its caller's (working
directory, environment, secrets); the server keeps to the user's private folder, steps
aside when outdated, and ends when idle.

Each test proves that the warm server answered: its calls run with ``PYTHONPATH`` on an
``agentout`` package that fails on import, which only a cold answer would load."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from agentout.agents import hook_client
from agentout.cli import warm_server
from processes import alive
from warm_server import (
    CLIENT,
    WAIT,
    Runtime,
    impostor,
    outdated_by,
    runtime,
    serving,
    taken_unanswered,
)

__all__ = ["runtime"]  # the fixture


def _status(files: int) -> str:
    lines = ["On branch main", "Changes not staged for commit:"]
    lines += ['  (use "git add <file>..." to update what will be committed)']
    lines += [f"\tmodified:   src/pkg/module_{i}.py" for i in range(files)]
    return "\n".join(lines) + "\n\nno changes added to commit\n"


def _post(command: str, stdout: str, **extra: object) -> bytes:
    return json.dumps(
        {
            "hook_event_name": "PostToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": command},
            "tool_response": {"stdout": stdout, "stderr": "", "interrupted": False},
            **extra,
        }
    ).encode()


def _pre(command: str, mode: str = "bypassPermissions") -> bytes:
    return json.dumps(
        {
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "permission_mode": mode,
            "tool_input": {"command": command},
        }
    ).encode()


CASES = {
    "git status, reduced": ("claude", _post("git status", _status(40))),
    "plain output, no answer": ("claude", _post("./build.sh", "compiled 3 files\n")),
    "a routed command": ("claude", _pre("git log -3")),
    "not JSON": ("claude", b"{not json"),
    "not an object": ("claude", b"[1, 2]"),
    "tool_response of another shape": (
        "claude",
        json.dumps(
            {"hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_response": "text"}
        ).encode(),
    ),
    "empty": ("claude", b""),
    "gemini, small output": (
        "gemini",
        json.dumps(
            {
                "hook_event_name": "AfterTool",
                "tool_name": "run_shell_command",
                "tool_input": {"command": "ls"},
                "tool_response": {"llmContent": "a\nb\n", "returnDisplay": "a\nb\n"},
            }
        ).encode(),
    ),
    "a large log": (
        "claude",
        _post("make", "".join(f"[{i}] compiling unit {i}\n" for i in range(60_000))),
    ),
}


def test_the_warm_answer_is_the_cold_answer(runtime: Runtime) -> None:
    runtime.start()
    for name, (agent, payload) in CASES.items():
        cold = runtime.cold(agent, payload)
        warm = runtime.call(agent, payload)
        assert (warm.returncode, warm.stdout, warm.stderr) == (
            cold.returncode,
            cold.stdout,
            cold.stderr,
        ), name
    reduced = json.loads(runtime.call("claude", CASES["git status, reduced"][1]).stdout)
    assert "unstaged:" in reduced["hookSpecificOutput"]["updatedToolOutput"]["stdout"]


def test_a_payload_over_the_limit_gets_the_same_message_warm(runtime: Runtime) -> None:
    """65 MiB through the socket: read whole by the client, refused by the server's
    child as a cold answer refuses it, the agent's write never cut short."""
    runtime.start()
    payload = _post("cat big.log", "x" * (65 << 20))
    cold = runtime.cold("claude", payload)
    warm = runtime.call("claude", payload)
    assert warm.stdout == cold.stdout == b""
    assert warm.stderr == cold.stderr
    assert b"payload over 67108864 bytes" in warm.stderr


def test_no_stdin_at_all_is_an_empty_payload(runtime: Runtime) -> None:
    runtime.start()
    done = subprocess.run(
        [*CLIENT, "hook", "claude"],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        env=runtime.env(),
        check=False,
        timeout=60,
        preexec_fn=lambda: os.close(0),  # the one way to start without fd 0
    )
    assert done.returncode == 0
    assert done.stdout == b""
    assert done.stderr.startswith(b"agentout: hook: <stdin>:")


def test_calls_in_parallel_each_get_their_own_answer(runtime: Runtime) -> None:
    runtime.start()
    payloads = [_post("git status", _status(n)) for n in range(30, 38)]
    expected = [runtime.cold("claude", p).stdout for p in payloads]
    with ThreadPoolExecutor(4) as pool:
        answers = list(pool.map(lambda p: runtime.call("claude", p).stdout, payloads))
    assert answers == expected
    assert len(set(answers)) == len(payloads)


def test_each_call_has_its_callers_folder_and_environment(runtime: Runtime) -> None:
    runtime.start()
    payload = _post("git status", _status(40))
    for name in ("one", "two"):
        where = runtime.tmp / name
        where.mkdir()
        # a relative store folder: found from the caller's working directory
        done = runtime.call("claude", payload, cwd=where, AGENTOUT_SPILL_DIR="store")
        assert done.returncode == 0
        assert done.stderr == b""
        stored = list((where / "store").rglob("*"))
        assert any(p.is_file() for p in stored), name


def test_each_callers_secrets_are_hidden(runtime: Runtime) -> None:
    runtime.start()
    for value in ("f3Kq9ZxW2mP7vL0aR8sT", "Yb4Nc6Vd1Qe5Rf9Gh2Jk"):
        printed = f"export DEPLOY_TOKEN={value}\n" + "ok\n" * 5
        done = runtime.call("claude", _post("cat deploy.env", printed), DEPLOY_TOKEN=value)
        assert done.returncode == 0, done.stderr
        assert value.encode() not in done.stdout
        assert b"updatedToolOutput" in done.stdout  # replaced: the secret is hidden


def _gain(env: dict[str, str]) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-m", "agentout", "gain", "--format", "json"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    total: dict[str, object] = json.loads(done.stdout)["total"]
    return total


def test_a_warm_delivery_is_counted_as_a_cold_one(runtime: Runtime) -> None:
    """The server's child records the delivery once the agent has its answer: the row
    lands a moment after the answer, with the same counts."""
    runtime.start()
    payload = CASES["git status, reduced"][1]
    totals = []
    for warm in (False, True):
        ledger = {"AGENTOUT_LEDGER": "1", "AGENTOUT_LEDGER_DB": str(runtime.tmp / f"{warm}.db")}
        if warm:
            done = runtime.call("claude", payload, **ledger)
        else:
            done = runtime.cold("claude", payload, **ledger)
        assert b"updatedToolOutput" in done.stdout
        env = runtime.env(warm=False, **ledger)
        deadline = time.monotonic() + WAIT
        while (total := _gain(env))["deliveries"] != 1:
            assert time.monotonic() < deadline, total
            time.sleep(0.1)
        totals.append({k: v for k, v in total.items() if "duration" not in k})
    assert totals[0] == totals[1]
    assert totals[0]["delivered_tokens"] < totals[0]["raw_tokens"]  # type: ignore[operator]


def test_a_socket_left_by_a_dead_server_is_replaced(runtime: Runtime) -> None:
    import socket

    runtime.folder.mkdir(mode=0o700)
    dead = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    dead.bind(str(runtime.socket))
    dead.close()  # the file stays; nothing listens
    payload = CASES["git status, reduced"][1]
    first = runtime.call("claude", payload, warm=False)
    assert first.stdout == runtime.cold("claude", payload).stdout
    runtime.wait_listening()
    assert runtime.call("claude", payload).stdout == first.stdout


def test_an_idle_server_ends_and_removes_its_socket(runtime: Runtime) -> None:
    done = runtime.call("claude", b"{}", warm=False, AGENTOUT_HOOK_SERVER_IDLE="1")
    assert done.returncode == 0
    deadline = time.monotonic() + WAIT
    while runtime.pid() is None or not alive(runtime.pid() or 0):
        assert time.monotonic() < deadline, "the hook server did not start"
        time.sleep(0.05)
    pid = runtime.pid()
    assert pid is not None
    while alive(pid) or runtime.socket.exists() or serving(runtime.socket):
        assert time.monotonic() < deadline, "the idle server (or its spare) did not end"
        time.sleep(0.1)


def test_a_killed_servers_spare_ends_too(runtime: Runtime) -> None:
    runtime.start()
    deadline = time.monotonic() + WAIT
    while len(serving(runtime.socket)) < 2:  # the server, and its spare child
        assert time.monotonic() < deadline, serving(runtime.socket)
        time.sleep(0.05)
    pid = runtime.pid()
    assert pid is not None
    os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + WAIT
    while serving(runtime.socket):
        assert time.monotonic() < deadline, "the spare outlived its server"
        time.sleep(0.1)
    payload = CASES["git status, reduced"][1]  # the socket file is left: answered cold
    assert (
        runtime.call("claude", payload, warm=False).stdout == runtime.cold("claude", payload).stdout
    )


def test_a_folder_others_may_enter_is_not_used(runtime: Runtime) -> None:
    runtime.folder.mkdir()
    os.chmod(runtime.folder, 0o755)
    payload = CASES["git status, reduced"][1]
    done = runtime.call("claude", payload, warm=False)
    assert done.stdout == runtime.cold("claude", payload).stdout
    time.sleep(1.0)
    assert list(runtime.folder.iterdir()) == []  # no socket, no lock: nothing started
    assert runtime.folder.stat().st_mode & 0o777 == 0o755  # and the folder left as it was
    assert warm_server.serve(str(runtime.socket)) == 2


def test_an_outdated_server_steps_aside_for_the_new_one(runtime: Runtime) -> None:
    """A module file that changed (an upgrade) is noticed at the next call: that call is
    answered cold, the old server ends, and the client starts the new one."""
    marker = runtime.tmp / "module.py"
    old = outdated_by(runtime, marker)
    try:
        runtime.wait_listening()
        payload = CASES["git status, reduced"][1]
        expected = runtime.cold("claude", payload).stdout
        assert runtime.call("claude", payload).stdout == expected  # warm
        os.utime(marker, ns=(0, marker.stat().st_mtime_ns + 1_000_000))
        assert runtime.call("claude", payload, warm=False).stdout == expected  # cold
        assert old.wait(timeout=WAIT) == 0
        runtime.wait_listening()  # the server the client started
        assert runtime.pid() not in (None, old.pid)
        assert runtime.call("claude", payload).stdout == expected  # warm again
    finally:
        if old.poll() is None:
            old.kill()
            old.wait()


@pytest.mark.parametrize(
    "sent",
    [
        b"",  # nothing
        b"not a header at all",
        b"0000000012" + b"wrong protocol",  # another protocol
        b"9999999999" + b"x" * 64,  # a header said to be larger than any environment
        b"%010d" % len(hook_client.PROTOCOL) + hook_client.PROTOCOL,  # no fields after it
    ],
)
def test_a_broken_call_gets_no_answer_and_the_server_goes_on(runtime: Runtime, sent: bytes) -> None:
    """Whatever reaches the socket: the child that took it ends without an answer (a
    client would then answer cold), and the next call is answered warm."""
    import socket

    runtime.start()
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    probe.settimeout(WAIT)
    probe.connect(str(runtime.socket))
    probe.sendall(sent)
    probe.shutdown(socket.SHUT_WR)
    assert taken_unanswered(probe)
    probe.close()
    payload = CASES["git status, reduced"][1]
    assert runtime.call("claude", payload).stdout == runtime.cold("claude", payload).stdout


def test_a_broken_answer_is_answered_cold(runtime: Runtime) -> None:
    """Something else listening on the socket, answering nonsense: the call is answered
    cold, as if no server ran."""
    payload = CASES["git status, reduced"][1]
    with impostor(runtime):
        done = runtime.call("claude", payload, warm=False)
    assert done.stdout == runtime.cold("claude", payload).stdout
    assert done.stderr == b""


def test_a_bad_idle_setting_keeps_the_default(monkeypatch: pytest.MonkeyPatch) -> None:
    for bad in ("soon", "", "nan-ish"):
        monkeypatch.setenv("AGENTOUT_HOOK_SERVER_IDLE", bad)
        assert warm_server._idle() == warm_server.IDLE
    monkeypatch.setenv("AGENTOUT_HOOK_SERVER_IDLE", "0")
    assert warm_server._idle() == 1.0  # at least a second
    monkeypatch.setenv("AGENTOUT_HOOK_SERVER_IDLE", "30")
    assert warm_server._idle() == 30.0


def test_a_server_outdated_by_its_files_is_noticed(tmp_path: Path) -> None:
    module = tmp_path / "module.py"
    module.write_text("x = 1\n")
    stamps = {str(module): module.stat().st_mtime_ns}
    assert not warm_server._changed(stamps)
    os.utime(module, ns=(0, module.stat().st_mtime_ns + 1_000_000))
    assert warm_server._changed(stamps)
    module.unlink()
    assert warm_server._changed({str(module): 0})


def test_a_warm_call_loads_nothing_beyond_the_standard_library(runtime: Runtime) -> None:
    """The client's start-up is the hook's: no site, no package, nothing of agentout."""
    runtime.start()
    payload = CASES["git status, reduced"][1]
    done = subprocess.run(
        [sys.executable, "-S", "-X", "importtime", *CLIENT[2:], "hook", "claude"],
        input=payload,
        capture_output=True,
        env=runtime.env(),
        check=True,
    )
    assert done.stdout == runtime.cold("claude", payload).stdout
    loaded = [
        line.rsplit("|", 1)[1].strip()
        for line in done.stderr.decode().splitlines()
        if line.startswith("import time:") and "|" in line
    ]
    assert "_socket" in loaded
    names = {name.split(".")[0] for name in loaded[1:]}  # the first line is the header
    assert "hook_client" in names  # from its cached bytecode, not compiled as a script
    assert not [n for n in names - {"hook_client"} if n not in sys.stdlib_module_names]
    assert not {"site", "agentout", "json", "re", "socket"} & names


def test_installed_hooks_start_the_client(tmp_path: Path) -> None:
    from agentout.agents import claude

    edits = claude.edits(
        scope="project", home=tmp_path, project=tmp_path, agentout=["agentout"], hook=CLIENT
    )
    commands = {getattr(e, "command", None) for e in edits} - {None}
    assert commands == {" ".join(CLIENT) + " hook claude"}


def test_a_hook_server_left_behind_by_a_test_is_none() -> None:
    """The suite's own hooks answer cold (tests/conftest.py): no server outlives a test."""
    assert os.environ["AGENTOUT_HOOK_SERVER"] == "0"
    leftovers = [
        line
        for line in subprocess.run(
            ["ps", "-eo", "args"], capture_output=True, text=True, check=False
        ).stdout.splitlines()
        if "agentout.cli.warm_server" in line and os.environ["XDG_RUNTIME_DIR"] in line
    ]
    assert leftovers == []
