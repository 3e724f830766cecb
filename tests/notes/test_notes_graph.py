"""The link graph: trees by depth and direction, cycles, dangling edges, shortest paths."""

from __future__ import annotations

import pytest

from agentout.sources.notes.graph import Edge, Graph, TreeNode, shortest_path, tree


def _graph(*pairs: str) -> Graph:
    """Edges written ``"a>b"``; a target starting with ``?`` is dangling."""
    edges = []
    for number, pair in enumerate(pairs, start=1):
        source, target = pair.split(">")
        dangling = target.startswith("?")
        edges.append(Edge(source, target.lstrip("?"), "related", "wiki", number, "", dangling))
    return Graph(edges)


def _shape(nodes: list[TreeNode]) -> list[tuple[str, int, list[str]]]:
    return [(n.id, n.depth, [f"{e.source}>{e.target}" for e in n.edges]) for n in nodes]


def test_tree_out_by_depth_in_a_fixed_order() -> None:
    graph = _graph("a>c", "a>b", "b>d", "d>e", "x>a")
    assert _shape(tree(graph, "a", 2, "out")) == [
        ("a", 0, ["a>b", "a>c"]),
        ("b", 1, ["b>d"]),
        ("c", 1, []),
        ("d", 2, []),  # at the depth limit: not expanded
    ]


def test_tree_in_follows_backlinks() -> None:
    graph = _graph("a>c", "x>a", "y>x")
    assert _shape(tree(graph, "a", 5, "in")) == [
        ("a", 0, ["x>a"]),
        ("x", 1, ["y>x"]),
        ("y", 2, []),
    ]


def test_tree_both_lists_each_edge_once() -> None:
    graph = _graph("a>b", "b>a", "b>c")
    nodes = tree(graph, "a", 3, "both")
    listed = [e for n in nodes for e in n.edges]
    assert len(listed) == len(set(listed)) == 3
    assert [n.id for n in nodes] == ["a", "b", "c"]


def test_a_cycle_is_walked_once() -> None:
    graph = _graph("a>b", "b>c", "c>a")
    nodes = tree(graph, "a", 50, "out")
    assert _shape(nodes) == [("a", 0, ["a>b"]), ("b", 1, ["b>c"]), ("c", 2, ["c>a"])]


def test_dangling_edges_are_listed_never_followed() -> None:
    graph = _graph("a>?ghost", "a>b")
    nodes = tree(graph, "a", 3, "both")
    assert [n.id for n in nodes] == ["a", "b"]
    assert [(e.target, e.dangling) for e in nodes[0].edges] == [("b", False), ("ghost", True)]
    assert graph.dangling == (graph.edges[0],)


def test_depth_zero_is_the_root_alone() -> None:
    assert _shape(tree(_graph("a>b"), "a", 0, "both")) == [("a", 0, [])]
    with pytest.raises(ValueError, match="max depth"):
        tree(_graph("a>b"), "a", -1, "both")


def test_shortest_path_prefers_fewer_links_then_the_walk_order() -> None:
    graph = _graph("a>b", "b>c", "c>d", "a>x", "x>d", "a>y", "y>d")
    steps = shortest_path(graph, "a", "d", "out")
    assert steps is not None
    assert [node for node, _ in steps] == ["a", "x", "d"]
    assert steps[0][1] is None
    assert [f"{e.source}>{e.target}" for _, e in steps[1:] if e] == ["a>x", "x>d"]


def test_shortest_path_direction_matters() -> None:
    graph = _graph("a>b", "c>b")
    assert shortest_path(graph, "a", "c", "out") is None
    both = shortest_path(graph, "a", "c", "both")
    assert both is not None
    assert [node for node, _ in both] == ["a", "b", "c"]


def test_a_path_to_itself_and_through_a_dangling_edge() -> None:
    graph = _graph("a>?b")
    assert shortest_path(graph, "a", "a", "out") == [("a", None)]
    assert shortest_path(graph, "a", "b", "out") is None
