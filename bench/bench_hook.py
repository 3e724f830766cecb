"""The Claude Code hook: how long `agentout hook claude` takes to answer, against a bare
Python (`python -c pass`) and `true`, measured side by side.

Each run is a fresh process fed a real ``PreToolUse`` payload on stdin, as Claude Code
starts it before every Bash command: one the hook routes (an allowed `git log`), one it
leaves alone (a denied `git push`), and a compound command. The settings are a
temporary project's, so the user's own are never read. Bytecode is cached as in an
installed package (``PYTHONDONTWRITEBYTECODE`` is dropped for these runs), so the time
is the hook's, not the compiler's.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path

from _common import interleaved_children, paired_ratio, quick, ratio, seconds, table, verdict

LIMIT_SECONDS = 0.050
_HEADERS = ["command", "wall median", "wall best", "CPU median", "÷ python -c pass (wall)"]


def agentout_command() -> list[str]:
    script = Path(sys.executable).parent / "agentout"
    if script.exists():
        return [str(script)]
    return [sys.executable, "-m", "agentout"]


def _payload(command: str, project: Path) -> bytes:
    return json.dumps(
        {
            "session_id": "bench",
            "cwd": str(project),
            "permission_mode": "default",
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": command, "description": "bench"},
        }
    ).encode()


def main() -> str:
    n = 5 if quick() else 25
    with tempfile.TemporaryDirectory() as scratch:
        project, home = Path(scratch) / "project", Path(scratch) / "home"
        (project / ".claude").mkdir(parents=True)
        (home / ".claude").mkdir(parents=True)
        rules = {"allow": ["Bash(git log *)", "Bash(pytest *)"], "deny": ["Bash(git push *)"]}
        (project / ".claude" / "settings.json").write_text(json.dumps({"permissions": rules}))
        env = {**os.environ, "HOME": str(home), "CLAUDE_PROJECT_DIR": str(project)}
        env.pop("CLAUDE_CONFIG_DIR", None)
        # As installed: bytecode cached (the warm-up run writes it where it may).
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        hook = [*agentout_command(), "hook", "claude"]
        cases = {
            "hook: allowed `git log -20` (routed)": (hook, _payload("git log -20", project)),
            "hook: denied `git push --force` (left alone)": (
                hook,
                _payload("git push --force", project),
            ),
            "hook: `pytest -x && git log -3` (routed whole)": (
                hook,
                _payload("pytest -x && git log -3", project),
            ),
            "python -c pass": ([sys.executable, "-c", "pass"], b""),
            "true": (["true"], b""),
        }
        answers, timings = interleaved_children(cases, n, env)
    names = list(cases)
    bare = timings["python -c pass"][0]
    rows = [
        [f"`{name}`", seconds(wall.median), seconds(wall.best), seconds(cpu.median),
         ratio(paired_ratio(wall, bare))]
        for name, (wall, cpu) in timings.items()
    ]  # fmt: skip
    hooks = [timings[name][0].median for name in names if name.startswith("hook")]
    routed = b'"updatedInput"' in answers[names[0]] and answers[names[1]] == b""
    return "\n\n".join(
        [
            "## Claude Code hook",
            f"`agentout hook claude` answering a `PreToolUse` payload on stdin, a fresh "
            f"process each time as Claude Code starts it; median and best of {n} runs, the "
            "commands taking turns. The answers were checked: the allowed command is "
            f"routed, the denied one gets no answer ({verdict(routed)}).",
            table(_HEADERS, rows),
            f"**slowest hook case, wall median {seconds(max(hooks))} ≤ "
            f"{seconds(LIMIT_SECONDS)}: {verdict(max(hooks) <= LIMIT_SECONDS)}**",
        ]
    )


if __name__ == "__main__":
    print(main())
