"""End to end: every secret-bearing command of the corpus, run through ``agentout run``
with its own environment, leaves no planted value in what the agent gets, in the store,
or in a page of ``agentout show``; with ``--keep-secrets`` the store has them, the agent
still does not, nor does a page of what was stored."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from secrets_corpus import Case, build, serving

from agentout.formats.raw import closing_fields

AGENTOUT = [sys.executable, "-c", "from agentout.cli import main; main()"]


@pytest.fixture(scope="module", params=["tuning", "held-out"])
def cases(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[list[Case]]:
    root = tmp_path_factory.mktemp(f"corpus-{request.param}")
    with serving(root / "api") as port:
        yield build(root, request.param, port=port)


def _agentout(case: Case, store: Path, *args: str) -> str:
    env = {**case.env, "AGENTOUT_SPILL_DIR": str(store), "PATH": os.environ["PATH"]}
    env["PYTHONPATH"] = os.pathsep.join(sys.path)
    done = subprocess.run(
        [*AGENTOUT, *args],
        cwd=case.cwd,
        env=env,
        input=case.stdin,
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert b"Traceback" not in done.stderr, done.stderr.decode()
    return done.stdout.decode("utf-8", "replace")


def _stored(store: Path) -> bytes:
    return b"".join(p.read_bytes() for p in sorted(store.glob("*")) if p.is_file())


def test_no_planted_value_reaches_the_agent_the_store_or_a_page(
    cases: list[Case], tmp_path: Path
) -> None:
    for case in cases:
        store = tmp_path / case.name
        for args in (
            ["run", "--", *case.command],
            ["run", "--max-tokens", "300", "--", *case.command],
        ):
            text = _agentout(case, store, *args)
            fields = closing_fields(text)
            for value in case.planted:
                assert value not in text, (case.name, args)
            if "ref" in fields:
                page = _agentout(case, store, "show", fields["ref"])
                assert all(value not in page for value in case.planted), case.name
        stored = _stored(store)
        for value in case.planted:
            assert value.encode() not in stored, case.name


def test_keep_secrets_keeps_them_in_the_store_only(cases: list[Case], tmp_path: Path) -> None:
    case = next(c for c in cases if len(c.planted) > 1)
    store = tmp_path / "kept"
    text = _agentout(case, store, "run", "--mode", "file", "--keep-secrets", "--", *case.command)
    assert all(value not in text for value in case.planted)
    assert int(closing_fields(text)["secrets"]) >= 1
    stored = _stored(store)
    assert any(value.encode() in stored for value in case.planted)
    page = _agentout(case, store, "show", closing_fields(text)["ref"])  # what is stored,
    assert "[secret: " in page  # shown as a page: hidden there too
    assert all(value not in page for value in case.planted)


def test_a_test_that_prints_a_token_does_not_leak_it_even_cut(tmp_path: Path) -> None:
    """pytest shows a long value cut ('ghp_abcd...6789'): its pieces are hidden too."""
    token = "ghp_" + "Zq7" * 12
    (tmp_path / "test_token.py").write_text(
        "import os\ndef test_token():\n    assert os.environ['GH_TOKEN'] == 'nope'\n"
    )
    store = tmp_path / "store"
    env = {**os.environ, "GH_TOKEN": token, "AGENTOUT_SPILL_DIR": str(store)}
    env["PYTHONPATH"] = os.pathsep.join(sys.path)
    done = subprocess.run(
        [*AGENTOUT, "run", "--", sys.executable, "-m", "pytest", "-q", "test_token.py"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        timeout=120,
        check=False,
    )
    text = done.stdout.decode()
    assert done.returncode == 1
    assert "test_token" in text
    for piece in (token, token[:8], token[-8:]):
        assert piece not in text
        assert piece.encode() not in _stored(store)
