"""A hostile repository's files, as the hooks and init meet them: a settings file or a
persisted output that is a device, a FIFO, a directory or gigabytes. Each is refused
unread (a regular file only, its size checked first), in bounded time and memory, and no
traceback: a settings file the hook reads for ``bashOutputMaxChars`` counts as absent, a
persisted output costs one line on stderr and nothing is replaced."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from adversarial_support import AGENTOUT
from click.testing import CliRunner

from agentout.cli.main import cli

KINDS = ["/dev/zero", "/dev/urandom", "fifo", "directory", "huge", "socket-like"]


def _plant(path: Path, kind: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "directory":
        path.mkdir()
    elif kind == "huge":
        with path.open("wb") as handle:
            handle.truncate(5 << 30)  # 5 GiB, sparse
    elif kind == "socket-like":
        path.symlink_to("/proc/self/fd/0")  # whatever stdin is: a pipe here
    else:
        path.symlink_to(kind)


def _hook(
    payload: dict[str, object], env: dict[str, str]
) -> tuple[subprocess.CompletedProcess[bytes], float]:
    started = time.process_time()
    done = subprocess.run([*AGENTOUT, "hook", "claude"], input=json.dumps(payload).encode(),
                          capture_output=True, env={**os.environ, **env}, timeout=60,
                          check=False)  # fmt: skip
    return done, time.process_time() - started


def _post(project: Path, session: str = "s") -> dict[str, object]:
    """A finished Bash call whose output is long enough for the hook to read the project's
    settings (``bashOutputMaxChars``)."""
    output = "\n".join(f"line {n}" for n in range(1000))
    return {"hook_event_name": "PostToolUse", "tool_name": "Bash", "session_id": session,
            "cwd": str(project), "tool_input": {"command": "./x"},
            "tool_response": {"stdout": output, "stderr": "", "interrupted": False}}  # fmt: skip


@pytest.mark.parametrize("kind", KINDS)
def test_settings_that_are_not_files_count_as_absent(tmp_path: Path, kind: str) -> None:
    project, home = tmp_path / "project", tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    _plant(project / ".claude" / "settings.json", kind)
    env = {"HOME": str(home), "CLAUDE_PROJECT_DIR": str(project)}
    started = time.monotonic()
    done, _ = _hook(_post(project), env)
    assert time.monotonic() - started < 30
    assert (done.returncode, done.stderr) == (0, b"")
    plain = tmp_path / "plain"
    (plain / ".claude").mkdir(parents=True)
    env = {"HOME": str(home), "CLAUDE_PROJECT_DIR": str(plain)}
    same, _ = _hook(_post(plain, "another session"), env)
    assert done.stdout == same.stdout  # as with no settings file at all


@pytest.mark.parametrize("kind", KINDS)
def test_posttooluse_persisted_output_that_is_not_a_file(tmp_path: Path, kind: str) -> None:
    claude = tmp_path / "claude"  # where Claude Code keeps outputs: the one folder read
    persisted = claude / "projects" / "-x" / "s" / "tool-results" / "b.txt"
    _plant(persisted, kind)
    payload = {"hook_event_name": "PostToolUse", "tool_name": "Bash", "session_id": "s",
               "tool_input": {"command": "./x"},
               "tool_response": {"stdout": "head", "stderr": "", "interrupted": False,
                                 "persistedOutputPath": str(persisted)}}  # fmt: skip
    env = {"AGENTOUT_SPILL_DIR": str(tmp_path / "store"), "CLAUDE_CONFIG_DIR": str(claude)}
    done, _ = _hook(payload, env)
    assert (done.returncode, done.stdout) == (0, b"")
    assert done.stderr.count(b"\n") == 1
    assert b"Traceback" not in done.stderr
    assert not (tmp_path / "store").exists() or not any((tmp_path / "store").iterdir())


def test_dev_zero_settings_cost_no_memory(tmp_path: Path) -> None:
    project, home = tmp_path / "project", tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    _plant(project / ".claude" / "settings.json", "/dev/zero")
    payload = tmp_path / "payload.json"
    payload.write_text(json.dumps(_post(project)))
    probe = (
        "import json, resource, subprocess, sys\n"
        f"done = subprocess.run({[*AGENTOUT, 'hook', 'claude']!r}, capture_output=True,\n"
        f"                      input=open({str(payload)!r}, 'rb').read())\n"
        "peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss\n"
        "print(json.dumps([peak, done.returncode, done.stderr.decode()]))\n"
    )
    env = {**os.environ, "HOME": str(home), "CLAUDE_PROJECT_DIR": str(project)}
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, env=env,
                          check=True, timeout=60)  # fmt: skip
    peak, status, err = json.loads(done.stdout)
    assert (status, err) == (0, "")
    assert peak < 200 * 1024  # KiB: an interpreter and a little, never the device


@pytest.mark.parametrize("kind", ["/dev/zero", "fifo", "huge"])
def test_init_refuses_a_settings_file_that_is_not_a_file(
    tmp_path: Path, kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    project = tmp_path / "project"
    _plant(project / ".claude" / "settings.local.json", kind)
    started = time.monotonic()
    done = CliRunner().invoke(cli, ["init", "claude", "--project", str(project)])
    assert done.exit_code == 2
    assert "settings.local.json" in done.output
    assert "Traceback" not in done.output
    assert time.monotonic() - started < 30
    assert not (project / ".mcp.json").exists()
