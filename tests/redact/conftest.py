"""Shared by the redaction tests: a private rules cache, and the corpus run once."""

from __future__ import annotations

import pytest
import secrets_corpus

from agentout.redact import Redactor


@pytest.fixture(autouse=True)
def _private_cache(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The rules cache lives in a temporary directory, never the user's."""
    cache = tmp_path_factory.getbasetemp() / "agentout-cache"
    monkeypatch.setenv("AGENTOUT_CACHE_DIR", str(cache))


@pytest.fixture(scope="session")
def corpus_outputs(
    tmp_path_factory: pytest.TempPathFactory,
) -> dict[str, list[tuple[secrets_corpus.Case, bytes]]]:
    """Each split's cases with what each printed, run for real once per session."""
    root = tmp_path_factory.mktemp("secrets-corpus")
    runs: dict[str, list[tuple[secrets_corpus.Case, bytes]]] = {}
    for split in ("tuning", "held-out"):
        base = root / split
        (base / "api").mkdir(parents=True)
        with secrets_corpus.serving(base / "api") as port:
            cases = secrets_corpus.build(base, split, port=port)
            runs[split] = [(case, secrets_corpus.output(case)) for case in cases]
    return runs


@pytest.fixture
def formats_only() -> Redactor:
    """A redactor that knows no environment values: formats and context only."""
    return Redactor({})
