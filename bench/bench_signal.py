"""What the model reads of everyday commands that succeed with large output, in the real
Claude Code client (bench/shell/claude.py) right after ``agentout init claude`` (agentout's
functions in the session's shell, and the PostToolUse hook), beside the same client with
no agentout, ``agentout run`` itself, the raw output and rtk.

Eleven commands in a prepared checkout (bench/shell/heldout.py ``SIGNAL``): a source file
under Claude Code's 30,000-character limit, ``git log -p``, a grep with about 480 matches,
a test collection, a 20,000-line log, ``find``, ``ls -la``, ``git show``, ``git diff
--stat``, ``pip list`` and a README. Every fact each declares must be kept; the target is
at most 30,000 tokens for all eleven (issue 27).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

from _common import table, verdict
from agentout.reducers.facts import lost
from agentout.tokens import count
from shell import heldout
from shell.capture import capture, rtk_rewrite
from shell.cases import Case
from shell.claude import command_of, sandbox, through_client
from shell.tools import prepare_tools
from shell.workspace import ROOT, Workspace, _app_log, prepare

TARGET = 30_000


def _checkout(where: Path, revision: str, env: dict[str, str]) -> None:
    """This project at ``revision``, in a folder of its own."""
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(where)], check=True, env=env)
    subprocess.run(["git", "checkout", "--quiet", revision], cwd=where, check=True, env=env)


def _rtk(ws: Workspace, case: Case) -> tuple[int, bool] | None:
    """rtk's form of the case's output (through its own rewrite), and whether it keeps
    every fact; None without rtk."""
    if not ws.tools.has("rtk"):
        return None
    cwd, env = case.where(ws.root), case.environment(ws.env)
    argv = rtk_rewrite(case.argv, cwd, env) or list(case.argv)
    raw = capture(list(case.argv), cwd, env).output.decode("utf-8", "replace")
    out = capture(argv, cwd, env).output.decode("utf-8", "replace")
    return count(out), not lost(tuple(case.facts(raw)), out.encode())


def main() -> str:
    tools = prepare_tools()
    with tempfile.TemporaryDirectory(prefix="agentout-bench-signal-") as tmp:
        ws = prepare(Path(tmp), tools)
        _checkout(ws.root / heldout.SIGNAL_TREE, heldout.SIGNAL_REVISION, ws.env)
        _app_log(ws.root / "logs" / "signal.log", lines=heldout.SIGNAL_LOG_LINES)
        cases = [c for c in heldout.SIGNAL if not c.missing(tools)]
        path = os.pathsep.join(ws.tools.path)
        with sandbox(ws.root, path) as box, sandbox(ws.root, path) as plain:
            box.init("--global")
            reached = through_client(ws, cases, box, plain, "signal")
        agentout = [sys.executable, "-E", str(Path(sys.executable).parent / "agentout")]
        rows, totals = [], {"raw": 0, "plain": 0, "model": 0, "run": 0, "rtk": 0}
        kept = {"plain": 0, "model": 0, "run": 0}
        facts_total = 0
        rtk_known = True
        for r in reached:
            case = r.case
            ran = capture([*agentout, "run", "--", *case.argv], case.where(ws.root),
                          case.environment(ws.env))  # fmt: skip
            run_text = ran.output.decode("utf-8", "replace")
            theirs = _rtk(ws, case)
            rtk_known = rtk_known and theirs is not None
            if theirs is not None:
                totals["rtk"] += theirs[0]
            facts_total += len(r.facts)
            for name, text in (("plain", r.plain), ("model", r.model), ("run", run_text)):
                kept[name] += r.kept(text)
                totals[name] += count(text)
            totals["raw"] += count(r.raw)
            rows.append(
                [
                    f"`{command_of(case)}`",
                    f"{count(r.raw):,}",
                    f"{count(r.plain):,} ({r.kept(r.plain)}/{len(r.facts)})",
                    f"{count(r.model):,} ({r.kept(r.model)}/{len(r.facts)})",
                    f"{count(run_text):,} ({r.kept(run_text)}/{len(r.facts)})",
                    "n/a"
                    if theirs is None
                    else f"{theirs[0]:,}" + ("" if theirs[1] else " (lost facts)"),
                ]
            )
    headers = ["command", "raw", "Claude Code alone", "with agentout", "agentout run", "rtk"]
    ok = (
        kept["model"] == kept["run"] == facts_total
        and totals["model"] <= TARGET
        and totals["run"] <= TARGET
    )
    rtk_tokens = f"{totals['rtk']:,}" if rtk_known else "n/a"
    parts = [
        "## Everyday commands with large output (signal)",
        (__doc__ or "").split("\n\n")[0].replace("\n", " ").replace("``", "`"),
        "Each cell: tokens the model reads (facts kept / facts in the output).",
        table(headers, rows),
        f"- Facts kept: Claude Code alone {kept['plain']:,}/{facts_total:,}; with agentout "
        f"{kept['model']:,}/{facts_total:,}; `agentout run` {kept['run']:,}/{facts_total:,}\n"
        f"- Tokens in all: raw {totals['raw']:,}; Claude Code alone {totals['plain']:,}; with "
        f"agentout **{totals['model']:,}**; `agentout run` **{totals['run']:,}**; rtk "
        f"{rtk_tokens}\n"
        f"- Every fact kept, at most {TARGET:,} tokens in all: {verdict(ok)}",
    ]
    return "\n\n".join(parts)


if __name__ == "__main__":
    os.environ.setdefault("AGENTOUT_BENCH", "1")
    print(main())
