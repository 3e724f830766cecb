"""What every format promises: same bytes every run, and every record pack chose is there."""

from __future__ import annotations

import csv
import hashlib
import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import toon_format
from format_strategies import budgets, results
from hypothesis import HealthCheck, given, settings

from agentout import Packed, Record, Result, pack
from agentout.formats import Format, get_format
from agentout.formats.csv import read as read_csv
from agentout.formats.json import record_object
from agentout.formats.records import parse
from agentout.formats.text import TextFormat
from agentout.formats.toon import TAB_FORMAT
from agentout.records import is_empty

FORMATS: dict[str, Format] = {
    "records": get_format("records"),
    "json": get_format("json"),
    "toon": get_format("toon"),
    "toon-tab": TAB_FORMAT,
    "csv": get_format("csv"),
    "text": TextFormat(color=False, width=100),
    "auto": get_format("auto"),
}


def _sample() -> Result:
    records = [
        Record.of({"id": i, "name": f"repo-{i}", "stars": 1000 - i, "desc": 'a, b "c" 🔥'})
        for i in range(12)
    ]
    records.append(
        Record.of({"id": 99, "log": "line 1\nline 2\ttab", "tags": ["x", "y"]}, kind="E")
    )
    return Result.of(records, header={"mode": "fit", "source": "s.json"}, summary={"rows": 13})


_SCRIPT = """
import hashlib, sys
sys.path.insert(0, {tests!r})
from test_formats_all import FORMATS, _sample
from agentout import pack
for name, fmt in FORMATS.items():
    for budget in (None, 120):
        text = pack(_sample(), format=fmt, max_tokens=budget).text
        print(name, budget, hashlib.sha256(text.encode()).hexdigest())
"""


def _digests() -> str:
    lines = []
    for name, fmt in FORMATS.items():
        for budget in (None, 120):
            text = pack(_sample(), format=fmt, max_tokens=budget).text
            lines.append(f"{name} {budget} {hashlib.sha256(text.encode()).hexdigest()}")
    return "\n".join(lines) + "\n"


def test_same_bytes_in_another_process_with_another_hash_seed() -> None:
    script = _SCRIPT.format(tests=str(Path(__file__).parent))
    env = {**os.environ, "PYTHONHASHSEED": "12345", "COLUMNS": "37", "FORCE_COLOR": "1"}
    out = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True
    )
    assert out.stdout == _digests()
    assert len(out.stdout.splitlines()) == 2 * len(FORMATS)


def _objects(packed: Packed) -> list[dict[str, Any]]:
    return [record_object(r, v) for r, v in packed.document.records]


def _decoded(name: str, text: str, summary: bool) -> list[dict[str, Any]]:
    """The records as a reader of that format gets them back."""
    if name == "records":
        lines = parse(text)[1 : -1 if summary else None]
        return [f if k == "R" else {"_kind": k, **f} for k, f in lines]
    if name == "json":
        return list(json.loads(text)["records"])
    if name.startswith("toon"):
        return list(toon_format.decode(text)["records"])
    raise AssertionError(name)


def _check_csv(text: str, packed: Packed, summary: bool) -> None:
    lines = text.splitlines(keepends=True)[1:]
    if summary:
        lines.pop()
    rows = list(csv.reader(io.StringIO("".join(lines))))
    assert len(rows) == (len(packed.document.records) + 1 if packed.document.records else 0)
    assert read_csv(text) == _objects(packed)


def _check_text(text: str, packed: Packed) -> None:
    # A record starts at "#N" (its kind after it when not R): a title line or a one-liner.
    starts = list(re.finditer(r"^#(\d+)(?: [A-Z])?(?:\n|  )", text, flags=re.MULTILINE))
    assert [int(m.group(1)) for m in starts] == list(range(1, len(packed.document.records) + 1))
    ends = [m.start() for m in starts[1:]] + ([len(text)] if starts else [])
    for start, end, (_, view) in zip(starts, ends, packed.document.records, strict=True):
        block = text[start.start() : end]
        assert re.search(rf"(^  id +|  id: ){view['id']}\b", block, flags=re.MULTILINE)


@pytest.mark.parametrize("name", list(FORMATS))
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(result=results(), max_tokens=budgets)
def test_every_chosen_record_is_in_the_output(
    name: str, result: Result, max_tokens: int | None
) -> None:
    packed = pack(result, format=FORMATS[name], max_tokens=max_tokens)
    again = pack(result, format=FORMATS[name], max_tokens=max_tokens)
    assert again.text == packed.text
    assert FORMATS[name].render(packed.document) == FORMATS[name].render(again.document)
    shown = name if name != "auto" else packed.format.removeprefix("auto:")
    summary = any(not is_empty(v) for v in packed.document.summary.values())
    if shown == "csv":
        _check_csv(packed.text, packed, summary)
    elif shown == "text":
        _check_text(packed.text, packed)
    else:
        assert _decoded(shown, packed.text, summary) == _objects(packed)
    included = [r for r, _ in packed.document.records if not r.forced]
    assert len(included) == packed.stats.included
