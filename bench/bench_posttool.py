"""The Claude Code ``PostToolUse`` hook on a 1 MB MCP result: how long `agentout hook
claude` takes to answer, against reading the same payload with `python -c 'import json,
sys; json.load(sys.stdin)'` and with `jq` (when installed), measured side by side.

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

from _common import Timing, paired_ratio, quick, ratio, run_child, seconds, table, verdict

LIMIT_SECONDS = 0.200
BUDGET = 5000
_HEADERS = ["payload", "command", "wall median", "wall best", "÷ json.load (wall)"]


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
    hook = [*agentout_command(), "hook", "claude"]
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
        for name, data in payloads(size).items():
            contenders = {"agentout hook claude": hook, **peers}
            answers_ok &= _within_budget(_run(hook, data, env)[1])  # also the warm-up
            walls: dict[str, list[float]] = {c: [] for c in contenders}
            names = list(contenders)
            for round_ in range(n):
                shift = round_ % len(names)
                for contender in names[shift:] + names[:shift]:
                    walls[contender].append(_run(contenders[contender], data, env)[0])
            timings = {c: Timing(tuple(walls[c])) for c in names}
            peer = timings["json.load"]
            medians.append(timings["agentout hook claude"].median)
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
    return "\n\n".join(
        [
            "## Claude Code PostToolUse hook on a 1 MB MCP result",
            f"`agentout hook claude` answering a `PostToolUse` payload of about "
            f"{size / 1e6:g} MB on stdin, a fresh process each time as Claude Code starts "
            f"it, beside the same payload read by `json.load` and `jq`; median and best of "
            f"{n} runs, the commands taking turns. Every answer is within {BUDGET} tokens "
            f"({verdict(answers_ok)}).",
            table(_HEADERS, rows),
            f"**slowest payload, wall median {seconds(slowest)} ≤ {seconds(LIMIT_SECONDS)}: "
            f"{verdict(slowest <= LIMIT_SECONDS)}**",
        ]
    )


if __name__ == "__main__":
    print(main())
