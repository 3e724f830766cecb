"""The programs a test command runs (``runners.detect`` decides which runner): a set small
enough to look at before the test machinery is imported (``agentout run``, the line
shell of a task runner)."""

from __future__ import annotations

__all__ = ["TEST_PROGRAMS"]

TEST_PROGRAMS = frozenset({
    "pytest", "py.test", "jest", "vitest", "go", "cargo", "cargo-nextest", "mvn", "mvnw",
    "gradle", "gradlew", "node", "nodejs",
})  # fmt: skip
