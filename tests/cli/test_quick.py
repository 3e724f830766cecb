"""``agentout run`` as an agent's hook runs it: read without click (agentout.cli.quick),
the same result as click's reading, and a start-up that loads no more than it needs."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from agentout.cli.quick import one_command, parse

# main() takes the quick path for `run` lines it can read; the click group takes them all.
QUICK = "import sys; from agentout.cli import main; sys.argv[0] = 'agentout'; main()"
CLICK = "import sys; from agentout.cli.main import main; sys.argv[0] = 'agentout'; main()"
_REF = re.compile(r"\b[0-9a-f]{16}\b")  # a stored file's random name


def _agentout(entry: str, args: list[str], tmp_path: Path) -> tuple[int, str, str]:
    env = {
        "AGENTOUT_SPILL_DIR": str(tmp_path / "spill"),
        "AGENTOUT_HOOK_SERVER": "0",
        "AGENTOUT_LEDGER": "0",
        "PATH": "/usr/bin:/bin",
        "HOME": str(tmp_path),  # without it, Python finds the real home in the password file
    }
    done = subprocess.run(
        [sys.executable, "-c", entry, *args], capture_output=True, text=True, env=env, cwd=tmp_path
    )
    return done.returncode, _REF.sub("REF", done.stdout), done.stderr


LINES = [
    ["--", "printf", "a\\nb\\n"],
    ["--", "sh", "-c", "echo out; echo err >&2; exit 3"],
    ["--max-tokens", "20", "--", "seq", "1", "300"],
    ["--max-chars=60", "--", "seq", "1", "100"],
    ["--inline-threshold", "10", "--", "seq", "1", "50"],
    ["--no-reduce", "--", "ls", "-la", "."],
    ["--shell", "echo hi; exit 4"],  # as the hooks rewrite a compound command
    ["seq", "1", "3"],
    [
        "--keep-secrets",
        "--",
        "printf",
        "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMIK7MDENGbPxRfiCYEXAMPLEKEY\\n",
    ],
    ["--tokenizer", "cl100k_base", "--max-tokens", "30", "--", "seq", "1", "200"],
]


@pytest.mark.parametrize("args", LINES, ids=lambda args: " ".join(args)[:40])
def test_the_quick_reading_gives_clicks_result(args: list[str], tmp_path: Path) -> None:
    assert parse(args) is not None  # these are read without click
    quick = _agentout(QUICK, ["run", *args], tmp_path)
    click = _agentout(CLICK, ["run", *args], tmp_path)
    assert quick == click
    assert quick[1]  # something was delivered


@pytest.mark.parametrize(
    "args",
    [
        ["--help"],
        ["--max-tokens", "-1", "--", "true"],
        ["--max-tokens", "many", "--", "true"],
        ["--timeout", "0", "--", "true"],
        ["--shell=yes", "echo hi"],
        ["--format", "json", "--", "true"],
        ["--max-tokens"],
        [
            "--",
        ],
        ["-v", "--", "true"],
    ],
    ids=lambda args: " ".join(args) or "nothing",
)
def test_what_the_quick_reading_cannot_read_goes_to_click(args: list[str], tmp_path: Path) -> None:
    assert parse(args) is None
    quick = _agentout(QUICK, ["run", *args], tmp_path)
    assert quick == _agentout(CLICK, ["run", *args], tmp_path)


# What a fresh interpreter has imported when `agentout run` delivers a reduced command's
# output: the standard library's heavy modules stay out of every shell command an agent
# runs (what is imported, not timing, so it cannot flake on a busy machine).
_PROBE = """
import atexit, json, sys
atexit.register(lambda: print(json.dumps(sorted(sys.modules)), file=sys.stderr))
from agentout.cli import main
sys.argv = ["agentout", "run", "--", "ls", "-la", "."]
main()
"""


def test_a_reduced_command_loads_no_dataclasses(tmp_path: Path) -> None:
    for n in range(30):
        (tmp_path / f"file{n}.txt").write_text("x" * n, encoding="utf-8")
    env = {
        "AGENTOUT_SPILL_DIR": str(tmp_path / "spill"),
        "AGENTOUT_HOOK_SERVER": "0",
        "AGENTOUT_LEDGER": "0",
        "PATH": "/usr/bin:/bin",
        "HOME": str(tmp_path / "home"),  # else Python finds the real home in the password file
    }
    for _ in range(2):  # the first run fills the caches every later command reads
        done = subprocess.run(
            [sys.executable, "-c", _PROBE], capture_output=True, text=True, env=env, cwd=tmp_path
        )
    assert done.returncode == 0
    assert "file29.txt  29\n" in done.stdout  # the ls reducer's answer: name and size
    loaded = set(json.loads(done.stderr.strip().splitlines()[-1]))
    assert "agentout.reducers.spec" in loaded  # the probe sees our modules
    assert not loaded & {"dataclasses", "inspect", "importlib.metadata", "bpe_openai"}


def test_a_plain_command_loads_no_scanner_nor_pathlib(tmp_path: Path) -> None:
    # `agentout run -- true`, as every hook's rewrite starts it, ledger on: the command
    # line is plainly free of secrets (agentout.redact._quick) and no folder is made.
    env = {
        "AGENTOUT_SPILL_DIR": str(tmp_path / "spill"),
        "AGENTOUT_HOOK_SERVER": "0",
        "AGENTOUT_LEDGER_DB": str(tmp_path / "ledger.sqlite3"),
        "PATH": "/usr/bin:/bin",
        "HOME": str(tmp_path / "home"),  # else Python finds the real home in the password file
    }
    probe = _PROBE.replace('"ls", "-la", "."', '"true"')
    for _ in range(2):  # the first run fills the caches every later command reads
        done = subprocess.run(
            [sys.executable, "-c", probe], capture_output=True, text=True, env=env, cwd=tmp_path
        )
    assert done.returncode == 0
    assert (tmp_path / "ledger-pending.jsonl").exists()  # the ledger wrote its line
    loaded = set(json.loads(done.stderr.strip().splitlines()[-1]))
    assert "agentout.reducers.registry" in loaded  # the probe sees our modules
    assert not loaded & {"re2", "agentout.redact._scan", "pathlib"}


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (["--max-tokens", "-1", "--", "true"], "--max-tokens"),
        (["--max-tokens", "many", "--", "true"], "--max-tokens"),
        (["--timeout", "0", "--", "true"], "--timeout"),
        (["--shell=yes", "echo hi"], "--shell"),
        (["-v", "--", "true"], "-v"),
    ],
)
def test_a_bad_line_is_one_message_and_status_2(
    args: list[str], named: str, tmp_path: Path
) -> None:
    status, out, err = _agentout(QUICK, ["run", *args], tmp_path)
    assert (status, out) == (2, "")
    assert named in err
    assert "Traceback" not in err
    assert not (tmp_path / "spill").exists()  # nothing written for a line that did not run


def _script_run(args: list[str], tmp_path: Path, path: str) -> str:
    """``agentout run`` started as the hooks' rewrite starts it: by the absolute path of
    this environment's ``agentout`` script."""
    script = Path(sys.executable).parent / "agentout"
    env = {"AGENTOUT_SPILL_DIR": str(tmp_path / "spill"), "AGENTOUT_HOOK_SERVER": "0",
           "AGENTOUT_LEDGER": "0", "PATH": path, "HOME": str(tmp_path)}  # fmt: skip
    done = subprocess.run([str(script), "run", *args], capture_output=True, text=True, env=env,
                          cwd=tmp_path, check=False)  # fmt: skip
    return done.stdout


def test_markers_name_the_path_a_hook_started_agentout_by(tmp_path: Path) -> None:
    from agentout.tokens import count

    script = Path(sys.executable).parent / "agentout"
    args = ["--", "seq", "1", "20000"]
    off_path = _script_run(args, tmp_path, "/usr/bin:/bin")
    closing = off_path.rstrip("\n").rsplit("\n", 1)[-1]
    assert f" · {script} show " in closing
    assert off_path.count("agentout show ") == off_path.count(f"{script} show ") >= 2  # and gaps
    assert int(closing.split("tokens=", 1)[1].split()[0]) == count(off_path)
    on_path = _script_run(args, tmp_path, f"{script.parent}:/usr/bin:/bin")
    assert " · agentout show " in on_path.rstrip("\n").rsplit("\n", 1)[-1]


@pytest.mark.parametrize(
    ("line", "read"),
    [
        ("git status", {"command": ("git", "status"), "shell": False}),
        ("git status 2>&1", {"command": ("git", "status"), "shell": False}),
        ('pytest -q "tests/a b.py"', {"command": ("pytest", "-q", "tests/a b.py"), "shell": False}),
        ("git log 2>/dev/null", {"reduce_as": ("git", "log")}),  # bash still drops stderr
        ("echo hi", {"reduce_as": ("echo", "hi")}),  # a builtin: bash's own
        ("cd sub", {"reduce_as": ("cd", "sub")}),
        ("git status | cat", {}),  # a pipeline: bash runs it whole
        ("FOO=1 git status", {}),  # an assignment: bash's
        ("ls $HOME", {}),  # an expansion: bash's
    ],
)
def test_a_shell_line_that_is_one_command_is_read_as_the_hooks_read_it(
    line: str, read: dict[str, object]
) -> None:
    assert one_command((line,), True) == read
    assert one_command((line,), False) == {}
