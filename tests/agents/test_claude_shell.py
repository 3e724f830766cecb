"""agentout's functions in Claude Code's session shell, run by bash as the client runs a
call (``bash -c '… && eval 'CMD' < /dev/null && pwd -P >| …'``, stdout and stderr one
file shaped as the client's capture), without the client: every path the function and
``agentout run --capture claude`` take. tests/agents/test_claude_client.py proves the
same in the real client."""

from __future__ import annotations

import json
import os
import shlex
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentout.agents import claude_bash, claude_shell
from processes import without_agentout_settings
from session_shell import AGENTOUT, SESSION, Shell

BUILD = (
    "import sys, time\n"
    "for n in range(3000):\n"
    "    print(f'[{n:04d}/3000] CC unit_{n:04d}.c')\n"
    "    if n == 1500:\n"
    "        print('ERROR src/unit_1500.c:7: error: expected expression')\n"
    "time.sleep(float(sys.argv[1]) if len(sys.argv) > 1 else 0)\n"
    "print('build failed: 1 error')\n"
    "sys.exit(1)\n"
)


@pytest.fixture
def shell(tmp_path: Path) -> Shell:
    made = Shell(tmp_path)
    (made.project / "build.py").write_text(BUILD)
    return made


def test_a_failing_build_is_reduced_in_the_capture(shell: Shell) -> None:
    (status, held), (raw_status, raw) = shell.both("python3 build.py")
    assert status == raw_status == 1
    assert b"ERROR src/unit_1500.c:7: error: expected expression" in held
    assert len(held) < len(raw) // 10
    assert held.rstrip().endswith(b"]")  # its closing line names the stored output
    assert b"[exit 1]" not in held


@pytest.mark.parametrize(
    "command",
    [
        "python3 build.py | tail -2",
        "python3 build.py > out.log 2>&1; tail -1 out.log",
        'x=$(python3 build.py); echo "${#x}"',
        "python3 build.py 2>/dev/null | wc -l",
        "python3 build.py; echo status=$?",
        "python3 -c 'import sys; print(sys.stdin.read() or \"none\")' <<< 'from stdin'",
    ],
)
def test_what_is_not_the_capture_is_the_programs_own_bytes(shell: Shell, command: str) -> None:
    with_functions, without = shell.both(command)
    if "status=$?" in command:  # the build's own part is reduced; the status is its own
        assert with_functions[1].endswith(b"status=1\n")
        return
    assert with_functions == without


def test_nothing_is_reduced_without_a_note_or_in_the_background(shell: Shell) -> None:
    raw = shell.call("python3 ./build.py", functions=False, noted=False)
    assert shell.call("python3 ./build.py", noted=False) == raw  # PreToolUse never saw it
    assert shell.call("python3 ./build.py", background=True) == raw


def test_a_name_the_users_shell_defines_keeps_its_meaning(shell: Shell) -> None:
    mine = "python3() { echo 'the user python3'; }"
    assert shell.call("python3 build.py", before=mine) == (0, b"the user python3\n")
    aliased = "shopt -s expand_aliases; alias python3='echo aliased'"
    assert shell.call("python3 build.py", before=aliased)[1] == b"aliased build.py\n"


def test_a_missing_program_and_a_missing_agentout_change_nothing(shell: Shell) -> None:
    path = f"{Path(sys.executable).parent}:/usr/bin:/bin"
    shell.env = {**shell.env, "PATH": path}
    assert "deno" not in claude_shell.installed(path)  # no program: no function at all
    shell.functions.write_text(claude_shell.script(AGENTOUT, claude_shell.installed(path)))
    assert shell.call("deno run x.ts") == shell.call("deno run x.ts", functions=False)
    assert shell.call("deno run x.ts")[0] == 127
    shell.functions.write_text(claude_shell.script(AGENTOUT))  # one anyway: the same status
    assert shell.call("deno run x.ts")[0] == 127
    shell.functions.write_text(claude_shell.script(str(shell.root / "no-such-agentout")))
    assert shell.call("python3 build.py") == shell.call("python3 build.py", functions=False)


def test_other_shells_get_no_function_and_no_word(shell: Shell) -> None:
    done = subprocess.run(
        ["sh", "-c", f". {shlex.quote(str(shell.functions))}; python3 -c 'print(1)'"],
        capture_output=True,
        check=False,
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, b"1\n", b"")


def test_a_command_killed_by_a_signal_dies_the_same_way(shell: Shell) -> None:
    command = "python3 -c 'import os, signal; print(1, flush=True); os.kill(os.getpid(), 15)'"
    assert shell.both(command)[0][0] == shell.both(command)[1][0] == 143


def test_a_and_b_keeps_what_a_printed(shell: Shell) -> None:
    status, held = shell.call("echo first && python3 build.py")
    assert status == 1
    assert held.startswith(b"first\n[0000/3000] CC unit_0000.c\n")
    assert b"ERROR src/unit_1500.c" in held
    assert held.count(b"\n") < 40  # 3,002 lines printed


def test_another_writer_leaves_the_file_as_printed(shell: Shell) -> None:
    status, held = shell.call("(sleep 0.3; echo intruder) & python3 build.py 1.5; wait")
    assert status == 0  # wait's
    assert b"intruder\n" in held
    assert held.count(b"CC unit_") == 3000  # nothing of the build's output replaced


def test_bytes_that_are_not_text_are_never_made_larger(shell: Shell) -> None:
    command = "python3 -c 'import sys; sys.stdout.buffer.write(b\"a\\x00b\\xff\\n\"); sys.exit(2)'"
    assert shell.both(command)[0] == shell.both(command)[1] == (2, b"a\x00b\xff\n")


def test_the_same_output_twice_is_one_line_and_posttooluse_leaves_it(
    shell: Shell, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = shell.call("python3 build.py")[1]
    second = shell.call("python3 build.py")[1]
    assert second.startswith(b"[agentout: the same output as `python3 build.py` (toolu_")
    assert second.count(b"\n") <= 1
    monkeypatch.setenv("XDG_CACHE_HOME", shell.env["XDG_CACHE_HOME"])
    for text in (first, second):
        payload = {
            "session_id": SESSION,
            "tool_name": "Bash",
            "tool_input": {"command": "python3 build.py"},
            "tool_response": {"stdout": text.decode(), "stderr": "", "interrupted": False},
        }
        assert claude_bash.decide(payload, config={}, environ=shell.env, record=False) is None


# -- the SessionStart hook, and what the capture is ---------------------------------------------


def test_session_start_appends_to_the_file_it_was_given(tmp_path: Path) -> None:
    target = tmp_path / "sessionstart-hook-0.sh"
    target.write_text("export OTHER_HOOK=1")  # another hook's, with no newline at its end
    assert claude_shell.session_start({"CLAUDE_ENV_FILE": str(target)}, AGENTOUT) is None
    text = target.read_text()
    assert text.startswith('export OTHER_HOOK=1\nif [ -n "${BASH_VERSION-}" ]; then ')
    assert text.count("\n") == 1  # one line of agentout's: Claude Code's line numbers stay
    assert f"{AGENTOUT} run --capture claude --" in text
    assert stat.S_IMODE(target.stat().st_mode) != 0  # left as it was made
    names = claude_shell.function_names()
    assert {"git", "make", "pytest", "python3", "npm", "cargo", "ruff"} <= set(names)
    assert not {"grep", "find", "rg", "ls"} & set(names)


def test_session_start_refuses_what_it_must_not_write(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    link = tmp_path / "link"
    link.symlink_to(tmp_path / "elsewhere")
    folder = tmp_path / "folder"
    folder.mkdir()
    for path in (fifo, link, folder):
        said = claude_shell.session_start({"CLAUDE_ENV_FILE": str(path)}, AGENTOUT)
        assert said is not None
        assert said.startswith(str(path))
        assert said.endswith("no function added")
    assert not (tmp_path / "elsewhere").exists()
    assert claude_shell.session_start({"CLAUDE_ENV_FILE": "relative.sh"}, AGENTOUT) is not None
    assert claude_shell.session_start({}, AGENTOUT) is None  # nothing given: nothing to say


def test_session_start_through_the_hook_says_one_line_when_it_cannot(tmp_path: Path) -> None:
    env = {**without_agentout_settings(), "CLAUDE_ENV_FILE": str(tmp_path / "no" / "such.sh")}
    payload = {"hook_event_name": "SessionStart", "source": "startup", "session_id": "s"}
    done = subprocess.run(
        [AGENTOUT, "hook", "claude"], input=json.dumps(payload).encode(), env=env,
        capture_output=True, check=False,
    )  # fmt: skip
    assert (done.returncode, done.stdout) == (0, b"")
    assert done.stderr.count(b"\n") == 1
    assert b"no function added" in done.stderr


@pytest.mark.parametrize(
    "target",
    [
        "/tmp/claude-UID/-p/S/tasks/b1.output",  # the client's capture: the only one
        "/tmp/claude-UID/-p/S/other/b1.output",
        "/tmp/claude-OTHER/-p/S/tasks/b1.output",
        "/home/me/out.log",
        "/tmp/claude-UID/-p/S/tasks/b1.log",
    ],
)
def test_only_the_clients_capture_file_is_the_capture(tmp_path: Path, target: str) -> None:
    path = Path(str(tmp_path) + target.replace("UID", str(os.getuid())))
    path.parent.mkdir(parents=True)
    said = tmp_path / "said"
    code = (
        "import os; from agentout.agents.claude_shell import capture_call;"
        "env = dict(os.environ, CLAUDE_CODE_SESSION_ID='S');"
        f"found = capture_call(env, base={str(tmp_path / 'notes')!r});"
        f"open({str(said)!r}, 'w').write(str(found is not None))"
    )
    note = tmp_path / "notes"
    claude_shell.note_call(
        {"session_id": "S", "tool_use_id": "t", "tool_input": {"command": "python3 -c x"}},
        base=str(note),
    )
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        line = f"true && eval {shlex.quote('python3 -c x')} < /dev/null && true"
        script = f"{line}\n{shlex.quote(sys.executable)} -c {shlex.quote(code)}"
        subprocess.run(["bash", "-c", f"f() {{ {script}; }}; f"], stdout=fd, stderr=fd, check=True)
    finally:
        os.close(fd)
    expected = target.endswith("/tasks/b1.output") and "claude-UID" in target
    assert said.read_text() == str(expected)


@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00")))
def test_the_clients_quoting_reads_back_as_the_command(command: str) -> None:
    for quoted in (shlex.quote(command), "'" + command.replace("'", "'\"'\"'") + "'"):
        line = f"source snapshot.sh && eval {quoted} < /dev/null && pwd -P >| /tmp/x"
        if command:
            assert claude_shell._evaluated(line) == command


def test_a_sandbox_that_denies_the_store_and_the_socket_loses_nothing(shell: Shell) -> None:
    """Claude Code's sandbox may deny agentout's store and its warm server's socket: the
    command runs and its output reaches the capture whole, with one line at most."""
    closed = shell.root / "closed"  # a file: nothing can be made under it, even by root
    closed.write_text("")
    shell.env = {
        **shell.env,
        "AGENTOUT_SPILL_DIR": str(closed / "spill"),
        "XDG_RUNTIME_DIR": str(closed),
        "XDG_DATA_HOME": str(closed / "data"),
    }
    status, held = shell.call("python3 build.py")
    raw_status, raw = shell.call("python3 build.py", functions=False)
    assert status == raw_status == 1
    extra = held.removeprefix(raw)
    assert held.startswith(raw) or held == raw
    assert extra.count(b"\n") <= 1
    assert extra == b"" or extra.startswith(b"agentout: ")


def test_the_clients_kill_reaches_the_command_and_what_it_printed_stays(shell: Shell) -> None:
    """Claude Code ends a call by signalling its process group (then SIGKILL after 5 s):
    the command gets the signal itself, what it printed is in the capture, and the call
    ends as it would with no function."""
    command = "python3 -c 'import time; print(\"started\", flush=True); time.sleep(60)'"
    shell.note(command)
    ended = [_killed(shell, command, functions) for functions in (True, False)]
    assert ended[0] == ended[1] == (-15, b"started\n")


def _killed(shell: Shell, command: str, functions: bool) -> tuple[int, bytes]:
    import signal
    import time

    target = shell.tasks / f"killed-{functions}.output"
    child = shell.start(command, target, functions=functions, start_new_session=True)
    deadline = time.monotonic() + 30
    while b"started\n" not in target.read_bytes() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert target.read_bytes() == b"started\n"  # copied to the capture as it came
    os.killpg(child.pid, signal.SIGTERM)
    status = child.wait(timeout=10)
    time.sleep(0.2)  # anything agentout would still write
    return status, target.read_bytes()


def test_the_commands_pythonpath_is_not_what_agentout_imports(shell: Shell) -> None:
    """``PYTHONPATH=src pytest`` in a project that has its own ``agentout`` (this one, at an
    older revision): the command gets its PYTHONPATH, agentout its own installed code."""
    shadow = shell.project / "src" / "agentout"
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text("raise SystemExit('the project is not agentout')\n")
    command = "PYTHONPATH=src python3 build.py"
    status, held = shell.call(command)
    assert status == 1
    assert b"ERROR src/unit_1500.c:7: error: expected expression" in held
    assert b"not agentout" not in held
    assert len(held) < len(shell.call(command, functions=False)[1]) // 10  # reduced
    probe = "PYTHONPATH=src python3 -c 'import sys; print(sys.path[1])'"
    assert shell.call(probe)[1].endswith(b"/src\n")  # the command's own, as given
