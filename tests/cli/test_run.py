"""``agentout run``: any command, its status, and what matters of its output within budget."""

from __future__ import annotations

import os
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentout.cli.main import cli
from agentout.formats.records import parse
from agentout.tokens import count

ROOT = Path(__file__).parents[2]
LOGS = ROOT / "examples" / "logs"
AGENTOUT = [sys.executable, "-c", "from agentout.cli import main; main()"]
PY = sys.executable


@pytest.fixture(autouse=True)
def spill_dir(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path_factory.mktemp("run") / "spill"
    monkeypatch.setenv("AGENTOUT_SPILL_DIR", str(root))
    monkeypatch.delenv("AGENTOUT_INLINE_THRESHOLD", raising=False)
    return root


def run(*args: str) -> Any:
    return CliRunner().invoke(cli, ["run", *args])


def header(text: str) -> dict[str, Any]:
    kind, fields = parse(text)[0]
    assert kind == "H"
    return fields


def lines_shown(text: str) -> dict[int, str]:
    return {f["n"]: f.get("text", "") for kind, f in parse(text) if kind in "ETWL"}


def test_small_output_is_inline_with_command_status_and_duration(spill_dir: Path) -> None:
    result = run("--", PY, "-c", "print('hello'); print('world')")
    assert result.exit_code == 0
    head = header(result.stdout)
    assert head["mode"] == "inline"
    assert head["exit"] == 0
    assert shlex.split(head["cmd"]) == [PY, "-c", "print('hello'); print('world')"]
    assert head["duration"].endswith("s")
    assert lines_shown(result.stdout) == {1: "hello", 2: "world"}
    assert not spill_dir.exists() or list(spill_dir.iterdir()) == []


def test_the_exit_status_is_the_commands() -> None:
    result = run("--", "sh", "-c", "echo 'error: it broke' >&2; exit 5")
    assert result.exit_code == 5
    assert header(result.stdout)["exit"] == 5
    assert lines_shown(result.stdout) == {1: "error: it broke"}


def test_a_missing_command_is_127_with_a_message() -> None:
    result = run("--", "agentout-no-such-command-xyz")
    assert result.exit_code == 127
    head = header(result.stdout)
    assert head["exit"] == 127
    assert head["error"] == "agentout-no-such-command-xyz: command not found"
    assert "Traceback" not in result.output


def test_a_file_that_is_not_executable_is_126(tmp_path: Path) -> None:
    script = tmp_path / "script.sh"
    script.write_text("echo hi\n")
    result = run("--", str(script))
    assert result.exit_code == 126
    assert "permission denied" in header(result.stdout)["error"]


def test_a_killed_command_is_128_plus_the_signal() -> None:
    result = run("--", "sh", "-c", "echo started; kill -9 $$")
    assert result.exit_code == 128 + 9
    head = header(result.stdout)
    assert head["signal"] == "SIGKILL"
    assert lines_shown(result.stdout) == {1: "started"}


def test_binary_output_is_named_and_kept_exactly(spill_dir: Path) -> None:
    blob = bytes(range(256)) * 64
    code = "import sys; sys.stdout.buffer.write(bytes(range(256)) * 64 + b'\\n'); print('done')"
    result = run("--", PY, "-c", code)
    assert result.exit_code == 0
    head = header(result.stdout)
    assert head["mode"] == "file"
    spilled = (spill_dir / head["ref"]).read_bytes()
    assert spilled == blob + b"\ndone\n"
    assert "<binary data>" in result.stdout
    assert list(lines_shown(result.stdout).values())[-1] == "done"


def test_stdout_and_stderr_are_merged_in_order(spill_dir: Path) -> None:
    code = (
        "import sys\n"
        "for i in range(5):\n"
        "    print(f'out {i}', flush=True)\n"
        "    print(f'err {i}', file=sys.stderr, flush=True)\n"
    )
    result = run("--mode", "file", "--", PY, "-c", code)
    spilled = (spill_dir / header(result.stdout)["ref"]).read_text()
    assert spilled.splitlines() == [f"{s} {i}" for i in range(5) for s in ("out", "err")]


def test_errors_survive_a_tight_budget_and_noise_is_folded(spill_dir: Path, tmp_path: Path) -> None:
    script = tmp_path / "build.py"
    script.write_text(
        "import sys\n"
        "for i in range(2000): print(f'Downloading {i % 100}% eta 3s', flush=False)\n"
        "print('src/main.c:10:5: error: expected expression', file=sys.stderr)\n"
        "for i in range(50): print('waiting for lock')\n"
        "sys.exit(1)\n"
    )
    result = run("--max-tokens", "300", "--", "python3", str(script))
    assert result.exit_code == 1
    assert count(result.stdout) <= 300
    shown = lines_shown(result.stdout)
    assert shown[2001] == "src/main.c:10:5: error: expected expression"
    assert shown[2002] == "waiting for lock (\u00d750)"
    head = header(result.stdout)
    assert head["mode"] == "file"
    assert head["lines"] == 2051
    assert (spill_dir / head["ref"]).read_text().count("\n") == 2051


def test_the_environment_and_directory_are_inherited(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENTOUT_TEST_VALUE", "seen")
    monkeypatch.chdir(tmp_path)
    result = run("--", "sh", "-c", 'echo "$AGENTOUT_TEST_VALUE $(pwd)"')
    assert lines_shown(result.stdout) == {1: f"seen {tmp_path}"}


def test_inline_threshold_option_forces_a_file() -> None:
    result = run("--inline-threshold", "0", "--", "echo", "hi")
    assert header(result.stdout)["mode"] == "file"


def test_json_format() -> None:
    import json

    result = run("--format", "json", "--", "echo", "hi")
    body = json.loads(result.stdout)
    assert body["header"]["exit"] == 0
    assert body["records"] == [{"_kind": "L", "n": 1, "text": "hi"}]


def test_an_unusable_store_warns_and_still_delivers_everything(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "target"
    target.mkdir()
    link = tmp_path / "link"
    link.symlink_to(target)
    monkeypatch.setenv("AGENTOUT_SPILL_DIR", str(link))
    result = run("--", "seq", "1", "3000")
    assert result.exit_code == 0
    assert "agentout: warning: spill store not writable" in result.stderr
    assert "symlink" in header(result.stdout)["warning"]
    assert lines_shown(result.stdout) == {i: str(i) for i in range(1, 3001)}
    assert list(target.iterdir()) == []


def test_an_unusable_store_still_keeps_the_budget_and_says_so(tmp_path: Path) -> None:
    """Review finding 3a: AGENTOUT_SPILL_DIR=/etc/passwd ran --max-tokens 100 to 98,085."""
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory\n")
    result = CliRunner(env={"AGENTOUT_SPILL_DIR": str(blocker)}).invoke(
        cli, ["run", "--max-tokens", "100", "--", "seq", "10000"]
    )
    assert result.exit_code == 0
    head = header(result.stdout)
    assert count(result.stdout) <= 100 or head.get("over_budget") is True
    assert head["total"] == 10_000
    assert head["omitted"] == 10_000 - head["included"]
    assert "nothing beyond what is shown here was kept" in head["warning"]
    assert f"agentout: warning: {head['warning']}" in result.stderr
    assert blocker.read_text() == "not a directory\n"


def test_a_final_error_line_survives_a_tight_budget() -> None:
    """Review finding 4: the last info lines were kept, the final ERROR line dropped."""
    code = "for i in range(20000): print('line', i)\nprint('ERROR: boom')"
    result = run("--max-tokens", "200", "--", PY, "-c", code)
    assert count(result.stdout) <= 200
    assert lines_shown(result.stdout)[20001] == "ERROR: boom"


def test_no_command_is_a_usage_error() -> None:
    result = run()
    assert result.exit_code == 2


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_signals_are_forwarded_and_the_output_still_delivered(
    tmp_path: Path, sig: signal.Signals
) -> None:
    ready = tmp_path / "ready"
    child = (
        "import signal, sys, time, pathlib\n"
        "def stop(signum, frame):\n"
        "    print(f'error: interrupted by {signal.Signals(signum).name}', flush=True)\n"
        "    sys.exit(3)\n"
        f"signal.signal(signal.{sig.name}, stop)\n"
        "print('working', flush=True)\n"
        f"pathlib.Path({str(ready)!r}).touch()\n"
        "time.sleep(30)\n"
    )
    process = subprocess.Popen(
        [*AGENTOUT, "run", "--", PY, "-c", child],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 20
    while not ready.exists():
        assert time.monotonic() < deadline, "the child never started"
        time.sleep(0.05)
    process.send_signal(sig)
    out, err = process.communicate(timeout=20)
    assert process.returncode == 3
    text = out.decode()
    assert header(text)["exit"] == 3
    assert lines_shown(text) == {1: "working", 2: f"error: interrupted by {sig.name}"}
    assert b"Traceback" not in err


@pytest.mark.parametrize("log", sorted(p.name for p in LOGS.glob("*.log")))
def test_real_logs_every_error_line_fits_a_modest_budget(log: str) -> None:
    errors = [int(n) for n in (LOGS / log).with_suffix(".errors").read_text().split()]
    result = run("--max-tokens", "1500", "--", "cat", str(LOGS / log))
    assert result.exit_code == 0
    assert count(result.stdout) <= 1500
    assert set(errors) <= set(lines_shown(result.stdout))


log_line = st.one_of(
    st.sampled_from(["error: failed", "warning: x", "  at frame", "PASSED", "", "50% [=====>   ]"]),
    st.text(alphabet=st.characters(blacklist_categories=["Cs"]), max_size=150),
)


@settings(
    max_examples=15,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    lines=st.lists(log_line, max_size=300),
    budget=st.integers(min_value=0, max_value=2000),
)
def test_output_is_within_budget_for_any_log(tmp_path: Path, lines: list[str], budget: int) -> None:
    path = tmp_path / "log.txt"
    data = "\n".join(line.replace("\n", " ") for line in lines).encode("utf-8", "surrogatepass")
    path.write_bytes(data)
    result = run("--max-tokens", str(budget), "--", "cat", str(path))
    assert result.exit_code == 0
    head = header(result.stdout)
    assert head["tokens"] == count(result.stdout)
    assert count(result.stdout) <= budget or head.get("over_budget") is True
    if head["mode"] == "inline":
        assert "over_budget" not in head  # anything over the budget is a file reference
    if head["mode"] == "file":
        assert (Path(os.environ["AGENTOUT_SPILL_DIR"]) / head["ref"]).read_bytes() == data
