"""The corpus: everyday commands, where they run, and the facts an agent needs from each.

``BENCH`` cases are measured by bench/bench_shell.py (raw, rtk, ``agentout run``);
``EXTRA`` cases (other flags, and hostile output: colour, binary, invalid UTF-8,
carriage returns) are only recorded as fixtures by scripts/record_command_fixtures.py.
"""

from __future__ import annotations

import shutil
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from shell import facts_of as f
from shell.repo_files import PYTEST_FILES
from shell.tools import Tools

FAMILIES = ("git", "files", "search", "tests", "lint", "build", "logs", "generic")
RUFF_RULES = "E,W,F,B,UP,SIM,RET,PLR,PLW"


@dataclass(frozen=True)
class Case:
    name: str
    family: str
    argv: tuple[str, ...]
    cwd: str  # relative to the workspace root
    facts: f.Extractor
    needs: tuple[str, ...] = ()  # tools that must be there (see shell.tools)
    env: tuple[tuple[str, str], ...] = ()  # set for this command only
    # Paths removed before each run: globs relative to cwd, or to the workspace root when
    # they start with "/" (a tool's cache there).
    clean: tuple[str, ...] = ()
    timed: bool = False  # a small command whose added wall time is measured

    def where(self, root: Path) -> Path:
        return root / self.cwd

    def environment(self, env: Mapping[str, str]) -> dict[str, str]:
        return {**env, **dict(self.env)}

    def reset(self, root: Path) -> None:
        """Remove what an earlier run left (objects, build directories), so every run of
        the case starts from the same tree and prints the same."""
        for pattern in self.clean:
            base = root if pattern.startswith("/") else self.where(root)
            for path in sorted(base.glob(pattern.lstrip("/"))):
                if path.is_dir() and not path.is_symlink():
                    shutil.rmtree(path)
                else:
                    path.unlink()

    def missing(self, tools: Tools) -> str | None:
        """Why the case cannot run here, or None."""
        for name in self.needs:
            if not tools.has(name):
                return tools.missing[name]
        return None


def _case(
    name: str,
    family: str,
    cwd: str,
    argv: str | tuple[str, ...],
    facts: f.Extractor,
    **options: Any,
) -> Case:
    """A case; ``argv`` as a string is split on spaces (no quoting needed in the corpus)."""
    return Case(
        name, family, tuple(argv.split()) if isinstance(argv, str) else argv, cwd, facts, **options
    )


_PYTEST_ENV = (("PYTHONPATH", "src"),)  # the clone's own sources, with their bugs
_MAKE_CLEAN = ("c/*.o", "c/inventory", "java/classes")
_CARGO_CLEAN = ("target",)
_PIP_CLEAN = ("broken_ext/build", "broken_ext/*.egg-info")
_NODE = ("tsc", "eslint")

BENCH = (
    _case("git-status", "git", "repo", "git status", f.GIT_STATUS, timed=True),
    _case("git-log", "git", "repo", "git log -n 30", f.GIT_LOG, timed=True),
    _case("git-log-stat", "git", "repo", "git log --stat -n 5", f.GIT_LOG_STAT),
    _case("git-diff", "git", "repo", "git diff", f.GIT_DIFF, timed=True),
    _case("git-diff-cached", "git", "repo", "git diff --cached", f.GIT_DIFF),
    _case("git-show", "git", "repo", "git show HEAD", f.GIT_SHOW),
    _case("git-branch", "git", "repo", "git branch -a", f.GIT_BRANCH, timed=True),
    _case("ls", "files", "repo", "ls src/agentout", f.LS, timed=True),
    _case("ls-la", "files", "repo", "ls -la src/agentout", f.LS_LONG, timed=True),
    _case("find", "files", "repo", ("find", ".", "-name", "*.py"), f.FIND),
    _case("tree", "files", "repo", "tree src", f.TREE, needs=("tree",)),
    _case("grep", "search", "repo", f"grep -rn {f.PATTERN} src", f.SEARCH, timed=True),
    _case("rg", "search", "repo", f"rg -n {f.PATTERN} src", f.SEARCH, needs=("rg",)),
    _case("git-grep", "search", "repo", f"git grep -n {f.PATTERN} src", f.SEARCH),
    _case(
        "pytest",
        "tests",
        "repo",
        ("python", "-m", "pytest", *PYTEST_FILES),
        f.PYTEST,
        env=_PYTEST_ENV,
    ),
    _case(
        "cargo-test",
        "tests",
        "projects/rust/money",
        "cargo test",
        f.CARGO_TEST,
        needs=("cargo",),
        clean=_CARGO_CLEAN,
    ),
    _case("ruff", "lint", "repo", f"ruff check --select {RUFF_RULES} src", f.RUFF),
    _case("mypy", "lint", "repo", "mypy scripts/sizes.py", f.MYPY),
    _case(
        "flake8",
        "lint",
        "repo",
        "flake8 src/agentout/formats src/agentout/report_cache.py",
        f.FLAKE8,
        needs=("flake8",),
    ),
    _case(
        "pylint",
        "lint",
        "repo",
        "pylint src/agentout/report_cache.py src/agentout/formats/csv.py",
        f.PYLINT,
        needs=("pylint",),
        clean=("/home/cache/pylint",),  # else the next run adds "(previous run: ...)"
    ),
    _case("tsc", "lint", "projects/web", "tsc --noEmit -p .", f.TSC, needs=_NODE),
    _case("eslint", "lint", "projects/web", "eslint lib", f.ESLINT, needs=_NODE),
    _case(
        "gcc",
        "build",
        "projects/c",
        "gcc -Wall -Wextra -c main.c stock.c",
        f.GCC,
        needs=("gcc",),
        clean=("*.o",),
    ),
    _case(
        "cargo-build",
        "build",
        "projects/rust/ledger",
        "cargo build",
        f.CARGO_BUILD,
        needs=("cargo",),
    ),
    _case(
        "javac",
        "build",
        "projects/java",
        "javac -Xlint:all -d classes src/Inventory.java src/Order.java",
        f.JAVAC_FACTS,
        needs=("javac",),
        clean=("classes",),
    ),
    _case(
        "make",
        "build",
        "projects",
        "make -k",
        f.MAKE_FACTS,
        needs=("make", "gcc", "javac", "cargo"),
        clean=_MAKE_CLEAN,
    ),
    _case(
        "pip-install",
        "build",
        "projects/pip",
        "pip install --no-build-isolation ./broken_ext",
        f.PIP,
        needs=("pip-build", "gcc"),
        clean=_PIP_CLEAN,
    ),
    _case(
        "python-syntax-error",
        "build",
        "repo",
        "python -m py_compile src/agentout/_draft_merge.py",
        f.TRACEBACK,
    ),
    _case("build-log", "logs", "logs", "cat build.log", f.BUILD_LOG),
    _case("app-log", "logs", "logs", "cat app.log", f.APP_LOG),
)

EXTRA = (
    _case("git-log-oneline", "git", "repo", "git log --oneline -n 40", f.GIT_LOG_ONELINE),
    _case("git-log-graph", "git", "repo", "git log --graph --oneline -n 15", f.GIT_LOG_ONELINE),
    _case("git-status-short", "git", "repo", "git status --short --branch", f.GIT_STATUS_SHORT),
    _case("git-diff-stat", "git", "repo", "git diff --stat", f.GIT_DIFF_STAT),
    _case("git-diff-color", "git", "repo", "git diff --color=always", f.GIT_DIFF),
    _case("git-show-stat", "git", "repo", "git show --stat HEAD~1", f.GIT_LOG_STAT),
    _case("ls-recursive", "files", "repo", "ls -R src/agentout/sources", f.LS_RECURSIVE),
    _case("ls-color", "files", "repo", "ls --color=always -F src/agentout", f.LS),
    _case("find-dirs", "files", "repo", "find src -type d", f.FIND),
    _case("tree-depth", "files", "repo", "tree -L 2 src", f.TREE, needs=("tree",)),
    _case("grep-count", "search", "repo", f"grep -rc {f.PATTERN} src", f.SEARCH_COUNTS),
    _case("grep-files", "search", "repo", f"grep -rl {f.PATTERN} src", f.SEARCH_FILES),
    _case(
        "grep-color",
        "search",
        "repo",
        f"grep -rn --color=always {f.PATTERN} src/agentout/sources",
        f.SEARCH,
    ),
    _case(
        "rg-plain",
        "search",
        "repo",
        f"rg {f.PATTERN} src/agentout/sources",
        f.SEARCH_NO_LINES,
        needs=("rg",),
    ),
    _case(
        "rg-json",
        "search",
        "repo",
        f"rg --json {f.PATTERN} src/agentout/sources/testing",
        f.RG_JSON,
        needs=("rg",),
    ),
    _case(
        "rg-context",
        "search",
        "repo",
        f"rg -n -C 2 {f.PATTERN} src/agentout/sources/testing",
        f.SEARCH,
        needs=("rg",),
    ),
    _case(
        "pytest-quiet",
        "tests",
        "repo",
        ("python", "-m", "pytest", "-q", *PYTEST_FILES),
        f.PYTEST_QUIET,
        env=_PYTEST_ENV,
    ),
    _case(
        "pytest-collect",
        "tests",
        "repo",
        ("python", "-m", "pytest", "--collect-only", "-q", "tests/formats"),
        f.PYTEST_COLLECT,
        env=_PYTEST_ENV,
    ),
    _case(
        "pytest-color",
        "tests",
        "repo",
        ("python", "-m", "pytest", "--color=yes", "-q", "tests/formats/test_format_csv.py"),
        f.PYTEST_QUIET,
        env=_PYTEST_ENV,
    ),
    _case(
        "cargo-test-quiet",
        "tests",
        "projects/rust/money",
        "cargo test -q",
        f.CARGO_TEST,
        needs=("cargo",),
    ),
    _case("node-test", "tests", "projects/web", "node --test test/", f.NODE_TEST, needs=("node",)),
    _case("ruff-project", "lint", "repo", "ruff check src", f.RUFF),
    _case(
        "ruff-concise",
        "lint",
        "repo",
        f"ruff check --output-format concise --select {RUFF_RULES} src",
        f.RUFF_CONCISE,
    ),
    _case("mypy-pretty", "lint", "repo", "mypy --pretty scripts/sizes.py", f.MYPY_PRETTY),
    _case(
        "clippy",
        "lint",
        "projects/rust/money",
        "cargo clippy",
        f.CARGO_BUILD,
        needs=("cargo",),
        clean=_CARGO_CLEAN,
    ),
    _case(
        "tsc-pretty",
        "lint",
        "projects/web",
        "tsc --noEmit --pretty -p .",
        f.TSC_PRETTY,
        needs=_NODE,
    ),
    _case(
        "gcc-color",
        "build",
        "projects/c",
        "gcc -fdiagnostics-color=always -Wall -Wextra -c main.c stock.c",
        f.GCC,
        needs=("gcc",),
        clean=("*.o",),
    ),
    _case(
        "make-plain",
        "build",
        "projects",
        "make",
        f.MAKE_FACTS,
        needs=("make", "gcc"),
        clean=_MAKE_CLEAN,
    ),
    _case("npm-run-build", "build", "projects/web", "npm run build", f.NPM_RUN, needs=_NODE),
    _case(
        "pip-not-found",
        "build",
        "projects/pip",
        "pip install --no-index no-such-package-for-the-corpus",
        f.PIP,
    ),
    _case("build-log-tail", "logs", "logs", "tail -n 40 build.log", f.BUILD_LOG),
    _case("json-log", "logs", "logs", "cat service.jsonl", f.JSON_LOG),
    _case("logback-log", "logs", "logs", "cat worker.log", f.LOGBACK),
    _case("python-traceback", "generic", "hostile", "python crash.py", f.TRACEBACK),
    _case("progress-bar", "generic", "hostile", "python progress.py", f.PROGRESS),
    _case("binary", "generic", "hostile", "cat logo.png", f.NOTHING),
    _case("invalid-utf8", "generic", "hostile", "cat legacy.txt", f.LEGACY),
    _case("long-line", "generic", "hostile", "seq -s , 1 20000", f.LAST_NUMBER),
    _case(
        "killed", "generic", "hostile", ("sh", "-c", "echo started; kill -TERM $$"), f.FIRST_LINE
    ),
)

ALL = BENCH + EXTRA
