"""Commands run as Claude Code runs a Bash call, without the client: ``bash -c '… && eval
'CMD' < /dev/null && pwd -P >| …'``, agentout's session functions sourced first, stdout
and stderr one file shaped as the client's capture, the call noted by the PreToolUse
hook (tests/agents/test_claude_shell.py, tests/adversarial)."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

from agentout.agents import claude_shell
from processes import without_agentout_settings

AGENTOUT = str(Path(sys.executable).parent / "agentout")
SESSION = "0f5e2a4c-test-session"


class Shell:
    """A project (``project``, else one of its own), the session's functions, and calls run
    as Claude Code runs them, in ``env`` (else this process's, without agentout's settings)."""

    def __init__(
        self, root: Path, project: Path | None = None, env: dict[str, str] | None = None
    ) -> None:
        self.root = root
        self.project = project if project is not None else root / "project"
        self.project.mkdir(exist_ok=True)
        self.tasks = root / f"claude-{os.getuid()}" / "-project" / SESSION / "tasks"
        self.tasks.mkdir(parents=True)
        self.functions = root / "session.sh"
        self.functions.write_text(claude_shell.script(AGENTOUT))
        self.env = {
            **(env if env is not None else without_agentout_settings()),
            "XDG_CACHE_HOME": str(root / "cache"),
            "CLAUDE_CODE_SESSION_ID": SESSION,
            "AGENTOUT_LEDGER": "0",
        }
        self.calls = 0

    def note(self, command: str, background: bool = False) -> None:
        """What the PreToolUse hook notes of the call (run as the client runs the hook)."""
        payload = {
            "hook_event_name": "PreToolUse",
            "session_id": SESSION,
            "tool_name": "Bash",
            "tool_use_id": f"toolu_{self.calls:02d}",
            "permission_mode": "default",
            "tool_input": {"command": command, "run_in_background": background},
        }
        done = subprocess.run(
            [AGENTOUT, "hook", "claude"],
            input=json.dumps(payload).encode(),
            env=self.env,
            capture_output=True,
            check=True,
        )
        assert (done.stdout, done.stderr) == (b"", b"")

    def call(
        self,
        command: str,
        *,
        noted: bool = True,
        background: bool = False,
        before: str = "",
        functions: bool = True,
        capture: Path | None = None,
    ) -> tuple[int, bytes]:
        """(exit status, what the capture file holds) of one call."""
        self.calls += 1
        if noted:
            self.note(command, background)
        target = capture or self.tasks / f"b{self.calls:04d}.output"
        child = self.start(command, target, functions=functions, before=before)
        return child.wait(timeout=120), target.read_bytes()

    def start(
        self, command: str, target: Path, *, functions: bool = True, before: str = "", **popen: Any
    ) -> subprocess.Popen[bytes]:
        """The call started, stdout and stderr appended to ``target``."""
        line = f"eval {shlex.quote(command)} < /dev/null && pwd -P >| {self.root}/cwd"
        if functions:
            line = f"source {shlex.quote(str(self.functions))} && {line}"
        if before:
            line = f"{before}\n{line}"
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        try:
            return subprocess.Popen(
                ["bash", "-c", line], stdin=subprocess.DEVNULL, stdout=fd, stderr=fd,
                cwd=self.project, env=self.env, **popen,
            )  # fmt: skip
        finally:
            os.close(fd)

    def both(self, command: str, **options: object) -> tuple[tuple[int, bytes], tuple[int, bytes]]:
        """The call with the functions, and without them."""
        return self.call(command, **options), self.call(command, functions=False)  # type: ignore[arg-type]
