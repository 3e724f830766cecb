"""Conformance of the records format to docs/records-format.md.

Every case in tests/fixtures/records_format/*.json is written by hand and names the
spec section it checks. One parametrised test runs them all; a case is one of:

- ``kind, fields, line`` (+ ``parsed`` when it reads back otherwise): fields render to
  exactly ``line`` and ``line`` parses back to ``parsed`` (default: ``fields``);
- ``line, kind, parsed`` without ``fields``: input a writer never emits, read leniently;
- ``text, error``: input that breaks the grammar, with the line, column and message;
- ``document, text, parsed``: a whole document renders to ``text`` and parses back.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentout.errors import InputError
from agentout.formats.records import FORMAT, RecordsSyntaxError, parse, render_line
from agentout.records import Document, Record, Stats

FIXTURES = Path(__file__).parent.parent / "fixtures" / "records_format"


def _cases() -> list[Any]:
    params = []
    for path in sorted(FIXTURES.glob("*.json")):
        for case in json.loads(path.read_text(encoding="utf-8")):
            case_id = f"{path.stem}: {case['name']} (§{case['section']})"
            params.append(pytest.param(case, id=case_id))
    return params


def _document(data: dict[str, Any]) -> Document:
    records = tuple((Record.of(r["fields"], kind=r["kind"]), r["fields"]) for r in data["records"])
    return Document(data["header"], Stats(**data["stats"]), records, data["summary"])


@pytest.mark.parametrize("case", _cases())
def test_conformance(case: dict[str, Any]) -> None:
    if "document" in case:
        assert FORMAT.render(_document(case["document"])) == case["text"]
        assert parse(case["text"]) == [(kind, fields) for kind, fields in case["parsed"]]
    elif "error" in case:
        expected = case["error"]
        with pytest.raises(RecordsSyntaxError) as info:
            parse(case["text"])
        assert (info.value.line, info.value.column) == (expected["line"], expected["column"])
        assert expected["message"] in info.value.message
    elif "fields" in case:
        assert render_line(case["kind"], case["fields"]) == case["line"]
        assert parse(case["line"]) == [(case["kind"], case.get("parsed", case["fields"]))]
    else:
        assert parse(case["line"]) == [(case["kind"], case["parsed"])]


def test_fixtures_cover_every_section_and_are_many() -> None:
    cases = [c.values[0] for c in _cases()]
    assert len(cases) >= 100
    sections = {c["section"].split(".")[0] for c in cases}
    assert sections >= {"2", "3", "4", "5", "6", "7", "8", "9", "10"}


def test_error_names_the_file_and_is_an_input_error() -> None:
    with pytest.raises(InputError, match=r"^out\.txt:2:3: bad bare key '1x'$"):
        parse("R a=1\nR 1x=2\n", path="out.txt")


_scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text()
    | st.sampled_from(["true", "null", "7", "-1.5e3", "a b", "a=b", '"', "\\", "\u2028", ""])
)
_json_values = st.recursive(
    _scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
    max_leaves=10,
)
_kinds = st.sampled_from("ABCDEFGHIJKLMNOPQRSTUVWXYZ")


def _same(a: Any, b: Any) -> bool:
    """Equal as JSON values: 1.0 == 1 is fine, but 1 == True is not."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, float) or isinstance(b, float):
        return isinstance(b, (int, float)) and isinstance(a, (int, float)) and math.isclose(a, b)
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(map(_same, a, b))
    if isinstance(a, dict):
        return isinstance(b, dict) and list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


@settings(max_examples=300, deadline=None)
@given(kind=_kinds, fields=st.dictionaries(st.text(), _json_values, max_size=6))
def test_any_json_fields_round_trip(kind: str, fields: dict[str, Any]) -> None:
    line = render_line(kind, fields)
    assert len(line.splitlines()) == 1  # no value can break its line, whatever splits it
    [(parsed_kind, parsed)] = parse(line)
    assert parsed_kind == kind
    assert _same(parsed, fields)  # every field, empty ones included (§7)


# -- the header's defaults (§4.1) ----------------------------------------------------------

_tokenizers = st.sampled_from(["o200k_base", "cl100k_base", "chars4"])


@settings(max_examples=300, deadline=None)
@given(
    total=st.integers(0, 10**6),
    data=st.data(),
    tokenizer=_tokenizers,
    over_budget=st.booleans(),
    lean=st.booleans(),
)
def test_a_header_reads_back_its_whole_account(
    total: int, data: st.DataObject, tokenizer: str, over_budget: bool, lean: bool
) -> None:
    """Whatever a writer leaves out at its default, ``header`` gives back: the account
    the document was written with (``reduced`` is left out by a lean envelope, as ever)."""
    from agentout.formats.records import header

    included = data.draw(st.integers(0, total))
    reduced = data.draw(st.integers(0, included))
    omitted = total - included
    stats = Stats(total, included, omitted, reduced, 0, tokenizer, bool(omitted or reduced),
                  over_budget, lean)  # fmt: skip
    line = FORMAT.render(Document({}, stats, (), {})).splitlines()[0]
    read = header(parse(line)[0][1])
    assert (read["total"], read["included"], read["omitted"]) == (total, included, omitted)
    assert read["reduced"] == (0 if lean else reduced)
    assert (read["truncated"], read["over_budget"]) == (stats.truncated, over_budget)
    assert read["tokenizer"] == tokenizer
    for key in ("omitted", "reduced", "truncated", "over_budget"):  # at their default: absent
        if read[key] in (0, False):
            assert f" {key}=" not in line
    assert ("tokenizer=" in line) is (tokenizer != "o200k_base")


def test_the_default_tokenizer_is_agentouts() -> None:
    from agentout.formats.records import DEFAULT_TOKENIZER, HEADER_DEFAULTS
    from agentout.tokens import DEFAULT_TOKENIZER as TOKENS_DEFAULT

    assert DEFAULT_TOKENIZER == TOKENS_DEFAULT == HEADER_DEFAULTS["tokenizer"]


def test_a_header_of_an_earlier_writer_reads_the_same() -> None:
    """Documents written before the defaults were left out hold every field: read alike."""
    from agentout.formats.records import header

    old = "H agentout=1 total=3 included=3 omitted=0 truncated=false tokens=9 tokenizer=o200k_base"
    new = "H agentout=1 total=3 included=3 tokens=9"
    assert header(parse(old)[0][1]) == header(parse(new)[0][1])
