"""Every call to an object store has a deadline: a store that accepts and never answers,
answers a byte a second, or resets mid-body never holds a command past it.

The peers are real listeners on loopback (``conftest.Peer``), reached the way agentout
reaches any S3: ``AWS_ENDPOINT_URL_S3`` and the standard credentials.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agentout.errors import AgentoutError
from agentout.store.address import RemoteAddress
from agentout.store.remote import RemoteStore, StoreUnreachable
from agentout.store.timeouts import Timeouts
from processes import without_agentout_settings

AGENTOUT = [sys.executable, "-m", "agentout"]
ALL_PEERS = ["silent", "trickle", "reset"]
FAST = {  # deadlines short enough for a test; the defaults are checked on `run` below
    "AGENTOUT_STORE_CONNECT_TIMEOUT": "1",
    "AGENTOUT_STORE_READ_TIMEOUT": "1",
    "AGENTOUT_STORE_DEADLINE": "3",
    "AGENTOUT_STORE_GRACE": "2",
}
# What starting agentout, and a loaded two-core machine, may add to a deadline.
SLACK = 8.0


@pytest.fixture
def aws(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    for name, value in {
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_DEFAULT_REGION": "us-east-1",
    }.items():
        monkeypatch.setenv(name, value)
    import s3fs

    s3fs.S3FileSystem.clear_instance_cache()  # one endpoint per test, not per process
    yield
    s3fs.S3FileSystem.clear_instance_cache()


def _env(peer: Any, home: Path, **more: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AGENTOUT_", "AWS_"))}
    env.update(
        HOME=str(home),
        XDG_CACHE_HOME=str(home / ".cache"),
        AGENTOUT_STORE="s3://team/agents",
        AGENTOUT_LEDGER="0",
        AWS_ACCESS_KEY_ID="testing",
        AWS_SECRET_ACCESS_KEY="testing",
        AWS_DEFAULT_REGION="us-east-1",
        AWS_ENDPOINT_URL_S3=peer.url,
        **more,
    )
    return env


def _agentout(*args: str, env: dict[str, str]) -> tuple[subprocess.CompletedProcess[str], float]:
    start = time.monotonic()
    done = subprocess.run([*AGENTOUT, *args], env=env, capture_output=True, text=True, timeout=120)
    return done, time.monotonic() - start


# -- each call, in this process -----------------------------------------------------------------


@pytest.mark.parametrize("peer", ALL_PEERS, indirect=True)
def test_every_call_gives_up_at_its_deadline(peer: Any, aws: None, monkeypatch: Any) -> None:
    monkeypatch.setenv("AWS_ENDPOINT_URL_S3", peer.url)
    store = RemoteStore(RemoteAddress("s3", "team", "agents"), Timeouts(1, 1, 1, 1))
    calls = {
        "size": lambda: store.size("run-0123456789abcdef.log"),
        "read": lambda: store.read("run-0123456789abcdef.log", 0, 8192),
        "list": store.objects,
        "put": lambda: store.put("run-0123456789abcdef.log", b"x" * 100),
        "remove": lambda: store.remove(["run-0123456789abcdef.log"]),
    }
    for what, call in calls.items():
        start = time.monotonic()
        with pytest.raises(StoreUnreachable):
            call()
        took = time.monotonic() - start
        assert took < 1 + 2.5, f"{what} took {took:.1f}s against a {peer.kind} peer"
    assert peer.connections >= 1  # the calls did reach it


@pytest.mark.parametrize("peer", ["silent"], indirect=True)
def test_a_ranged_read_past_its_deadline_names_the_store(
    peer: Any, aws: None, monkeypatch: Any
) -> None:
    monkeypatch.setenv("AWS_ENDPOINT_URL_S3", peer.url)
    store = RemoteStore(RemoteAddress("s3", "team", "agents"), Timeouts(1, 1, 1, 1))
    reader = store.open("run-0123456789abcdef.log", 100_000)
    with pytest.raises(StoreUnreachable, match=r"store s3://team/agents unreachable reading"):
        reader.read(100)


def test_bad_timeouts_are_refused_naming_the_variable(monkeypatch: Any) -> None:
    for bad in ("0", "-1", "soon", "nan", "1e9"):
        monkeypatch.setenv("AGENTOUT_STORE_DEADLINE", bad)
        with pytest.raises(AgentoutError, match="AGENTOUT_STORE_DEADLINE="):
            Timeouts.from_env()
    monkeypatch.setenv("AGENTOUT_STORE_DEADLINE", "0.5")
    assert Timeouts.from_env().deadline == 0.5
    monkeypatch.delenv("AGENTOUT_STORE_DEADLINE")
    assert Timeouts.from_env() == Timeouts(5, 10, 20, 5)


def test_a_bad_timeout_is_one_line_and_exit_2(tmp_path: Path) -> None:
    env = without_agentout_settings()
    env.update(
        HOME=str(tmp_path),
        AGENTOUT_STORE="s3://team/agents",
        AGENTOUT_STORE_GRACE="later",
        AGENTOUT_LEDGER="0",
    )
    done, _ = _agentout("run", "--", "seq", "1", "20000", env=env)
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        "agentout: AGENTOUT_STORE_GRACE='later': expected seconds, a number above 0 (like 5 or 0.5)"
    ]
    assert done.stdout == ""


# -- the commands ------------------------------------------------------------------------------


@pytest.mark.parametrize("peer", ["silent"], indirect=True)
def test_run_answers_and_exits_within_the_grace_with_the_default_timeouts(
    peer: Any, tmp_path: Path
) -> None:
    """The must-reach: against a store that accepts and never answers, ``run`` exits with
    the child's status within 10 s of the child's end, its output printed."""
    env = _env(peer, tmp_path / "home")
    done, took = _agentout("run", "--shell", "seq 1 50000; exit 3", env=env)
    assert done.returncode == 3
    assert "50000" in done.stdout
    assert "lines=50000" in done.stdout
    assert took < 5 + SLACK, f"run took {took:.1f}s (grace 5 s)"
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("agentout: store s3://team/agents took nothing of run-")
    assert "for 5 s (AGENTOUT_STORE_GRACE); the upload goes on in the background" in lines[0]
    assert peer.connections >= 1


@pytest.mark.parametrize("peer", ["silent", "reset"], indirect=True)
def test_show_answers_within_its_deadline_from_the_local_copy(peer: Any, tmp_path: Path) -> None:
    env = _env(peer, tmp_path / "home", **FAST)
    ran, _ = _agentout("run", "--", "seq", "1", "50000", env=env)
    assert ran.returncode == 0, ran.stderr
    ref = ran.stdout.strip().rsplit("agentout show ", 1)[1].split()[0].rstrip("]")
    shown, took = _agentout("show", ref, "--lines", "20000:20002", env=env)
    assert took < 3 + SLACK, f"show took {took:.1f}s (deadline 3 s)"
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.splitlines()[:3] == ["20000", "20001", "20002"]
    lines = shown.stderr.splitlines()
    assert len(lines) == 1, shown.stderr
    assert lines[0].startswith("agentout: store s3://team/agents unreachable (")
    assert "using the local store" in lines[0]


@pytest.mark.parametrize("peer", ALL_PEERS, indirect=True)
def test_show_of_a_reference_not_here_fails_within_its_deadline_in_one_line(
    peer: Any, tmp_path: Path
) -> None:
    env = _env(peer, tmp_path / "home", **FAST)
    # a name, or the 16 hex digits agentout prints: one of them a peer
    ref = "run-0123456789abcdef.log" if peer.kind == "reset" else "0123456789abcdef"
    shown, took = _agentout("show", ref, env=env)
    assert took < 3 + SLACK, f"show took {took:.1f}s (deadline 3 s)"
    assert shown.returncode == 2
    assert shown.stdout == ""
    lines = shown.stderr.splitlines()
    assert len(lines) == 1, shown.stderr
    assert lines[0].startswith(f"agentout: {ref}: store s3://team/agents unreachable (")
    assert "and no such " in lines[0]


@pytest.mark.parametrize(
    ("peer", "dry_run"),
    [("silent", False), ("silent", True), ("trickle", False), ("reset", True)],
    indirect=["peer"],
)
def test_clean_fails_within_its_deadline_in_one_line(
    peer: Any, dry_run: bool, tmp_path: Path
) -> None:
    env = _env(peer, tmp_path / "home", **FAST)
    args = ["clean", "--older-than", "0", *(["--dry-run"] if dry_run else [])]
    done, took = _agentout(*args, env=env)
    assert took < 3 + SLACK, f"clean took {took:.1f}s (deadline 3 s)"
    assert done.returncode == 2
    assert done.stderr.splitlines() == [done.stderr.strip()], done.stderr  # one line
    assert done.stderr.startswith("agentout: s3://team/agents: cannot list the store (")
