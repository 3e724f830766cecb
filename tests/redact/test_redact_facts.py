"""What agents need stays byte for byte: real output of real tools, redaction on."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest

from agentout.redact import Redactor


def _run(args: list[str], cwd: Path, env: dict[str, str] | None = None) -> bytes:
    done = subprocess.run(
        args, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, check=False
    )
    return done.stdout


@pytest.fixture(scope="module")
def outputs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    root = tmp_path_factory.mktemp("facts")
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(root),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_AUTHOR_NAME": "Agent",
        "GIT_AUTHOR_EMAIL": "agent@example.com",
        "GIT_COMMITTER_NAME": "Agent",
        "GIT_COMMITTER_EMAIL": "agent@example.com",
    }
    repo = root / "repo"
    repo.mkdir()
    _run(["git", "init", "-q"], repo, env)
    for i in range(12):
        (repo / f"module_{i}.py").write_text(
            f"def check_token_count_{i}(tokens: int) -> bool:\n"
            f"    return tokens > {i}  # key path {uuid.uuid4()}\n"
        )
        _run(["git", "add", "."], repo, env)
        _run(
            ["git", "commit", "-q", "-m", f"Count tokens in module {i}: key=value pairs"], repo, env
        )
    tests = root / "suite"
    tests.mkdir()
    (tests / "test_things.py").write_text(
        "import pytest\n\n"
        "@pytest.mark.parametrize('key', ['api', 'secret_name', 'token_count'])\n"
        "def test_keys(key):\n    assert key != 'secret_name'\n\n"
        "def test_hash():\n    assert 'a94a8fe5ccb19ba61c4c0873d391e987982fbbd3' == 'x'\n"
    )
    return {
        "git log": _run(["git", "log", "--stat"], repo, env),
        "git log --oneline": _run(["git", "log", "--oneline", "--no-abbrev-commit"], repo, env),
        "git show": _run(["git", "show", "HEAD~3"], repo, env),
        "sha256sum": _run(["sh", "-c", "sha256sum *.py"], repo, env),
        "ls -la": _run(["ls", "-la", "--time-style=long-iso", "."], repo, env),
        "uuids": "\n".join(str(uuid.uuid4()) for _ in range(50)).encode() + b"\n",
        "pytest": _run(
            [
                sys.executable,
                "-m",
                "pytest",
                "-p",
                "no:cacheprovider",
                "-p",
                "no:agentout",
                "-rA",
                "test_things.py",
            ],
            tests,
            {**env, "PYTHONDONTWRITEBYTECODE": "1"},
        ),
        "grep -rn": _run(["grep", "-rn", "token", "."], repo, env),
    }


@pytest.mark.parametrize(
    "name",
    [
        "git log",
        "git log --oneline",
        "git show",
        "sha256sum",
        "ls -la",
        "uuids",
        "pytest",
        "grep -rn",
    ],
)
def test_real_output_without_secrets_passes_unchanged(outputs: dict[str, bytes], name: str) -> None:
    raw = outputs[name]
    assert len(raw) > 100, raw  # the tool really ran
    out, found = Redactor.from_environ().redact_bytes(raw)
    assert out == raw
    assert found.total == 0


@pytest.mark.parametrize(
    "name", ["git log", "git log --oneline", "git show", "sha256sum", "ls -la", "uuids"]
)
def test_real_output_is_not_even_looked_at_twice(outputs: dict[str, bytes], name: str) -> None:
    # The one RE2 pass finds no candidate line in it: no exact rule runs, no Python per line.
    # (A pytest failure comparing 'secret_name' is one: detect-secrets' keyword rule reads
    # it as a comparison with a secret, and the exact check then keeps it.)
    scanner = Redactor.from_environ().scanner
    assert scanner is not None
    assert scanner._search(outputs[name], 0) is None


def test_the_facts_are_there_to_keep(outputs: dict[str, bytes]) -> None:
    assert len(outputs["git log --oneline"].split()[0]) == 40  # full commit hashes
    assert outputs["sha256sum"].split()[0].isalnum()
    assert len(outputs["sha256sum"].split()[0]) == 64
    assert b"FAILED test_things.py::test_keys[secret_name]" in outputs["pytest"]
    assert b"-rw-" in outputs["ls -la"]


def _recorded() -> list[Any]:
    from command_fixtures import fixtures

    return fixtures()


@pytest.mark.parametrize("fixture", _recorded(), ids=lambda f: f.id)
def test_every_recorded_shell_corpus_run_passes_unchanged(fixture: Any) -> None:
    # The shell corpus's real runs (git, ls, find, grep, builds, linters, tests, logs).
    out, found = Redactor({}).redact_bytes(fixture.output)
    assert out == fixture.output
    assert found.total == 0


def test_the_recorded_runs_send_no_line_to_the_exact_rules() -> None:
    # Coloured runs (grep, git diff, gcc, tsc, pytest) are read as a reader sees them: the
    # pass over that text hits nothing either.
    from agentout.redact._visible import Seen

    scanner = Redactor({}).scanner
    assert scanner is not None
    seen = {f.id: Seen(f.output, scanner._dirty).text for f in _recorded()}
    # Which candidates the text matches anywhere. Binary output may still meet "dirt" (a
    # byte taken out can join two into a new control character): that reads no rule.
    hit = {name: {scanner._actions[i] for i in scanner._which(t) or ()} for name, t in seen.items()}
    assert sum(len(f.output) for f in _recorded()) > 1_000_000
    assert sum(seen[f.id] != f.output for f in _recorded()) >= 5  # coloured ones among them
    assert {name: found for name, found in hit.items() if found - {"dirt"}} == {}
