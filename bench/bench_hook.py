"""The Claude Code hook: how long `agentout hook claude` takes to answer, against a bare
Python (`python -c pass`) and `true`, measured side by side; and what `agentout run` adds
to a command with a reducer (`git status`) and to one without (`true`).

Each run is a fresh process fed a real ``PreToolUse`` payload on stdin, as Claude Code
starts it before every Bash command: the hook notes the call for agentout's functions in
the session's shell and never answers, whatever the rules say (an allowed `git log`, a
denied `git push`, a compound command). The settings are a temporary project's, so the
user's own are never read. Bytecode is cached as in an
installed package (``PYTHONDONTWRITEBYTECODE`` is dropped for these runs), so the time
is the hook's, not the compiler's.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path

from _common import (
    Timing,
    installed_hook,
    interleaved_children,
    quick,
    rounds,
    rows_against,
    seconds,
    table,
    verdict,
)

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
        cold = [*agentout_command(), "hook", "claude"]
        payloads = {
            "allowed `git log -20`": _payload("git log -20", project),
            "denied `git push --force`": _payload("git push --force", project),
            "`pytest -x && git log -3`": _payload("pytest -x && git log -3", project),
        }
        with installed_hook(env) as client:
            hook = [*client, "hook", "claude"]
            cases = {f"as installed: {name}": (hook, data) for name, data in payloads.items()}
            cases |= {f"no server: {name}": (cold, data) for name, data in payloads.items()}
            cases["python -c pass"] = ([sys.executable, "-c", "pass"], b"")
            cases["true"] = (["true"], b"")
            answers, timings = interleaved_children(cases, n, env)
    names = list(cases)
    rows = rows_against(timings, "python -c pass")
    hooks = [timings[name][0].median for name in names if name.startswith("as installed")]
    silent = all(answers[names[i]] == b"" for i in range(6))  # never a word, with or without
    added = run_added(rounds(21, 5))
    return "\n\n".join(
        [
            "## Claude Code hook",
            f"The hook answering a `PreToolUse` payload on stdin, a fresh process each time "
            f"as Claude Code starts it: as `agentout init` installs it (the warm hook "
            f"server's client, the server running) and as `agentout hook claude` answers "
            f"with no server; median and best of {n} runs, the commands taking turns. The "
            "answers were checked: none, for every command, with and without the server "
            f"({verdict(silent)}).",
            table(_HEADERS, rows),
            f"**slowest hook case as installed, wall median {seconds(max(hooks))} ≤ "
            f"{seconds(LIMIT_SECONDS)}: {verdict(max(hooks) <= LIMIT_SECONDS)}**",
            added,
        ]
    )


def run_added(n: int) -> str:
    """What `agentout run -- CMD` adds to CMD's own wall time, for `git status` (a reducer
    reads it) and `true` (none does): median over interleaved rounds of each pair's
    difference, in a small git repository; as installed (the warm server running, as
    after any hook call) and with no server (`AGENTOUT_HOOK_SERVER=0`), each its own run."""
    import statistics
    import subprocess

    with tempfile.TemporaryDirectory() as scratch:
        repo = Path(scratch) / "repo"
        env = {**os.environ, "HOME": scratch, "AGENTOUT_SPILL_DIR": str(Path(scratch) / "spill"),
               "AGENTOUT_LEDGER_DB": str(Path(scratch) / "ledger.sqlite3"),
               "GIT_CONFIG_NOSYSTEM": "1"}  # fmt: skip
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env.pop("AGENTOUT_LEDGER_SYNC", None)
        git = ["git", "-c", "user.name=b", "-c", "user.email=b@b", "-c", "commit.gpgsign=false"]
        subprocess.run([*git, "init", "-q", str(repo)], check=True, env=env)
        for i in range(20):
            (repo / f"f{i}.py").write_text(f"x = {i}\n")
        subprocess.run([*git, "-C", str(repo), "add", "."], check=True, env=env)
        subprocess.run([*git, "-C", str(repo), "commit", "-qm", "one"], check=True, env=env)
        for i in range(0, 20, 3):
            (repo / f"f{i}.py").write_text("changed\n")
        head = agentout_command()
        cases = {
            "git status": (["git", "status"], b""),
            "agentout run -- git status": ([*head, "run", "--", "git", "status"], b""),
            "true": (["true"], b""),
            "agentout run -- true": ([*head, "run", "--", "true"], b""),
        }
        here = os.getcwd()
        os.chdir(repo)  # the children run where the repository is
        try:
            with installed_hook(env):
                served_answers, served = interleaved_children(cases, n, env)
            off = {**env, "AGENTOUT_HOOK_SERVER": "0"}
            cold_answers, cold = interleaved_children(cases, n, off)
        finally:
            os.chdir(here)
    if served_answers != cold_answers:
        raise RuntimeError("agentout run answered differently with and without the server")

    def added(timings: dict[str, tuple[Timing, Timing]], slow: str, base: str) -> float:
        pairs = zip(timings[slow][0].samples, timings[base][0].samples, strict=True)
        return statistics.median(s - b for s, b in pairs)

    rows = []
    for label, timings in (("as installed", served), ("no server", cold)):
        rows += [[f"{label}: `{name}`", seconds(wall.median), seconds(wall.best),
                  seconds(cpu.median)] for name, (wall, cpu) in timings.items()]  # fmt: skip
    with_reducer = added(served, "agentout run -- git status", "git status")
    without = added(served, "agentout run -- true", "true")
    cold_reducer = added(cold, "agentout run -- git status", "git status")
    cold_without = added(cold, "agentout run -- true", "true")
    ok = with_reducer <= LIMIT_SECONDS and without <= LIMIT_SECONDS
    return "\n\n".join(
        [
            "### What `agentout run` adds to a small command",
            f"Median of {n} interleaved rounds, wall clock, in a 20-file git repository with "
            "7 files changed; added = median over rounds of (through agentout − alone). As "
            "installed, the warm server runs (any hook call starts it); with no server, "
            "`AGENTOUT_HOOK_SERVER=0`, in a run of its own. Both give the same bytes.",
            table(["command", "wall median", "wall best", "CPU median"], rows),
            f"No server: {seconds(cold_reducer)} added to `git status`, "
            f"{seconds(cold_without)} to `true`.",
            f"**As installed, added to `git status` (reduced): {seconds(with_reducer)}; to "
            f"`true`: {seconds(without)} (target both ≤ {seconds(LIMIT_SECONDS)}): "
            f"{verdict(ok)}**",
        ]
    )


if __name__ == "__main__":
    print(main())
