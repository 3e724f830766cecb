"""The agent budget on a real-shaped knowledge base, property-tested over random queries.

The knowledge base is generated from examples/kb: each pattern grown to about 500 lines
of YAML (more mitigations, more code), three variants each, so dozens of long records.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentout import count
from agentout.formats import get_format
from agentout.formats.records import parse
from agentout.sources.collection.load import LoadReport, load
from agentout.sources.collection.query import query
from agentout.sources.collection.views import to_record
from agentout.store.spill import SpillStore

ROOT = Path(__file__).parents[2]
SEVERITIES = ["critical", "high", "medium", "low"]


_Dumper: Any = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


def _dump(value: Any) -> str:
    return yaml.dump(value, Dumper=_Dumper, sort_keys=False, width=100)


def _grow(pattern: dict[str, Any], variant: int, lines: int = 500) -> dict[str, Any]:
    """The pattern with more mitigations (copies of its own, renamed) up to ``lines``."""
    grown = copy.deepcopy(pattern)
    grown["id"] = f"{pattern['id']}-V{variant}"
    grown["severity"] = SEVERITIES[(variant + len(pattern["id"])) % len(SEVERITIES)]
    base = list(pattern["mitigations"])
    size = len(_dump({"threat_pattern": grown}).splitlines())
    n = 0
    while size < lines:
        extra = copy.deepcopy(base[n % len(base)])
        extra["id"] = f"{grown['id']}-X{n}"
        extra["name"] = f"{extra['name']} (variant {n})"
        grown["mitigations"].append(extra)
        size += len(_dump([extra]).splitlines())  # a list item indents like its siblings
        n += 1
    return {"threat_pattern": grown}


@pytest.fixture(scope="module")
def big_kb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("kb")
    report = LoadReport()
    for item in load([str(ROOT / "examples" / "kb")], report):
        for variant in range(3):
            grown = _grow(item.data, variant)
            path = root / f"{grown['threat_pattern']['id']}.yaml"
            path.write_text(_dump(grown), encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def views(big_kb: Path) -> dict[str, list[str]]:
    """Every line each record may render as, by id, in the records format."""
    fmt = get_format("records")
    out: dict[str, list[str]] = {}
    for item in load([str(big_kb)], LoadReport()):
        record = to_record(item, "agent")
        out[item.data["id"]] = [fmt.fragment(record, v).rstrip("\n") for v in record.views]
    return out


def test_the_generated_kb_is_real_shaped(big_kb: Path) -> None:
    files = sorted(big_kb.glob("*.yaml"))
    assert len(files) >= 36
    sizes = [len(f.read_text().splitlines()) for f in files]
    assert min(sizes) >= 480
    assert max(sizes) <= 700


_WORDS = [
    "sql",
    "injection",
    "webhook",
    "retry",
    "timeout",
    "tenant",
    "invoice",
    "token",
    "secret",
    "pickle",
    "path",
    "upload",
    "shell",
    "xss",
    "html",
    "redirect",
    "metadata",
    "payment",
    "duplicate",
    "race",
    "balance",
    "zzzz",
    "the",
    "of",
]  # terms of the KB, plus one it lacks and stop words
_words = st.sampled_from(_WORDS)
_queries = st.lists(_words, min_size=1, max_size=4).map(" ".join)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    text=st.one_of(st.none(), _queries),
    severity=st.one_of(st.none(), st.sampled_from(SEVERITIES)),
    sort=st.one_of(st.none(), st.sampled_from(["severity", "-severity", "id", "-likelihood"])),
    fmt=st.sampled_from(["records", "json"]),
)
def test_agent_output_is_within_500_tokens_whole_records_exact_counts(
    big_kb: Path,
    views: dict[str, list[str]],
    tmp_path_factory: pytest.TempPathFactory,
    text: str | None,
    severity: str | None,
    sort: str | None,
    fmt: str,
) -> None:
    store = SpillStore(tmp_path_factory.mktemp("spill"))
    where = [f"severity={severity}"] if severity else []
    answer = query([big_kb], query=text, where=where, sort=sort, format=fmt, store=store)
    stats = answer.packed.stats

    assert stats.tokens == count(answer.text) <= 500  # the whole output, counted exactly
    assert not stats.over_budget
    assert stats.total == answer.matched
    assert stats.included <= 3
    assert stats.omitted == stats.total - stats.included

    if fmt == "records":
        lines = [line for line in answer.text.splitlines() if line.startswith("R ")]
        ids = [fields["id"] for kind, fields in parse(answer.text) if kind == "R"]
    else:
        body = json.loads(answer.text)
        lines = [
            get_format("records").fragment(*_as_record(r)).rstrip("\n") for r in body["records"]
        ]
        ids = [r["id"] for r in body["records"]]
    assert len(lines) == stats.included
    for record_id, line in zip(ids, lines, strict=True):
        assert line in views[record_id]  # a whole view of that record, never a cut one

    # the page is a prefix of the complete set, which is spilled whenever it is not all shown
    if answer.spill is not None:
        spilled = [json.loads(x)["id"] for x in answer.spill.path.read_text().splitlines()]
        assert len(spilled) == answer.matched
        assert spilled[: len(ids)] == ids
    else:
        assert stats.included == stats.total

    again = query([big_kb], query=text, where=where, sort=sort, format=fmt, store=store)
    assert again.text == answer.text  # same bytes: the spilled file is named by its content


def _as_record(fields: dict[str, Any]) -> tuple[Any, Any]:
    from agentout.records import Record

    return Record.of(fields), fields


def test_a_broad_query_needs_the_budget(big_kb: Path) -> None:
    """Three long patterns' summaries do not all fit 500 tokens with the spill footer:
    the budget, not the cap, decides, and the page says so."""
    answer = query([big_kb], query="sql injection webhook tenant")
    stats = answer.packed.stats
    assert stats.total > 3
    assert stats.truncated
    assert stats.tokens == count(answer.text) <= 500
    assert answer.spill is not None


@pytest.mark.parametrize("fmt", ["records", "json"])
def test_pack_reports_the_total_of_a_streamed_page(fmt: str) -> None:
    """``Result.total``: a page of 3 records out of 1,000 matched reports 1,000, exactly."""
    from agentout import Record, Result, pack

    page = [Record.of({"id": i}) for i in range(3)]
    packed = pack(Result.of(page, total=1000), format=fmt, max_records=3, max_tokens=500)
    stats = packed.stats
    assert (stats.total, stats.included, stats.omitted, stats.truncated) == (1000, 3, 997, True)
    assert stats.tokens == count(packed.text)
    plain = pack(Result.of(page), format=fmt, max_records=3, max_tokens=500).stats
    assert (plain.total, plain.omitted, plain.truncated) == (3, 0, False)
