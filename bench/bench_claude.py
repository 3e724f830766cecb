"""Claude Code as it runs agentout: the held-out shell corpus through the real client
(Claude Code, pinned and run offline against a fake of the Messages API, as
tests/claude_code.py runs it), right after `agentout init claude`, in `default` mode
with no allow rules (`--allowedTools Bash` stands for a person approving each command),
beside the same calls in the same client with no agentout; planted secrets; and the time
agentout's function adds to a small command in the session's shell.

    .venv/bin/python bench/run.py --only claude

What the model reads is the `tool_result` the client sends to the API. The facts of each
command are found in its own output (run apart, stdout and stderr merged) and looked for
in what the model reads.
"""

from __future__ import annotations

import json
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import quick, rounds, table, verdict
from agentout.tokens import count
from shell import heldout
from shell.claude import VERSION, Sandbox, client_env, command_of, sandbox, through_client
from shell.tools import prepare_tools
from shell.workspace import Workspace, prepare

BUILD_TARGET = 900  # tokens the failing build script may cost, all 7 errors kept
CORPUS_TARGET = 6_640  # tokens of the whole corpus, every fact kept
ADDED_TARGET = 0.050  # seconds the function may add to a small command (median)


def _secrets(ws: Workspace, box: Sandbox) -> tuple[str, bool]:
    place = ws.root / "heldout" / "secrets"
    env = {**client_env(ws), **heldout.SECRET_ENV}
    session = box.session(list(heldout.SECRET_COMMANDS), env=env, cwd=place)
    rows: list[list[object]] = []
    reached = 0
    for command, result in zip(heldout.SECRET_COMMANDS, session.results, strict=True):
        leaked = [v for v in heldout.SECRET_VALUES if v in result.content]
        reached += len(leaked)
        rows.append([f"`{command}`", len(leaked)])
    stored = 0  # agentout's own store, ledger, caches (the client keeps its own files)
    for where in (box.home / ".local", box.home / ".cache", box.home / ".config"):
        for path in where.rglob("*"):
            if path.is_file():
                data = path.read_bytes()
                stored += sum(v.encode() in data for v in heldout.SECRET_VALUES)
    ok = reached == 0 and stored == 0
    text = "\n\n".join(
        [
            "### Planted secrets, as the model reads them",
            table(["command", "secrets that reach the model"], rows),
            f"**Secrets that reach the model: {reached}; found in agentout's store, ledger and "
            f"caches: {stored} (target 0 and 0): {verdict(ok)}**",
        ]
    )
    return text, ok


# -- what the function adds to a small command --------------------------------------------------


def _added_time(ws: Workspace) -> tuple[str, bool]:
    """A small command run as Claude Code runs it (``bash -c`` with the session's
    environment file sourced, stdout and stderr its capture file), with agentout's
    functions and without, in interleaved rounds; the median of each."""
    from agentout.agents import claude_shell

    agentout = str(Path(sys.executable).parent / "agentout")
    scratch = Path(tempfile.mkdtemp(prefix="agentout-bench-claude-"))
    session = "bench-0000-session"
    tasks = scratch / f"claude-{os.getuid()}" / "-repo" / session / "tasks"
    tasks.mkdir(parents=True)
    functions = scratch / "session.sh"
    functions.write_text(claude_shell.script(agentout))
    cache = scratch / "cache"
    env = {**ws.env, "XDG_CACHE_HOME": str(cache), "CLAUDE_CODE_SESSION_ID": session}
    env["AGENTOUT_LEDGER"] = "0"
    commands = ("git status", "python3 -c pass")
    for command in commands:  # the calls, as the PreToolUse hook notes them
        subprocess.run(
            [agentout, "hook", "claude"],
            input=json.dumps(
                {
                    "hook_event_name": "PreToolUse",
                    "session_id": session,
                    "tool_name": "Bash",
                    "tool_use_id": "toolu_b",
                    "tool_input": {"command": command},
                }
            ).encode(),
            env=env,
            check=True,
            capture_output=True,
        )
    times: dict[tuple[str, bool], list[float]] = {}
    outputs: dict[tuple[str, bool], str] = {}
    count_rounds = rounds(21, 3)
    for index in range(count_rounds + 2):  # two rounds to start the warm server
        for number, command in enumerate(commands):
            for functions_on in (True, False):
                target = tasks / f"b{index}-{number}-{int(functions_on)}.output"
                line = f"eval {shlex.quote(command)} < /dev/null && pwd -P >| {scratch}/cwd"
                if functions_on:
                    line = f"source {shlex.quote(str(functions))} && {line}"
                fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
                try:
                    started = time.perf_counter()
                    subprocess.run(
                        ["bash", "-c", line],
                        stdout=fd,
                        stderr=fd,
                        stdin=subprocess.DEVNULL,
                        cwd=ws.repo,
                        env=env,
                        check=False,
                    )
                    took = time.perf_counter() - started
                finally:
                    os.close(fd)
                if index >= 2:
                    times.setdefault((command, functions_on), []).append(took)
                    outputs[(command, functions_on)] = target.read_text(errors="replace")
    rows: list[list[object]] = []
    ok = True
    for command in commands:
        on = statistics.median(times[(command, True)])
        off = statistics.median(times[(command, False)])
        added = on - off
        reduced = outputs[(command, True)] != outputs[(command, False)]
        ok = ok and added <= ADDED_TARGET
        form = "reduced" if reduced else "as printed"
        rows.append(
            [f"`{command}`", f"{off * 1000:.1f} ms", f"{on * 1000:.1f} ms",
             f"**{added * 1000:.1f} ms**", f"{on / off:.2f}x", form]
        )  # fmt: skip
    text = "\n\n".join(
        [
            "### What agentout's function adds to a small command",
            f"Median of {count_rounds} interleaved rounds (wall time): `bash -c` as Claude Code "
            "starts a call, stdout and stderr its capture file, with the session's functions "
            "sourced and without; the warm server running, ledger off.",
            table(["command", "without", "with the function", "added", "ratio", "output"], rows),
            f"**Added at most {ADDED_TARGET * 1000:.0f} ms a command: {verdict(ok)}**",
        ]
    )
    subprocess.run(["rm", "-rf", str(scratch)], check=False)
    return text, ok


def main() -> str:
    tools = prepare_tools()
    with tempfile.TemporaryDirectory(prefix="agentout-bench-claude-") as tmp:
        ws = prepare(Path(tmp), tools)
        heldout.prepare(ws.root)
        cases = [c for c in heldout.HELD_OUT if not c.missing(tools)]
        if quick():
            cases = cases[:3] + [c for c in cases if c.name == "build-script"]
        path = os.pathsep.join(ws.tools.path)
        with sandbox(ws.root, path) as box, sandbox(ws.root, path) as plain:
            box.init("--global")
            reached = through_client(ws, cases, box, plain, "claude")
            secrets, secrets_ok = _secrets(ws, box)
        added, added_ok = _added_time(ws)
    rows: list[list[object]] = []
    for r in reached:
        rows.append(
            [f"`{command_of(r.case)}`", r.exit, f"{count(r.raw):,}",
             f"{count(r.plain):,} ({r.kept(r.plain)}/{len(r.facts)})",
             f"{count(r.model):,} ({r.kept(r.model)}/{len(r.facts)})"]
        )  # fmt: skip
    total = sum(count(r.model) for r in reached)
    plain_total = sum(count(r.plain) for r in reached)
    facts = sum(len(r.facts) for r in reached)
    kept = sum(r.kept(r.model) for r in reached)
    plain_kept = sum(r.kept(r.plain) for r in reached)
    build = next((r for r in reached if r.case.name == "build-script"), None)
    build_ok = build is not None and build.kept(build.model) == len(build.facts)
    build_ok = build_ok and build is not None and count(build.model) <= BUILD_TARGET
    corpus_ok = kept == facts and total <= CORPUS_TARGET
    never_more = all(count(r.model) <= count(r.plain) for r in reached)
    failing = sum(1 for r in reached if r.exit)
    all_ok = corpus_ok and build_ok and never_more and secrets_ok and added_ok
    parts = [
        "## Claude Code as it runs agentout",
        (__doc__ or "").split("\n\n")[0].replace("\n", " "),
        f"Claude Code {VERSION}; {len(reached)} commands, {failing} of them failing. Each cell: "
        "tokens the model reads (facts kept / facts in the output).",
        table(["command", "exit", "raw", "Claude Code alone", "with agentout"], rows),
        f"- The whole corpus: Claude Code alone **{plain_total:,}** tokens, {plain_kept}/{facts} "
        f"facts; with agentout **{total:,}** tokens, {kept}/{facts} facts (target every fact "
        f"within {CORPUS_TARGET:,}: {verdict(corpus_ok)})\n"
        f"- The failing build script: {count(build.model) if build else 'n/a'} tokens, "
        f"{build.kept(build.model) if build else 0}/{heldout.BUILD_ERRORS} error lines (target "
        f"7/7 within {BUILD_TARGET}: {verdict(build_ok)})\n"
        f"- No command's output larger than Claude Code alone shows: {verdict(never_more)}",
        secrets,
        added,
        f"**All targets met: {verdict(all_ok)}**",
    ]
    return "\n\n".join(parts)


if __name__ == "__main__":
    os.environ.setdefault("AGENTOUT_BENCH", "1")
    print(main())
