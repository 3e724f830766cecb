"""What the model reads of everyday commands that succeed with large output, as Claude
Code reaches agentout: right after ``agentout init claude`` (no allow rules: each command
runs as written and the PostToolUse hook answers), and through ``agentout run`` (what an
allow rule routes), side by side with the raw output and rtk.

Eleven commands in a prepared checkout (bench/shell/heldout.py ``SIGNAL``): a source file
under Claude Code's 30,000-character limit, ``git log -p``, a grep with about 480 matches,
a test collection, a 20,000-line log, ``find``, ``ls -la``, ``git show``, ``git diff
--stat``, ``pip list`` and a README. Every fact each declares must be kept; the target is
at most 30,000 tokens for all eleven (issue 27).
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import tempfile
import uuid
from pathlib import Path

from _common import table, verdict
from agentout.reducers.facts import lost
from agentout.tokens import count
from bench_reach import _rtk, _settings, as_claude, claude_home
from shell import heldout
from shell.capture import capture
from shell.tools import prepare_tools
from shell.workspace import ROOT, _app_log, prepare

TARGET = 30_000


def _checkout(where: Path, revision: str, env: dict[str, str]) -> None:
    """This project at ``revision``, in a folder of its own."""
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(where)], check=True, env=env)
    subprocess.run(["git", "checkout", "--quiet", revision], cwd=where, check=True, env=env)


def main() -> str:
    tools = prepare_tools()
    with tempfile.TemporaryDirectory(prefix="agentout-bench-signal-") as tmp:
        ws = prepare(Path(tmp), tools)
        _checkout(ws.root / heldout.SIGNAL_TREE, heldout.SIGNAL_REVISION, ws.env)
        _app_log(ws.root / "logs" / "signal.log", lines=heldout.SIGNAL_LOG_LINES)
        env, scratch = claude_home(ws)
        cases = [c for c in heldout.SIGNAL if not c.missing(tools)]
        _settings(ws, cases, rules=False)
        session = f"bench-signal-{uuid.uuid4().hex[:8]}"
        agentout = [sys.executable, "-E", str(Path(sys.executable).parent / "agentout")]
        rows, totals = [], {"raw": 0, "hook": 0, "run": 0, "rtk": 0}
        kept = {"hook": 0, "run": 0, "rtk": 0}
        facts_total = 0
        rtk_known = True
        for case in cases:
            hooked = as_claude(ws, case, env, session, scratch)
            cwd = case.where(ws.root)
            ran = capture([*agentout, "run", "--", *case.argv], cwd, case.environment(env))
            run_text = ran.output.decode("utf-8", "replace")
            facts = hooked.facts
            run_lost = list(lost(facts, run_text.encode()))
            theirs = _rtk(ws, case, env)
            rtk_known = rtk_known and theirs is not None
            rtk_lost = None
            if theirs is not None:
                rtk_text_tokens, rtk_whole = theirs
                totals["rtk"] += rtk_text_tokens
                rtk_lost = 0 if rtk_whole else None
            facts_total += len(facts)
            kept["hook"] += len(facts) - len(hooked.lost)
            kept["run"] += len(facts) - len(run_lost)
            totals["raw"] += hooked.raw_tokens
            totals["hook"] += hooked.tokens
            totals["run"] += count(run_text)
            rows.append(
                [
                    f"`{shlex.join(case.argv)}`",
                    f"{hooked.raw_tokens:,}",
                    f"{hooked.tokens:,} ({hooked.path})",
                    f"{len(facts) - len(hooked.lost)}/{len(facts)}",
                    f"{count(run_text):,}",
                    f"{len(facts) - len(run_lost)}/{len(facts)}",
                    "n/a"
                    if theirs is None
                    else f"{theirs[0]:,}" + ("" if rtk_lost == 0 else " (lost facts)"),
                ]
            )
            print(
                f"bench: signal: {case.name}: raw {hooked.raw_tokens} hook {hooked.tokens} "
                f"run {count(run_text)} lost {len(hooked.lost)}/{len(run_lost)}",
                file=sys.stderr,
            )
    headers = ["command", "raw", "model reads (no rules)", "facts", "agentout run", "facts"]
    headers.append("rtk")
    ok = (
        kept["hook"] == kept["run"] == facts_total
        and totals["hook"] <= TARGET
        and totals["run"] <= TARGET
    )
    rtk_tokens = f"{totals['rtk']:,}" if rtk_known else "n/a"
    parts = [
        "## Everyday commands with large output (signal)",
        (__doc__ or "").split("\n\n")[0].replace("\n", " ").replace("``", "`"),
        table(headers, rows),
        f"- Facts kept: {kept['hook']:,}/{facts_total:,} through the hook with no allow "
        f"rules, {kept['run']:,}/{facts_total:,} through `agentout run`\n"
        f"- Tokens in all: raw {totals['raw']:,}; the model reads **{totals['hook']:,}** "
        f"(no rules) and **{totals['run']:,}** (`agentout run`); rtk "
        f"{rtk_tokens}\n"
        f"- Every fact kept, at most {TARGET:,} tokens in all: {verdict(ok)}",
    ]
    return "\n\n".join(parts)


if __name__ == "__main__":
    os.environ.setdefault("AGENTOUT_BENCH", "1")
    print(main())
