"""The link graph of a vault: edges, a note's neighbourhood to a depth, shortest paths.

Every walk is breadth-first with neighbours in a fixed order (neighbour id, then link
type, then how the link was written), so the same vault gives the same tree and path
every time. A cycle is walked once: a note already reached is never expanded again.
A dangling edge (a link to a note that is not there) is listed, never followed.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal, NamedTuple

__all__ = ["DIRECTIONS", "Direction", "Edge", "Graph", "TreeNode", "shortest_path", "tree"]

Direction = Literal["out", "in", "both"]
DIRECTIONS: tuple[Direction, ...] = ("out", "in", "both")


class Edge(NamedTuple):  # a tuple: tens of thousands are made per load, quickly
    """``source`` links to ``target``: a note id, or the target as written if ``dangling``.

    ``via`` says how the link was written (``typed``, ``wiki``, ``markdown``); ``line`` is
    where, in the source note's file.
    """

    source: str
    target: str
    type: str
    via: str
    line: int
    heading: str = ""
    dangling: bool = False


@dataclass(frozen=True)
class TreeNode:
    """A note reached at ``depth``, with the edges followed or found from it."""

    id: str
    depth: int
    edges: tuple[Edge, ...]


def _order(step: tuple[Edge, str]) -> tuple[str, str, str, int]:
    edge, other = step
    return other, edge.type, edge.via, edge.line


class Graph:
    def __init__(self, edges: Iterable[Edge]) -> None:
        self._out: dict[str, list[Edge]] = {}
        self._in: dict[str, list[Edge]] = {}
        self.edges: tuple[Edge, ...] = tuple(edges)
        for edge in self.edges:
            self._out.setdefault(edge.source, []).append(edge)
            if not edge.dangling:
                self._in.setdefault(edge.target, []).append(edge)

    def steps(self, note_id: str, direction: Direction) -> list[tuple[Edge, str]]:
        """(edge, the note on its other side) pairs, in the walk's fixed order."""
        found: list[tuple[Edge, str]] = []
        if direction in ("out", "both"):
            found += [(e, e.target) for e in self._out.get(note_id, ())]
        if direction in ("in", "both"):
            found += [(e, e.source) for e in self._in.get(note_id, ()) if e.source != e.target]
        return sorted(found, key=_order)

    def edges_of(self, note_id: str) -> list[Edge]:
        """Every edge from or to the note, each once, in the walk's order."""
        return list(dict.fromkeys(edge for edge, _ in self.steps(note_id, "both")))

    @property
    def dangling(self) -> tuple[Edge, ...]:
        return tuple(edge for edge in self.edges if edge.dangling)


def tree(graph: Graph, root: str, max_depth: int, direction: Direction) -> list[TreeNode]:
    """The notes within ``max_depth`` links of ``root``, nearest first.

    Each node lists the edges walked from it (notes below ``max_depth`` are expanded);
    an edge is listed once even when both its ends are expanded (``direction="both"``).
    """
    if max_depth < 0:
        raise ValueError(f"max depth must be >= 0, got {max_depth}")
    depth = {root: 0}
    listed: set[Edge] = set()
    queue = deque([root])
    nodes: list[TreeNode] = []
    while queue:
        current = queue.popleft()
        found: list[Edge] = []
        if depth[current] < max_depth:
            for edge, other in graph.steps(current, direction):
                if edge in listed:
                    continue
                listed.add(edge)
                found.append(edge)
                if not edge.dangling and other not in depth:
                    depth[other] = depth[current] + 1
                    queue.append(other)
        nodes.append(TreeNode(current, depth[current], tuple(found)))
    return nodes


def shortest_path(
    graph: Graph, start: str, goal: str, direction: Direction
) -> Sequence[tuple[str, Edge | None]] | None:
    """The notes from ``start`` to ``goal``, each with the edge that led to it; None if none.

    Breadth-first, so the path is a shortest one; of several, the one whose notes come
    first in the walk's order.
    """
    came_from: dict[str, tuple[str, Edge] | None] = {start: None}
    queue = deque([start])
    while queue and goal not in came_from:
        current = queue.popleft()
        for edge, other in graph.steps(current, direction):
            if not edge.dangling and other not in came_from:
                came_from[other] = (current, edge)
                queue.append(other)
    if goal not in came_from:
        return None
    path: list[tuple[str, Edge | None]] = []
    node: str | None = goal
    while node is not None:
        step = came_from[node]
        path.append((node, step[1] if step else None))
        node = step[0] if step else None
    return path[::-1]
