"""grep's cut keeps every match's location: a file's matches left out of the budget are
named by their line numbers (``[… 3 more: 120, 145, 200]``), so 480 matches cost about
what 175 cost, per match. A file is shown with all its locations or not at all (the
reference pages to the files left out)."""

from __future__ import annotations

import random
from pathlib import Path

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from agentout.deliver.text import TextSettings, deliver_output
from agentout.reducers import find
from agentout.reducers.facts import extract, lost
from agentout.store.capture import Capture
from agentout.store.spill import SpillStore
from agentout.tokens import count

_WORDS = ["if", "not", "value", "return", "self", "items", "None", "path", "for", "in"]


def _grep(seed: int, files: int, matches: int) -> str:
    rng = random.Random(seed)
    names = [f"src/pkg/mod_{i}.py" for i in range(files)]
    lines = []
    for name in names:
        at = 0
        for _ in range(rng.randint(1, matches)):
            at += rng.randint(1, 40)
            text = " ".join(rng.choices(_WORDS, k=rng.randint(3, 14)))
            lines.append(f"{name}:{at}:    {text}")
    return "\n".join(lines) + "\n"


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(seed=st.integers(0, 2**32), files=st.integers(1, 40), matches=st.integers(1, 30))
@example(seed=0, files=1, matches=14)  # one file, whole in grep's grouped form: no reference
# one match per file: the grouped form is longer than grep's lines, which are over the
# budget; the cut is still grep's, every file named with its line, not lines as printed
@example(seed=61, files=17, matches=1)
def test_every_location_survives_the_cut(
    tmp_path: Path, seed: int, files: int, matches: int
) -> None:
    raw = _grep(seed, files, matches)
    facts = extract(r"^([^:\n]+):(\d+):", raw)
    reducer = find(["grep", "-rn", "not", "src"])
    assert reducer is not None
    capture = Capture(threshold=1024, store=SpillStore(tmp_path / "store"))
    capture.feed(raw.encode())
    capture.close()
    budget = max(300, count(raw) // 3)  # one the raw output does not fit
    delivered = deliver_output(
        capture, TextSettings(1024, budget), argv=("grep", "-rn", "not", "src"), reducer=reducer
    )
    assert count(delivered.text) <= budget
    if delivered.text == raw:  # it fit as printed
        assert lost(facts, delivered.text) == []
        return
    shown = {line for line in delivered.text.splitlines() if line.endswith(".py")}
    assert shown, delivered.text
    assert lost([f for f in facts if f.values[0] in shown], delivered.text) == []
    names = list(dict.fromkeys(f.values[0] for f in facts))
    if any(name not in shown for name in names):  # files left out are paged from the store
        assert delivered.ref is not None
        assert delivered.ref.path.read_bytes() == raw.encode()
