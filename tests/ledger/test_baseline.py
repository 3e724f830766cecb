"""``gain`` counts what the model would have read, not the program's whole output.

One ``cat`` of a 10 MB file counted 2.5 M tokens saved, but Claude Code would have shown
the model an 860-token preview of it. Each row now names the agent whose client the
output was for and what that client would have shown of it (``agentout.ledger.clients``:
Claude Code 2.1.332's inline limit, its preview, its failure cut, as measured in the real
client), and ``gain`` counts savings against that.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from agentout.cli.main import cli
from agentout.ledger import book as ledger
from agentout.ledger import clients
from agentout.ledger.clients import agent_of, shown
from agentout.ledger.export import COLUMNS, read_export
from agentout.sources.testing.settings import AGENT_ENV_VARS
from agentout.tokens import count

AGENTOUT = [sys.executable, "-m", "agentout"]
_AGENT_VARIABLES = AGENT_ENV_VARS


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """A ledger of its own, counted before each command returns, and no agent's variable
    but those a test sets."""
    for name in (*_AGENT_VARIABLES, "BASH_MAX_OUTPUT_LENGTH"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv(ledger.ENV_DB, str(tmp_path / "private" / "ledger.sqlite3"))
    monkeypatch.setenv(ledger.ENV_SYNC, "1")
    monkeypatch.setenv("AGENTOUT_SPILL_DIR", str(tmp_path / "spill"))
    monkeypatch.delenv(ledger.ENV, raising=False)
    return dict(os.environ)


def _agentout(env: dict[str, str], *args: str, cwd: Path | None = None, **extra: str) -> str:
    done = subprocess.run(
        [*AGENTOUT, *args], env={**env, **extra}, cwd=cwd, capture_output=True, text=True,
        timeout=300,
    )  # fmt: skip
    assert "Traceback" not in done.stderr, done.stderr
    return done.stdout


# -- the case ----------------------------------------------------------------------


def test_a_10_mb_cat_saves_against_claude_codes_preview_not_its_whole(
    env: dict[str, str], tmp_path: Path
) -> None:
    big = tmp_path / "big.log"
    line = "2026-11-29 08:00:00 INFO request served in 12 ms by worker 7 of the pool\n"
    big.write_text(line * (10_000_000 // len(line)))
    _agentout(env, "run", "--", "cat", str(big), CLAUDECODE="1")
    [row] = list(ledger.rows())
    assert row.agent == "claude"
    assert row.raw_tokens is not None
    assert row.raw_tokens > 2_000_000  # the whole output
    head = big.read_text()[:2000]
    preview = shown(head, big.stat().st_size, "claude", 0)
    assert preview is not None
    assert preview.startswith("<persisted-output>Output too large (9.5MB). Full output saved to: ")
    assert row.shown_tokens == count(preview)
    assert 700 <= row.shown_tokens <= 1000  # "about 860 tokens"
    report = json.loads(_agentout(env, "gain", "--format", "json"))["total"]
    assert report["shown_tokens"] == row.shown_tokens
    assert report["shown_saved_tokens"] == row.shown_tokens - row.delivered_tokens
    assert report["saved_tokens"] == row.raw_tokens - row.delivered_tokens  # the whole, beside
    text = _agentout(env, "gain")
    said = f"{row.shown_tokens - row.delivered_tokens:,} tokens saved of the {row.shown_tokens:,}"
    assert said in " ".join(text.split())
    assert f"Of the whole outputs, {row.raw_tokens:,} tokens" in " ".join(text.split())


def test_without_an_agent_the_whole_output_is_the_baseline(env: dict[str, str]) -> None:
    _agentout(env, "run", "--", "seq", "1", "40000")
    [row] = list(ledger.rows())
    assert (row.agent, row.shown_tokens) == ("", row.raw_tokens)
    assert row.baseline == row.raw_tokens


def test_a_failing_command_is_set_against_claude_codes_cut(env: dict[str, str]) -> None:
    _agentout(env, "run", "--shell", "seq 1 20000; exit 3", CLAUDECODE="1")
    [row] = list(ledger.rows())
    text = "".join(f"{n}\n" for n in range(1, 20001))
    cut = shown(text, len(text), "claude", 3)
    assert cut is not None
    assert cut.startswith("Exit code 3\n1\n2\n")
    assert f"... [{30_000 - 10_000} characters truncated] ..." in cut
    assert (row.agent, row.exit_status, row.shown_tokens) == ("claude", 3, count(cut))


def test_a_routed_pytests_raw_side_is_pytests_own_output(
    env: dict[str, str], tmp_path: Path
) -> None:
    """``agentout run -- pytest`` delivers agentout's test report; what the model would
    have read without agentout is pytest's own output, failures' tracebacks and all."""
    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "test_x.py").write_text(
        "".join(
            f"def test_{n}():\n    items = list(range({n}))\n    total = sum(items)\n"
            f"    assert total == {n} + 1, 'the total is off by one'\n\n"
            for n in range(12)
        )
    )
    pytest_argv = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:randomly"]
    plain = subprocess.run(
        pytest_argv, cwd=suite, env={**env, "AGENTOUT_AGENT": "0"}, capture_output=True,
        text=True, timeout=120,
    ).stdout  # fmt: skip
    report = _agentout(env, "run", "--", *pytest_argv, cwd=suite, CLAUDECODE="1")
    assert report.startswith("H agentout=1 ")
    _agentout(env, "test", "--", "-p", "no:cacheprovider", cwd=suite, CLAUDECODE="1")
    run_row, test_row = list(ledger.rows())
    assert (run_row.tool, test_row.tool) == ("run", "test")
    assert test_row.command == "pytest -p no:cacheprovider"
    summary = plain[plain.index("=== short test summary info ===") :]
    without_tracebacks = plain[: plain.index("=== FAILURES ===")] + summary
    assert count(without_tracebacks) < 0.6 * count(plain)  # what was counted before
    assert run_row.delivered_tokens == count(report)
    for row in (run_row, test_row):
        assert row.raw_tokens is not None
        assert row.shown_tokens is not None
        # pytest's own report, its FAILURES section included: within what its header
        # lines (plugins, versions, the JUnit XML's path) and times make differ
        assert abs(row.raw_tokens - count(plain)) <= 0.15 * count(plain), (row, count(plain))
        assert row.raw_tokens > 3 * row.delivered_tokens
        # under its 10,000 characters Claude Code shows a failing run whole, after a line
        assert 0 < row.shown_tokens - row.raw_tokens <= 5


# -- the rules ---------------------------------------------------------------------------


def test_claude_codes_success_within_its_limit_is_the_output_trimmed() -> None:
    assert shown("\n\n  a\nb  \n\n", 12, "claude", 0) == "  a\nb"
    text = "x" * 30_000
    assert shown(text, len(text), "claude", 0) == text
    over = shown(text + "y", len(text) + 1, "claude", 0)
    assert over is not None
    assert over.endswith("x" * 2000 + "</persisted-output>")
    assert shown(text + "y", len(text) + 1, "claude", 0, limit=40_000) == text + "y"


def test_other_clients() -> None:
    lines = "".join(f"{n}\n" for n in range(5000))
    opencode = shown(lines, len(lines), "opencode", 1)
    assert opencode == "\n".join(lines.split("\n")[:2000])
    for agent in ("codex", "cursor", "copilot", "gemini", ""):  # not known: the whole
        assert shown(lines, len(lines), agent, 0) is None


@pytest.mark.parametrize(
    ("environ", "agent"),
    [
        ({"CLAUDECODE": "1"}, "claude"),
        ({"AI_AGENT": "claude-code_2-1-332_agent"}, "claude"),
        ({"GEMINI_CLI": "1"}, "gemini"),
        ({"CODEX_SANDBOX": "seatbelt"}, "codex"),
        ({"CURSOR_AGENT": "1"}, "cursor"),
        ({"CLAUDECODE": "0"}, ""),
        ({}, ""),
    ],
)
def test_the_agent_is_told_by_its_environment(environ: dict[str, str], agent: str) -> None:
    assert agent_of(environ) == agent


def test_every_variable_the_plugin_reads_names_an_agent() -> None:
    for name in AGENT_ENV_VARS:
        value = "claude-code_2-1-332_agent" if name == "AI_AGENT" else "1"
        assert agent_of({name: value}) in clients.AGENTS


@settings(max_examples=300, deadline=None)
@given(
    text=st.text(alphabet=st.sampled_from("ab \n\t€🔥"), max_size=70_000),
    status=st.sampled_from([0, 1, 2, 127, None]),
    limit=st.sampled_from([None, 4_000, 30_000, 50_000]),
)
def test_claude_code_never_shows_more_than_its_rules_allow(
    text: str, status: int | None, limit: int | None
) -> None:
    """Whatever the output: inline within the limit (as printed, trimmed), a 2,000
    character preview past it, or for a failure at most the 10,000 characters around a
    one-line note; always from the output's own text, never more than the rules say."""
    inline = limit or clients.CLAUDE_INLINE
    head = text[: clients.head_chars(limit)]
    said = shown(head, len(text), "claude", status, limit)
    assert said is not None
    if status not in (None, 0):
        prefix = f"Exit code {status}\n"
        assert said.startswith(prefix)
        body = said[len(prefix) :]
        window = text[:inline]
        if len(window) <= clients.CLAUDE_FAILURE_CUT:
            assert body == window
        else:
            assert body.startswith(window[: clients.CLAUDE_FAILURE_KEEP])
            assert body.endswith(window[-clients.CLAUDE_FAILURE_KEEP :])
            cut = len(window) - 2 * clients.CLAUDE_FAILURE_KEEP
            assert f"\n\n... [{cut} characters truncated] ...\n\n" in body
            assert len(body) <= clients.CLAUDE_FAILURE_CUT + 60
    elif len(text) <= inline:
        assert said == text.lstrip("\n").rstrip()
    else:
        match = re.fullmatch(
            r"<persisted-output>Output too large \(\S+\)\. Full output saved to: \S+\n\n"
            r"Preview \(first 2KB\):\n(.*)</persisted-output>",
            said,
            re.S,
        )
        assert match is not None
        assert match.group(1) == text[: clients.CLAUDE_PREVIEW]


# -- the schema ----------------------------------------------------------------------------

_OLD_SCHEMA = """
CREATE TABLE deliveries (
    id INTEGER PRIMARY KEY, time REAL NOT NULL, project TEXT NOT NULL, tool TEXT NOT NULL,
    command TEXT NOT NULL, raw_tokens INTEGER, delivered_tokens INTEGER NOT NULL,
    facts_kept INTEGER, facts_total INTEGER, duration REAL, exit_status INTEGER,
    secrets INTEGER NOT NULL DEFAULT 0, raw_exact INTEGER NOT NULL DEFAULT 1
);
CREATE INDEX deliveries_time ON deliveries (time);
CREATE TABLE folded (batch TEXT PRIMARY KEY, time REAL NOT NULL);
INSERT INTO deliveries (time, project, tool, command, raw_tokens, delivered_tokens)
VALUES (1795000000.0, '/p', 'run', 'cat big.log', 2500000, 900);
"""


def test_a_ledger_of_an_earlier_version_reads_and_takes_new_rows(env: dict[str, str]) -> None:
    path = Path(env[ledger.ENV_DB])
    path.parent.mkdir(mode=0o700)
    connection = sqlite3.connect(path)
    connection.executescript(_OLD_SCHEMA)
    connection.close()
    [old] = list(ledger.rows())  # read as it is: no column added by reading
    assert (old.command, old.agent, old.shown_tokens, old.baseline) == (
        "cat big.log", "", None, 2_500_000)  # fmt: skip
    assert ledger.record(tool="run", command="ls", raw_tokens=50, delivered_tokens=50,
                         agent="claude", shown_tokens=50, when=1795000001.0)  # fmt: skip
    old, new = list(ledger.rows())
    assert (old.agent, old.baseline, new.agent, new.shown_tokens) == ("", 2_500_000, "claude", 50)
    columns = [r[1] for r in sqlite3.connect(path).execute("PRAGMA table_info(deliveries)")]
    assert columns[-2:] == ["agent", "shown_tokens"]
    csv = _agentout(env, "gain", "--format", "csv").splitlines()
    assert csv[0].endswith(",agent,shown_tokens,shown_saved_tokens")
    assert csv[1].endswith(",,2500000,2499100")


def test_a_pending_line_of_an_earlier_version_is_counted(env: dict[str, str]) -> None:
    """A busy database's row, kept by an earlier version: no agent, no client's count."""
    pending = ledger.pending_path()
    pending.parent.mkdir(mode=0o700, parents=True)
    fields: dict[str, Any] = {
        "time": 1795000000.0, "project": "/p", "tool": "run", "command": "ls",
        "raw_tokens": 10, "delivered_tokens": 10, "facts_kept": None, "facts_total": None,
        "duration": None, "exit_status": 0, "secrets": 0, "raw_exact": True,
    }  # fmt: skip
    pending.write_text(json.dumps({"row": fields}) + "\n")
    [row] = list(ledger.rows())
    assert (row.agent, row.shown_tokens, row.baseline) == ("", None, 10)


def test_the_export_adds_its_columns_at_the_end(env: dict[str, str], tmp_path: Path) -> None:
    ledger.record(tool="hook", command="git log", raw_tokens=9000, delivered_tokens=300,
                  agent="claude", shown_tokens=7000)  # fmt: skip
    target = tmp_path / "team.jsonl"
    assert "1 delivery written" in _agentout(env, "gain", "--export", str(target))
    [line] = read_export(str(target))
    assert list(line) == list(COLUMNS)
    assert list(COLUMNS)[-3:] == ["agent", "shown_tokens", "shown_saved_tokens"]
    said = (line["schema_version"], line["agent"], line["shown_saved_tokens"])
    assert said == (2, "claude", 6700)
    assert line["saved_tokens"] == 8700  # against the whole output, as in version 1


def test_the_hooks_name_their_agent(env: dict[str, str]) -> None:
    from agentout.agents import claude_bash

    stdout = "\n".join(f"line {n}" for n in range(40_000))
    payload = {
        "session_id": "s", "hook_event_name": "PostToolUse", "tool_name": "Bash",
        "tool_input": {"command": "seq 1 40000"},
        "tool_response": {"stdout": stdout, "stderr": "", "interrupted": False},
    }  # fmt: skip
    config = {"shell": {"dedupe": False}}
    assert claude_bash.decide(payload, config=config, environ={}, output_setting=0) is not None
    [row] = list(ledger.rows())
    assert row.agent == "claude"
    preview = shown(stdout[:60_000], len(stdout), "claude", 0)
    assert preview is not None
    assert row.shown_tokens == count(preview)
    assert runner_gain_json()["agents"] == [
        {"agent": "claude", **{k: v for k, v in runner_gain_json()["total"].items()}}
    ]


def runner_gain_json() -> dict[str, Any]:
    done = CliRunner().invoke(cli, ["gain", "--format", "json"])
    assert done.exit_code == 0, done.output
    result: dict[str, Any] = json.loads(done.output)
    return result
