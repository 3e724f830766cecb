"""A command with an agentout part is not agentout's output. ``cat .env; agentout
--version`` was taken for a command agentout had run already, and the ``.env`` it printed
reached the model with its secrets. Only a command whose every other part prints nothing
(``cd x && agentout run ...``) is left as agentout's; the rest is read like any output,
on the PostToolUse hook cold and warm, and through OpenCode's and Gemini CLI's hooks."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from agentout.agents import claude_bash
from agentout.agents._shell import analyse
from warm_server import CLIENT, Runtime, runtime

__all__ = ["runtime"]  # the fixture

SCRIPT = str(Path(sys.executable).parent / "agentout")
TOKEN = "ghp_" + "Zq7Xc2Vb9Nm4Lk8Jh3Gf6Ds1Aa5Pp0Oo9Ii"
COMMANDS = [
    "cat .env; agentout --version",
    "cat .env && agentout --version",
    "agentout --version; cat .env",
    "cat .env | tee /dev/stderr; agentout run -- true",
    "cd . && cat .env && python3 -m agentout --version",
    "export; agentout --version",
]


def _printed(root: Path, command: str) -> str:
    (root / ".env").write_text(f"GITHUB_TOKEN={TOKEN}\nDEBUG=1\n")
    env = {**os.environ, "PATH": f"{Path(SCRIPT).parent}:{os.environ['PATH']}",
           "GITHUB_TOKEN": TOKEN, "AGENTOUT_HOOK_SERVER": "0"}  # fmt: skip
    done = subprocess.run(["bash", "-c", command], cwd=root, env=env, capture_output=True,
                          text=True, timeout=60, check=False)  # fmt: skip
    assert TOKEN in done.stdout + done.stderr  # the command itself shows it
    return done.stdout


def _post(command: str, stdout: str) -> bytes:
    return json.dumps({
        "session_id": "s", "hook_event_name": "PostToolUse", "tool_name": "Bash",
        "tool_input": {"command": command},
        "tool_response": {"stdout": stdout, "stderr": "", "interrupted": False},
    }).encode()  # fmt: skip


def _read(done: subprocess.CompletedProcess[bytes], given: str, key: str = "stdout") -> str:
    """What the model reads: the answer, else the output as it was."""
    assert done.returncode == 0, done.stderr
    if not done.stdout.strip() or done.stdout.strip() == b"{}":
        return given
    answer = json.loads(done.stdout)
    if "output" in answer or "reason" in answer:  # OpenCode's plugin; Gemini CLI's hook
        return str(answer.get("output", answer.get("reason")))
    specific = answer["hookSpecificOutput"]
    if "updatedToolOutput" in specific:
        return str(specific["updatedToolOutput"][key])
    return str(specific["tool_response"]["llmContent"])


@pytest.mark.parametrize("command", COMMANDS)
def test_the_posttooluse_hook_hides_the_secret(tmp_path: Path, command: str) -> None:
    given = _printed(tmp_path, command) or f"GITHUB_TOKEN={TOKEN}\n"
    env = {**os.environ, "AGENTOUT_SPILL_DIR": str(tmp_path / "store"),
           "AGENTOUT_HOOK_SERVER": "0"}  # fmt: skip
    done = subprocess.run([SCRIPT, "hook", "claude"], input=_post(command, given), env=env,
                          capture_output=True, timeout=60, check=False)  # fmt: skip
    read = _read(done, given)
    assert TOKEN not in read
    assert "[secret: " in read or "$GITHUB_TOKEN" in read


def test_served_warm(runtime: Runtime) -> None:
    runtime.start()
    for command in COMMANDS[:2]:
        given = _printed(runtime.tmp, command)
        done = subprocess.run([*CLIENT, "hook", "claude"], input=_post(command, given),
                              cwd=runtime.tmp, env=runtime.env(warm=True),
                              capture_output=True, timeout=60, check=False)  # fmt: skip
        assert TOKEN not in _read(done, given)


def test_opencode_and_gemini(tmp_path: Path) -> None:
    command = COMMANDS[0]
    given = _printed(tmp_path, command)
    env = {**os.environ, "AGENTOUT_SPILL_DIR": str(tmp_path / "store"),
           "AGENTOUT_HOOK_SERVER": "0"}  # fmt: skip
    opencode = {"hook_event_name": "PostToolUse", "tool_name": "bash",
                "tool_input": {"command": command},
                "tool_response": {"output": given, "exit": 0}}  # fmt: skip
    content = f"<untrusted_context>\nOutput: {given.rstrip()}\n</untrusted_context>"
    gemini = {"hook_event_name": "AfterTool", "tool_name": "run_shell_command",
              "tool_input": {"command": command},
              "tool_response": {"llmContent": content, "returnDisplay": ""}}  # fmt: skip
    for agent, payload, shown in (("opencode", opencode, given), ("gemini", gemini, content)):
        done = subprocess.run([SCRIPT, "hook", agent], input=json.dumps(payload).encode(),
                              env=env, capture_output=True, timeout=60, check=False)  # fmt: skip
        assert TOKEN not in _read(done, shown), agent


@pytest.mark.parametrize(
    ("command", "ours"),
    [
        ("agentout run -- git log", True),
        ("/opt/agentout/bin/agentout run -- git log", True),
        ("python3 -m agentout run -- git log", True),
        ("/usr/bin/python3 -P -m agentout show 0123abcd", True),  # a marker's own form
        ("python3 -P -c x -m agentout", False),
        ("cd x && agentout run -- git log", True),
        ("export A=1; agentout run -- git log", True),
        ("cat .env; agentout --version", False),
        ("agentout --version && cat .env", False),
        ("agentout run -- git log | head", False),
        ("export; agentout --version", False),
        ("git log", False),
    ],
)
def test_only_a_command_that_prints_nothing_else_is_agentouts(command: str, ours: bool) -> None:
    assert claude_bash._runs_agentout(analyse(command), command) is ours
