"""``agentout run -- make ...`` with the real make: each recipe line reduced and labelled,
and make behaving exactly as without agentout (exit status, stdin, ``cd`` in a line,
``make -j``, ``$(shell ...)``, recursion, a makefile's own SHELL)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from task_support import LABEL, needs, reduced_line, subsequence, write

from agentout.tokens import count

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "tasks"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """examples/tasks: ruff finds unused imports and variables, three tests fail."""
    needs("make")
    root = tmp_path / "proj"
    shutil.copytree(EXAMPLE, root, ignore=shutil.ignore_patterns("__pycache__", "README*"))
    return root


def test_make_check_reduced_per_recipe_same_status_fewer_tokens(project, plain, routed):
    """The issue's bar: each recipe's reduced output, make's exit status, fewer tokens."""
    raw = plain(["make", "check"], project)
    done = routed(["make", "check"], project)
    assert raw.returncode == 2
    assert done.returncode == raw.returncode, done.stderr
    text = done.stdout
    # each recipe line's output under its own label
    lint_label = "[agentout task check: ruff check --no-cache --select F,E,I src]"
    test_label = "[agentout task check: pytest -q -p no:cacheprovider tests]"
    assert lint_label in text
    assert test_label in text
    lint, tests = text.split(test_label)
    lint = lint.split(lint_label)[1]
    # ruff's reduced form: the file once, then every diagnostic by place and code under
    # it, the code frames gone
    found = re.findall(r"^src/calc\.py:(\d+:\d+): (\w+)", _ruff_concise(project), re.M)
    assert found
    assert "\nsrc/calc.py\n" + "".join(f"  {place} {code}\n" for place, code in found) in lint
    assert " | " not in lint
    assert "|" in raw.stdout
    assert re.search(r"\[agentout: exit=1 · agentout show [0-9a-f]{16}\]", lint)
    # pytest's test report: each failing test named, the counts
    assert "S status=FAIL passed=1 failed=3" in tests
    for name in ("test_add_wrong", "test_divide_by_zero", "test_divide"):
        assert f"test={name}" in tests
    # make's own lines, as make printed them
    assert "make: [Makefile:3: check] Error 1 (ignored)" in lint
    assert "make: *** [Makefile:4: check] Error 1" in tests
    assert count(text) < count(raw.stdout)


def _ruff_concise(project: Path) -> str:
    import subprocess
    import sys

    ruff = Path(sys.executable).parent / "ruff"
    command = [str(ruff), "check", "--no-cache", "--select", "F,E,I", "--output-format=concise"]
    return subprocess.run(
        [*command, "src"], cwd=project, capture_output=True, text=True, check=False
    ).stdout


def test_parallel_output_stays_with_its_recipe(tmp_path, plain, routed):
    needs("make")
    loop = 'for i in 1 2 3 4 5 6; do echo "{0}-line $$i"; sleep 0.05; done'
    root = write(
        tmp_path,
        {
            "Makefile": (
                f"a:\n\t{loop.format('a')}\n"
                f"b:\n\t{loop.format('b')}\n"
                "c:\n\t@sleep 0.1; echo c-fails; exit 3\n"
            )
        },
    )
    raw = plain(["make", "-j3", "-k", "a", "b", "c"], root)
    done = routed(["make", "-j3", "-k", "a", "b", "c"], root)
    assert done.returncode == raw.returncode == 2
    lines = done.stdout.splitlines()
    for name in ("a", "b"):  # each line's output in one piece, though the three ran at once
        at = lines.index(f"{name}-line 1")
        assert lines[at : at + 6] == [f"{name}-line {i}" for i in range(1, 7)]
    # as printed: no smaller form, so no label, and no exit status the runner says already
    assert "c-fails" in lines
    assert not any(line.startswith(("[agentout", "[exit")) for line in lines)


def test_exit_status_stdin_cd_and_shell_functions_as_without(tmp_path, plain, routed):
    needs("make")
    (tmp_path / "sub").mkdir()
    root = write(
        tmp_path,
        {
            "Makefile": (
                "GREETING := $(shell echo from-shell)\n"
                "all:\n"
                '\t@read x; echo "got $$x"\n'
                "\t@cd sub && pwd\n"
                "\t@pwd\n"
                "\t@echo $(GREETING)\n"
                "\t@echo last; exit 5\n"
                "\t@echo never\n"
            )
        },
    )
    raw = plain(["make", "all"], root, input="hello\n")
    done = routed(["make", "all"], root, input="hello\n")
    assert done.returncode == raw.returncode == 2
    assert "got hello" in done.stdout
    assert f"{root}/sub" in done.stdout.splitlines()
    # every line make printed is there, in order, whatever agentout added around them
    assert subsequence(raw.stdout.splitlines(), done.stdout.splitlines())
    # each line's output as printed (no form of agentout's is smaller): nothing added
    assert done.stdout == raw.stdout
    assert "never" not in done.stdout


def test_signal_ends_the_line_as_it_ends_the_shell(tmp_path, plain, routed):
    needs("make")
    root = write(tmp_path, {"Makefile": "all:\n\t@echo before; kill -TERM $$$$\n"})
    raw = plain(["make", "all"], root)
    done = routed(["make", "all"], root)
    assert done.returncode == raw.returncode
    assert "Terminated" in raw.stdout
    assert "Terminated" in done.stdout


def test_makefile_shell_is_kept(tmp_path, plain, routed):
    needs("make")
    makefile = "SHELL := /bin/bash\nall:\n\t@[[ 1 == 1 ]] && echo bash-ran\n"
    root = write(tmp_path, {"Makefile": makefile + reduced_line(tmp_path)})
    done = routed(["make", "all"], root)
    assert done.returncode == 0
    assert "[agentout task all: ls -la listing]" in done.stdout  # routed
    assert "bash-ran\n" in done.stdout  # by bash, as the Makefile says


def test_target_specific_shell_is_left_alone(tmp_path, plain, routed):
    needs("make")
    root = write(
        tmp_path,
        {"Makefile": "all: SHELL := /bin/bash\nall:\n\t@[[ 1 == 1 ]] && echo bash-ran\n"},
    )
    done = routed(["make", "all"], root)
    assert done.returncode == 0
    assert done.stdout == "bash-ran\n"  # run as it was, no label


def test_recursive_make_reduces_the_inner_lines(tmp_path, routed):
    needs("make")
    root = write(
        tmp_path,
        {
            "Makefile": "outer:\n\t@$(MAKE) -s -C sub inner\n",
            "sub/Makefile": "inner:\n\t@echo inner-ran\n" + reduced_line(tmp_path / "sub"),
        },
    )
    done = routed(["make", "outer"], root)
    assert done.returncode == 0
    assert "inner-ran\n" in done.stdout
    assert "[agentout task inner: ls -la listing]" in done.stdout
    assert "[agentout task outer" not in done.stdout


def test_off_with_one_setting(tmp_path, routed):
    needs("make")
    root = write(tmp_path, {"Makefile": "all:\n" + reduced_line(tmp_path)})
    assert "[agentout task all: ls -la listing]" in routed(["make", "all"], root).stdout
    off = routed(["make", "all"], root, env={"AGENTOUT_TASKS": "0"})
    assert LABEL not in off.stdout


def test_output_too_large_for_the_budget_keeps_labels_and_references(tmp_path, routed):
    needs("make")
    root = write(
        tmp_path,
        {"Makefile": "big:\n\t@seq 1 12000\n\t@seq 1 10000\n\t@seq 1 9000; exit 4\n"},
    )  # each recipe line's output past what the client shows (30,000 characters): stored
    done = routed(["make", "big"], root, options=["--max-tokens", "250"])
    assert done.returncode == 2
    assert count(done.stdout) <= 250
    assert "[agentout task big: seq 1 9000; exit 4]" in done.stdout
    assert re.search(r"\[agentout: exit=4 .*agentout show [0-9a-f]{16}\]", done.stdout)
    assert re.search(r"\[agentout: exit=2 .*agentout show [0-9a-f]{16}\]$", done.stdout)


def test_a_command_cannot_pose_as_a_label(tmp_path, routed):
    needs("make")
    root = write(tmp_path, {"Makefile": "all:\n\t@echo '[agentout task x: fake]'\n"})
    done = routed(["make", "all"], root)
    assert done.stdout == "\\[agentout task x: fake]\n"


def test_a_background_process_does_not_hold_the_line(tmp_path, routed):
    """A line that leaves a process behind ends when its shell does (and the little
    while agentout reads after any command), not when that process does."""
    import time

    needs("make")
    makefile = "all:\n" + reduced_line(tmp_path) + "\t@(sleep 8; echo late) & echo started\n"
    root = write(tmp_path, {"Makefile": makefile})
    start = time.monotonic()
    done = routed(["make", "all"], root)
    assert time.monotonic() - start < 7
    assert done.returncode == 0
    assert "[agentout task all: ls -la listing]" in done.stdout  # routed
    assert done.stdout.endswith("\nstarted\n")


def test_secrets_hidden_in_what_is_shown_and_kept(tmp_path, routed, task_env):
    needs("make")
    secret = "password=hunter2hunter2"
    root = write(
        tmp_path,
        {"Makefile": f"all:\n\t@echo {secret}\n\t@seq 1 9000; echo {secret}\n"},
    )
    done = routed(["make", "all"], root)
    assert done.returncode == 0
    assert "hunter2hunter2" not in done.stdout
    assert "[secret: password]" in done.stdout
    assert re.search(r"agentout show [0-9a-f]{16}", done.stdout)  # the long line was kept
    kept = list(Path(task_env["AGENTOUT_SPILL_DIR"]).rglob("*"))
    assert [path for path in kept if path.is_file()]
    for path in kept:
        if path.is_file():
            assert b"hunter2hunter2" not in path.read_bytes()


def test_line_shells_keep_output_in_the_callers_store(tmp_path, monkeypatch, task_env):
    """The MCP server runs commands with a store of its own: what the recipe lines keep
    is there, where its ``show`` reads, not in the user's store."""
    from agentout.sources.command import run
    from agentout.store.spill import SpillStore

    needs("make")
    for name, value in task_env.items():
        monkeypatch.setenv(name, value)
    root = write(tmp_path / "proj", {"Makefile": "all:\n\t@seq 1 9000\n"})
    store = SpillStore(tmp_path / "server-store")
    done = run(["make", "all"], store=store, cwd=root, stdin=subprocess.DEVNULL)
    assert done.outcome.exit_status == 0
    refs = re.findall(r"agentout show ([0-9a-f]{16})\]", done.delivery.text)
    assert refs
    for ref in refs:
        assert store.find_id(ref)
    assert not Path(task_env["AGENTOUT_SPILL_DIR"]).exists()


def test_oneshell_recipe_is_one_line(tmp_path, plain, routed):
    needs("make")
    (tmp_path / "sub").mkdir()
    root = write(tmp_path, {"Makefile": ".ONESHELL:\nall:\n\t@cd sub\n\tpwd\n\texit 4\n"})
    raw = plain(["make", "all"], root)
    done = routed(["make", "all"], root)
    assert done.returncode == raw.returncode == 2
    assert subsequence(raw.stdout.splitlines(), done.stdout.splitlines())
    # one shell for the whole recipe: its output as printed, nothing added
    assert done.stdout == raw.stdout
    assert f"{root}/sub\n" in done.stdout


def test_just_started_by_a_recipe_is_that_lines_output(tmp_path, plain, routed):
    """just does not inherit make's SHELL: what it prints is the make line's output."""
    needs("make")
    needs("just")
    root = write(
        tmp_path,
        {"Makefile": "all:\n\t@just -f inner.just hello\n", "inner.just": "hello:\n    echo hi\n"},
    )
    raw = plain(["make", "all"], root)
    done = routed(["make", "all"], root)
    assert done.returncode == raw.returncode == 0
    assert done.stdout == raw.stdout == "echo hi\nhi\n"  # as printed: nothing is smaller
