"""``agentout run`` served by the warm server (``agentout.cli.run_client``): the command
runs in the client, as the cold path runs it, and the server's child delivers its output.
Every served run gives the same bytes and exit status as the same run answered cold; the
client loads no more than built-in modules and agentout's light ones, which each warm run
here proves (``-X importtime``: a cold delivery would import agentout's pipeline)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from agentout.cli import quick, run_client
from warm_server import WAIT, Runtime, impostor, outdated_by, runtime, taken_unanswered

__all__ = ["runtime"]  # the fixture

SCRIPT = str(Path(sys.executable).parent / "agentout")  # as the hooks' rewrite starts it
# What a cold delivery imports and the client never does.
PIPELINE = ("agentout.sources.command", "agentout.reducers", "agentout.deliver")
HEAVY = ("re", "enum", "typing", "subprocess", "json", "threading")


class Done:
    def __init__(self, done: subprocess.CompletedProcess[bytes]) -> None:
        self.status = done.returncode
        self.stdout = done.stdout
        lines = done.stderr.decode("utf-8", "replace").splitlines(keepends=True)
        self.imported = {
            line.split("|")[-1].strip() for line in lines if line.startswith("import time:")
        }
        self.stderr = "".join(line for line in lines if not line.startswith("import time:"))


def run(
    runtime: Runtime, args: list[str], *, warm: bool = True, cwd: Path | None = None,
    stdin: bytes | None = None, streamed: bool = False, **env: str,
) -> Done:  # fmt: skip
    """``agentout run ARGS`` as an agent's shell starts it: served when ``warm``, cold
    otherwise; a warm call fails here unless the server delivered it, a ``streamed`` one
    unless the client delivered it as the output came (``Streamed``)."""
    extra = {"AGENTOUT_SPILL_DIR": str(runtime.tmp / "spill")}
    if warm or streamed:
        extra["PYTHONPROFILEIMPORTTIME"] = "1"
    if not warm:
        extra["AGENTOUT_HOOK_SERVER"] = "1" if streamed else "0"
    extra.update(env)
    done = Done(
        subprocess.run(
            [SCRIPT, "run", *args],
            input=stdin,
            capture_output=True,
            env={**runtime.env(warm=False), **extra},
            cwd=cwd or runtime.tmp,
            timeout=60,
            check=False,
        )
    )
    if streamed:
        assert "queue" in done.imported, "not delivered by the client as it came"
    if warm:
        assert done.imported, "no import report: the client did not run"
        loaded = {name for name in done.imported if name.startswith(PIPELINE) or name in HEAVY}
        assert not loaded, f"delivered cold: the client imported {sorted(loaded)}"
    return done


def start(runtime: Runtime) -> None:
    """The first served run finds no server, delivers cold and starts one."""
    first = run(runtime, ["--", "true"], warm=False, AGENTOUT_HOOK_SERVER="1")
    assert first.status == 0
    runtime.wait_listening()


def repository(root: Path) -> Path:
    repo = root / "repo"
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"]
    subprocess.run([*git, "init", "-q", str(repo)], check=True)
    for i in range(20):
        (repo / f"f{i}.py").write_text(f"x = {i}\n")
    subprocess.run([*git, "-C", str(repo), "add", "."], check=True)
    subprocess.run([*git, "-C", str(repo), "commit", "-qm", "one"], check=True)
    for i in range(0, 20, 3):
        (repo / f"f{i}.py").write_text("changed\n")
    return repo


CASES = {
    "nothing printed": ["--", "true"],
    "a failure, both streams": ["--", "sh", "-c", "echo out; echo err >&2; exit 3"],
    "a budget": ["--max-tokens", "20", "--", "seq", "1", "300"],
    "a shell line": ["--shell", "seq 1 5000 | grep 7 2>&1 | tail -n 400"],
    "not reduced": ["--no-reduce", "--", "seq", "1", "3000"],
    "bytes that are not text": ["--", "printf", "\\377\\000\\376 caf\\303\\251\\n"],
    "not found": ["--", "agentout-no-such-command"],
    "killed by a signal": ["--", "sh", "-c", "echo before; kill -9 $$"],
    "timed out": ["--timeout", "0.5", "--", "sh", "-c", "echo started; sleep 5"],
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_served_run_is_the_cold_run(runtime: Runtime, case: str) -> None:
    start(runtime)
    warm, cold = run(runtime, CASES[case]), run(runtime, CASES[case], warm=False)
    assert (warm.stdout, warm.stderr, warm.status) == (cold.stdout, cold.stderr, cold.status)


def test_a_reduced_command_is_reduced_as_cold(runtime: Runtime) -> None:
    start(runtime)
    repo = repository(runtime.tmp)
    warm = run(runtime, ["--", "git", "status"], cwd=repo)
    cold = run(runtime, ["--", "git", "status"], warm=False, cwd=repo)
    assert warm.stdout == cold.stdout
    assert b"unstaged: M f0.py" in warm.stdout  # git status's reducer read it
    assert warm.status == 0


def test_output_past_memory_is_delivered_by_the_client_as_it_comes(runtime: Runtime) -> None:
    """Past ``IN_MEMORY`` bytes the client delivers the output itself, read once as it
    arrives (as with no server), and gives the same bytes as a cold run."""
    start(runtime)
    big = run_client.IN_MEMORY + (3 << 20)
    for args in (["--shell", f"yes 'log line' | head -c {big}"],
                 ["--shell", f"yes 'log line' | head -c {big}; exit 4"]):  # fmt: skip
        streamed = run(runtime, args, warm=False, streamed=True)
        cold = run(runtime, args, warm=False)
        assert (streamed.stdout, streamed.status) == (cold.stdout, cold.status)
        assert b"agentout show" in streamed.stdout  # stored whole, a reference given
    assert streamed.status == 4


def test_secrets_are_hidden_as_cold(runtime: Runtime) -> None:
    start(runtime)
    secret = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    args = ["--", "sh", "-c", "echo token=$GH_TOKEN; echo done"]
    warm = run(runtime, args, GH_TOKEN=secret)
    cold = run(runtime, args, warm=False, GH_TOKEN=secret)
    assert warm.stdout == cold.stdout
    assert secret.encode() not in warm.stdout
    stored = b"".join(p.read_bytes() for p in (runtime.tmp / "spill").rglob("*") if p.is_file())
    assert secret.encode() not in stored


def test_the_command_runs_in_the_clients_process_with_its_stdin(runtime: Runtime) -> None:
    """Not in the server: its parent is the client, it reads the caller's stdin, and a
    relative store lands in the caller's folder."""
    start(runtime)
    here = runtime.tmp / "caller"
    here.mkdir()
    script = "tr a-z A-Z; tr '\\0' ' ' < /proc/$PPID/cmdline; echo"
    done = run(
        runtime, ["--shell", script], cwd=here, stdin=b"from stdin\n", AGENTOUT_SPILL_DIR="rel"
    )
    assert done.status == 0
    lines = done.stdout.decode().splitlines()
    assert lines[0] == "FROM STDIN"
    assert f"{SCRIPT} run --shell" in lines[1]
    assert "warm_server" not in done.stdout.decode()
    seq = run(runtime, ["--", "seq", "1", "40000"], cwd=here, AGENTOUT_SPILL_DIR="rel")
    assert b"agentout show" in seq.stdout
    assert any((here / "rel").rglob("*"))


def _gain(env: dict[str, str], cwd: Path) -> dict[str, object]:
    done = subprocess.run(
        [SCRIPT, "gain", "--format", "json"], capture_output=True, env=env, cwd=cwd, check=True
    )
    totals: dict[str, object] = json.loads(done.stdout)["total"]
    return totals


def test_a_served_run_is_counted_as_a_cold_one(runtime: Runtime) -> None:
    start(runtime)
    repo = repository(runtime.tmp)
    totals = []
    for warm in (False, True):
        ledger = {"AGENTOUT_LEDGER": "1", "AGENTOUT_LEDGER_DB": str(runtime.tmp / f"{warm}.db")}
        for args in (["--", "git", "status"], ["--", "seq", "1", "30000"]):
            run(runtime, args, warm=warm, cwd=repo, **ledger)
        env = {**runtime.env(warm=False), "AGENTOUT_HOOK_SERVER": "0", **ledger}
        deadline = time.monotonic() + WAIT
        while (found := _gain(env, repo))["deliveries"] != 2:  # recorded after the answer
            assert time.monotonic() < deadline, found
            time.sleep(0.1)
        totals.append({k: v for k, v in found.items() if "duration" not in k})
    assert totals[0] == totals[1]
    assert totals[0]["delivered_tokens"] < totals[0]["raw_tokens"]  # type: ignore[operator]


def test_a_failing_server_leaves_the_run_to_the_client(runtime: Runtime) -> None:
    """Something on the socket that takes the call and answers nonsense: the client still
    has the output and delivers it itself, once, with the command's status."""
    args = ["--", "sh", "-c", "echo once; exit 5"]
    with impostor(runtime):
        done = run(runtime, args, warm=False, AGENTOUT_HOOK_SERVER="1")
    cold = run(runtime, args, warm=False)
    assert (done.stdout, done.status) == (cold.stdout, 5)
    assert done.stdout.count(b"once") == 1


@pytest.mark.parametrize(
    "words",
    [
        [b"run"],  # no outcome, no arguments
        [b"run", b"--", b"true"],  # the outcome missing from the payload
        [b"rm", b"-rf", b"/"],  # a call no client makes
    ],
)
def test_a_broken_run_call_gets_no_answer_and_the_server_goes_on(
    runtime: Runtime, words: list[bytes]
) -> None:
    from agentout.agents import hook_client

    start(runtime)
    fields = [
        hook_client.PROTOCOL,
        os.fsencode(sys.executable),
        os.fsencode(hook_client.package_dir()),
    ]
    fields += [SCRIPT.encode(), str(runtime.tmp).encode(), b"22", b"%d" % len(words), *words]
    header = b"\0".join(fields)
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    probe.settimeout(WAIT)
    probe.connect(str(runtime.socket))
    probe.sendall(b"%010d" % len(header) + header + b"not an outcome")
    probe.shutdown(socket.SHUT_WR)
    assert taken_unanswered(probe)
    probe.close()
    assert not (runtime.tmp / "-rf").exists()
    warm, cold = run(runtime, CASES["a budget"]), run(runtime, CASES["a budget"], warm=False)
    assert warm.stdout == cold.stdout


def test_an_outdated_server_steps_aside_and_the_run_is_delivered(runtime: Runtime) -> None:
    """A module file that changed (an upgrade) is noticed at the next run: that run is
    delivered by the client itself, the old server ends, and the client starts the new one."""
    marker = runtime.tmp / "module.py"
    old = outdated_by(runtime, marker)
    try:
        runtime.wait_listening()
        args = ["--", "seq", "1", "3000"]
        expected = run(runtime, args, warm=False).stdout
        assert run(runtime, args).stdout == expected  # served
        os.utime(marker, ns=(0, marker.stat().st_mtime_ns + 1_000_000))
        outdated = run(runtime, args, warm=False, AGENTOUT_HOOK_SERVER="1")
        assert (outdated.stdout, outdated.status) == (expected, 0)
        assert old.wait(timeout=WAIT) == 0
        runtime.wait_listening()  # the server the client started
        assert runtime.pid() not in (None, old.pid)
        assert run(runtime, args).stdout == expected  # served again
    finally:
        if old.poll() is None:
            old.kill()
            old.wait()


# -- which runs are served ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "served"),
    [
        (["--", "git", "status"], True),
        (["--shell", "pytest -q 2>&1 | tail"], True),  # a line of bash: read as text
        (["--", "pytest", "-q"], False),  # the test report reads its runner's results
        (["--", "python", "-m", "pytest"], False),
        (["--", "make", "check"], False),  # recipe lines reduced one by one
        (["--no-reduce", "--", "make", "check"], True),  # as printed: nothing of its own
        (["--shell", "a", "b"], False),  # the cold path's error to give
    ],
)
def test_which_runs_are_served(
    args: list[str], served: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENTOUT_HOOK_SERVER", "1")
    monkeypatch.setattr(os, "isatty", lambda fd: False)
    options = quick.options(args)
    assert options is not None
    assert run_client.served(options) is served
    monkeypatch.setenv("AGENTOUT_STORE", "s3://bucket/prefix")  # its upload would hold the answer
    assert run_client.served(options) is False


def test_a_terminal_on_stderr_is_not_served(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENTOUT_HOOK_SERVER", "1")
    monkeypatch.setattr(os, "isatty", lambda fd: fd == 2)
    options = quick.options(["--", "git", "status"])
    assert options is not None
    assert run_client.served(options) is False
