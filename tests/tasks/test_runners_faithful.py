"""Routed runners as they are without agentout: how a killed line ends, the environment
a recipe line sees, the signals it starts with. Each compared with the real runner."""

from __future__ import annotations

import json
import re
import signal

import pytest
from task_support import needs, reduced_line, write

# A Makefile must not say "SHELL=" anywhere for the line shell to be put in (see _plans).
ENV_MAKEFILE = (
    "show:\n"
    '\t@echo "flags=[$$MAKEFLAGS] mflags=[$$MFLAGS] shell=[$$SHELL] '
    'overrides=[$$MAKEOVERRIDES] level=[$$MAKELEVEL]"\n'
)


def _report(stdout: str) -> list[str]:
    """The recipe's report line, the jobserver's descriptors (make's to choose) left out."""
    found = [line for line in stdout.splitlines() if line.startswith("flags=[")]
    return [re.sub(r"--jobserver-auth=\S+", "--jobserver-auth=N", line) for line in found]


@pytest.mark.parametrize(
    "number",
    [signal.SIGKILL, signal.SIGTERM, signal.SIGSEGV, signal.SIGPIPE, signal.SIGHUP,
     signal.SIGABRT, signal.SIGUSR1],
    ids=lambda number: signal.Signals(number).name,
)  # fmt: skip
def test_a_line_killed_by_any_signal_ends_as_make_reports_it(tmp_path, plain, routed, number):
    needs("make")
    recipe = f"all:\n{reduced_line(tmp_path)}\t@echo before; kill -{number} $$$$\n\t@echo never\n"
    root = write(tmp_path, {"Makefile": recipe})
    raw = plain(["make", "all"], root)
    done = routed(["make", "all"], root)
    name = signal.Signals(number).name
    assert done.returncode == raw.returncode == 2
    make_line = next(line for line in raw.stdout.splitlines() if line.startswith("make: ***"))
    assert make_line.startswith("make: *** [Makefile:3: all] ")
    assert make_line in done.stdout.splitlines()  # "Killed", "Terminated", "Broken pipe"...
    assert "[agentout task all: ls -la listing]" in done.stdout  # the lines were routed
    # the line's output as printed: make says how it ended, agentout adds nothing
    assert done.stdout.endswith(f"before\n{make_line}\n"), name
    assert "Traceback" not in done.stdout + done.stderr
    assert "never" not in done.stdout


@pytest.mark.parametrize(
    ("argv", "env"),
    [
        (["make"], {}),
        (["make", "-k"], {}),
        (["make", "-k", "-j2"], {}),
        (["make", "FOO=b"], {}),
        (["make", "-s", "FOO=b", "BAR=c d"], {}),
        (["make"], {"SHELL": None}),  # no SHELL in the caller's environment
        (["make", "-k", "FOO=b"], {"SHELL": None}),
    ],
    ids=lambda value: " ".join(value) if isinstance(value, list) else str(value),
)
def test_a_recipe_sees_the_environment_it_sees_without_agentout(
    tmp_path, task_env, plain, routed, argv, env
):
    needs("make")
    root = write(tmp_path, {"Makefile": ENV_MAKEFILE + reduced_line(tmp_path)})
    for name, value in env.items():
        if value is None:
            task_env.pop(name, None)  # plain and routed share this environment
    raw = plain(argv, root)
    done = routed(argv, root)
    assert done.returncode == raw.returncode == 0, done.stdout + done.stderr
    assert "[agentout task show:" in done.stdout  # the line shell ran the line
    assert _report(done.stdout) == _report(raw.stdout)
    assert len(_report(raw.stdout)) == 1


def test_a_line_starts_with_sigpipe_at_its_default(tmp_path, plain, routed):
    """``yes | head -1`` ends quietly: yes is killed by SIGPIPE, as without agentout, not
    told "Broken pipe" (Python starts ignoring SIGPIPE, and a child inherits that)."""
    needs("make")
    recipe = "all:\n\t@yes | head -1\n\t@$(shell echo yes) | head -2 >/dev/null; echo done\n"
    root = write(tmp_path, {"Makefile": recipe})
    raw = plain(["make", "all"], root)
    done = routed(["make", "all"], root)
    assert done.returncode == raw.returncode == 0
    assert "Broken pipe" not in raw.stdout
    assert "Broken pipe" not in done.stdout + done.stderr
    assert "done" in done.stdout


def test_what_make_itself_expands_is_the_documented_difference(tmp_path, plain, routed):
    """``$(SHELL)``, ``$(origin SHELL)`` and ``$(MAKEFLAGS)`` are make's own expansions:
    make runs what ``$(SHELL)`` names, so they show the line shell (docs/tasks.md)."""
    needs("make")
    makefile = "show:\n\t@echo 'value=$(SHELL) origin=$(origin SHELL) flags=$(MAKEFLAGS)'\n"
    root = write(tmp_path, {"Makefile": makefile})
    raw = plain(["make", "-k"], root)
    done = routed(["make", "-k"], root)
    assert "value=/bin/sh " in raw.stdout
    assert "origin=command line flags=k -- SHELL=" in done.stdout
    assert re.search(r"value=/\S+/agentout-tasks-\w+/sh ", done.stdout)


def test_an_npm_script_sees_the_environment_it_sees_without_agentout(tmp_path, plain, routed):
    """npm exports ``--script-shell`` as ``npm_config_script_shell``: taken back out."""
    needs("npm")
    show = "env | grep -E '^(npm_config_script|SHELL=)' | sort; echo shown"
    reduced = reduced_line(tmp_path).strip().lstrip("@")
    scripts = {"preshow": reduced, "show": show}
    text = json.dumps({"name": "p", "private": True, "scripts": scripts})
    root = write(tmp_path, {"package.json": text})
    raw = plain(["npm", "run", "-s", "show"], root)
    done = routed(["npm", "run", "-s", "show"], root)
    assert done.returncode == raw.returncode == 0
    assert "[agentout task preshow: ls -la listing]" in done.stdout  # routed
    shown = done.stdout.split("[agentout task preshow: ls -la listing]\n", 1)[1].splitlines()
    assert [line for line in shown if line.startswith(("npm_config", "SHELL=", "shown"))] == [
        line
        for line in raw.stdout.splitlines()
        if line.startswith(("npm_config", "SHELL=", "shown"))
    ]
    assert "script_shell" not in done.stdout
    assert "shown" in raw.stdout
