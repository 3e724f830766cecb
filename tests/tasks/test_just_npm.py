"""``agentout run -- just ...`` and ``npm run`` with the real runners: each recipe line or
script reduced and labelled, exit status, stdin and ``cd`` as without agentout."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from task_support import needs, subsequence, write

JUSTFILE = """\
set shell := ["bash", "-c"]

greeting := `echo from-backtick`

read:
    read x; echo "got $x"

where:
    cd sub && pwd
    pwd

hello:
    echo {{greeting}}
    [[ 1 == 1 ]] && echo bash-ran

fail:
    echo failing; exit 7
    echo never
"""


def test_just_recipes_as_without(tmp_path: Path, plain, routed) -> None:
    needs("just")
    (tmp_path / "sub").mkdir()
    root = write(tmp_path, {"justfile": JUSTFILE})
    for recipe, stdin in (("read", "hello\n"), ("where", None), ("hello", None), ("fail", None)):
        raw = plain(["just", recipe], root, input=stdin)
        done = routed(["just", recipe], root, input=stdin)
        assert done.returncode == raw.returncode, (recipe, done.stdout, done.stderr)
        assert subsequence(raw.stdout.splitlines(), done.stdout.splitlines()), recipe
    assert routed(["just", "fail"], root).returncode == 7
    # small outputs as printed (no form of agentout's is smaller): nothing added to them
    for recipe, stdin in (("read", "hello\n"), ("where", None), ("hello", None), ("fail", None)):
        raw = plain(["just", recipe], root, input=stdin)
        assert routed(["just", recipe], root, input=stdin).stdout == raw.stdout, recipe
    assert "got hello\n" in routed(["just", "read"], root, input="hello\n").stdout
    where = routed(["just", "where"], root).stdout
    assert f"{root}/sub\n" in where
    assert f"\n{root}\n" in where
    hello = routed(["just", "hello"], root).stdout
    assert "from-backtick\n" in hello
    assert "bash-ran\n" in hello


def test_just_lint_recipe_is_reduced(tmp_path: Path, routed) -> None:
    needs("just")
    root = write(
        tmp_path,
        {
            "justfile": "lint:\n    ruff check --no-cache --select F src\n",
            "src/a.py": "import os\nimport sys\nimport json\n",
        },
    )
    done = routed(["just", "lint"], root)
    assert done.returncode == 1
    assert "[agentout task: ruff check --no-cache --select F src]" in done.stdout
    # ruff's reduced form: the file once, then each place and code under it
    assert "\nsrc/a.py\n  1:8 F401\n  2:8 F401\n  3:8 F401\n" in done.stdout


def test_just_options_it_does_not_know_run_as_they_were(tmp_path: Path, routed) -> None:
    needs("just")
    root = write(tmp_path, {"justfile": "hello:\n    echo hi\n"})
    done = routed(["just", "--dry-run", "hello"], root)
    assert "[agentout task" not in done.stdout


def _package(root: Path, scripts: dict[str, str]) -> Path:
    text = json.dumps({"name": "p", "version": "1.0.0", "private": True, "scripts": scripts})
    return write(root, {"package.json": text})


@pytest.mark.parametrize("manager", ["npm", "pnpm"])
def test_npm_scripts_as_without(tmp_path: Path, plain, routed, manager: str) -> None:
    needs(manager)
    (tmp_path / "sub").mkdir()
    root = _package(
        tmp_path,
        {
            "read": 'read x; echo "got $x"',
            "where": "cd sub && pwd",
            "bad": "echo nope; exit 3",
            "pretest": "echo before-test",
            "test": "echo testing",
        },
    )
    for args, stdin in (
        (["run", "read"], "hello\n"),
        (["run", "where"], None),
        (["run", "bad"], None),
        (["test"], None),
    ):
        raw = plain(["npm", *args], root, input=stdin)
        done = routed(["npm", *args], root, input=stdin)
        assert done.returncode == raw.returncode, (args, done.stdout)
        assert subsequence(raw.stdout.splitlines(), done.stdout.splitlines()), args
    assert routed(["npm", "run", "bad"], root).returncode == 3
    # small outputs as printed (no form of agentout's is smaller): nothing added to them
    for args, stdin in ((["run", "read"], "hello\n"), (["run", "where"], None), (["test"], None)):
        raw = plain(["npm", *args], root, input=stdin)
        assert routed(["npm", *args], root, input=stdin).stdout == raw.stdout, args
    assert "\ngot hello\n" in routed(["npm", "run", "read"], root, input="hello\n").stdout
    assert f"\n{root}/sub\n" in routed(["npm", "run", "where"], root).stdout


def test_npm_script_shell_of_the_user_is_left_alone(tmp_path: Path, routed) -> None:
    needs("npm")
    root = _package(tmp_path, {"hi": "echo hi"})
    (root / ".npmrc").write_text("script-shell=/bin/bash\n")
    done = routed(["npm", "run", "hi"], root)
    assert done.returncode == 0
    assert "[agentout task" not in done.stdout


def test_pnpm_script_shell_of_the_user_is_left_alone(tmp_path: Path, routed) -> None:
    needs("pnpm")
    root = _package(tmp_path, {"hi": "echo hi"})
    (root / ".npmrc").write_text("script-shell=/bin/bash\n")
    done = routed(["pnpm", "run", "hi"], root)
    assert done.returncode == 0
    assert "[agentout task" not in done.stdout
