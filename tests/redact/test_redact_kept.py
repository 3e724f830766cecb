"""What agentout keeps of a test run and of a folder of notes holds no secret: every string
of a failure (its id, parameters, subtest, file) is hidden before it is shown or kept, and
the notes cache keeps only what no secret is in."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
import secrets_corpus

from agentout.sources.notes.vault import load_vault
from agentout.sources.testing.model import Counts, Diagnostic, Failure, Run
from agentout.sources.testing.report import full_report
from agentout.sources.testing.secrets import without_secrets

TOKENS = secrets_corpus.planted_tokens(random.Random(5))
GITHUB, AWS, PASSWORD = TOKENS["github"], TOKENS["aws-access-key"], TOKENS["password"]


def _run(*failures: Failure) -> Run:
    files = {f.file: Counts(failed=1) for f in failures}
    return Run(counts=Counts(failed=len(failures)), failures=failures, file_counts=files)


def test_every_string_of_a_failure_is_hidden() -> None:
    failure = Failure(
        file=f"tests/test_{GITHUB}.py",
        test=f"test_param[{AWS}]",
        error_type="AssertionError",
        message=f"assert '{GITHUB}' == 'x'",
        subtest=f"[DB_PASSWORD={PASSWORD}]",
        origin=f"src/{GITHUB}.py:3",
        source=(f"    token = '{GITHUB}'",),
        details=f"E   AssertionError: {AWS}",
    )
    diagnostic = Diagnostic(at=f"src/{GITHUB}.rs:1:1", message=f"unused {AWS}")
    run = Run(
        counts=Counts(failed=1),
        failures=(failure,),
        file_counts={failure.file: Counts(failed=1)},
        diagnostics=(diagnostic,),
    )
    hidden, output = without_secrets(run, f"printed {GITHUB}")
    text = json.dumps([repr(hidden), output])
    for value in (GITHUB, AWS, PASSWORD):
        assert value not in text
    (kept,) = hidden.failures
    assert kept.test == "test_param[[secret: aws-key]]"
    assert kept.subtest == "[DB_PASSWORD=[secret: password]]"
    assert kept.file == "tests/test_[secret: github-token].py"
    assert hidden.counts_of(kept.file) == Counts(failed=1)  # the file's counts follow it
    assert hidden.diagnostics[0].at == "src/[secret: github-token].rs:1:1"
    report = full_report(hidden, output)
    assert (
        "==== FAILED tests/test_[secret: github-token].py::test_param[[secret: aws-key]]" in report
    )


def test_a_run_without_secrets_is_kept_as_it_was() -> None:
    failure = Failure(file="tests/test_api.py", test="test_token_refresh[case-3]",
                      error_type="AssertionError", message="assert 3 == 4")  # fmt: skip
    run = _run(failure)
    hidden, output = without_secrets(run, "3 failed")
    assert hidden.failures[0] is failure
    assert hidden.file_counts is run.file_counts
    assert output == "3 failed"


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    (root / "sub").mkdir(parents=True)
    (root / "deploy.md").write_text(
        f"---\nid: deploy\ntitle: Deploy with {GITHUB}\n---\n# Deploy\n\n"
        f"Use DB_PASSWORD={PASSWORD}. See [[sub/{AWS}]].\n"
    )
    (root / "sub" / f"{AWS}.md").write_text("# Keys\n\nWhere the keys are.\n")
    (root / "plain.md").write_text("# Plain\n\ncommit 3f2a9c1d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a39\n")
    return root


def test_the_notes_cache_holds_no_secret_and_serves_the_same_notes(
    vault: Path, tmp_path: Path
) -> None:
    cache = tmp_path / "cache"
    fresh = load_vault(vault, cache_dir=cache)
    (written,) = cache.glob("vault-*.json")
    data = written.read_bytes()
    for value in (GITHUB, AWS, PASSWORD):
        assert value.encode() not in data
    # A note with no secret is cached whole, its look-alike (a commit hash) with it.
    assert b"3f2a9c1d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a39" in data
    assert b"Plain" in data
    stamp = written.stat().st_mtime_ns
    again = load_vault(vault, cache_dir=cache)
    assert written.stat().st_mtime_ns == stamp  # unchanged: not written again
    assert again.notes == fresh.notes  # the notes with secrets parsed again, the same
    assert again.parsed == 2  # those two; the plain one from the cache
    assert f"sub/{AWS}" in again.notes


def test_a_vault_cache_from_an_earlier_agentout_is_not_read(vault: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    load_vault(vault, cache_dir=cache)
    (written,) = cache.glob("vault-*.json")
    document = json.loads(written.read_text())
    document["version"] = "1:" + document["version"].split(":", 1)[1]
    written.write_text(json.dumps(document))
    assert load_vault(vault, cache_dir=cache).parsed == 3
