"""LogDigest's quick checks on ASCII lines never skip a line a pattern would match: each
is a necessary condition of its pattern (so the classification is the same as running
every pattern on every line)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from agentout.sources.log import _ERROR, _PROGRESS, _WARNING, _may_error, _may_progress

PIECES = [
    "error", "Error", "ERROR", "fatal", "FAILED", "FAIL", "failures: 3", "Fail 2", "PANIC",
    "E   ", "E: ", "npm ERR!", "npm WARN", "not ok", "Traceback (most recent call last)",
    "ValueError:", "KeyboardInterrupt", "SystemExit", "x.py:3: AssertionError",
    "panicked at", "Segmentation fault", "core dumped", "Aborted", "make[2]: ***",
    "undefined reference to", "command not found", "... FAILED", "3 failed", "2 errors",
    "status: 'error'", "exited with code 1", "exit status: 2", "warning:", "Warnings!",
    "DeprecationWarning", "W: ", "42%", "12.5 %", "======", "##>>--", "1.2 MB/s", "eta 3",
    "ETA", " ", "  ", ":", "[", "]", "!", "1", "7", "x", "src/a.py", "\t",
]  # fmt: skip
LINES = st.lists(
    st.sampled_from(PIECES)
    | st.text(st.characters(min_codepoint=0x20, max_codepoint=0x7E), max_size=8)
)


@settings(max_examples=3000, deadline=None)
@given(LINES)
def test_quick_checks_are_necessary(parts: list[str]) -> None:
    text = "".join(parts)
    lower = text.lower()
    if _ERROR.search(text):
        assert _may_error(text, lower), text
    if _WARNING.search(text):
        assert "warn" in lower or text.startswith("W:"), text
    if _PROGRESS.search(text):
        assert _may_progress(text), text
