"""Which test runner a command runs, and the command that makes it write its results.

``detect(argv)`` looks past what only starts a program (``env``, ``VAR=x``, ``npx``,
``pnpm exec``, ``yarn``, ``bunx``, ``uv run``, ``poetry run``, ``pipenv run``, ``hatch
run``, ``python -m``) at the program itself: pytest, jest, vitest, ``go test``, ``cargo
test``, ``cargo nextest run``, Maven, Gradle, ``node --test``. ``Runner.prepare`` adds the
flags (or environment) that make it write machine-readable results into a private
directory agentout made, never into a shared, predictable place.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

__all__ = ["RUNNERS", "Prepared", "Runner", "detect", "project_python", "pytest_args"]

RUNNERS = ("pytest", "jest", "vitest", "go", "cargo", "nextest", "maven", "gradle", "node")

_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
# Launchers and how many words they take before the program: ("uv", "run") is two.
_LAUNCHERS: dict[tuple[str, ...], set[str]] = {
    ("npx",): set(),
    ("bunx",): set(),
    ("pnpm", "exec"): set(),
    ("pnpm", "dlx"): set(),
    ("pnpm",): set(),
    ("yarn", "exec"): set(),
    ("yarn",): set(),
    ("npm", "exec"): set(),
    ("uv", "run"): {"--with", "--python", "-p", "--project", "--directory", "--package",
                    "--extra", "--group", "--env-file", "--index", "--with-requirements"},
    ("poetry", "run"): set(),
    ("pipenv", "run"): set(),
    ("hatch", "run"): set(),
    ("pdm", "run"): set(),
}  # fmt: skip
_ENV_VALUE_OPTIONS = {"-u", "--unset", "-C", "--chdir", "-S", "--split-string"}
_PYTHON = re.compile(r"python(?:\d+(?:\.\d+)?)?(?:\.exe)?\Z")


@dataclass(frozen=True)
class Prepared:
    """A command ready to run: its words, what to add to its environment, where its
    results will be (a file or directory in the private directory, or its stdout)."""

    argv: tuple[str, ...]
    env: dict[str, str]
    results: Path | None  # None: the results are what it prints on stdout


@dataclass(frozen=True)
class Runner:
    """A test runner found in a command: ``name`` (one of ``RUNNERS``), the whole
    command, and where the runner's own words start in it (after any launcher)."""

    name: str
    argv: tuple[str, ...]
    at: int

    @property
    def args(self) -> tuple[str, ...]:
        """The runner's own arguments (after its program name)."""
        return self.argv[self.at + 1 :]

    def prepare(self, private: Path) -> Prepared:
        """The command with the flags that write results into ``private`` (a 0700
        directory of agentout's own)."""
        return _PREPARE[self.name](self, private)


def _name(word: str) -> str:
    return Path(word).name.lower()


def _skip_launchers(argv: tuple[str, ...]) -> int:
    """The index of the program after ``env``, assignments and launchers."""
    i = 0
    while i < len(argv):
        word = argv[i]
        name = _name(word)
        if _ASSIGNMENT.match(word):
            i += 1
        elif name == "env":
            i += 1
            while i < len(argv) and argv[i].startswith("-"):
                i += 2 if argv[i] in _ENV_VALUE_OPTIONS else 1
        else:
            for words, value_options in _LAUNCHERS.items():
                if name == words[0] and tuple(argv[i : i + len(words)])[1:] == words[1:]:
                    i += len(words)
                    while i < len(argv) and argv[i].startswith("-"):
                        i += 2 if argv[i] in value_options else 1
                    break
            else:
                return i
    return i


def detect(argv: list[str] | tuple[str, ...]) -> Runner | None:
    """The test runner ``argv`` runs, or None when it runs none agentout knows."""
    words = tuple(argv)
    i = _skip_launchers(words)
    if i >= len(words):
        return None
    name = _name(words[i])
    rest = words[i + 1 :]
    if _PYTHON.match(name) and len(rest) >= 2 and rest[0] == "-m":
        module = rest[1]
        if module in ("pytest", "py.test"):
            return Runner("pytest", words, i + 2)
        return None
    if name in ("pytest", "py.test"):
        return Runner("pytest", words, i)
    if name in ("jest", "vitest"):
        return Runner(name, words, i)
    if name == "go" and rest[:1] == ("test",):
        return Runner("go", words, i + 1)
    if name in ("cargo", "cargo.exe"):
        if rest[:1] == ("test",):
            return Runner("cargo", words, i + 1)
        if rest[:2] == ("nextest", "run"):
            return Runner("nextest", words, i + 2)
        return None
    if name == "cargo-nextest" and rest[:2] == ("nextest", "run"):
        return Runner("nextest", words, i + 2)
    if name in ("mvn", "mvnw", "mvn.cmd", "mvnw.cmd"):
        return Runner("maven", words, i)
    if name in ("gradle", "gradlew", "gradle.bat", "gradlew.bat"):
        return Runner("gradle", words, i)
    if name in ("node", "nodejs") and "--test" in rest:
        return Runner("node", words, i)
    return None


# What marks a project's root folder: where its virtual environment is looked for last.
_PROJECT_MARKS = ("pyproject.toml", "setup.py", "setup.cfg", ".git")
_VENV_PYTHONS = (
    os.path.join(".venv", "bin", "python"),
    os.path.join(".venv", "Scripts", "python.exe"),
)


def project_python(cwd: str | os.PathLike[str] | None = None) -> tuple[str, str]:
    """The project's Python, and how a report names it: ``.venv/bin/python`` of ``cwd``
    or of a folder above it up to the project's root (the nearest holding
    ``pyproject.toml``, ``setup.py``, ``setup.cfg`` or ``.git``; ``cwd`` alone when none
    does), else ``python``, then ``python3`` on PATH, else this interpreter. agentout's
    own Python (``uv tool install``, ``pipx``) is not the project's: its pytest, plugins
    and packages are not the ones the tests import."""
    here = os.path.abspath(cwd if cwd is not None else os.getcwd())
    folders, folder = [here], here
    while not any(os.path.exists(os.path.join(folder, mark)) for mark in _PROJECT_MARKS):
        parent = os.path.dirname(folder)
        if parent == folder:  # no project above: only the folder itself
            folders = [here]
            break
        folder = parent
        folders.append(folder)
    for folder in folders:
        for name in _VENV_PYTHONS:
            candidate = os.path.join(folder, name)
            if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
                return candidate, os.path.relpath(candidate, here)
    for name in ("python", "python3"):
        found = shutil.which(name)
        if found is not None:
            return found, name
    return sys.executable, sys.executable


def pytest_args(args: list[str] | tuple[str, ...], python: str | None = None) -> Runner:
    """A runner for pytest's own arguments, as ``agentout test -- -x tests/`` gives them:
    pytest in ``python`` (``project_python``'s; default this interpreter)."""
    words = (python or sys.executable, "-m", "pytest", *args)
    return Runner("pytest", words, 2)


# -- preparing each runner --------------------------------------------------------------


def _insert(runner: Runner, words: list[str]) -> tuple[str, ...]:
    """The command with ``words`` right after the runner's own program words."""
    at = runner.at + 1
    return (*runner.argv[:at], *words, *runner.argv[at:])


def _has(args: tuple[str, ...], *flags: str) -> bool:
    return any(a == f or a.startswith(f + "=") for a in args for f in flags)


def _pytest(runner: Runner, private: Path) -> Prepared:
    # agentout's plugin, when pytest has it, writes the run as JSON (it knows far more
    # than JUnit XML); JUnit XML is there for a pytest without agentout (uv run, a
    # project's own environment): the plugin drops it when it writes its own.
    env = {"AGENTOUT_AGENT": "1", "AGENTOUT_RESULTS": str(private / "run.json")}
    argv = runner.argv
    if not _has(runner.args, "--junitxml", "--junit-xml"):
        argv = (*argv, f"--junitxml={private / 'junit.xml'}")
    return Prepared(argv, env, private)


def _jest(runner: Runner, private: Path) -> Prepared:
    out = private / "results.json"
    argv = (*runner.argv, "--json", f"--outputFile={out}", "--testLocationInResults")
    return Prepared(argv, {}, out)


_VITEST_COMMANDS = {"run", "watch", "dev", "related", "bench", "list", "init"}


def _vitest(runner: Runner, private: Path) -> Prepared:
    out = private / "results.json"
    argv = list(runner.argv)
    if not runner.args or runner.args[0] not in _VITEST_COMMANDS:
        argv.insert(runner.at + 1, "run")  # never watch: the report comes at the end
    argv += ["--reporter=json", f"--outputFile={out}", "--includeTaskLocation"]
    return Prepared(tuple(argv), {}, out)


def _go(runner: Runner, private: Path) -> Prepared:
    argv = runner.argv if _has(runner.args, "-json") else _insert(runner, ["-json"])
    return Prepared(argv, {}, None)


def _cargo(runner: Runner, private: Path) -> Prepared:
    # libtest's JSON is still unstable: RUSTC_BOOTSTRAP lets a stable toolchain's test
    # harness write it (cargo does not rebuild for it).
    extra = ["-Z", "unstable-options", "--format", "json", "--report-time"]
    argv = (*runner.argv, *([] if "--" in runner.args else ["--"]), *extra)
    return Prepared(argv, {"RUSTC_BOOTSTRAP": "1"}, None)


def _nextest(runner: Runner, private: Path) -> Prepared:
    argv = _insert(runner, ["--message-format", "libtest-json"])
    return Prepared(argv, {"NEXTEST_EXPERIMENTAL_LIBTEST_JSON": "1"}, None)


def _maven(runner: Runner, private: Path) -> Prepared:
    # Surefire's reportsDirectory cannot be set from the command line: its reports of
    # this run are copied into the private directory after it (see readers.maven).
    return Prepared(runner.argv, {}, private)


_GRADLE_INIT = """\
allprojects {
    tasks.withType(Test).configureEach { task ->
        def name = (project.path + ':' + task.name).replaceAll('[^A-Za-z0-9_.-]', '_')
        def where = new File(%s, name)
        if (task.reports.junitXml.hasProperty('outputLocation')) {
            task.reports.junitXml.outputLocation.set(where)
        } else {
            task.reports.junitXml.destination = where
        }
    }
}
"""


def _gradle(runner: Runner, private: Path) -> Prepared:
    script = private / "agentout.gradle"
    reports = private / "reports"
    reports.mkdir(mode=0o700)
    literal = "'" + str(reports).replace("\\", "\\\\").replace("'", "\\'") + "'"
    fd = os.open(script, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(_GRADLE_INIT % literal)
    return Prepared(_insert(runner, ["--init-script", str(script)]), {}, reports)


def _node(runner: Runner, private: Path) -> Prepared:
    out = private / "results.xml"
    flags = ["--test-reporter=junit", f"--test-reporter-destination={out}"]
    return Prepared(_insert(runner, flags), {}, out)


_PREPARE = {
    "pytest": _pytest,
    "jest": _jest,
    "vitest": _vitest,
    "go": _go,
    "cargo": _cargo,
    "nextest": _nextest,
    "maven": _maven,
    "gradle": _gradle,
    "node": _node,
}
