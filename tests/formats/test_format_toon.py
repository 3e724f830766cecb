from __future__ import annotations

import pytest
import toon_format

from agentout import Record, Result, pack
from agentout.formats import get_format
from agentout.formats.json import document_object
from agentout.formats.toon import TAB_FORMAT, ToonFormat


def _result() -> Result:
    rows = [
        {"id": 1, "name": "Ada", "city": "London, UK"},
        {"id": 2, "name": "Bob", "city": "Paris"},
    ]
    return Result.of([Record.of(r) for r in rows], header={"mode": "fit"}, summary={"rows": 2})


def test_toon_by_name_is_the_comma_variant() -> None:
    fmt = get_format("toon")
    assert isinstance(fmt, ToonFormat)
    assert (fmt.name, fmt.delimiter) == ("toon", ",")
    assert (TAB_FORMAT.name, TAB_FORMAT.delimiter) == ("toon-tab", "\t")


def test_uniform_records_become_one_table() -> None:
    text = pack(_result(), format="toon").text
    lines = text.splitlines()
    assert "records[2]{id,name,city}:" in lines
    assert '  1,Ada,"London, UK"' in lines  # the comma in a value is quoted
    assert text.endswith("summary:\n  rows: 2\n")


def test_tab_variant_needs_no_quotes_for_commas() -> None:
    text = pack(_result(), format=TAB_FORMAT).text
    assert "records[2\t]{id\tname\tcity}:" in text.splitlines()
    assert "  1\tAda\tLondon, UK" in text.splitlines()


@pytest.mark.parametrize("fmt", [ToonFormat(","), ToonFormat("\t")], ids=["comma", "tab"])
def test_decodes_to_the_document_object(fmt: ToonFormat) -> None:
    records = [
        Record.of({"id": 1, "tags": ["a", "b"], "meta": {"x": None, "y": "1"}}),
        Record.of({"id": 2, "msg": 'line\nbreak "q" \t tab'}, kind="E"),
    ]
    packed = pack(Result.of(records, header={"cmd": "pytest -q"}), format=fmt)
    assert toon_format.decode(packed.text) == document_object(packed.document)


def test_fragment_is_the_row_the_record_adds() -> None:
    fmt = get_format("toon")
    packed = pack(_result(), format=fmt)
    for record, view in packed.document.records:
        assert fmt.fragment(record, view) in packed.text


def test_only_comma_and_tab() -> None:
    with pytest.raises(ValueError, match="delimiter"):
        ToonFormat("|")
