"""Counts that agree: what `agentout gain` totals for deliveries made through the
PostToolUse hook and through `agentout run` (the form a PreToolUse rewrite runs) equals
the exact tokens, counted here by tiktoken itself, of each raw output and each text the
model was handed."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from agentout.cli.main import cli

AGENTOUT = [sys.executable, "-c", "from agentout.cli import main; main()"]
TOKEN = "ghp_" + "R4nd0mT0k3nV4lu3F0rT3st1ng0nlyAbCdEf"


def _post(command: str, stdout: str, env: dict[str, str]) -> str:
    payload = {"session_id": "counts", "hook_event_name": "PostToolUse", "tool_name": "Bash",
               "tool_input": {"command": command}, "tool_use_id": f"toolu_{abs(hash(command))}",
               "tool_response": {"stdout": stdout, "stderr": "", "interrupted": False}}  # fmt: skip
    done = subprocess.run([*AGENTOUT, "hook", "claude"], input=json.dumps(payload).encode(),
                          capture_output=True, env=env, check=True)  # fmt: skip
    assert done.stderr == b""
    return str(json.loads(done.stdout)["hookSpecificOutput"]["updatedToolOutput"]["stdout"])


def test_gain_totals_are_the_sum_of_exact_counts(tmp_path: Path, reference_tiktoken: Any) -> None:
    encoding = reference_tiktoken("o200k_base")
    env = {**os.environ, "AGENTOUT_LEDGER_DB": str(tmp_path / "ledger.sqlite3"),
           "AGENTOUT_LEDGER_SYNC": "1", "AGENTOUT_SPILL_DIR": str(tmp_path / "spill"),
           "XDG_CACHE_HOME": str(tmp_path / "cache")}  # fmt: skip
    raw_total = delivered_total = 0
    # PostToolUse: cut (over the inline limit), and a secret hidden in small output
    long = "\n".join(f"{n:06d} INFO request {n * 7919 % 100003} served" for n in range(6000))
    for command, output in (("./serve.sh", long), ("cat .env", f"A=1\nGITHUB_TOKEN={TOKEN}")):
        text = _post(command, output, env)
        marker = re.search(r"\[secret: [^\]]+\]", text)  # the raw as stored: secret hidden
        raw_total += len(encoding.encode(output.replace(TOKEN, marker.group() if marker else "")))
        delivered_total += len(encoding.encode(text))
    # agentout run, as the PreToolUse rewrite runs it: cut, whole, and a complete reduced
    # form that stores nothing (grep's matches grouped by file)
    source = tmp_path / "src"
    source.mkdir()
    for i in range(3):
        text = "".join(f"needle number {j} in a line of module {i}\n" for j in range(20))
        (source / f"module_{i}.py").write_text(text)
    grep = ["grep", "-rn", "needle", str(source)]
    for argv in (["seq", "1", "9000"], ["echo", "hello"], grep):
        done = subprocess.run([*AGENTOUT, "run", "--", *argv], capture_output=True, text=True,
                              env=env, check=True)  # fmt: skip
        raw = subprocess.run(argv, capture_output=True, text=True, check=True).stdout
        if argv is grep:
            assert "[agentout" not in done.stdout  # reduced, complete: nothing stored
        raw_total += len(encoding.encode(raw))
        delivered_total += len(encoding.encode(done.stdout))
    runner = CliRunner(env={k: v for k, v in env.items() if k.startswith("AGENTOUT")})
    report = json.loads(runner.invoke(cli, ["gain", "--format", "json"]).output)
    total = report["total"]
    assert total["deliveries"] == 5
    assert (total["raw_unknown"], total["raw_estimated"]) == (0, 0)
    assert total["delivered_tokens"] == delivered_total
    assert total["raw_tokens"] == raw_total
