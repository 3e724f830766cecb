"""pytest's own output against the agent report, in tokens; and the plugin's cost in time.

    python bench/bench_pytest.py                      # prints the Markdown section
    AGENTOUT_BENCH_RUNS=9 python bench/bench_pytest.py  # more timing rounds (default 5)
    AGENTOUT_BENCH_SCALE=0.25 python bench/bench_pytest.py  # a quicker, smaller suite

Suites: the bundled examples/failing_suite; bench/heldout_suite, a lending library with
ten bugs at ten sites written apart from the report's code; CPython's own test_textwrap.py
run against a copy of textwrap.py with three bugs injected (a real suite, offline); and
more-itertools' own tests with three bugs injected (its source distribution, downloaded
from PyPI with pip when the bench runs, never kept here; skipped, saying why, when pip
cannot get it). Then ``agentout test`` on jest-junit's XML (examples/junit/).

Each report is set against the minimal report of its facts, written by hand in the same
records format beside this file (bench/minimal/NAME.records: each failing test, line,
error, origin and count once, and only the envelope's version field; the run's time and
the full report's reference filled in from the run), with a check that both read back to the
same facts, and against the same facts with no syntax at all (values only).

Counts are checked against pytest's own summary on generated suites. Every
pytest run is a subprocess in a clean environment: no agent variables, COLUMNS=80 (what
a pipe gets), CI unset (pytest would stop truncating its summary lines). Tokens are
exact o200k_base counts of stdout. The overhead suite is generated: ~700 tests and
~20,000 subtests at scale 1 (the default; about two minutes in all on 2 cores).
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from agentout.formats.records import parse  # noqa: E402
from agentout.sources.testing.readback import (  # noqa: E402
    failures_of,
    file_counts,
    named_tests,
)
from agentout.sources.testing.settings import AGENT_ENV_VARS, FOCUS_MODES, SETTINGS  # noqa: E402
from agentout.tokens import count  # noqa: E402

BENCH = ROOT / "bench"
BUNDLED = ROOT / "examples" / "failing_suite"
HELD_OUT = BENCH / "heldout_suite"
MINIMAL = BENCH / "minimal"
JEST_JUNIT = ROOT / "examples" / "junit" / "jest-junit.xml"
COMMON = ("-p", "no:cacheprovider", "-p", "no:hypothesispytest")
PEERS = {
    "pytest (default)": (),
    "pytest -q --tb=short": ("-q", "--tb=short"),
    "pytest -q --tb=no -rf": ("-q", "--tb=no", "-rf"),
}

# Three bugs for CPython's textwrap: an off-by-one in wrapping (a cascade), indent()
# prefixing blank lines, shorten() keeping runs of spaces.
TEXTWRAP_BUGS = (
    ("width = self.width - len(indent)\n", "width = self.width - len(indent) - 1\n"),
    ("            return line.strip()\n", "            return line.strip('\\n')\n"),
    (
        "return w.fill(' '.join(text.strip().split()))",
        "return w.fill(' '.join(text.split(' ')))",
    ),
)


# A third real suite: more-itertools from PyPI's source distribution, fetched when the
# bench runs (never kept in the repository), with three bugs that each fail at their own
# assertion site: intersperse() drops its first item, interleave() skips its third
# iterable, triplewise() makes overlapping pairs (subtests of unittest's subTest).
MORE_ITERTOOLS = "11.2.1"
MORE_ITERTOOLS_BUGS = (
    (
        "more_itertools/more.py",
        "return islice(interleave(repeat(e), iterable), 1, None)",
        "return islice(interleave(repeat(e), iterable), 2, None)",
    ),
    (
        "more_itertools/more.py",
        "    return chain.from_iterable(zip(*iterables))\n",
        "    return chain.from_iterable(zip(*iterables[:2], *iterables[3:]))\n",
    ),
    (
        "more_itertools/recipes.py",
        "    next(t3, None)\n    next(t3, None)\n",
        "    next(t3, None)\n",
    ),
)


def _env(spill: Path, columns: int = 80) -> dict[str, str]:
    drop = {*AGENT_ENV_VARS, "AGENTOUT_AGENT", *(s.env for s in SETTINGS), "CI"}
    drop |= {"PYTEST_ADDOPTS", "PYTEST_PLUGINS", "PYTEST_DISABLE_PLUGIN_AUTOLOAD"}
    env = {k: v for k, v in os.environ.items() if k not in drop}
    env.update(COLUMNS=str(columns), AGENTOUT_SPILL_DIR=str(spill), PYTHONDONTWRITEBYTECODE="1")
    return env


def _pytest(cwd: Path, args: Sequence[str], env: dict[str, str]) -> tuple[str, float, int]:
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "pytest", *COMMON, *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    return done.stdout, time.perf_counter() - start, done.returncode


# -- what the agent report must say ------------------------------------------------------


def _expected_failures(cwd: Path, env: dict[str, str], args: Sequence[str] = ()) -> set[str]:
    """Every failing node id as pytest itself lists them (wide, so nothing is cut)."""
    out, _, _ = _pytest(cwd, ("-q", "--tb=no", "-rfE", *args), {**env, "COLUMNS": "1000"})
    ids = set()
    for line in out.splitlines():
        match = re.match(r"(?:FAILED|ERROR|SUBFAILED\S*) (\S+?)(?: - .*)?$", line)
        if match:
            ids.add(match.group(1))
    return ids


def _named(report: str) -> set[str]:
    """The node ids an agent report names (subtests count as their test)."""
    ids = set()
    for fields in failures_of(report):
        file = fields["file"]
        names = named_tests(fields)
        if not names:
            ids.add(file)  # a module that did not collect
        ids.update(f"{file}::{re.sub(r' [(#].*$', '', name)}" for name in names)
    return ids


def _causes_complete(report: str) -> tuple[int, int]:
    """(root causes, of them those with location, error type and expected/got or message)."""
    causes = complete = 0
    for fields in failures_of(report):
        if "error" in fields:
            causes += 1
            located = "origin" in fields or "L" in fields
            # the error line names the type (a failed assert statement is its own), and its
            # message or expected/got says what failed
            error = str(fields["error"])
            said = ("expected" in fields and "got" in fields) or (
                error.startswith("assert ") or ": " in error
            )
            complete += located and said
    return causes, complete


def _bare(text: str) -> int:
    """Tokens of a report's values alone: no kind letters, no keys, no quotes or escapes,
    each line its values joined by spaces. The floor of what any syntax could cost; not
    a report an agent or a program could read back."""
    lines = [
        " ".join(" ".join(map(str, v)) if isinstance(v, list) else str(v) for v in fields.values())
        for _, fields in parse(text)
    ]
    return count("\n".join(lines))


def _minimal(name: str, report: str) -> str:
    """The minimal report of ``report``'s facts, written by hand (bench/minimal/NAME.records),
    with the two values that change from run to run taken from ``report``: its time and the
    reference of its full report (the 16 hex digits ``agentout show`` takes: naming the
    stored report is a fact, and a reference is the least that names it)."""
    rows = parse(report)
    status = next(fields for kind, fields in rows if kind == "S")
    full = next((fields.get("full", "") for kind, fields in rows if kind == "F"), "")
    ref = re.search(r"[0-9a-f]{16}", str(full))  # the reference alone, whatever it is in
    full = ref.group() if ref else full
    text = (MINIMAL / f"{name}.records").read_text(encoding="utf-8")
    return text.replace("<time>", str(status.get("time", ""))).replace("<full>", str(full))


def _facts(text: str) -> tuple[dict[str, Any], set[tuple[Any, ...]]]:
    """What a report says, read back: its status counts, and per record the file, the tests
    it names, the line, the cause it shares, the phase, the error and the origin."""
    rows = parse(text)
    status = next(fields for kind, fields in rows if kind == "S")
    counts = {k: v for k, v in status.items() if k != "time"}
    keys = ("L", "cause", "when", "error", "origin")
    records = {
        (row.get("file"), tuple(named_tests(row)), *(str(row.get(k)) for k in keys))
        for row in failures_of(text)
    }
    return counts, records


def _against_minimal(name: str, report: str) -> list[str]:
    """The report's tokens against the minimal report of its facts (bench/minimal/)."""
    minimal = _minimal(name, report)
    ours, least, floor = count(report), count(minimal), _bare(minimal)
    same = _facts(report) == _facts(minimal)
    ratio = ours / least
    return [
        f"- against a minimal report of the same facts, written by hand in the same format "
        f"(`bench/minimal/{name}.records`: each fact once, the envelope `H agentout=1`): "
        f"{least:,} tokens; the report is **{ratio:.2f} x** it (target <= 1.1: "
        f"{'meets' if ratio <= 1.1 else 'misses'} it); the two name the same failures, "
        f"lines, errors and origins and the same counts: {'yes' if same else '**no**'}",
        f"- the same facts with no syntax at all (values only, `_bare`): {floor:,} tokens; "
        f"the report is {ours / floor:.2f} x that",
    ]


def _token_table(
    name: str,
    cwd: Path,
    spill: Path,
    focuses: Sequence[str] = FOCUS_MODES,
    bugs: int | None = None,
    args: Sequence[str] = (),
    minimal: str | None = None,
) -> list[str]:
    env = _env(spill)
    rows: list[tuple[str, int]] = []
    for label, peer in PEERS.items():
        out, _, _ = _pytest(cwd, (*peer, *args), env)
        rows.append((label, count(out)))
    reports: dict[str, str] = {}
    for focus in focuses:
        out, _, _ = _pytest(cwd, ("--agent", f"--agent-focus={focus}", *args), env)
        reports[focus] = out
        rows.append((f"agent report, focus {focus}", count(out)))
    default = rows[0][1]
    lines = [
        f"#### {name}",
        "",
        "| output | tokens | vs pytest's default |",
        "| --- | ---: | ---: |",
        *(f"| {label} | {n:,} | {n / default:.1%} |" for label, n in rows),
        "",
    ]
    report = reports["failures"]
    agent, rf = count(report), dict(rows)["pytest -q --tb=no -rf"]
    bound = max(0.1 * default, 1.25 * rf)
    expected = _expected_failures(cwd, env, args)
    named = _named(report)
    causes, complete = _causes_complete(report)
    lines += [
        f"- focus failures: {agent:,} tokens, {agent / default:.1%} of the default output and "
        f"{agent / rf:.0%} of `-q --tb=no -rf`; the bound, the larger of 10% of the default "
        f"and 1.25 x `-rf`, is {bound:,.0f}: {'meets' if agent <= bound else 'misses'} it",
        f"- failing tests named: {len(expected & named)} of {len(expected)}"
        + (f" (missing: {', '.join(sorted(expected - named))})" if expected - named else ""),
        f"- root causes: {causes}, each with a location, the error type and expected vs got "
        f"or the message: {complete} of {causes}"
        + (
            f"; bugs injected: {bugs} ({'equal' if causes == bugs else 'not equal'})"
            if bugs
            else ""
        ),
        *(_against_minimal(minimal, report) if minimal else []),
        "",
    ]
    return lines


def _textwrap_suite(tmp: Path) -> Path | None:
    """CPython's test_textwrap.py against textwrap.py with TEXTWRAP_BUGS; None if the
    installed Python ships no tests or another textwrap."""
    spec = importlib.util.find_spec("test.test_textwrap")
    if spec is None or spec.origin is None:
        return None
    import textwrap

    source = Path(textwrap.__file__).read_text(encoding="utf-8")
    for old, new in TEXTWRAP_BUGS:
        if source.count(old) != 1:
            return None
        source = source.replace(old, new)
    tests = Path(spec.origin).read_text(encoding="utf-8")
    if tests.count("from textwrap import ") != 1:
        return None
    suite = tmp / "textwrap_suite"
    suite.mkdir()
    (suite / "pytest.ini").write_text("[pytest]\n")
    (suite / "textwrap_injected.py").write_text(source, encoding="utf-8")
    tests = tests.replace("from textwrap import ", "from textwrap_injected import ")
    (suite / "test_textwrap.py").write_text(tests, encoding="utf-8")
    return suite


def _more_itertools_suite(tmp: Path) -> tuple[Path | None, str]:
    """more-itertools' own tests against its code with MORE_ITERTOOLS_BUGS, from its
    source distribution on PyPI; (None, why) when it cannot be had or patched."""
    import tarfile

    where = tmp / "more_itertools_download"
    done = subprocess.run(
        [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-binary",
         ":all:", f"more-itertools=={MORE_ITERTOOLS}", "-d", str(where)],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    archives = sorted(where.glob("more_itertools-*.tar.gz")) if where.exists() else []
    if done.returncode != 0 or not archives:
        last = (done.stderr.strip().splitlines() or ["no archive"])[-1]
        return None, f"pip could not download more-itertools {MORE_ITERTOOLS}: {last}"
    if not hasattr(tarfile, "data_filter"):  # Pythons before 3.11.4: no safe extraction
        return None, "this Python's tarfile cannot extract an archive safely (no data filter)"
    with tarfile.open(archives[0]) as archive:
        archive.extractall(tmp, filter="data")
    suite = tmp / f"more_itertools-{MORE_ITERTOOLS}"
    for name, old, new in MORE_ITERTOOLS_BUGS:
        path = suite / name
        source = path.read_text(encoding="utf-8")
        if source.count(old) != 1:
            return None, f"{name} has changed: a bug could not be injected"
        path.write_text(source.replace(old, new), encoding="utf-8")
    return suite, ""


def _jest_junit(spill: Path) -> list[str]:
    """``agentout test`` on jest-junit's XML (examples/junit/jest-junit.xml), against the
    minimal report of its facts and the issue's bound of 256 tokens."""
    done = subprocess.run(
        [sys.executable, "-m", "agentout", "test", str(JEST_JUNIT)],
        env=_env(spill),
        capture_output=True,
        text=True,
        timeout=120,
    )
    report = done.stdout
    tokens = count(report)
    return [
        "#### JUnit XML from jest (examples/junit/jest-junit.xml, `agentout test FILE`)",
        "",
        f"- report: {tokens:,} tokens (bound 256: {'meets' if tokens <= 256 else 'misses'} it); "
        f"the XML itself: {count(JEST_JUNIT.read_text(encoding='utf-8')):,} tokens",
        *_against_minimal("jest_junit", report),
        "",
    ]


# -- counts against pytest's own summary -------------------------------------------------


def _counts_check(tmp: Path, spill: Path, suites: int) -> list[str]:
    """On generated suites of every outcome (tests/testing/test_counts.py's generator),
    the report's S and P counts against pytest's own summary line."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from tests.testing.test_counts import generated_suite, pytest_summary

    env = _env(spill)
    mismatches: list[str] = []
    for seed in range(suites):
        folder = tmp / f"counts_{seed}"
        folder.mkdir()
        (folder / "pytest.ini").write_text("[pytest]\n")
        for name, text in generated_suite(seed).items():
            (folder / f"{name}.py").write_text(text, encoding="utf-8")
        args = ("--continue-on-collection-errors",) if seed % 2 else ()
        own = pytest_summary(_pytest(folder, ("-q", "--tb=no", *args), env)[0])
        report = _pytest(folder, ("--agent", *args), env)[0]
        status = next(f for k, f in parse(report) if k == "S")
        said = {
            k: v
            for k, v in status.items()
            if type(v) is int and k not in ("files", "causes", "exit")
        }
        if "subtests_failed" not in own and said.get("subtests_failed"):
            said["failed"] = said.get("failed", 0) + said.pop("subtests_failed")
        files = file_counts(report).values()  # a P line's counts, said or its records'
        sums = {
            key: (sum(p.get(key, 0) for p in files), int(status.get(key, 0)))
            for key in ("failed", "subtests_failed", "errors")
        }
        if said != own:
            mismatches.append(f"seed {seed}: pytest {own}, report {said}")
        if any(p != s for p, s in sums.values()):
            mismatches.append(f"seed {seed}: P lines (sum, S line) {sums}")
    return [
        "#### Counts against pytest's own summary",
        "",
        f"- {suites} generated suites mixing every outcome (failures, setup and teardown "
        "errors, skips, xfail/xpass, warnings, modules that do not import or skip whole, "
        "pytest's subtests and unittest's subTest): "
        f"{len(mismatches)} mismatches between the S line and pytest's own summary line "
        "(pytest counts a failed subtest in `failed`; the report says it apart, "
        "`subtests_failed`), and the P lines add up to the S line in each",
        *(f"  - {m}" for m in mismatches),
        "",
    ]


# -- overhead ----------------------------------------------------------------------------

_GENERATED = """
import pytest

@pytest.mark.parametrize("n", range({tests}))
def test_value(n):
    assert (n * 7) % 1000 != 999

def test_subtests(subtests):
    for n in range({subtests}):
        with subtests.test(n=n):
            assert n >= 0
"""


def _generate(tmp: Path, scale: float) -> tuple[Path, int, int]:
    files = 35
    tests = max(1, round(20 * scale))
    subtests = max(1, round(20_000 * scale / files))
    suite = tmp / "generated"
    suite.mkdir()
    (suite / "pytest.ini").write_text("[pytest]\n")
    for i in range(files):
        body = _GENERATED.format(tests=tests - 1, subtests=subtests)
        if i % 7 == 0:  # a few failures, so the report has something to say
            body += "\ndef test_broken():\n    assert {'a': 1} == {'a': 2}\n"
        else:
            body += "\ndef test_fine():\n    pass\n"
        (suite / f"test_gen_{i:02}.py").write_text(body)
    return suite, files * (tests + 1), files * subtests


def _clocked(suite: Path, env: dict[str, str], out: Path) -> tuple[float, dict[str, Any]]:
    """One ``pytest --agent`` run with bench/_plugin_clock.py: (wall, what the plugin spent)."""
    clock_env = {**env, "PYTHONPATH": str(BENCH), "AGENTOUT_BENCH_CLOCK": str(out)}
    out.unlink(missing_ok=True)
    wall = _pytest(suite, ("--agent", "-p", "_plugin_clock"), clock_env)[1]
    return wall, json.loads(out.read_text())


def _pct(part: float, whole: float) -> str:
    return f"{part / whole:+.1%}"


def _overhead(tmp: Path, spill: Path, scale: float, rounds: int) -> list[str]:
    suite, tests, subtests = _generate(tmp, scale)
    # As on any machine after its first run, pytest's rewritten-module caches exist: one
    # untimed run of each kind writes them (an environment that forbids writing bytecode
    # pays the rewriting on every run, plugin or not).
    env = {k: v for k, v in _env(spill).items() if k != "PYTHONDONTWRITEBYTECODE"}
    kinds = {"no plugin": ("-p", "no:agentout"), "plugin off": (), "--agent": ("--agent",)}
    for args in kinds.values():
        _pytest(suite, args, env)
    walls: dict[str, list[float]] = {kind: [] for kind in kinds}
    clocked: list[tuple[float, dict[str, Any]]] = []
    # Interleaved, so every kind sees the same machine load, and each round starts with
    # the next kind, so no kind always runs first (a fixed order showed a steady bias).
    order = [*kinds, "clocked"]
    for round_ in range(rounds):
        for kind in order[round_ % len(order) :] + order[: round_ % len(order)]:
            if kind == "clocked":
                clocked.append(_clocked(suite, env, tmp / "clock.json"))
            else:
                walls[kind].append(_pytest(suite, kinds[kind], env)[1])

    # The plugin's own time, measured inside each run: stable where whole runs are not.
    def spent(clock: dict[str, Any]) -> float:
        return float(sum(clock["hooks"].values()) + clock["dispatch"])

    shares = [spent(clock) / (wall - spent(clock)) for wall, clock in clocked]
    share = statistics.median(shares)
    _, typical = sorted(clocked, key=lambda c: spent(c[1]))[len(clocked) // 2]
    hooks = typical["hooks"]
    per_test = hooks.get("pytest_runtest_logreport", 0.0)
    describe = hooks.get("pytest_exception_interact", 0.0) + hooks.get(
        "pytest_assertrepr_compare", 0.0
    )
    report = hooks.get("pytest_sessionfinish", 0.0)
    total = spent(typical)
    rest = total - typical["dispatch"] - hooks.get("import", 0.0) - per_test - describe - report
    logreports = typical["calls"].get("pytest_runtest_logreport", 0)

    base = statistics.median(walls["plugin off"])
    rows = [f"| {kind} | {min(w):.2f} | {statistics.median(w):.2f} |" for kind, w in walls.items()]
    paired = {
        kind: [a - b for a, b in zip(walls[kind], walls["no plugin"], strict=True)]
        for kind in ("plugin off", "--agent")
    }
    return [
        "#### Plugin overhead",
        "",
        f"A generated suite of {tests:,} tests and {subtests:,} subtests (scale {scale:g}), "
        "tests that do almost nothing, so pytest's own per-test work is the whole run and "
        f"any fixed cost shows at its largest; {rounds} interleaved rounds.",
        "",
        "The plugin's own time, measured inside each `--agent` run by wrapping every hook "
        "of the plugin (bench/_plugin_clock.py), against that run's wall time:",
        "",
        "| part | ms (median run) |",
        "| --- | ---: |",
        f"| importing the plugin and the recorder | {hooks.get('import', 0.0) * 1e3:.1f} |",
        f"| counting, {logreports:,} test and subtest reports | {per_test * 1e3:.1f} |",
        f"| describing the failures | {describe * 1e3:.1f} |",
        f"| the report: waiting for it, or rendering it here | {report * 1e3:.1f} |",
        f"| of which loading the o200k tables here | {typical['tables'] * 1e3:.1f} |",
        f"| pluggy calling these hooks (estimated) | {typical['dispatch'] * 1e3:.1f} |",
        f"| everything else (configure, collection order) | {rest * 1e3:.1f} |",
        f"| **total** | **{total * 1e3:.1f}** |",
        "",
        f"- overhead: {share:.1%} of the suite's wall time, the median of {rounds} runs "
        f"(range {min(shares):.1%} to {max(shares):.1%}); "
        f"{'meets' if share <= 0.03 else 'misses'} the 3% goal.",
        "- not in that figure: the process that renders the report, started with the "
        "session, loads the tokenizer and the report's modules while the tests run, on "
        f"another core: {typical.get('children_cpu', 0.0) * 1e3:.0f} ms of CPU in the median "
        "run (pytest waits only for the rendering itself, counted above).",
        "",
        "Whole runs, wall seconds, for comparison (`no plugin` is `-p no:agentout`; "
        "`plugin off` is installed but inactive, what every pytest run pays):",
        "",
        "| run | best s | median s |",
        "| --- | ---: | ---: |",
        *rows,
        "",
        "- paired with the no-plugin run of the same round, median difference: plugin off "
        f"{_pct(statistics.median(paired['plugin off']), base)}, --agent "
        f"{_pct(statistics.median(paired['--agent']), base)}; the rounds' differences for "
        f"--agent spread from {_pct(min(paired['--agent']), base)} to "
        f"{_pct(max(paired['--agent']), base)}. `plugin off` does about 3 ms of work (its "
        "import and options), so its difference is the machine's noise and bias on this "
        "shared machine; whole runs cannot resolve a cost this small here, which is why the "
        "figure above is measured inside the run.",
        "",
    ]


_IMPORT_LINE = re.compile(r"import time:\s+(\d+) \|\s+(\d+) \| *(\S+)")

# Run in a fresh interpreter: how far a Python thread gets per second while the o200k
# tables load in another thread, against before. bpe-openai's loader holds the GIL.
_STALL = """
import threading, time
from agentout.tokens import _native
native = _native()
count, stop = 0, False
def spin():
    global count
    while not stop:
        count += 1
thread = threading.Thread(target=spin)
thread.start()
time.sleep(0.05)
start, before = time.perf_counter(), count
idle = count / 0.05
native.tokenizer_for_encoding("o200k_base")
during = (count - before) / (time.perf_counter() - start)
stop = True
thread.join()
print(during / idle)
"""


def _fixed_costs(rounds: int) -> list[str]:
    """What the plugin costs every pytest run (its import), and why the tables are not
    loaded in a background thread."""
    own: list[float] = []
    pytest_total: list[float] = []
    for _ in range(rounds):
        done = subprocess.run(
            [
                sys.executable,
                "-X",
                "importtime",
                "-c",
                "import pytest, agentout.sources.testing.plugin",
            ],
            capture_output=True,
            text=True,
            check=True,
        )
        lines = [m for m in map(_IMPORT_LINE.match, done.stderr.splitlines()) if m]
        own.append(sum(int(m[1]) for m in lines if m[3].startswith("agentout")) / 1e6)
        pytest_total.append(next(int(m[2]) for m in lines if m[3] == "pytest") / 1e6)
    stalls = [
        float(subprocess.run([sys.executable, "-c", _STALL], capture_output=True, text=True,
                             check=True).stdout)
        for _ in range(3)
    ]  # fmt: skip
    mine, theirs = statistics.median(own), statistics.median(pytest_total)
    return [
        "#### What every pytest run pays, and the tokenizer tables",
        "",
        f"- importing the plugin (what every pytest run does, the report on or off): "
        f"{mine * 1e3:.1f} ms of agentout modules' own import time, against {theirs * 1e3:.1f} "
        f"ms for `import pytest` itself ({mine / theirs:.1%}); `-X importtime`, median of "
        f"{rounds} fresh interpreters",
        f"- while the o200k tables load in one thread, another Python thread runs at "
        f"{statistics.median(stalls):.0%} of its speed (median of 3): the loader holds the "
        "GIL, so a thread would stall the tests as long; the plugin has them loaded by the "
        "process that renders the report, started with the session",
        "",
    ]


def main() -> str:
    scale = float(os.environ.get("AGENTOUT_BENCH_SCALE", "1"))
    rounds = int(os.environ.get("AGENTOUT_BENCH_RUNS", "5"))
    with tempfile.TemporaryDirectory(prefix="agentout-bench-") as name:
        tmp = Path(name)
        spill = tmp / "spill"
        lines = [
            "### Test output for agents (bench_pytest)",
            "",
            "Tokens (o200k_base) of what each command prints, on the same suite. The agent "
            "report is the pytest plugin's (`pytest --agent`), default budget 5000.",
            "",
        ]
        work = tmp / "failing_suite"
        shutil.copytree(BUNDLED, work, ignore=shutil.ignore_patterns("__pycache__"))
        lines += _token_table(
            "examples/failing_suite (bundled)", work, spill, minimal="failing_suite"
        )
        held_out = tmp / "heldout_suite"
        shutil.copytree(HELD_OUT, held_out, ignore=shutil.ignore_patterns("__pycache__"))
        lines += _token_table(
            "bench/heldout_suite (held out: 10 failures at 10 sites)",
            held_out,
            spill,
            bugs=10,
            minimal="heldout_suite",
        )
        textwrap_suite = _textwrap_suite(tmp)
        if textwrap_suite is None:
            lines += ["CPython's test_textwrap.py is not installed here: skipped.", ""]
        else:
            lines += _token_table(
                "CPython's test_textwrap.py, 3 bugs injected into textwrap.py",
                textwrap_suite,
                spill,
                minimal="textwrap",
            )
        more, why = _more_itertools_suite(tmp)
        if more is None:
            lines += [f"more-itertools {MORE_ITERTOOLS}: skipped, {why}.", ""]
            print(f"bench_pytest: more-itertools skipped: {why}", file=sys.stderr)
        else:
            lines += _token_table(
                f"more-itertools {MORE_ITERTOOLS}'s own tests, 3 bugs injected (PyPI sdist)",
                more,
                spill,
                focuses=("failures",),
                bugs=len(MORE_ITERTOOLS_BUGS),
                args=("tests",),
                minimal="more_itertools",
            )
        lines += _jest_junit(spill)
        lines += _counts_check(tmp, spill, int(os.environ.get("AGENTOUT_BENCH_SUITES", "20")))
        lines += _overhead(tmp, spill, scale, rounds)
        lines += _fixed_costs(rounds)
    return "\n".join(lines)


if __name__ == "__main__":
    print(main())
