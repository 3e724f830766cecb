"""The results each command packs: which notes, in which order, with which views."""

from __future__ import annotations

import pytest
from notes_support import EXAMPLE, MakeVault

from agentout import pack
from agentout.records import Lines, Record
from agentout.sources.notes import (
    WARNING,
    UnknownNoteError,
    context_result,
    index_result,
    load_vault,
    path_result,
    tree_result,
)


def _kinds(view: object) -> list[str]:
    assert isinstance(view, Lines)
    return [kind for kind, _ in view.lines]


def _ids(records: tuple[Record, ...], kind: str = "N") -> list[str]:
    return [r.tersest["id"] for r in records if r.kind == kind]


def test_every_result_opens_with_the_forced_warning() -> None:
    vault = load_vault(EXAMPLE)
    for result in (
        index_result(vault),
        context_result(vault, notes=["budgets"]),
        tree_result(vault, "budgets"),
        path_result(vault, "budgets", "bm25"),
    ):
        first = result.records[0]
        assert (first.kind, first.forced, dict(first.tersest)) == ("W", True, {"text": WARNING})
        assert not any(r.forced for r in result.records[1:])


def test_index_is_one_note_record_per_note_n_then_n_and_s() -> None:
    vault = load_vault(EXAMPLE)
    result = index_result(vault)
    notes = result.records[1:]
    assert _ids(notes) == list(vault.notes)
    budgets = next(r for r in notes if r.tersest["id"] == "budgets")
    assert [_kinds(v) for v in budgets.views] == [["N"], ["N", "S"]]
    assert budgets.fullest["summary"] == vault.notes["budgets"].summary
    empty = next(r for r in notes if r.tersest["id"] == "inbox/untitled-idea")
    assert len(empty.views) == 1  # no summary: no S view
    assert result.header["mode"] == "notes.index"
    assert result.header["notes"] == len(vault.notes)
    assert result.header["dangling"] == len(vault.graph.dangling) > 0


def test_index_without_summaries_has_only_n() -> None:
    result = index_result(load_vault(EXAMPLE), summaries=False)
    assert all(len(r.views) == 1 for r in result.records)


def test_index_filters_tags_nested_and_types(make_vault: MakeVault) -> None:
    root = make_vault(
        {
            "a.md": "---\ntags: [project/alpha, urgent]\ntype: task\n---\n",
            "b.md": "---\ntags: [project]\ntype: idea\n---\n",
            "c.md": "---\ntags: [projects]\ntype: task\n---\n",
        }
    )
    vault = load_vault(root)
    assert _ids(index_result(vault, tags=["project"]).records) == ["a", "b"]
    assert _ids(index_result(vault, tags=["#Project", "urgent"]).records) == ["a"]
    assert _ids(index_result(vault, types=["task"]).records) == ["a", "c"]
    assert _ids(index_result(vault, types=["idea", "TASK"]).records) == ["a", "b", "c"]


def test_context_named_notes_in_order_with_path_and_body() -> None:
    vault = load_vault(EXAMPLE)
    result = context_result(vault, notes=["tokenizers", "budgets", "tokenizers"], with_body=True)
    notes = result.records[1:]
    assert _ids(notes) == ["tokenizers", "budgets"]
    assert [_kinds(v) for v in notes[1].views] == [["N"], ["N", "S"], ["N", "S", "B"]]
    assert notes[1].tersest["path"] == "concepts/budgets.md"
    assert notes[1].fullest["body"] == vault.body("budgets")
    assert notes[1].fullest["body"].startswith("# Token budgets\n\nA context window")


def test_context_with_edges_lists_each_edge_once_after_its_note() -> None:
    vault = load_vault(EXAMPLE)
    result = context_result(vault, notes=["budgets", "exact-counts"], with_edges=True)
    kinds = [r.kind for r in result.records]
    assert kinds[:2] == ["W", "N"]
    edges = [
        (r.tersest["from"], r.tersest["to"], r.tersest["type"])
        for r in result.records
        if r.kind == "E"
    ]
    assert len(edges) == len(set(edges))
    assert ("budgets", "exact-counts", "depends-on") in edges
    second_note = kinds.index("N", 2)
    assert all(
        "budgets" in (r.tersest["from"], r.tersest["to"]) for r in result.records[2:second_note]
    )


def test_context_query_ranks_by_relevance_ties_by_id(make_vault: MakeVault) -> None:
    root = make_vault(
        {
            "zebra.md": "Zebras graze on the savanna grass.\n",
            "tokens.md": "Token budgets: count tokens exactly, tokens matter.\n",
            "b-twin.md": "Budgets for travel.\n",
            "a-twin.md": "Budgets for travel.\n",
        }
    )
    vault = load_vault(root)
    result = context_result(vault, query="token budgets")
    assert _ids(result.records) == ["tokens", "a-twin", "b-twin"]  # zebra shares no word
    scores = [r.tersest["score"] for r in result.records[1:]]
    assert scores == sorted(scores, reverse=True)
    assert scores[1] == scores[2]
    limited = context_result(vault, notes=["zebra"], query="token budgets", limit=1)
    assert _ids(limited.records) == ["zebra", "tokens"]  # named first, then the best match
    assert "score" not in limited.records[1].tersest
    assert _ids(context_result(vault, query="the and of").records) == []  # stop words only


def test_context_unknown_note_is_an_error_with_suggestions() -> None:
    with pytest.raises(UnknownNoteError, match=r"no note 'budget' in .*did you mean 'budgets'"):
        context_result(load_vault(EXAMPLE), notes=["budget"])


def test_tree_result_interleaves_notes_and_their_edges() -> None:
    vault = load_vault(EXAMPLE)
    result = tree_result(vault, "budgets", max_depth=1, direction="out")
    records = result.records[1:]
    assert records[0].kind == "N"
    assert records[0].tersest["depth"] == 0
    out_of_root = [r.tersest["to"] for r in records if r.kind == "E"]
    assert "exact-counts" in out_of_root
    assert all(r.tersest["from"] == "budgets" for r in records if r.kind == "E")
    assert {r.tersest["depth"] for r in records[1:] if r.kind == "N"} == {1}
    assert result.header["root"] == "budgets"
    assert (result.header["direction"], result.header["max_depth"]) == ("out", 1)


def test_path_result_alternates_notes_and_edges() -> None:
    vault = load_vault(EXAMPLE)
    result = path_result(vault, "tokenizers", "whole-records", direction="out")
    kinds = "".join(r.kind for r in result.records[1:])
    assert kinds == "NENEN"
    assert result.header["found"] is True
    assert result.header["length"] == 2
    text = pack(result).text
    assert "E from=tokenizers type=related to=budgets via=wiki" in text


def test_path_not_found_says_so(make_vault: MakeVault) -> None:
    vault = load_vault(make_vault({"a.md": "", "b.md": ""}))
    result = path_result(vault, "a", "b")
    assert result.header["found"] is False
    assert [r.kind for r in result.records] == ["W"]
