"""Fixtures shared by the whole suite."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from reference_tiktoken import reference_encoding

ReferenceTiktoken = Callable[[str], Any]

_HOME_MARK = "AGENTOUT_TEST_HOME"
# Whose caches a test may share with the user: toolchains, not settings (cargo and rustup
# keep installed compilers there; Maven its offline repository of plugins).
_TOOL_HOMES = {"RUSTUP_HOME": ".rustup", "CARGO_HOME": ".cargo"}


def pytest_configure(config: pytest.Config) -> None:
    """Every test, and every process a test starts, has a home of its own: agentout's
    ledger, store, caches and config, and the agents' settings, are never the user's.

    Set once in the process that starts the session (xdist's workers inherit it); the
    toolchains the runner tests call keep their own homes.
    """
    if os.environ.get(_HOME_MARK):
        return
    real = Path.home()
    home = Path(tempfile.mkdtemp(prefix="agentout-test-home-"))
    for variable, folder in _TOOL_HOMES.items():
        if variable not in os.environ and (real / folder).is_dir():
            os.environ[variable] = str(real / folder)
    if (real / ".m2").is_dir():  # Maven 3.8 reads no MAVEN_ARGS: a system property, then
        repository = f"-Dmaven.repo.local={real / '.m2' / 'repository'}"
        os.environ["MAVEN_OPTS"] = f"{os.environ.get('MAVEN_OPTS', '')} {repository}".strip()
    for variable in ("GIT_AUTHOR", "GIT_COMMITTER"):
        os.environ.setdefault(f"{variable}_NAME", "agentout tests")
        os.environ.setdefault(f"{variable}_EMAIL", "tests@agentout.invalid")
    for variable in ("XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME"):
        os.environ.pop(variable, None)
    for variable in ("AGENTOUT_CONFIG_DIR", "AGENTOUT_STORE", "CLAUDE_CONFIG_DIR", "CODEX_HOME"):
        os.environ.pop(variable, None)
    os.environ["HOME"] = str(home)
    os.environ[_HOME_MARK] = str(home)
    # hooks answer cold: no test leaves a warm hook server behind (tests/agents/
    # test_hook_server.py starts its own, in a folder of its own)
    os.environ["AGENTOUT_HOOK_SERVER"] = "0"
    (home / "run").mkdir(mode=0o700)
    os.environ["XDG_RUNTIME_DIR"] = str(home / "run")
    config.stash[_home_key] = home
    config.stash[_servers_key] = set(_test_hook_servers())


_home_key = pytest.StashKey[Path]()
_servers_key = pytest.StashKey[set[int]]()


def _test_hook_servers() -> dict[int, str]:
    """The warm hook servers (and their spares) started from a test's environment, and
    the test that started each: every test's has AGENTOUT_LEDGER_SYNC=1, and one a test
    builds itself names the session's home (where the session's runtime folder is) or
    pytest's temporary folders somewhere; none on a system without /proc."""
    home = os.fsencode(os.environ.get(_HOME_MARK, "-"))
    marks = (b"AGENTOUT_LEDGER_SYNC=1", b"/pytest-of-", home)
    found = {}
    for entry in Path("/proc").glob("[0-9]*"):
        try:
            command = (entry / "cmdline").read_bytes()
            if b"agentout.cli.warm_server" not in command:
                continue
            environ = (entry / "environ").read_bytes()
        except OSError:
            continue
        if home in command or any(mark in environ for mark in marks):
            entries = environ.split(b"\0")
            test = [v for v in entries if v.startswith(b"PYTEST_CURRENT_TEST=")]
            test = test or [v for v in entries if b"/pytest-of-" in v]  # its tmp_path says
            found[int(entry.name)] = test[0].decode(errors="replace") if test else "?"
    return found


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """A hook server a test started and left running fails the run: tests leave no
    process behind (the session's own hooks answer cold, AGENTOUT_HOOK_SERVER=0)."""
    before = session.config.stash.get(_servers_key, None)
    if before is None:  # an xdist worker: the process that started the session checks
        return
    deadline = time.monotonic() + 5.0  # a spare ends within 2 s of its server
    while (left := _test_hook_servers().keys() - before) and time.monotonic() < deadline:
        time.sleep(0.1)
    if left:
        found = _test_hook_servers()
        named = ", ".join(f"{pid} ({found.get(pid, '?')})" for pid in sorted(left))
        sys.stderr.write(f"\nagentout tests: hook servers left running: {named}\n")
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_unconfigure(config: pytest.Config) -> None:
    home = config.stash.get(_home_key, None)
    if home is not None:
        shutil.rmtree(home, ignore_errors=True)


@pytest.fixture(scope="session")
def reference_tiktoken(tmp_path_factory: pytest.TempPathFactory) -> ReferenceTiktoken:
    """``reference_tiktoken(name)``: tiktoken's own Encoding, loaded offline, hash-checked.

    The reference every exact count is compared with; it shares no code with agentout.
    """
    cache = tmp_path_factory.mktemp("tiktoken-cache")
    loaded: dict[str, Any] = {}

    def get(name: str) -> Any:
        if name not in loaded:
            loaded[name] = reference_encoding(name, cache)
        return loaded[name]

    return get


@pytest.fixture(autouse=True)
def _private_ledger(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No test writes the user's savings ledger (agentout.ledger.book): the session has its own,
    written before a command returns (the detached recorder is tested on its own)."""
    path = tmp_path_factory.getbasetemp() / "ledger.sqlite3"
    monkeypatch.setenv("AGENTOUT_LEDGER_DB", str(path))
    monkeypatch.setenv("AGENTOUT_LEDGER_SYNC", "1")


@pytest.fixture(autouse=True)
def _private_spill(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No test writes the user's spill store (``agentout fit`` keeps what it leaves out):
    the session has its own, unless a test points AGENTOUT_SPILL_DIR elsewhere."""
    monkeypatch.setenv("AGENTOUT_SPILL_DIR", str(tmp_path_factory.getbasetemp() / "spill"))
