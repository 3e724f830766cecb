"""The Gemini CLI hook: how long `agentout hook gemini` takes to answer an ``AfterTool``
payload, against `agentout run` delivering the same output, measured side by side.

Each run is a fresh process, as Gemini CLI starts the hook after every
``run_shell_command``: the payload carries the llmContent Gemini CLI 0.61.0 builds
(``Output: ...``, ``Exit Code``, ``Process Group PGID``, in ``<untrusted_context>``)
around a recorded command output of tests/fixtures/commands. The peer, `agentout run --
cat FILE`, reads the same bytes and makes the same delivery; the hook adds parsing the
JSON and counting tokens to decide whether its answer is smaller. The store and the
ledger are temporary.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path

from _common import ROOT, interleaved_children, paired_ratio, quick, ratio, seconds, table, verdict

FIXTURES = ROOT / "tests" / "fixtures" / "commands"
_HEADERS = ["command", "wall median", "wall best", "CPU median", "÷ agentout run (wall)"]


def agentout_command() -> list[str]:
    script = Path(sys.executable).parent / "agentout"
    if script.exists():
        return [str(script)]
    return [sys.executable, "-m", "agentout"]


def _output(name: str) -> bytes:
    import gzip

    folder = FIXTURES / name
    plain = folder / "output"
    return (
        plain.read_bytes()
        if plain.exists()
        else gzip.decompress((folder / "output.gz").read_bytes())
    )


def _payload(command: str, output: str) -> bytes:
    body = "\n".join([f"Output: {output or '(empty)'}", "Process Group PGID: 4242"])
    content = f"<untrusted_context>\n{body}\n</untrusted_context>"
    return json.dumps(
        {
            "session_id": "bench",
            "transcript_path": "",
            "cwd": ".",
            "hook_event_name": "AfterTool",
            "timestamp": "",
            "tool_name": "run_shell_command",
            "tool_input": {"command": command},
            "tool_response": {"llmContent": content, "returnDisplay": output},
        }
    ).encode()


def main() -> str:
    n = 5 if quick() else 15
    agentout = agentout_command()
    with tempfile.TemporaryDirectory() as scratch:
        env = {
            **os.environ,
            "AGENTOUT_SPILL_DIR": str(Path(scratch) / "spill"),
            "AGENTOUT_LEDGER_DB": str(Path(scratch) / "ledger.sqlite3"),
        }
        env.pop("PYTHONDONTWRITEBYTECODE", None)  # as installed: bytecode cached
        cases: dict[str, tuple[list[str], bytes]] = {}
        pairs: list[tuple[str, str]] = []
        for name, command in (("git/git-log", "git log"), ("logs/build-log", "make")):
            raw = _output(name)
            saved = Path(scratch) / name.replace("/", "-")
            saved.write_bytes(raw)
            hook = f"hook gemini: {command} ({len(raw) // 1024} KiB, reduced)"
            peer = f"agentout run -- cat ({len(raw) // 1024} KiB)"
            cases[hook] = ([*agentout, "hook", "gemini"], _payload(command, raw.decode()))
            cases[peer] = ([*agentout, "run", "--", "cat", str(saved)], b"")
            pairs.append((hook, peer))
        small = "hook gemini: echo ok (left alone, {})"
        cases[small] = ([*agentout, "hook", "gemini"], _payload("echo ok", "ok\n"))
        cases["python -c pass"] = ([sys.executable, "-c", "pass"], b"")
        pairs.append((small, "python -c pass"))
        answers, timings = interleaved_children(cases, n, env)
    peer_of = dict(pairs)
    rows = [
        [f"`{name}`", seconds(wall.median), seconds(wall.best), seconds(cpu.median),
         ratio(paired_ratio(wall, timings[peer_of[name]][0])) if name in peer_of else ""]
        for name, (wall, cpu) in timings.items()
    ]  # fmt: skip
    answered = all(b'"decision":"deny"' in answers[hook] for hook, _ in pairs[:-1])
    checked = answered and answers[small].strip() == b"{}"
    return "\n\n".join(
        [
            "## Gemini CLI hook",
            f"`agentout hook gemini` answering an `AfterTool` payload on stdin, a fresh "
            f"process each time as Gemini CLI starts it after a command; median and best of "
            f"{n} runs, the commands taking turns. The small output's row is against a bare "
            "Python. The answers were checked: the two long outputs are replaced, the small "
            f"one gets `{{}}` ({verdict(checked)}).",
            table(_HEADERS, rows),
        ]
    )


if __name__ == "__main__":
    print(main())
