"""The one vocabulary of trouble, on a recorded sample of every common log format, and the
errors it finds kept by every path that shows text: ``fit``, ``run`` and both Claude Code
hooks (PostToolUse on a Bash result, and on an MCP tool's text)."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentout.agents.claude_bash import decide
from agentout.mcp.fit import Limits, fit_text
from agentout.read.trouble import MAX_LINE_BYTES, Scan, classify, clean
from agentout.sources.command import run
from agentout.sources.fit import fit
from agentout.store.spill import SpillStore
from agentout.tokens import count

LOGS = Path(__file__).resolve().parents[1] / "fixtures" / "logs"
CASES: dict[str, dict[str, Any]] = json.loads((LOGS / "cases.json").read_text())
BUDGET = 2000


def _lines(name: str) -> list[str]:
    return (LOGS / f"{name}.log").read_text().splitlines()


@pytest.mark.parametrize("name", sorted(CASES))
def test_each_format_says_its_levels_and_nothing_else(name: str) -> None:
    case = CASES[name]
    for number, line in enumerate(_lines(name), start=1):
        if number in case["errors"]:
            assert classify(line) == "error", (number, line)
        elif number in case["warnings"]:
            assert classify(line) == "warning", (number, line)
        elif not line.startswith((" ", "\t", "Traceback")):  # detail is found by position
            assert classify(line) is None, (number, line)


def test_every_format_of_the_issue_is_among_the_samples() -> None:
    assert len(CASES) >= 15
    every = "\n".join(_lines(name)[n - 1] for name in CASES for n in CASES[name]["errors"])
    for word in ("ERROR", "[ERROR]", "level=error", '"level": "error"', "FATAL", "CRITICAL"):
        assert word in every, word
    assert any(line.startswith("E1127 ") for line in every.splitlines())  # glog
    assert any(line.startswith("<11>") for line in every.splitlines())  # syslog


def _kept(error: str, shown: str) -> bool:
    """Whether ``shown`` holds the error line: as printed (text), as a JSON string (a
    record's field), or, for a JSON log line read as a record, its message."""
    line = clean(error.encode())
    if line in shown or json.dumps(line)[1:-1] in shown:
        return True
    if line.startswith("{"):
        message = json.loads(line)["msg"]
        return f"msg={json.dumps(message)}" in shown or f'"msg": {json.dumps(message)}' in shown
    return False


def _bash_hook(command: str, output: str) -> str:
    """What the model reads of a Bash result once the PostToolUse hook has answered, the
    budget set in the hook's own config table."""
    payload = {
        "session_id": "trouble",
        "hook_event_name": "PostToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "tool_response": {"stdout": output, "stderr": "", "interrupted": False},
        "tool_use_id": "toolu_trouble",
    }
    config = {"shell": {"dedupe": False, "max_tokens": BUDGET}}
    reply = decide(payload, config=config, environ={}, agentout=["agentout"], record=False)
    assert reply is not None
    return str(reply["hookSpecificOutput"]["updatedToolOutput"]["stdout"])


def _noisy(name: str, noise: int, seed: int) -> tuple[str, list[str]]:
    """The sample's plain lines repeated ``noise`` times over, its error lines (with the
    detail under them) planted at random places: the log, and the error lines."""
    lines, case = _lines(name), CASES[name]
    flagged = set(case["errors"]) | set(case["warnings"])
    plain = [line for n, line in enumerate(lines, 1) if n not in flagged and line.strip()]
    plain = [line for line in plain if not line.startswith((" ", "\t", "Traceback"))]
    rng = random.Random(seed)
    out = [rng.choice(plain) for _ in range(noise)]
    errors = []
    for number in case["errors"]:
        block = [lines[number - 1]]
        follow = number  # the detail under it goes with it (a .NET message, a trace)
        while follow < len(lines) and lines[follow].startswith((" ", "\t")):
            block.append(lines[follow])
            follow += 1
        errors.append(lines[number - 1])
        at = rng.randrange(len(out) + 1)
        out[at:at] = block
    return "\n".join(out) + "\n", errors


@pytest.mark.parametrize("name", sorted(CASES))
def test_every_planted_error_is_kept_by_fit_run_and_the_mcp_hook(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENTOUT_SPILL_DIR", str(tmp_path / "spill"))
    text, errors = _noisy(name, 3000, seed=len(name))
    path = tmp_path / f"{name}.log"
    path.write_text(text)
    fitted = fit(str(path), max_tokens=BUDGET).text
    ran = run(["cat", str(path)], max_tokens=BUDGET).delivery.text
    limits = Limits.of(BUDGET, store=SpillStore.default())
    hooked = fit_text(text, Limits(**{**limits.__dict__, "pager": "cli"})).text
    bash = _bash_hook(f"cat {path}", text)
    for shown in (fitted, ran, hooked, bash):
        assert count(shown) <= BUDGET
        for error in errors:
            assert _kept(error, shown), (error, shown[:2000])


@settings(max_examples=6, deadline=None)
@given(
    name=st.sampled_from(sorted(CASES)),
    seed=st.integers(min_value=0, max_value=2**32),
)
def test_errors_among_100000_lines_of_noise_are_kept_within_2000_tokens(
    name: str, seed: int
) -> None:
    """Every planted error of a 100,000-line log, in 2,000 tokens: fit, run and the hook."""
    import tempfile

    text, errors = _noisy(name, 100_000, seed)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "big.log"
        path.write_text(text)
        store = SpillStore(Path(folder) / "spill")
        shown = [
            fit(str(path), max_tokens=BUDGET).text,
            run(["cat", str(path)], max_tokens=BUDGET, store=store).delivery.text,
            fit_text(text, Limits.of(BUDGET, store=store)).text,
        ]
    for text_shown in shown:
        assert count(text_shown) <= BUDGET
        for error in errors:
            assert _kept(error, text_shown), error


# -- what a scan keeps of a line ----------------------------------------------------------


def _scanned(data: bytes, **sizes: int) -> list[tuple[int, str, str]]:
    scan = Scan(**sizes)
    scan.feed(data)
    return [(line.n, line.level, line.text()) for line in scan.finish().lines]


def test_colour_is_taken_out_and_a_redrawn_line_keeps_its_last_state() -> None:
    kept = _scanned(b"\x1b[31merror: red\x1b[0m\nDownloading 10%\rDownloading 100%\n")
    assert kept == [(1, "error", "error: red"), (2, "info", "Downloading 100%")]


def test_bytes_that_are_not_text_are_shown_as_escapes() -> None:
    kept = _scanned(b"caf\xe9\nnul\x00byte\nbell\x07\n")
    assert [text for _, _, text in kept] == ["caf\ufffd", "nul\\u0000byte", "bell\\u0007"]


def test_a_huge_line_is_cut_and_says_how_much() -> None:
    raw = b"x" * 100_000 + b" error: at the end"
    (line,) = _scanned(raw + b"\n")
    assert line[1] == "error"  # its level comes from all of it
    left_out = len(raw) - MAX_LINE_BYTES - 1024  # its start and its end are shown
    assert f"… (+{left_out} bytes) …" in line[2]
    assert line[2].endswith("error: at the end")


def test_a_java_stack_is_kept_whole_under_its_error() -> None:
    frames = "".join(f"\tat com.example.C.m{i}(C.java:{i})\n" for i in range(30))
    data = f"INFO ok\nSEVERE: no\njava.lang.IllegalStateException: boom\n{frames}Caused by: w\n"
    kept = _scanned(data.encode(), head=1, tail=1, head_bytes=10)
    levels = {n: level for n, level, _ in kept}
    assert all(levels[n] == "context" for n in range(4, 34))
    assert levels[34] == "error"


@settings(max_examples=60, deadline=None)
@given(
    lines=st.lists(
        st.sampled_from(["ok", "error: bad", "warning: w", "  at x", "", "E   assert 1"]),
        max_size=60,
    ),
    cuts=st.lists(st.integers(min_value=1, max_value=40), max_size=10),
)
def test_any_chunking_keeps_the_same_lines(lines: list[str], cuts: list[int]) -> None:
    data = "\n".join(lines).encode()
    whole = _scanned(data)
    scan, at = Scan(), 0
    for size in cuts:
        scan.feed(data[at : at + size])
        at += size
    scan.feed(data[at:])
    assert [(line.n, line.level, line.text()) for line in scan.finish().lines] == whole


def test_memory_is_bounded_by_the_kept_lines_not_the_output() -> None:
    scan = Scan()
    chunk = b"".join(b"plain line %d\n" % i for i in range(10_000))
    for _ in range(100):  # a million lines
        scan.feed(chunk)
    found = scan.finish()
    assert found.total == 1_000_000
    assert len(found.lines) < 10_000


@pytest.mark.parametrize(
    "line",
    [
        b"npm ERR! code ELIFECYCLE",
        b"npm error code 1",
        b"npm \x1b[31mERR!\x1b[39m code 1",  # the level coloured apart
        b"\x1b[37;40mnpm\x1b[0m \x1b[0m\x1b[31;40mERR!\x1b[0m \x1b[0m\x1b[35mcode\x1b[0m E1",
        b" ERR_PNPM_RECURSIVE_RUN_FIRST_FAIL  webui@1.4.0 build: `webpack`",
        b"\x1b[1;35mKeyError\x1b[0m: \x1b[35m'uint128_t'\x1b[0m",  # Python 3.13's colours
    ],
)
def test_npm_and_coloured_exceptions_are_errors(line: bytes) -> None:
    scan = Scan()
    scan.feed(b"building\n" + line + b"\nmore\n")
    found = scan.finish()
    assert found.errors == 1
    assert [kept.n for kept in found.lines if kept.level == "error"] == [2]


def test_a_traceback_s_exception_line_is_an_error_whatever_its_name() -> None:
    lines = [
        "starting",
        "Traceback (most recent call last):",
        '  File "/srv/app/db.py", line 12, in query',
        "    cursor.execute(sql)",
        'psycopg2.errors.UndefinedTable: relation "users" does not exist',
        "LINE 1: SELECT * FROM users",
        "done",
    ]
    scan = Scan()
    scan.feed("\n".join(lines).encode() + b"\n")
    found = scan.finish()
    levels = {kept.n: kept.level for kept in found.lines}
    assert levels[2] == levels[5] == "error"
    assert levels[3] == levels[4] == "context"
    assert found.errors == 2


def test_a_warning_past_the_warnings_kept_is_still_a_warning_among_the_first_lines() -> None:
    data = b"".join(b"a.c:%d: warning: unused variable 'v%d'\n" % (i, i) for i in range(2000))
    scan = Scan()
    scan.feed(data)
    found = scan.finish()
    assert found.warnings == 2000
    assert all(kept.level == "warning" for kept in found.lines)
