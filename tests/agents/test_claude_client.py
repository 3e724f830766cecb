"""agentout in the real Claude Code client (tests/claude_code.py): what the model reads of
each Bash call after ``agentout init claude``, beside the same calls with no agentout,
and what a person allowed or denied, in every permission mode.

The client runs as a new user would run it: default mode, no allow rules of its own
(``--allowedTools Bash`` stands for a person approving each command)."""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from agentout.tokens import count
from claude_code import Sandbox, Session, run_python, sandbox

ERRORS = (
    "src/net/socket.c:214: error: 'SO_REUSEPORT' undeclared",
    "src/net/dns.c:88: error: implicit declaration of function 'res_ninit'",
    "src/store/page.c:1021: error: too many arguments to function 'page_flush'",
    "src/store/index.c:77: error: unknown type name 'index_key_t'",
    "src/api/routes.c:412: error: 'struct request' has no member named 'deadline'",
    "src/api/auth.c:39: error: expected ';' before 'return'",
    "src/main.c:12: error: conflicting types for 'main'",
)
# A project's own build script, known to no reducer: progress for every unit, 7 errors,
# exit 1 (about 600 KB: the client shows a failing command's first and last 5,000
# characters of its first 30,000, so none of the errors).
BUILD = (
    "import sys\n"
    f"ERRORS = dict(zip((1803, 2020, 3411, 4002, 5788, 6005, 7490), {list(ERRORS)!r}))\n"
    "for n in range(8000):\n"
    "    print(f'[{n:05d}/08000] CC src/gen/unit_{n:05d}.c -> build/obj/unit_{n:05d}.o')\n"
    "    if n in ERRORS:\n"
    "        print(f'ERROR {ERRORS[n]}')\n"
    "print('build failed: 7 errors', *sys.argv[1:])\n"
    "sys.exit(1)\n"
)
# A run that succeeds with 1.4 MB of log and 5 errors in it (past 30,000 characters the
# client shows a 2 KB preview).
SERVE_ERRORS = tuple(f"ERROR worker-{n}: connection refused by db-{n}:5432" for n in range(5))
SERVE = (
    "import sys\n"
    f"ERRORS = {list(SERVE_ERRORS)!r}\n"
    "for n in range(20000):\n"
    "    print(f'2026-11-29T10:{n % 60:02d}:00Z INFO request {n} served in {n % 97} ms',"
    " *sys.argv[1:])\n"
    "    if n % 4000 == 1999:\n"
    "        print(ERRORS[n // 4000])\n"
)
SECRET = "ghp_" + "7fK2mQ9xLpR4sT8vW1yZ3bN6cD0eF5gH2jK4"
MAKEFILE = "all:\n\t@python3 ../build.py\n"
BASHRC = 'ruby() { echo "the user\'s own ruby"; }\n'
Runs = tuple[Session, Session, Sandbox]

CALLS: list[str | dict[str, object]] = [
    "python3 build.py",  # 0: failing, 600 KB
    run_python("print('ok')"),  # 1: small, succeeding
    "python3 serve.py",  # 2: succeeding, 1.4 MB, through a function
    "cat serve.log",  # 3: succeeding, 1.4 MB, no function: PostToolUse
    run_python("import sys; print('boom'); sys.exit(3)"),  # 4: failing, small
    "python3 build.py | tail -3",  # 5: a pipeline
    "python3 build.py > out.log 2>&1; wc -l out.log; tail -1 out.log",  # 6: a redirect
    'x=$(python3 build.py); echo "${#x}"',  # 7: a command substitution
    "cd sub && make",  # 8: a task runner, in a folder
    run_python("print('first')") + " && python3 build.py again",  # 9: a && b
    run_python("import sys; sys.exit(3)") + '; echo "status=$?"',  # 10: $?
    {"command": "python3 build.py", "run_in_background": True},  # 11: in the background
    "python3 build.py",  # 12: the same call again
    run_python("import sys; print(open('.env').read()); sys.exit(1)"),  # 13: a secret, failing
    "cat .env",  # 14: a secret, succeeding
    run_python("import sys; sys.stdout.buffer.write(b'a\\x00b\\xff\\xfe\\n'); sys.exit(1)"),  # 15
    "ruby --version",  # 16: a name the user's shell defines
]


def _project(box: Sandbox) -> None:
    box.write("build.py", BUILD)
    box.write("serve.py", SERVE)
    box.write("sub/Makefile", MAKEFILE)
    box.write(".env", f"GITHUB_TOKEN={SECRET}\nDEBUG=1\n")
    done = subprocess.run(
        ["python3", "serve.py", "(yesterday)"], cwd=box.project, capture_output=True, check=True
    )
    (box.project / "serve.log").write_bytes(done.stdout)
    (box.home / ".bashrc").write_text(BASHRC)


@pytest.fixture(scope="module")
def runs() -> Iterator[Runs]:
    """The calls with agentout (``agentout init claude``) and without it, each in a
    sandbox of its own."""
    with sandbox() as plain, sandbox() as box:
        _project(plain)
        _project(box)
        box.init()
        without = plain.session(CALLS)
        with_agentout = box.session(CALLS)
        assert len(without.results) == len(with_agentout.results) == len(CALLS)
        yield with_agentout, without, box


def _read(runs: Runs, index: int) -> tuple[str, str]:
    with_agentout, without, _ = runs
    return with_agentout.results[index].content, without.results[index].content


def test_a_failing_build_reaches_the_model_with_every_error(runs: Runs) -> None:
    model, plain = _read(runs, 0)
    assert not any(error in plain for error in ERRORS)  # the client's cut: none of them
    assert all(f"ERROR {error}" in model for error in ERRORS)
    assert model.startswith("Exit code 1\n")
    assert count(model) <= 900 < count(plain)
    stored = re.search(r"agentout show ([0-9a-f]{16})\]$", model)
    assert stored is not None  # the whole output is a page away


def test_small_output_is_as_printed(runs: Runs) -> None:
    for index in (1, 4):
        model, plain = _read(runs, index)
        assert model == plain
    assert _read(runs, 4)[0] == "Exit code 3\nboom"


@pytest.mark.parametrize("index", [2, 3])
def test_large_succeeding_output_keeps_every_error(runs: Runs, index: int) -> None:
    model, plain = _read(runs, index)
    assert plain.startswith("<persisted-output>")  # the client's 2 KB preview
    assert not any(error in plain for error in SERVE_ERRORS)
    assert all(error in model for error in SERVE_ERRORS)
    assert "<persisted-output>" not in model
    assert count(model) < count(plain)


@pytest.mark.parametrize("index", [5, 6, 7, 10, 11, 15, 16])
def test_what_agentout_leaves_alone_is_byte_for_byte_the_same(runs: Runs, index: int) -> None:
    """Pipelines, redirects, $(…), $?, the background, bytes that are not text, a name
    the user's shell defines: exactly as without agentout."""
    model, plain = _read(runs, index)
    model = re.sub(r"ID: \w+\. Output is being written to: \S+", "ID", model)
    plain = re.sub(r"ID: \w+\. Output is being written to: \S+", "ID", plain)
    assert model == plain
    if index == 10:
        assert model.endswith("status=3")
    if index == 16:
        assert model == "the user's own ruby"


def test_a_background_call_writes_the_programs_own_bytes(runs: Runs) -> None:
    with_agentout, _, _ = runs
    found = re.search(r"written to: (\S+?\.output)", with_agentout.results[11].content)
    assert found is not None
    text = Path(found.group(1)).read_text()
    assert text.count("CC src/gen/unit_") == 8000
    assert "agentout" not in text


def test_a_task_runner_in_another_folder_and_a_and_b(runs: Runs) -> None:
    for index in (8, 9):
        model, plain = _read(runs, index)
        assert all(f"ERROR {error}" in model for error in ERRORS)
        assert count(model) < count(plain)
        assert all(
            line.startswith(("[", "ERROR ", "Exit", "first", "build", "make"))
            for line in model.splitlines()
        )
    assert _read(runs, 9)[0].startswith("Exit code 1\nfirst\n")  # a's output kept


def test_the_same_output_twice_is_one_line(runs: Runs) -> None:
    model, _ = _read(runs, 12)
    said = r"Exit code 1\n\[agentout: the same output as `[^`]*python3 build.py` \(toolu_\d+\)"
    assert re.match(said + r" earlier in this session, not repeated · agentout show \w+\]$", model)
    assert count(model) < 80


@pytest.mark.parametrize("index", [13, 14])
def test_secrets_never_reach_the_model(runs: Runs, index: int) -> None:
    model, plain = _read(runs, index)
    assert SECRET in plain
    assert SECRET not in model
    assert "DEBUG=1" in model


def test_the_hooks_answer_nothing_before_a_command(runs: Runs) -> None:
    with_agentout, _, _ = runs
    before = with_agentout.hooks("PreToolUse")
    assert len(before) == len(CALLS)
    assert all((h["stdout"], h["exit_code"]) == ("", 0) for h in before)
    assert [h["stderr"] for h in with_agentout.hooks("SessionStart")] == [""]


def test_a_resumed_session_keeps_the_functions(runs: Runs) -> None:
    with_agentout, _, box = runs
    for flags in (("--resume", with_agentout.session_id), ("--continue",)):
        resumed = box.session(["python3 build.py"], args=("--allowedTools", "Bash", *flags))
        model = resumed.results[0].content
        assert model.startswith("Exit code 1\n[agentout: the same output as")


# -- permissions: the client's alone ---------------------------------------------------------

MODES = ("default", "acceptEdits", "dontAsk", "bypassPermissions")


@pytest.fixture(scope="module")
def guarded() -> Iterator[Sandbox]:
    with sandbox() as box:
        box.write("mark.py", "open('marked', 'w').write('ran')\n")
        box.write(
            ".claude/settings.json",
            json.dumps({"permissions": {"deny": ["Bash(python3 mark.py)"]}}),
        )
        box.init()
        yield box


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("how", ["deny rule", "--disallowedTools"])
def test_a_denied_command_stays_denied_with_the_warm_server_running(
    guarded: Sandbox, mode: str, how: str
) -> None:
    args = ["--allowedTools", "Bash"]
    if how == "--disallowedTools":
        (guarded.project / ".claude" / "settings.json").write_text("{}")
        args += ["--disallowedTools", "Bash(python3 mark.py)"]
    else:
        rules = {"permissions": {"deny": ["Bash(python3 mark.py)"]}}
        (guarded.project / ".claude" / "settings.json").write_text(json.dumps(rules))
    first = run_python("print('warm')")  # through agentout run: the warm server starts
    done = guarded.session([first, "python3 mark.py"], mode=mode, args=args)
    assert done.results[0].content == "warm"
    assert _warm_server_runs(guarded)
    assert done.results[1].is_error
    assert "marked" not in {p.name for p in guarded.project.iterdir()}
    assert all(h["stdout"] == "" for h in done.hooks("PreToolUse"))


def _warm_server_runs(box: Sandbox) -> bool:
    needle = f"HOME={box.home}".encode()
    for entry in Path("/proc").glob("[0-9]*"):
        try:
            if b"agentout.cli.warm_server" in (entry / "cmdline").read_bytes() and needle in (
                entry / "environ"
            ).read_bytes().split(b"\0"):
                return True
        except OSError:
            continue
    return False
