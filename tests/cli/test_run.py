"""``agentout run``: any command, its status, and its output as printed, or what matters
of it within the budget, each gap marked with the command that shows it."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from agentout.cli.main import cli
from agentout.deliver.text import client_limit
from agentout.formats.raw import closing_fields
from agentout.formats.records import parse
from agentout.read.visible import terminal_text
from agentout.store.spill import SpillStore
from agentout.tokens import count
from processes import alive

ROOT = Path(__file__).parents[2]
LOGS = ROOT / "examples" / "logs"
AGENTOUT = [sys.executable, "-c", "from agentout.cli import main; main()"]
PY = sys.executable
_MARKER = re.compile(r"\[… (\d+) lines? · agentout show ([0-9a-f]{16}) --lines (\d+):(\d+)\]")


@pytest.fixture(autouse=True)
def spill_dir(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path_factory.mktemp("run") / "spill"
    monkeypatch.setenv("AGENTOUT_SPILL_DIR", str(root))
    monkeypatch.delenv("AGENTOUT_INLINE_THRESHOLD", raising=False)
    return root


def run(*args: str) -> Any:
    return CliRunner().invoke(cli, ["run", *args])


def body(text: str) -> list[str]:
    """The output lines shown: neither gap markers nor the closing line."""
    return [
        line
        for line in text.splitlines()
        if not _MARKER.fullmatch(line) and not line.startswith(("[agentout", "[exit "))
    ]


def stored(spill_dir: Path, text: str) -> bytes:
    ref = closing_fields(text)["ref"]
    return (spill_dir / SpillStore(spill_dir).find_id(ref)).read_bytes()


# -- as printed ---------------------------------------------------------------------------


def test_small_output_is_printed_as_it_was_and_nothing_is_stored(spill_dir: Path) -> None:
    result = run("--", PY, "-c", "print('hello'); print('world')")
    assert result.exit_code == 0
    assert result.stdout == "hello\nworld\n"
    assert not spill_dir.exists() or list(spill_dir.iterdir()) == []


def test_a_failing_status_adds_nothing_the_client_says_already() -> None:
    """The status is agentout's own (the client prints it: ``Exit code 5``): the output
    goes as printed, no larger than it was."""
    result = run("--", "sh", "-c", "echo 'error: it broke' >&2; exit 5")
    assert result.exit_code == 5
    assert result.stdout == "error: it broke\n"
    quiet = run("--", "sh", "-c", "exit 1")  # grep with no match: nothing, as printed
    assert (quiet.exit_code, quiet.stdout) == (1, "")


def test_colour_and_redraws_are_resolved_and_hidden_characters_shown() -> None:
    code = r"print('\x1b[31mred\x1b[0m'); print('10%\r50%\r100%'); print('a\u202eb\x07')"
    result = run("--", PY, "-c", code)
    assert result.stdout == "red\n100%\na\\u202eb\\u0007\n"


def test_a_missing_command_is_127_with_a_message() -> None:
    result = run("--", "agentout-no-such-command-xyz")
    assert result.exit_code == 127
    fields = closing_fields(result.stdout)
    assert fields["exit"] == "127"
    assert fields["error"] == "agentout-no-such-command-xyz: command not found"
    assert "Traceback" not in result.output


def test_a_file_that_is_not_executable_is_126(tmp_path: Path) -> None:
    script = tmp_path / "script.sh"
    script.write_text("echo hi\n")
    result = run("--", str(script))
    assert result.exit_code == 126
    assert "permission denied" in closing_fields(result.stdout)["error"]


def test_a_killed_command_is_128_plus_the_signal() -> None:
    result = run("--", "sh", "-c", "echo started; kill -9 $$")
    assert result.exit_code == 128 + 9
    assert result.stdout == "started\n[agentout: exit=137 signal=SIGKILL]\n"


def test_the_environment_and_directory_are_inherited(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENTOUT_TEST_VALUE", "seen")
    monkeypatch.chdir(tmp_path)
    result = run("--", "sh", "-c", 'echo "$AGENTOUT_TEST_VALUE $(pwd)"')
    assert result.stdout == f"seen {tmp_path}\n"


def test_shell_runs_a_pipeline_whole() -> None:
    result = run("--shell", "printf 'b\\na\\n' | sort && echo done; exit 4")
    assert result.exit_code == 4
    assert result.stdout == "a\nb\ndone\n"


def test_shell_takes_one_string() -> None:
    result = run("--shell", "--", "echo", "two")
    assert result.exit_code == 2
    assert "one argument" in result.stderr


def test_no_command_is_a_usage_error() -> None:
    assert run().exit_code == 2


# -- cut to what matters ---------------------------------------------------------------------


def test_large_output_keeps_its_ends_and_marks_the_gap_with_the_command_to_see_it(
    spill_dir: Path,
) -> None:
    result = run("--", "seq", "1", "100000")
    assert result.exit_code == 0
    text = result.stdout
    assert stored(spill_dir, text) == b"".join(b"%d\n" % i for i in range(1, 100001))
    markers = [m for line in text.splitlines() if (m := _MARKER.fullmatch(line))]
    assert len(markers) == 1
    gap, _, first, last = markers[0].groups()
    shown = [int(line) for line in body(text)]
    assert shown[0] == 1
    assert shown[-1] == 100000
    assert int(gap) == int(last) - int(first) + 1 == 100000 - len(shown)
    fields = closing_fields(text)
    assert fields["lines"] == "100000"
    assert int(fields["tokens"]) == count(text)
    assert len(text) <= client_limit()  # what Claude Code's Bash tool shows inline


def test_every_gap_marker_names_exactly_the_lines_left_out(spill_dir: Path) -> None:
    code = (
        "import sys\n"
        "for i in range(3000):\n"
        "    print(f'step {i} ok')\n"
        "    if i % 700 == 5: print(f'src/m{i}.c:{i}:1: error: bad thing {i}')\n"
    )
    result = run("--max-tokens", "400", "--", PY, "-c", code)
    text = result.stdout
    raw = stored(spill_dir, text).decode().splitlines()
    position = 0  # walks the output: every line shown or marked, once, in order
    for line in text.splitlines()[:-1]:
        if marker := _MARKER.fullmatch(line):
            gap, _, first, last = (int(x) if x.isdigit() else x for x in marker.groups())
            assert first == position + 1
            assert gap == last - first + 1
            position = last
        else:
            assert raw[position] == line
            position += 1
    assert position == len(raw)
    for i in range(5, 3000, 700):
        assert f"src/m{i}.c:{i}:1: error: bad thing {i}" in text


def test_errors_survive_a_tight_budget_with_their_detail(spill_dir: Path, tmp_path: Path) -> None:
    script = tmp_path / "build.py"
    script.write_text(
        "import sys\n"
        "for i in range(2000): print(f'Downloading {i % 100}% eta 3s')\n"
        "print('  File \"src/app.py\", line 12', file=sys.stderr)\n"
        "print('    x = (', file=sys.stderr)\n"
        "print('SyntaxError: unexpected EOF', file=sys.stderr)\n"
        "for i in range(50): print('waiting for lock')\n"
        "sys.exit(1)\n"
    )
    result = run("--max-tokens", "300", "--", PY, str(script))
    assert result.exit_code == 1
    text = result.stdout
    assert count(text) <= 300
    shown = body(text)
    assert 'File "src/app.py", line 12' in "\n".join(shown)
    assert "SyntaxError: unexpected EOF" in shown
    assert "[… the same line 49 more times]" in shown
    assert closing_fields(text)["exit"] == "1"


def test_a_final_error_line_survives_a_tight_budget() -> None:
    code = "for i in range(20000): print('line', i)\nprint('ERROR: boom')"
    result = run("--max-tokens", "200", "--", PY, "-c", code)
    assert count(result.stdout) <= 200
    assert "ERROR: boom" in body(result.stdout)


@pytest.mark.parametrize("log", sorted(p.name for p in LOGS.glob("*.log")))
def test_real_logs_every_error_line_fits_a_modest_budget(log: str) -> None:
    errors = [int(n) for n in (LOGS / log).with_suffix(".errors").read_text().split()]
    raw = (LOGS / log).read_text().splitlines()
    result = run("--no-reduce", "--max-tokens", "1500", "--", "cat", str(LOGS / log))
    assert result.exit_code == 0
    assert count(result.stdout) <= 1500
    shown = set(body(result.stdout))
    assert {raw[n - 1] for n in errors} <= shown


def test_data_formats_stay_available_for_programs() -> None:
    result = run("--format", "json", "--", "echo", "hi")
    document = json.loads(result.stdout)
    assert document["header"]["exit"] == 0
    assert document["records"][0]["text"] == "hi"
    records = run("--format", "records", "--", "sh", "-c", "echo a; exit 2")
    assert parse(records.stdout)[0][1]["exit"] == 2


def test_mode_file_always_stores_and_mode_inline_never(spill_dir: Path) -> None:
    code = (
        "import sys\n"
        "for i in range(5): print(f'out {i}'); print(f'err {i}', file=sys.stderr, flush=True)"
    )
    kept = run("--mode", "file", "--", PY, "-u", "-c", code)
    lines = stored(spill_dir, kept.stdout).decode().splitlines()
    assert lines == [f"{s} {i}" for i in range(5) for s in ("out", "err")]
    whole = run("--mode", "inline", "--", "seq", "1", "20000")
    assert body(whole.stdout) == [str(i) for i in range(1, 20001)]


# -- bad and hostile output ----------------------------------------------------------------


def test_binary_output_is_stored_exactly_and_shown_escaped(spill_dir: Path) -> None:
    blob = bytes(range(256)) * 64
    code = "import sys; sys.stdout.buffer.write(bytes(range(256)) * 64 + b'\\n'); print('done')"
    result = run("--inline-threshold", "8192", "--", PY, "-c", code)
    assert result.exit_code == 0
    assert stored(spill_dir, result.stdout) == blob + b"\ndone\n"
    assert "\x00" not in result.stdout
    assert "\x1b" not in result.stdout
    assert body(result.stdout)[-1] == "done"


def test_one_nul_byte_does_not_hide_the_output(spill_dir: Path) -> None:
    """A NUL among text (``find -print0``, a stray byte in a log) is shown escaped, and the
    rest of the output as printed: never one ``binary=`` marker for all of it."""
    code = "import sys; sys.stdout.buffer.write(b'error: it broke\\nfound a\\x00b\\ndone\\n')"
    result = run("--", PY, "-c", code)
    assert result.stdout == "error: it broke\nfound a\\u0000b\ndone\n"
    assert "binary" not in result.stdout


def test_mode_inline_shows_even_binary_data(spill_dir: Path) -> None:
    code = "import sys; sys.stdout.buffer.write(bytes(range(32)) * 64 + b'\\ndone\\n')"
    hidden = run("--", PY, "-c", code)
    assert "binary=" in hidden.stdout  # mostly control characters: data, not text
    shown = run("--mode", "inline", "--", PY, "-c", code)
    assert "binary=" not in shown.stdout
    assert shown.stdout.count("\\u0000") == 64
    assert shown.stdout.endswith("done\n")


def test_a_50_mb_line_is_kept_whole_in_the_store_and_cut_when_shown(spill_dir: Path) -> None:
    code = "import sys; sys.stdout.write('x' * (50 << 20) + '\\nerror: tail\\n')"
    result = run("--max-tokens", "2000", "--", PY, "-c", code)
    assert result.exit_code == 0
    assert count(result.stdout) <= 2000
    assert "error: tail" in body(result.stdout)
    assert len(stored(spill_dir, result.stdout)) == (50 << 20) + len("\nerror: tail\n")


def test_invalid_utf8_is_shown_replaced_and_stored_as_is(spill_dir: Path) -> None:
    code = "import sys; sys.stdout.buffer.write(b'caf\\xe9\\n' * 5000)"
    result = run("--inline-threshold", "8192", "--", PY, "-c", code)
    assert body(result.stdout)[0] == "caf\ufffd"
    assert stored(spill_dir, result.stdout) == b"caf\xe9\n" * 5000


def test_an_unusable_store_keeps_the_budget_and_says_so(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory\n")
    result = CliRunner(env={"AGENTOUT_SPILL_DIR": str(blocker)}).invoke(
        cli, ["run", "--max-tokens", "100", "--", "seq", "10000"]
    )
    assert result.exit_code == 0
    assert count(result.stdout) <= 100
    fields = closing_fields(result.stdout)
    assert "only what is shown here was kept" in fields["warning"]
    assert "agentout: warning: spill store not writable" in result.stderr
    assert blocker.read_text() == "not a directory\n"


def test_a_symlinked_store_is_refused_and_nothing_written_through_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "target"
    target.mkdir()
    (tmp_path / "link").symlink_to(target)
    monkeypatch.setenv("AGENTOUT_SPILL_DIR", str(tmp_path / "link"))
    result = run("--inline-threshold", "8192", "--", "seq", "1", "3000")
    assert result.exit_code == 0
    assert "symlink" in closing_fields(result.stdout)["warning"]
    assert list(target.iterdir()) == []


# -- time, signals and the process tree -----------------------------------------------------


def test_timeout_ends_the_group_delivers_the_output_so_far_and_exits_124(tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    command = f"trap '' TERM; sleep 60 & echo $! > {pids}; echo started; wait"
    result = run("--timeout", "0.5", "--shell", command)
    assert result.exit_code == 124
    assert body(result.stdout) == ["started"]
    assert closing_fields(result.stdout)["error"] == "timed out after 0.5s; stopped"
    pid = int(pids.read_text())
    deadline = time.monotonic() + 6
    while alive(pid):
        assert time.monotonic() < deadline, "the background child outlived the timeout"
        time.sleep(0.05)


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
    _wait_for(ready)
    process.send_signal(sig)
    out, err = process.communicate(timeout=20)
    assert process.returncode == 3
    assert out.decode() == f"working\nerror: interrupted by {sig.name}\n"
    assert b"Traceback" not in err


def test_one_sigterm_ends_a_group_that_ignores_it_within_six_seconds(tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    command = f"trap '' TERM; sleep 60 & echo $! > {pids}; sleep 60 & wait"
    process = subprocess.Popen(
        [*AGENTOUT, "run", "--shell", command],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    _wait_for(pids)
    started = time.monotonic()
    process.send_signal(signal.SIGTERM)
    process.communicate(timeout=20)
    pid = int(pids.read_text())
    while alive(pid):
        assert time.monotonic() - started < 6, "a process of the group outlived SIGTERM"
        time.sleep(0.05)
    assert process.returncode == 128 + signal.SIGKILL


def _wait_for(path: Path) -> None:
    """Until ``path`` exists (and, for a file of pids, has them)."""
    deadline = time.monotonic() + 20
    while not path.exists() or (path.name == "pids" and not path.read_text().strip()):
        assert time.monotonic() < deadline, "the command never started"
        time.sleep(0.05)


# -- budgets, as properties -----------------------------------------------------------------

log_line = st.one_of(
    st.sampled_from(["error: failed", "warning: x", "  at frame", "PASSED", "", "50% [=====>   ]"]),
    st.text(alphabet=st.characters(blacklist_categories=["Cs"]), max_size=150),
)


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(lines=st.lists(log_line, max_size=400), budget=st.integers(min_value=0, max_value=2000))
@example(  # repeated warnings, folded by their shape
    lines=[
        "error: failed",
        *["warning: x"] * 5,
        "error: failed",
        "0:0:0\x1f\x1f\U00017853\U0001b240",
        "",
        "error: failed",
    ],
    budget=51,
)
def test_any_output_within_budget_whole_lines_exact_count_same_bytes(
    tmp_path: Path, lines: list[str], budget: int
) -> None:
    path = tmp_path / "log.txt"
    data = "".join(line.replace("\n", " ") + "\n" for line in lines).encode(
        "utf-8", "surrogatepass"
    )
    path.write_bytes(data)
    first = run("--no-reduce", "--max-tokens", str(budget), "--", "cat", str(path))
    again = run("--no-reduce", "--max-tokens", str(budget), "--", "cat", str(path))
    assert first.exit_code == 0
    assert first.stdout == again.stdout  # same input, same bytes
    text = first.stdout
    fields = closing_fields(text)
    if fields.get("over_budget") != "true":
        assert count(text) <= budget or not fields  # whole output is only given if it fits
    if "tokens" in fields:
        assert int(fields["tokens"]) == count(text)
    raw_lines = {terminal_text(line) for line in data.decode("utf-8", "replace").split("\n")}
    for line in body(text):  # whole lines only, as the terminal would show them
        unnamed = re.fullmatch(r"\[… \d+ lines?\]", line)  # no room to name the store
        folded = re.fullmatch(r"\[… \d+ more like this: .*\]", line)  # repeats, by shape
        assert line in raw_lines or line.startswith("[… the same line") or unnamed or folded, line
    if "ref" in fields:
        store = SpillStore(Path(os.environ["AGENTOUT_SPILL_DIR"]))
        assert (store.root / store.find_id(fields["ref"])).read_bytes() == data


def test_a_passing_test_run_prints_no_more_than_the_runner_did(tmp_path: Path) -> None:
    (tmp_path / "test_one.py").write_text("def test_one():\n    assert 1 + 1 == 2\n")
    argv = [PY, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tmp_path)]
    plain = subprocess.run(argv, capture_output=True, text=True, check=True, cwd=tmp_path)
    result = run("--", *argv)
    assert result.exit_code == 0
    assert count(result.stdout) <= count(plain.stdout)
    assert "1 passed" in result.stdout
