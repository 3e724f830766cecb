"""query(): selection, ordering, views, stats and hybrid delivery, on real files."""

from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from agentout import count
from agentout.errors import InputError
from agentout.formats.records import parse
from agentout.sources.collection.load import Item
from agentout.sources.collection.query import CollectionError, Where, query
from agentout.sources.collection.views import ViewSpec, to_record
from agentout.store.spill import SpillStore


def _jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _ids(text: str) -> list[Any]:
    return [fields.get("id") for kind, fields in parse(text) if kind == "R"]


def _header(text: str) -> dict[str, Any]:
    return parse(text)[0][1]


ROWS = [
    {"id": "r-10", "severity": "low", "status": 200, "tags": ["a", "b"], "meta": {"team": "x"}},
    {"id": "r-2", "severity": "critical", "status": 500, "tags": ["b"], "meta": {"team": "y"}},
    {"id": "r-3", "severity": "high", "status": 404, "tags": [], "ok": True},
    {"id": "r-1", "severity": "medium", "status": 500, "meta": {"team": "x"}, "ok": False},
    {"id": "r-4", "status": 200.0},
]


@pytest.fixture
def rows(tmp_path: Path) -> Path:
    return _jsonl(tmp_path / "rows.jsonl", ROWS)


# -- selection ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("condition", "expected"),
    [
        ("severity=critical", ["r-2"]),
        ("status=500", ["r-2", "r-1"]),
        ("status=200", ["r-10", "r-4"]),  # numbers compare by value: 200 == 200.0
        ("meta.team=x", ["r-10", "r-1"]),  # dotted path
        ("tags=b", ["r-10", "r-2"]),  # a list matches when any element does
        ("ok=true", ["r-3"]),
        ("ok=false", ["r-1"]),
        ("severity=Critical", []),  # exact
        ("nope=1", []),
    ],
)
def test_where(rows: Path, condition: str, expected: list[str]) -> None:
    answer = query([rows], where=[condition], mode="verbose", delivery="inline")
    assert _ids(answer.text) == expected
    assert answer.matched == len(expected)


def test_several_wheres_all_hold(rows: Path) -> None:
    answer = query([rows], where=["status=500", "meta.team=x"], delivery="inline")
    assert _ids(answer.text) == ["r-1"]


OBJECTS = [
    {"id": "o-1", "tags": [{"name": "db", "level": "high"}, {"name": "web", "level": "low"}]},
    {"id": "o-2", "tags": [{"name": "cache", "level": "low"}], "owner": {"team": "x"}},
    {"id": "o-3", "tags": []},
]


@pytest.mark.parametrize(
    ("condition", "expected"),
    [
        ("tags.level=high", ["o-1"]),  # into each object of the list
        ("tags.level=low", ["o-1", "o-2"]),
        ("tags.name=cache", ["o-2"]),
        ("tags.0.name=db", ["o-1"]),  # a number is still an index
        ("tags.1.name=db", []),
    ],
)
def test_where_goes_into_a_list_of_objects(
    tmp_path: Path, condition: str, expected: list[str]
) -> None:
    objects = _jsonl(tmp_path / "objects.jsonl", OBJECTS)
    answer = query([objects], where=[condition], mode="verbose", delivery="inline")
    assert _ids(answer.text) == expected


@pytest.mark.parametrize(
    ("condition", "fields"),
    [("tags=db", "fields: name, level"), ("owner=x", "fields: team")],
)
def test_where_on_objects_says_it_cannot_compare(
    tmp_path: Path, condition: str, fields: str
) -> None:
    """Never a silent empty answer: objects are not a value to compare with."""
    objects = _jsonl(tmp_path / "objects.jsonl", OBJECTS)
    with pytest.raises(ValueError, match=f"holds objects \\({fields}\\).*e\\.g\\. --where"):
        query([objects], where=[condition], delivery="inline")


@pytest.mark.parametrize("bad", ["severity", "=x", ""])
def test_where_needs_field_and_value(bad: str) -> None:
    with pytest.raises(ValueError, match="expected FIELD=VALUE"):
        Where.parse(bad)


def test_filter_is_jmespath(rows: Path) -> None:
    answer = query([rows], filter="status >= `404` && meta.team != 'y'", mode="verbose")
    assert _ids(answer.text) == ["r-3", "r-1"]


def test_filter_syntax_error_is_a_clear_value_error(rows: Path) -> None:
    with pytest.raises(ValueError, match=r"--filter: .*\(JMESPath\)"):
        query([rows], filter="status >>= 1")


def test_filter_type_errors_count_as_no_match_and_are_reported(rows: Path) -> None:
    answer = query([rows], filter="contains(tags, 'b')", mode="verbose")
    assert _ids(answer.text) == ["r-10", "r-2"]
    (problem,) = answer.report.problems
    assert "--filter failed on 2 record(s)" in str(problem)  # r-1 and r-4 have no tags
    assert f"{rows}:4" in str(problem)


# -- ordering ----------------------------------------------------------------------------


def test_file_order_without_query_or_sort(rows: Path) -> None:
    answer = query([rows], mode="verbose", delivery="inline")
    assert _ids(answer.text) == ["r-10", "r-2", "r-3", "r-1", "r-4"]


def test_sort_by_severity_words_and_missing_last(rows: Path) -> None:
    up = query([rows], sort="severity", mode="verbose", delivery="inline")
    down = query([rows], sort="-severity", mode="verbose", delivery="inline")
    assert _ids(up.text) == ["r-10", "r-1", "r-3", "r-2", "r-4"]
    assert _ids(down.text) == ["r-2", "r-3", "r-1", "r-10", "r-4"]


def test_sort_ties_go_to_the_natural_id_order(rows: Path) -> None:
    answer = query([rows], sort="-status", mode="verbose", delivery="inline")
    assert _ids(answer.text) == ["r-1", "r-2", "r-3", "r-4", "r-10"]


def test_query_ranks_the_relevant_pattern_first(kb: Path) -> None:
    cases = {
        "sql injection placeholders": "SEC-INJ-001",
        "cloud metadata credentials fetch url": "SEC-SSRF-001",
        "webhook delivered twice idempotency key": "REL-IDEMP-001",
        "tenant invoice other customers id": "SEC-AUTHZ-001",
        "pickle cookie": "SEC-DESER-001",
    }
    for text, expected in cases.items():
        assert _ids(query([kb], query=text).text)[0] == expected, text


def test_query_matches_only_records_sharing_a_term(kb: Path) -> None:
    answer = query([kb], query="zyzzyva quux")
    assert answer.matched == 0
    assert _header(answer.text)["total"] == 0
    assert answer.spill is None


def test_equal_scores_are_ordered_by_id(tmp_path: Path) -> None:
    rows = [{"id": f"p-{n}", "text": "same words here"} for n in (10, 2, 33, 1)]
    path = _jsonl(tmp_path / "same.jsonl", rows)
    answer = query([path], query="words", mode="verbose", delivery="inline")
    assert _ids(answer.text) == ["p-1", "p-2", "p-10", "p-33"]


def test_query_then_sort(kb: Path) -> None:
    answer = query([kb], query="injection", sort="-severity", mode="verbose", limit=20)
    severities = [f["severity"] for k, f in parse(answer.text) if k == "R"]
    assert severities == sorted(severities, key=["high", "critical"].index, reverse=True)


# -- views, presets and stats -------------------------------------------------------------


def test_agent_view_flattens_the_summary(kb: Path) -> None:
    answer = query([kb], where=["id=SEC-INJ-001"])
    (fields,) = [f for k, f in parse(answer.text) if k == "R"]
    assert list(fields) == ["id", "name", "severity", "likelihood", "threat", "check", "fix"]
    assert fields["fix"].startswith("Pass values as bound parameters")


def test_verbose_view_shows_every_field_and_the_source(kb: Path) -> None:
    answer = query([kb], where=["id=SEC-INJ-001"], mode="verbose")
    (fields,) = [f for k, f in parse(answer.text) if k == "R"]
    assert fields["mitigations"][0]["code_examples"][0]["secure_code"].startswith("def find_user")
    assert fields["_source"] == str(kb / "security" / "SEC-INJ-001.yaml")
    assert answer.spill is None  # all of it is on the page: nothing to spill


def test_agent_preset_is_3_records_in_500_tokens(kb: Path) -> None:
    answer = query([kb])
    header = _header(answer.text)
    assert header["total"] == answer.matched == 13
    assert header["included"] <= 3
    assert header["omitted"] == 13 - header["included"]
    assert header["truncated"] is True
    assert header["tokens"] == count(answer.text) <= 500
    assert (header["view"], header["files"], header["skipped"]) == ("agent", 13, 0)


def test_verbose_preset_is_10_records_unlimited(kb: Path) -> None:
    answer = query([kb], mode="verbose")
    header = _header(answer.text)
    assert (header["total"], header["included"], header["omitted"]) == (13, 10, 3)
    assert header["tokens"] == count(answer.text) > 5000  # the whole of ten patterns


def test_limit_and_max_tokens_override_the_preset(kb: Path) -> None:
    answer = query([kb], mode="verbose", limit=2, max_tokens=300)
    header = _header(answer.text)
    assert header["included"] <= 2
    assert header["tokens"] == count(answer.text) <= 300


def test_view_file_names_the_fields(kb: Path, tmp_path: Path) -> None:
    view = tmp_path / "view.yaml"
    view.write_text("agent: [id, severity, attack_scenario.impact.business]\n")
    answer = query([kb], where=["id=SEC-AUTHZ-001"], view=view)
    (fields,) = [f for k, f in parse(answer.text) if k == "R"]
    assert list(fields) == ["id", "severity", "attack_scenario.impact.business"]
    assert fields["attack_scenario.impact.business"].startswith("Mass disclosure")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[id]\n", "a view file is a mapping"),
        ("agent: 3\n", "agent: expected a list of field names"),
        ("brief: [id]\n", "unknown mode 'brief'"),
        ("agent: [id\n", "(YAML)"),
    ],
)
def test_bad_view_file(tmp_path: Path, text: str, message: str) -> None:
    view = tmp_path / "view.yaml"
    view.write_text(text)
    with pytest.raises(Exception, match=message.replace("(", r"\(").replace(")", r"\)")) as info:
        ViewSpec.load(view)
    assert str(view) in str(info.value)


def test_summary_fields_that_clash_keep_their_prefix() -> None:
    item = Item({"id": "x", "fix": "top", "agent_summary": {"fix": "inner", "check": "c"}}, "f")
    (_, agent) = to_record(item, "agent").views
    assert agent == {"id": "x", "agent_summary.fix": "inner", "check": "c"}


def test_records_without_summary_show_their_scalars() -> None:
    item = Item({"ts": "2025-01-01", "level": "error", "msg": "disk full", "ctx": {"a": 1}}, "l:3")
    (terse, agent) = to_record(item, "agent").views
    assert terse == {"_source": "l:3"}
    assert agent == {"_source": "l:3", "level": "error", "ts": "2025-01-01", "msg": "disk full"}


# -- hybrid delivery ---------------------------------------------------------------------


def test_the_complete_matching_set_is_spilled_as_jsonl(kb: Path, spill_dir: Path) -> None:
    answer = query([kb], where=["tier=A"])
    assert answer.spill is not None
    assert answer.spill.path.parent == spill_dir
    lines = answer.spill.path.read_text(encoding="utf-8").splitlines()
    spilled = [json.loads(line) for line in lines]
    assert len(spilled) == answer.matched == answer.spill.lines
    assert all(row["tier"] == "A" for row in spilled)
    assert [r["id"] for r in spilled][:2] == _ids(answer.text)[:2]  # same order as the page
    footer = parse(answer.text)[-1]
    assert footer[0] == "F"
    assert footer[1]["spill"] == str(answer.spill.path)
    assert footer[1]["lines"] == answer.matched
    assert "mitigations" in footer[1]["fields"]
    severities = Counter(row["severity"] for row in spilled)
    assert footer[1]["counts"]["severity"] == dict(severities.most_common())
    assert oct(os.stat(answer.spill.path).st_mode & 0o777) == "0o600"
    assert SpillStore(spill_dir).resolve(answer.spill.ref) == answer.spill.path  # show-able


def test_the_same_query_spills_to_the_same_name(kb: Path, spill_dir: Path) -> None:
    first, second = query([kb], query="token"), query([kb], query="token")
    assert first.spill is not None
    assert second.spill is not None
    assert first.text == second.text
    assert [p.name for p in spill_dir.iterdir()] == [first.spill.ref]


def test_jsonl_lines_are_spilled_byte_for_byte(tmp_path: Path) -> None:
    raw = ['{"id":1,  "x":"é"}', '{"x": 2, "id": 2}', '{"id":3}']
    path = tmp_path / "a.jsonl"
    path.write_text("\n".join(raw) + "\n", encoding="utf-8")
    answer = query([path], limit=1)
    assert answer.spill is not None
    assert answer.spill.path.read_text(encoding="utf-8") == "\n".join(raw) + "\n"


def test_inline_delivery_never_spills(kb: Path, spill_dir: Path) -> None:
    answer = query([kb], delivery="inline")
    assert answer.spill is None
    assert not spill_dir.exists() or list(spill_dir.iterdir()) == []
    assert parse(answer.text)[-1][0] == "R"


def test_file_delivery_always_spills(kb: Path) -> None:
    answer = query([kb], where=["id=REL-RACE-001"], mode="verbose", delivery="file")
    assert answer.spill is not None
    assert answer.spill.lines == 1


def test_nothing_spilled_when_the_page_shows_everything(tmp_path: Path, spill_dir: Path) -> None:
    path = _jsonl(tmp_path / "two.jsonl", [{"id": 1, "msg": "a"}, {"id": 2, "msg": "b"}])
    answer = query([path])
    assert answer.spill is None
    assert not spill_dir.exists() or [p.name for p in spill_dir.iterdir()] == []


def test_unwritable_store_falls_back_with_a_warning(
    kb: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv("AGENTOUT_SPILL_DIR", str(blocker / "spill"))  # a path under a file
    answer = query([kb])
    assert answer.spill is None
    assert answer.warning is not None
    head = _header(answer.text)
    assert "spill store not writable" in head["warning"]
    assert head["tokens"] == count(answer.text) <= 500
    # review finding 3b: it said "everything is inline instead" and showed 3 records
    assert head["warning"] == answer.warning
    assert "nothing beyond what is shown here was kept" in answer.warning
    assert head["omitted"] == answer.matched - head["included"] > 0


def test_explicit_store(kb: Path, tmp_path: Path) -> None:
    store = SpillStore(tmp_path / "elsewhere")
    answer = query([kb], store=store)
    assert answer.spill is not None
    assert answer.spill.path.parent == tmp_path / "elsewhere"


# -- bad input ---------------------------------------------------------------------------


def test_every_input_bad_raises_with_all_problems(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text("a: [\n")
    (tmp_path / "b.json").write_text("")
    with pytest.raises(CollectionError) as info:
        query([tmp_path])
    assert [p.path for p in info.value.report.problems] == [
        str(tmp_path / "a.yaml"),
        str(tmp_path / "b.json"),
    ]


def test_one_bad_file_is_counted_in_the_header(kb: Path, tmp_path: Path) -> None:
    (tmp_path / "broken.yaml").write_text("id: X\nname: [\n")
    answer = query([kb, tmp_path / "broken.yaml"])
    header = _header(answer.text)
    assert (header["files"], header["skipped"]) == (13, 1)
    assert answer.report.problems[0].path == str(tmp_path / "broken.yaml")


def test_bad_lines_are_counted_in_the_header(tmp_path: Path) -> None:
    path = tmp_path / "a.jsonl"
    path.write_text('{"id": 1}\n{oops\n')
    assert _header(query([path]).text)["bad_lines"] == 1


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"mode": "brief"}, "unknown mode"),
        ({"limit": 0}, "--limit must be at least 1"),
        ({"query": "  "}, "--query is empty"),
        ({"sort": "-"}, "--sort needs a field"),
        ({"delivery": "later"}, "unknown delivery mode"),
    ],
)
def test_bad_options(kb: Path, options: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        query([kb], **options)


# -- --sql (DuckDB, the sql extra) -------------------------------------------------------


def test_sql_selects_and_orders(rows: Path) -> None:
    answer = query(
        [rows], sql="select id, status from records where status >= 404 order by id", mode="verbose"
    )
    assert _ids(answer.text) == ["r-1", "r-2", "r-3"]
    assert answer.matched == 3


def test_sql_keeps_text_that_looks_like_a_date(tmp_path: Path) -> None:
    path = _jsonl(tmp_path / "d.jsonl", [{"id": 1, "ts": "2025-03-01T00:00:00.000Z"}])
    answer = query([path], sql="select * from records", mode="verbose")
    (fields,) = [f for k, f in parse(answer.text) if k == "R"]
    assert fields["ts"] == "2025-03-01T00:00:00.000Z"


def test_sql_errors_are_input_errors(rows: Path) -> None:
    with pytest.raises(InputError, match=r"--sql: .*nope"):
        query([rows], sql="select nope from records")
    with pytest.raises(ValueError, match="no --query, --where"):
        query([rows], sql="select * from records", where=["a=b"])


def test_sql_skips_yaml_files(rows: Path, kb: Path) -> None:
    answer = query([rows, kb / "security" / "SEC-INJ-001.yaml"], sql="select * from records")
    assert answer.matched == len(ROWS)
    assert "JSON and JSONL files only" in str(answer.report.problems[0])


def test_a_spilled_answer_is_packed_once(kb: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The hot path: more matches than the page holds need no trial pack to know it."""
    import sys

    query_module = sys.modules[query.__module__]  # the package's `query` is the function
    calls = 0
    real_pack = query_module.pack

    def counting(*args: Any, **kwargs: Any) -> Any:
        nonlocal calls
        calls += 1
        return real_pack(*args, **kwargs)

    monkeypatch.setattr(query_module, "pack", counting)
    answer = query([kb])
    assert answer.spill is not None
    assert answer.matched > 3
    assert calls == 1
