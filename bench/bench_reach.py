"""The held-out shell corpus as Claude Code reaches agentout: what the model reads of each
command, right after ``agentout init claude`` (no allow rules, ``default`` mode) and with
an allow rule for each command, beside the raw output and rtk; and planted secrets
printed by ``env``, ``printenv``, ``cat`` and ``grep``.

Each case runs as Claude Code runs it: the ``PreToolUse`` payload to ``agentout hook
claude`` (this branch, a fresh process); the command it returns (routed) or the command
itself, run by bash in the case's directory, stdout and stderr in one pipe; then, when it
exits 0 and was not routed, the ``PostToolUse`` payload with that output (over 30,000
characters: its first 30,000 in ``stdout`` and the whole in ``persistedOutputPath``, as
Claude Code 2.1.332 hands it over). What the model reads: the hook's ``updatedToolOutput``
when it answers, else the output (a command that failed goes to ``PostToolUseFailure``,
which cannot replace it). The workspace is bench/shell's (a clone of this project with
bugs and changes) plus bench/shell/heldout.py's build script and secrets; the settings,
store, ledger and home are the workspace's own.

    .venv/bin/python bench/run.py --only reach
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import tempfile
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from _common import table, verdict
from agentout.reducers.facts import Fact, lost
from agentout.tokens import count
from shell import heldout
from shell.capture import capture, rtk_rewrite
from shell.cases import Case
from shell.tools import prepare_tools
from shell.workspace import Workspace, prepare

INLINE = 30_000  # Claude Code's inline limit for Bash output, by default
EXIT_ZERO_TARGET = 4_300  # tokens the six cases that exit 0 may cost in all, no allow rules
BUILD_TARGET = 600  # tokens the routed build script may cost, keeping its 7 error lines
RTK_ALLOWANCE = 600


@dataclass(frozen=True)
class Reached:
    case: Case
    facts: tuple[Fact, ...]
    raw: str
    exit: int
    model: str  # what the model reads
    path: str  # "PreToolUse", "PostToolUse", "as printed", "neither"

    @property
    def raw_tokens(self) -> int:
        return count(self.raw)

    @property
    def tokens(self) -> int:
        return count(self.model)

    @property
    def lost(self) -> list[Fact]:
        return list(lost(self.facts, self.model.encode()))


def _script() -> list[str]:
    return [sys.executable, "-E", str(Path(sys.executable).parent / "agentout")]


def _hook(payload: dict[str, Any], cwd: Path, env: dict[str, str]) -> dict[str, Any] | None:
    done = subprocess.run(
        [*_script(), "hook", "claude"],
        input=json.dumps(payload).encode(),
        capture_output=True,
        cwd=cwd,
        env={**env, "CLAUDE_PROJECT_DIR": str(cwd)},
        check=False,
        timeout=120,
    )
    if done.stderr:
        print(f"bench: reach: hook said: {done.stderr.decode(errors='replace')}", file=sys.stderr)
    return json.loads(done.stdout) if done.stdout.strip() else None


def as_claude(
    ws: Workspace, case: Case, env: dict[str, str], session: str, scratch: Path
) -> Reached:
    """One case as Claude Code reaches agentout (see the module docstring)."""
    cwd = case.where(ws.root)
    command = shlex.join(case.argv)
    base = {
        "session_id": session,
        "cwd": str(cwd),
        "permission_mode": "default",
        "tool_name": "Bash",
        "tool_input": {"command": command, "description": "bench"},
        "tool_use_id": f"toolu_{uuid.uuid4().hex[:12]}",
    }
    run_env = case.environment(env)
    raw = capture(["bash", "-c", command], cwd, run_env)
    raw_text = raw.output.decode("utf-8", "replace")
    before = _hook({**base, "hook_event_name": "PreToolUse"}, cwd, env)
    if before is not None:
        routed = before["hookSpecificOutput"]["updatedInput"]["command"]
        done = capture(["bash", "-c", routed], cwd, run_env)
        model = done.output.decode("utf-8", "replace")
        return Reached(case, tuple(case.facts(raw_text)), raw_text, raw.exit, model, "PreToolUse")
    if raw.exit != 0:
        return Reached(case, tuple(case.facts(raw_text)), raw_text, raw.exit, raw_text, "neither")
    shown = raw_text.rstrip("\n")
    response: dict[str, Any] = {
        "stdout": shown,
        "stderr": "",
        "interrupted": False,
        "isImage": False,
        "noOutputExpected": False,
    }
    if len(shown) > INLINE:
        kept = scratch / f"{base['tool_use_id']}.txt"
        kept.write_text(shown, encoding="utf-8")
        response.update(
            stdout=shown[:INLINE],
            persistedOutputPath=str(kept),
            persistedOutputSize=len(shown.encode()),
        )
    after = _hook({**base, "hook_event_name": "PostToolUse", "tool_response": response}, cwd, env)
    if after is None:
        return Reached(case, tuple(case.facts(raw_text)), raw_text, 0, raw_text, "as printed")
    model = after["hookSpecificOutput"]["updatedToolOutput"]["stdout"]
    return Reached(case, tuple(case.facts(raw_text)), raw_text, 0, model, "PostToolUse")


def _rule(case: Case) -> str:
    words = case.argv
    if words[0] in ("git",) or words[:2] == ("python", "-m"):
        return f"Bash({' '.join(words[:3] if words[0] == 'python' else words[:2])} *)"
    return f"Bash({words[0]} *)" if len(words) > 2 else f"Bash({' '.join(words)})"


def _settings(ws: Workspace, cases: list[Case], rules: bool) -> None:
    for case in cases:
        folder = case.where(ws.root) / ".claude"
        folder.mkdir(exist_ok=True)
        allow = [_rule(c) for c in cases if c.cwd == case.cwd] if rules else []
        (folder / "settings.json").write_text(json.dumps({"permissions": {"allow": allow}}))


def _rtk(ws: Workspace, case: Case, env: dict[str, str]) -> tuple[int, bool] | None:
    if not ws.tools.has("rtk"):
        return None
    cwd = case.where(ws.root)
    argv = rtk_rewrite(case.argv, cwd, env) or list(case.argv)
    raw = capture(list(case.argv), cwd, case.environment(env)).output.decode("utf-8", "replace")
    out = capture(argv, cwd, case.environment(env)).output.decode("utf-8", "replace")
    return count(out), not lost(tuple(case.facts(raw)), out.encode())


def _rows(reached: list[Reached], rtk: dict[str, tuple[int, bool] | None]) -> list[list[object]]:
    rows: list[list[object]] = []
    for r in reached:
        theirs = rtk.get(r.case.name)
        rows.append(
            [
                f"`{shlex.join(r.case.argv)}`",
                r.exit,
                r.path,
                f"{r.raw_tokens:,}",
                f"{r.tokens:,}",
                f"{len(r.facts) - len(r.lost)}/{len(r.facts)}",
                "n/a" if theirs is None else f"{theirs[0]:,}" + ("" if theirs[1] else " (lost)"),
            ]
        )
    return rows


def _secrets(ws: Workspace, env: dict[str, str], scratch: Path) -> tuple[str, bool]:
    place = ws.root / "heldout" / "secrets"
    case_env = {**env, **heldout.SECRET_ENV}
    shown: list[list[object]] = []
    reached_model = 0
    session = f"bench-secrets-{uuid.uuid4().hex[:8]}"
    for command in heldout.SECRET_COMMANDS:
        where = str(place.relative_to(ws.root))
        case = Case(command, "secrets", tuple(shlex.split(command)), where, lambda _t: [])
        r = as_claude(ws, case, case_env, session, scratch)
        leaked = [v for v in heldout.SECRET_VALUES if v in r.model]
        planted = [v for v in heldout.SECRET_VALUES if v in r.raw]
        reached_model += len(leaked)
        shown.append([f"`{command}`", r.path, len(planted), len(leaked)])
    stored = 0
    for path in (ws.root / "spill").rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            stored += sum(v.encode() in data for v in heldout.SECRET_VALUES)
    for path in (ws.root / "claude-home").rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            stored += sum(v.encode() in data for v in heldout.SECRET_VALUES)
    ok = reached_model == 0 and stored == 0
    text = "\n\n".join(
        [
            "### Planted secrets, as the model reads them (no allow rules)",
            f"{len(heldout.SECRET_VALUES)} planted credentials (environment values, `.env`, "
            "`.npmrc`, a JWT in JSON, a URL password, a PEM block), printed by these commands; "
            "each exits 0, "
            "so what the model reads is the PostToolUse hook's answer.",
            table(["command", "reached by", "secrets printed", "reach the model"], shown),
            f"**Secrets that reach the model: {reached_model}; found in agentout's store, ledger "
            f"and caches: {stored} (target 0 and 0): {verdict(ok)}**",
        ]
    )
    return text, ok


def claude_home(ws: Any) -> tuple[dict[str, str], Path]:
    """The environment of a Claude Code user with a home of their own in the workspace
    (the ledger counted as each delivery is made), and the folder Claude Code keeps
    large tool results in."""
    home = ws.root / "claude-home"
    (home / ".claude").mkdir(parents=True)
    env = {
        **ws.env,
        "HOME": str(home),
        "XDG_CACHE_HOME": str(home / "cache"),
        "XDG_DATA_HOME": str(home / "data"),
        "AGENTOUT_LEDGER_SYNC": "1",
    }
    scratch = ws.root / "tool-results"
    scratch.mkdir()
    return env, scratch


def main() -> str:
    tools = prepare_tools()
    with tempfile.TemporaryDirectory(prefix="agentout-bench-reach-") as tmp:
        ws = prepare(Path(tmp), tools)
        heldout.prepare(ws.root)
        env, scratch = claude_home(ws)
        cases = [c for c in heldout.HELD_OUT if not c.missing(tools)]
        rtk = {case.name: _rtk(ws, case, env) for case in cases}
        parts = [
            "## Held-out shell corpus, as Claude Code reaches agentout",
            (__doc__ or "").split("\n\n")[0].replace("\n", " ").replace("``", "`"),
        ]
        results: dict[bool, list[Reached]] = {}
        for rules in (False, True):
            _settings(ws, cases, rules)
            session = f"bench-{'rules' if rules else 'plain'}-{uuid.uuid4().hex[:8]}"
            results[rules] = [as_claude(ws, case, env, session, scratch) for case in cases]
            for r in results[rules]:
                print(
                    f"bench: reach: {'rules' if rules else 'plain'} {r.case.name}: {r.path} "
                    f"{r.raw_tokens} -> {r.tokens}, lost {len(r.lost)}",
                    file=sys.stderr,
                )
        plain, ruled = results[False], results[True]
        zero = [r for r in plain if r.exit == 0]
        zero_tokens = sum(r.tokens for r in zero)
        plain_ok = all(not r.lost and r.tokens <= r.raw_tokens for r in plain)
        build = next((r for r in ruled if r.case.name == "build-script"), None)
        build_ok = build is not None and not build.lost and build.tokens <= BUILD_TARGET
        whole = [r for r in ruled if rtk.get(r.case.name) and rtk[r.case.name][1]]  # type: ignore[index]
        rtk_total = sum(rtk[r.case.name][0] for r in whole)  # type: ignore[index]
        ours_total = sum(r.tokens for r in whole) + (
            build.tokens if build and build not in whole else 0
        )
        rtk_ok = ours_total <= rtk_total + RTK_ALLOWANCE
        rtk_verdict = verdict(rtk_ok) if whole else "n/a (no rtk)"
        ruled_ok = all(not r.lost and r.tokens <= r.raw_tokens for r in ruled)
        headers = ["command", "exit", "reached by", "raw", "model reads", "facts kept", "rtk"]
        parts += [
            "### Right after `agentout init claude`: no allow rules, `default` mode",
            table(headers, _rows(plain, rtk)),
            f"- Every fact kept and no case larger than raw: {verdict(plain_ok)}\n"
            f"- The {len(zero)} cases that exit 0: raw {sum(r.raw_tokens for r in zero):,} tokens, "
            f"the model reads **{zero_tokens:,}** (target ≤ {EXIT_ZERO_TARGET:,}: "
            f"{verdict(zero_tokens <= EXIT_ZERO_TARGET and len(zero) == 6)})",
            "### With an allow rule for each command (`Bash(git log *)`, `Bash(python3 build.py)`)",
            table(headers, _rows(ruled, rtk)),
            f"- Every fact kept and no case larger than raw: {verdict(ruled_ok)}\n"
            f"- The failing build script, routed: {build.tokens if build else 'n/a'} tokens, "
            f"{(len(build.facts) - len(build.lost)) if build else 0}/{heldout.BUILD_ERRORS} error "
            f"lines (target 7/7 within {BUILD_TARGET}: {verdict(build_ok)})\n"
            f"- On the cases rtk keeps whole, plus the build script: agentout "
            f"**{ours_total:,}** tokens, rtk {rtk_total:,} + {RTK_ALLOWANCE} (target agentout ≤ "
            f"rtk + {RTK_ALLOWANCE}: {rtk_verdict})",
        ]
        secrets, secrets_ok = _secrets(ws, env, scratch)
        parts.append(secrets)
        parts.append(
            f"**All targets met: {verdict(plain_ok and ruled_ok and build_ok and secrets_ok)}**"
        )
        return "\n\n".join(parts)


if __name__ == "__main__":
    os.environ.setdefault("AGENTOUT_BENCH", "1")
    print(main())
