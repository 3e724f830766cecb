"""YAML read before in this process comes back from memory: the same data, a copy the
caller may change, errors never remembered, memory bounded."""

from __future__ import annotations

import pytest

from agentout.errors import InputError
from agentout.read import safe_yaml

TEXT = "id: a\non: push\ntags: [x, y]\nnested: {deep: [1, {k: v}]}\n"


@pytest.fixture(autouse=True)
def empty(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(safe_yaml, "_READ", {})


def test_again_the_same_and_a_copy() -> None:
    first = safe_yaml.load_documents(TEXT, "a.yaml")
    first[0]["tags"].append("changed")
    first[0]["nested"]["deep"][1]["k"] = "changed"
    again = safe_yaml.load_documents(TEXT, "a.yaml")
    assert again == [
        {"id": "a", "on": "push", "tags": ["x", "y"], "nested": {"deep": [1, {"k": "v"}]}}
    ]
    assert TEXT in safe_yaml._READ


def test_errors_are_not_remembered() -> None:
    for _ in range(2):
        with pytest.raises(InputError, match=r"b\.yaml:2"):
            safe_yaml.load_documents("a: 1\na: 2\n", "b.yaml")
    assert safe_yaml._READ == {}


def test_bounded_oldest_first(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(safe_yaml, "_READ_CHARS", 30)
    texts = [f"n: {i}\nfill: {'x' * 5}\n" for i in range(5)]  # 16 characters each
    for text in texts:
        safe_yaml.load_documents(text, "c.yaml")
    assert list(safe_yaml._READ) == texts[-1:]
    safe_yaml.load_documents("big: " + "y" * 40, "d.yaml")  # larger than the bound: not kept
    assert list(safe_yaml._READ) == texts[-1:]
