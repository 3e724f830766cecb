"""The Claude Code ``PostToolUse`` hook on a 1 MB MCP result: how long `agentout hook
claude` takes to answer, against reading the same payload with `python -c 'import json,
sys; json.load(sys.stdin)'` and with `jq` (when installed), measured side by side; and on
``Bash`` results of 1 MB and under 4 KB, beside a bare `python -c pass`.

Each run is a fresh process fed a real ``PostToolUse`` payload on stdin, as Claude Code
starts it after an MCP tool call, in the forms Claude Code passes: a file's text and a
directory tree as the reference filesystem server returns them (a string,
``JSON.stringify`` of its structured content), and a list of records as a text block.
Every answer is checked to be within the default budget (5,000 tokens). The spill store
and the config directory are temporary ones; bytecode is cached as in an installed
package.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

from _common import (
    Timing,
    installed_hook,
    interleaved_children,
    paired_ratio,
    quick,
    ratio,
    rows_against,
    run_child,
    seconds,
    table,
    verdict,
)

LIMIT_SECONDS = 0.200
SMALL_LIMIT_SECONDS = 0.050  # a Bash result under 4 KB
BUDGET = 5000
_HEADERS = ["payload", "command", "wall median", "wall best", "÷ json.load (wall)"]
_INSTALLED = "hook as installed (warm server)"
_COLD = "agentout hook claude (no server)"


def agentout_command() -> list[str]:
    script = Path(sys.executable).parent / "agentout"
    if script.exists():
        return [str(script)]
    return [sys.executable, "-m", "agentout"]


def _payload(tool: str, response: Any) -> bytes:
    return json.dumps(
        {
            "session_id": "bench",
            "hook_event_name": "PostToolUse",
            "tool_name": tool,
            "tool_input": {},
            "tool_response": response,
            "tool_use_id": "toolu_bench",
        },
        ensure_ascii=False,
    ).encode()


def payloads(size: int) -> dict[str, bytes]:
    """Three results of about ``size`` bytes each, in Claude Code's forms."""
    words = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"]
    lines, n, total = [], 0, 0
    while total < size:
        lines.append(f"{n:06d} {words[n % 8]} {words[n * 3 % 8]} value={n * 7919 % 100003}")
        total += len(lines[-1]) + 1
        n += 1
    text = json.dumps({"content": "\n".join(lines)}, separators=(",", ":"))
    tree, d, total = [], 0, 0
    while total < size:
        files = [{"name": f"sample_{d:03d}_{i:03d}.csv", "type": "file"} for i in range(100)]
        tree.append({"name": f"dataset_{d:03d}", "type": "directory", "children": files})
        total += len(json.dumps(tree[-1], indent=2))
        d += 1
    listing = json.dumps({"content": json.dumps(tree, indent=2)}, separators=(",", ":"))
    rows, i, total = [], 0, 0
    while total < size:
        rows.append({"id": i, "title": f"issue {i} in the parser", "state": "open", "n": i % 7})
        total += len(json.dumps(rows[-1])) + 2
        i += 1
    records = [{"type": "text", "text": json.dumps(rows)}]
    return {
        "text file (read_text_file)": _payload("mcp__filesystem__read_text_file", text),
        "directory tree (directory_tree)": _payload("mcp__filesystem__directory_tree", listing),
        "records (a text block)": _payload("mcp__github__list_issues", records),
    }


def _run(command: list[str], data: bytes, env: dict[str, str]) -> tuple[float, bytes]:
    wall, _, out = run_child(command, data, env)
    return wall, out


def _within_budget(answer: bytes) -> bool:
    from agentout.tokens import get_tokenizer

    if not answer:
        return False
    updated = json.loads(answer)["hookSpecificOutput"]["updatedMCPToolOutput"]
    text = updated if isinstance(updated, str) else updated[0]["text"]
    return get_tokenizer(None).count(text) <= BUDGET


def main() -> str:
    n = 2 if quick() else 7
    size = 100_000 if quick() else 1_000_000
    cold = [*agentout_command(), "hook", "claude"]
    peers = {"json.load": [sys.executable, "-c", "import json,sys; json.load(sys.stdin)"]}
    jq = shutil.which("jq")
    if jq is not None:
        peers["jq ."] = [jq, "-c", "."]
    rows, answers_ok, medians = [], True, []
    with tempfile.TemporaryDirectory() as scratch:
        env = {
            **os.environ,
            "AGENTOUT_SPILL_DIR": str(Path(scratch) / "spill"),
            "AGENTOUT_CONFIG_DIR": str(Path(scratch) / "config"),
        }
        env.pop("PYTHONDONTWRITEBYTECODE", None)  # as installed: bytecode cached
        with installed_hook(env) as client:
            hook = [*client, "hook", "claude"]
            for name, data in payloads(size).items():
                contenders = {_INSTALLED: hook, _COLD: cold, **peers}
                answers_ok &= _within_budget(_run(hook, data, env)[1])  # also the warm-up
                answers_ok &= _run(cold, data, env)[1] == _run(hook, data, env)[1]
                walls: dict[str, list[float]] = {c: [] for c in contenders}
                names = list(contenders)
                for round_ in range(n):
                    shift = round_ % len(names)
                    for contender in names[shift:] + names[:shift]:
                        walls[contender].append(_run(contenders[contender], data, env)[0])
                timings = {c: Timing(tuple(walls[c])) for c in names}
                peer = timings["json.load"]
                medians.append(timings[_INSTALLED].median)
                for contender, timing in timings.items():
                    rows.append(
                        [
                            f"{name}, {len(data) / 1e6:.2f} MB",
                            f"`{contender}`",
                            seconds(timing.median),
                            seconds(timing.best),
                            ratio(paired_ratio(timing, peer)),
                        ]
                    )
    slowest = max(medians)
    bash = bash_section(n)
    return "\n\n".join(
        [
            "## Claude Code PostToolUse hook on a 1 MB MCP result",
            f"The hook answering a `PostToolUse` payload of about {size / 1e6:g} MB on "
            f"stdin, a fresh process each time as Claude Code starts it: as `agentout init` "
            f"installs it (the warm hook server's client, the server running), and as "
            f"`agentout hook claude` answers with no server (an agent's first call); beside "
            f"the same payload read by `json.load` and `jq`; median and best of {n} runs, the "
            f"commands taking turns. Every answer is within {BUDGET} tokens, and the same "
            f"with and without the server ({verdict(answers_ok)}).",
            table(_HEADERS, rows),
            f"**slowest payload, as installed, wall median {seconds(slowest)} ≤ "
            f"{seconds(LIMIT_SECONDS)}: "
            f"{verdict(slowest <= LIMIT_SECONDS)}**",
            bash,
        ]
    )


_GIT_STATUS = "\n".join(
    ["On branch main", "Your branch is up to date with 'origin/main'.", "",
     "Changes not staged for commit:",
     '  (use "git add <file>..." to update what will be committed)',
     '  (use "git restore <file>..." to discard changes in working directory)']
    + [f"\tmodified:   src/agentout/module_{n:02d}.py" for n in range(40)]
    + ["", 'no changes added to commit (use "git add" and/or "git commit -a")']
)  # fmt: skip


def _bash_payload(command: str, stdout: str, **response: Any) -> bytes:
    """No ``session_id``: each round hands the hook the same output, which in one session
    would be answered as a repeat (one line) from the second round on."""
    return json.dumps(
        {
            "hook_event_name": "PostToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": command, "description": "bench"},
            "tool_response": {"stdout": stdout, "stderr": "", "interrupted": False, **response},
            "tool_use_id": "toolu_bench",
        }
    ).encode()


def bash_section(n: int) -> str:
    """``PostToolUse`` of ``Bash``: a 1 MB result as Claude Code hands it over (its first
    30,000 characters, the whole in ``persistedOutputPath``), and results under 4 KB."""
    size = 100_000 if quick() else 1_000_000
    rounds_ = max(n, 3) if quick() else 15
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        lines, total, k = [], 0, 0
        while total < size:
            level = "ERROR" if k % 997 == 13 else "INFO"
            lines.append(f"2026-11-27T10:{k % 60:02d}:00Z {level} worker-{k % 8} request {k} done")
            total += len(lines[-1]) + 1
            k += 1
        whole = "\n".join(lines)
        # where Claude Code keeps a persisted output: the only folder the hook reads one in
        kept = root / "claude" / "projects" / "-bench" / "session" / "tool-results" / "big.txt"
        kept.parent.mkdir(parents=True)
        kept.write_text(whole)
        big = _bash_payload("./serve.sh", whole[:30_000], persistedOutputPath=str(kept),
                            persistedOutputSize=len(whole))  # fmt: skip
        plain = "\n".join(f"step {i}: copied assets/file_{i:03d}.png" for i in range(90))
        env = {**os.environ, "AGENTOUT_SPILL_DIR": str(root / "spill"),
               "AGENTOUT_CONFIG_DIR": str(root / "config"), "XDG_CACHE_HOME": str(root / "cache"),
               "AGENTOUT_LEDGER_DB": str(root / "ledger.sqlite3"),
               "CLAUDE_CONFIG_DIR": str(root / "claude")}  # fmt: skip
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env.pop("AGENTOUT_LEDGER_SYNC", None)
        cold = [*agentout_command(), "hook", "claude"]
        payloads_ = {
            f"Bash result of {len(whole) / 1e6:.2f} MB (persisted; cut)": big,
            f"`git status`, {len(_GIT_STATUS):,} bytes (reduced)": _bash_payload(
                "git status", _GIT_STATUS),
            f"a script's output, {len(plain):,} bytes (as printed: no answer)": _bash_payload(
                "./deploy.sh", plain),
        }  # fmt: skip
        with installed_hook(env) as client:
            hook = [*client, "hook", "claude"]
            cases = {f"as installed: {name}": (hook, data) for name, data in payloads_.items()}
            cases |= {f"no server: {name}": (cold, data) for name, data in payloads_.items()}
            cases["python -c pass"] = ([sys.executable, "-c", "pass"], b"")
            answers, timings = interleaved_children(cases, rounds_, env)
    names = list(cases)
    rows = rows_against(timings, "python -c pass")
    answered = (b"updatedToolOutput" in answers[names[0]] and b"updatedToolOutput" in
                answers[names[1]] and answers[names[2]] == b""
                and all(answers[names[i]] == answers[names[i + 3]] for i in range(3)))  # fmt: skip
    big_median = timings[names[0]][0].median
    small_median = max(timings[names[1]][0].median, timings[names[2]][0].median)
    return "\n\n".join(
        [
            "### `Bash` results (PostToolUse)",
            f"The hook answering a `PostToolUse` payload of the `Bash` tool, a fresh process "
            f"each time: as installed (the warm server's client) and with no server; median "
            f"and best of {rounds_} interleaved rounds. The answers were checked: the 1 MB log "
            f"and `git status` are replaced, the plain output gets none, and each answer is "
            f"the same with and without the server ({verdict(answered)}).",
            table(["command", "wall median", "wall best", "CPU median", "÷ python -c pass"], rows),
            f"**As installed: 1 MB result, wall median {seconds(big_median)} ≤ "
            f"{seconds(LIMIT_SECONDS)}: "
            f"{verdict(big_median <= LIMIT_SECONDS)}; results under 4 KB, slowest wall median "
            f"{seconds(small_median)} ≤ {seconds(SMALL_LIMIT_SECONDS)}: "
            f"{verdict(small_median <= SMALL_LIMIT_SECONDS)}**",
        ]
    )


if __name__ == "__main__":
    print(main())
