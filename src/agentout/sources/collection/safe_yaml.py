"""YAML loaded safely: plain data only, and alias bombs refused before they expand.

``yaml.safe_load`` never builds arbitrary objects, but it does follow aliases: a
billion-laughs document composes to a few dozen nodes that expand to a billion strings
as soon as anything walks the data (a JSON dump, a text index, a token count). So the
node graph is measured before it is constructed: if aliases would add more than
``MAX_ALIAS_NODES`` nodes, or an alias refers to a node that contains it, the document
is refused. So is a document nested deeper than ``MAX_DEPTH`` (the limit JSON has, see
``agentout.sources._stream``): checked on the parser's events before libyaml composes
it (its composer recurses in C, and some ten thousand levels crash the process), and
on the node graph after, for the depth aliases add. The data comes back JSON-shaped:
string keys, timestamps as their text, sets as sorted lists, binary as its base64 text,
non-finite floats as strings.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import yaml

from agentout.errors import InputError
from agentout.sources._stream import MAX_DEPTH

__all__ = ["MAX_ALIAS_NODES", "TOO_DEEP", "deeper_than_max", "load_documents", "plain"]

# A hand-written knowledge base uses aliases for a few shared blocks; a bomb adds millions.
MAX_ALIAS_NODES = 100_000
TOO_DEEP = f"YAML nested deeper than {MAX_DEPTH} levels"

_Base: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml when it is there
# Every collection is opened by one of these (a flow bracket, "- ", "key:", "? key").
_OPENERS = "[{-:?"


def deeper_than_max(text: str) -> int | None:
    """The line (0-based) where ``text`` first nests collections deeper than MAX_DEPTH,
    or None; from the parser's events, so safe to call before composing. Aliases are
    not expanded here (``load_documents`` checks them on the node graph)."""
    if sum(map(text.count, _OPENERS)) <= MAX_DEPTH:
        return None  # too few openers to nest that deep: the usual small document
    depth = 0
    for event in yaml.parse(text, Loader=_Base):
        if isinstance(event, yaml.CollectionStartEvent):
            depth += 1
            if depth > MAX_DEPTH:
                mark = event.start_mark
                return int(mark.line) if mark is not None else 0
        elif isinstance(event, yaml.CollectionEndEvent):
            depth -= 1
    return None


class _NodeError(Exception):
    def __init__(self, message: str, node: yaml.Node) -> None:
        super().__init__(message)
        self.node = node


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    return []


def _check(root: yaml.Node) -> None:
    """Refuse a node graph whose aliases expand too far, loop, or nest too deep;
    O(distinct nodes)."""
    sizes: dict[int, int] = {}  # id(node) -> expanded size, capped
    heights: dict[int, int] = {}  # id(node) -> levels of collections, itself included
    cap = MAX_ALIAS_NODES * 2  # saturate: the exact size of a bomb does not matter
    path: set[int] = set()  # nodes entered and not yet left: the current node's ancestors
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, leaving = stack.pop()
        key = id(node)
        if leaving:
            path.discard(key)
            children = _children(node)
            sizes[key] = min(cap, 1 + sum(sizes[id(child)] for child in children))
            if isinstance(node, yaml.CollectionNode):
                heights[key] = 1 + max((heights[id(child)] for child in children), default=0)
                if heights[key] > MAX_DEPTH:
                    raise _NodeError(TOO_DEEP, node)
            else:
                heights[key] = 0
            continue
        if key in sizes:
            continue
        if key in path:
            raise _NodeError("an alias refers to a node that contains it (recursive)", node)
        path.add(key)
        stack.append((node, True))
        stack.extend((child, False) for child in _children(node) if id(child) not in sizes)
    extra = sizes[id(root)] - len(sizes)
    if extra > MAX_ALIAS_NODES:
        raise _NodeError(
            f"YAML aliases expand to more than {MAX_ALIAS_NODES:,} extra nodes "
            "(an alias bomb, like billion laughs?); refusing it",
            root,
        )


def _timestamp_text(loader: Any, node: yaml.ScalarNode) -> str:
    text: str = loader.construct_scalar(node)
    return text


class _Loader(_Base):  # type: ignore[misc]
    """The safe loader, measuring every document before constructing it."""

    def get_single_node(self) -> Any:
        node = super().get_single_node()
        if node is not None:
            _check(node)
        return node

    def get_node(self) -> Any:
        node = super().get_node()
        if node is not None:
            _check(node)
        return node


# Dates stay the text they were written as: JSON has no date, and jmespath compares text.
_Loader.add_constructor("tag:yaml.org,2002:timestamp", _timestamp_text)
_Loader.add_constructor("tag:yaml.org,2002:binary", _timestamp_text)


def load_documents(text: str, path: str, first_line: int = 1) -> Iterator[Any]:
    """Every document of ``text``, plain; errors as ``InputError`` at ``path:LINE:COL``.

    ``first_line`` is the file line ``text`` starts on (front matter starts on line 2).
    """
    loader = _Loader(text)
    try:
        deep = deeper_than_max(text)  # a syntax error is met here first: reported below
        if deep is not None:
            raise InputError(TOO_DEEP, path, deep + first_line)
        while loader.check_data():
            yield plain(loader.get_data())
    except _NodeError as exc:
        mark = exc.node.start_mark
        raise InputError(str(exc), path, mark.line + first_line) from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        message = f"{exc.problem or exc.context} (YAML)"
        if mark is None:
            raise InputError(message, path) from None
        raise InputError(message, path, mark.line + first_line, mark.column + 1) from None
    except yaml.YAMLError as exc:
        raise InputError(f"{exc} (YAML)", path) from None
    except RecursionError:  # not met since the checks above; kept as a message, not a crash
        raise InputError(TOO_DEEP, path) from None
    finally:
        loader.dispose()


def _key(key: Any) -> str:
    if isinstance(key, str):
        return key
    if isinstance(key, bool) or key is None:
        return {True: "true", False: "false", None: "null"}[key]
    return str(plain(key))


def plain(value: Any) -> Any:
    """``value`` as JSON-shaped data: str keys, lists, finite numbers, text for the rest."""
    if isinstance(value, dict):
        return {_key(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, (set, frozenset)):
        return sorted((plain(v) for v in value), key=repr)
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, bytes):
        return value.decode("ascii", "replace")
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return str(value)
