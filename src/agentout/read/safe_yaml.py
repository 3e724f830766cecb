"""YAML 1.2 loaded safely: plain data only, alias bombs refused before they expand.

The loader is ``ruamel.yaml``'s safe one, pure Python, which reads YAML 1.2: ``on``,
``off``, ``yes``, ``no``, ``y`` and ``n`` are strings (a GitHub Actions workflow keeps its
``on:`` key), ``010`` is ten, and no tag ever builds an object (``!!python/object`` is
refused). A duplicate key is an error, as YAML 1.2 says.

Aliases are followed, so a billion-laughs document composes to a few dozen nodes that
expand to a billion strings as soon as anything walks the data. The node graph is
measured before it is constructed: if aliases would add more than ``MAX_ALIAS_NODES``
nodes, or an alias refers to a node that contains it, the document is refused. So is a
document nested deeper than ``MAX_DEPTH`` (the limit JSON has, see
``agentout.read.stream``): checked on the parser's events before composing, and on
the node graph after, for the depth aliases add.

The data comes back JSON-shaped: string keys, dates and times as the text they were
written as, sets as sorted lists, binary as its base64 text. A number no JSON value can
hold (``.inf``, ``.nan``, ``1e999``, ``1e-400``, an integer of more than 4,300 digits, in
any base: ``0x`` and 5,000 hex digits) is kept as its text
(``agentout.records.values.NumberText``), so a format writes it as a string and counts it
(``numbers_as_text``). Anything the loader raises on a value is an
``InputError`` at the value's ``FILE:LINE``.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.constructor import SafeConstructor
from ruamel.yaml.error import MarkedYAMLError, YAMLError
from ruamel.yaml.events import CollectionEndEvent, CollectionStartEvent
from ruamel.yaml.nodes import CollectionNode, MappingNode, Node, ScalarNode, SequenceNode

from agentout.errors import InputError
from agentout.read.stream import MAX_DEPTH
from agentout.records.values import NumberText, number_or_text

__all__ = ["MAX_ALIAS_NODES", "TOO_DEEP", "deeper_than_max", "load_documents", "plain"]

# A hand-written knowledge base uses aliases for a few shared blocks; a bomb adds millions.
MAX_ALIAS_NODES = 100_000
TOO_DEEP = f"YAML nested deeper than {MAX_DEPTH} levels"

# Every collection is opened by one of these (a flow bracket, "- ", "key:", "? key").
_OPENERS = "[{-:?"


def deeper_than_max(text: str) -> int | None:
    """The line (0-based) where ``text`` first nests collections deeper than MAX_DEPTH,
    or None; from the parser's events, so safe to call before composing. Aliases are
    not expanded here (``load_documents`` checks them on the node graph)."""
    if sum(map(text.count, _OPENERS)) <= MAX_DEPTH:
        return None  # too few openers to nest that deep: the usual small document
    depth = 0
    for event in _yaml().parse(text):
        if isinstance(event, CollectionStartEvent):
            depth += 1
            if depth > MAX_DEPTH:
                mark = event.start_mark
                return int(mark.line) if mark is not None else 0
        elif isinstance(event, CollectionEndEvent):
            depth -= 1
    return None


class _NodeError(Exception):
    def __init__(self, message: str, node: Node, *, column: bool = False) -> None:
        super().__init__(message)
        self.node, self.column = node, column


def _children(node: Node) -> list[Node]:
    if isinstance(node, SequenceNode):
        return list(node.value)
    if isinstance(node, MappingNode):
        return [part for pair in node.value for part in pair]
    return []


def _check(root: Node) -> None:
    """Refuse a node graph whose aliases expand too far, loop, or nest too deep;
    O(distinct nodes)."""
    sizes: dict[int, int] = {}  # id(node) -> expanded size, capped
    heights: dict[int, int] = {}  # id(node) -> levels of collections, itself included
    cap = MAX_ALIAS_NODES * 2  # saturate: the exact size of a bomb does not matter
    path: set[int] = set()  # nodes entered and not yet left: the current node's ancestors
    stack: list[tuple[Node, bool]] = [(root, False)]
    while stack:
        node, leaving = stack.pop()
        key = id(node)
        if leaving:
            path.discard(key)
            children = _children(node)
            sizes[key] = min(cap, 1 + sum(sizes[id(child)] for child in children))
            if isinstance(node, CollectionNode):
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


class _Constructor(SafeConstructor):
    """The safe constructor; dates stay text, a number JSON cannot hold stays its text,
    and an error on a value names the value's node."""

    def construct_non_recursive_object(self, node: Node, tag: str | None = None) -> Any:
        try:
            return super().construct_non_recursive_object(node, tag)
        except (MarkedYAMLError, _NodeError):
            raise
        except (ValueError, TypeError, OverflowError, ArithmeticError) as exc:
            message = f"{str(exc).partition(';')[0]} (YAML)"
            raise _NodeError(message, node, column=True) from None

    def construct_text(self, node: ScalarNode) -> str:
        return str(self.construct_scalar(node))

    def construct_number(self, node: ScalarNode) -> Any:
        text = str(self.construct_scalar(node))
        try:
            value = (
                self.construct_yaml_int(node)
                if node.tag == "tag:yaml.org,2002:int"
                else self.construct_yaml_float(node)
            )
        except ValueError:
            if text.lstrip("+-").replace("_", "").isdigit():  # too long for Python to read
                return NumberText(text)
            raise
        return number_or_text(value, text)


# Dates stay the text they were written as: JSON has no date, and jmespath compares text.
_Constructor.add_constructor("tag:yaml.org,2002:timestamp", _Constructor.construct_text)
_Constructor.add_constructor("tag:yaml.org,2002:binary", _Constructor.construct_text)
_Constructor.add_constructor("tag:yaml.org,2002:int", _Constructor.construct_number)
_Constructor.add_constructor("tag:yaml.org,2002:float", _Constructor.construct_number)


def _yaml() -> YAML:
    yaml = YAML(typ="safe", pure=True)
    yaml.Constructor = _Constructor
    yaml.allow_duplicate_keys = False
    return yaml


# Texts read before in this process, by their text: a server or a query walks the same
# files again and again, and the pure-Python loader reads about a megabyte a second.
_READ: dict[str, list[Any]] = {}
_READ_CHARS = 32 << 20  # the texts kept, at most (the oldest go first)


def load_documents(text: str, path: str, first_line: int = 1) -> list[Any]:
    """Every document of ``text``, plain; errors as ``InputError`` at ``path:LINE:COL``.

    ``first_line`` is the file line ``text`` starts on (front matter starts on line 2).
    A text read before comes back from memory, as a copy (the caller may change it).
    """
    known = _READ.pop(text, None)
    if known is None:
        known = list(_documents(text, path, first_line))
    if len(text) <= _READ_CHARS:
        while _READ and sum(map(len, _READ)) + len(text) > _READ_CHARS:
            del _READ[next(iter(_READ))]
        _READ[text] = known  # the most recent last
    return [_copy(document) for document in known]


def _copy(value: Any) -> Any:
    """A copy of plain data (what ``plain`` makes): new dicts and lists, the rest shared."""
    if isinstance(value, dict):
        return {key: _copy(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_copy(item) for item in value]
    return value


def _documents(text: str, path: str, first_line: int) -> Iterator[Any]:
    yaml = _yaml()
    try:
        deep = deeper_than_max(text)  # a syntax error is met here first: reported below
        if deep is not None:
            raise InputError(TOO_DEEP, path, deep + first_line)
        constructor, _ = yaml.get_constructor_parser(text)
        composer = yaml.composer
        while composer.check_node():
            node = composer.get_node()
            if node is None:
                continue
            _check(node)
            yield plain(constructor.construct_document(node))
    except _NodeError as exc:
        mark = exc.node.start_mark
        column = mark.column + 1 if exc.column else None
        raise InputError(str(exc), path, mark.line + first_line, column) from None
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        message = str(exc.problem or exc.context)
        if exc.problem and exc.context and exc.context_mark is not None:
            # where the unfinished construct began
            message += f" {exc.context} (from line {exc.context_mark.line + first_line})"
        message += " (YAML)"
        if mark is None:
            raise InputError(message, path) from None
        raise InputError(message, path, mark.line + first_line, mark.column + 1) from None
    except YAMLError as exc:
        raise InputError(f"{exc} (YAML)", path) from None
    except RecursionError:  # not met since the checks above; kept as a message, not a crash
        raise InputError(TOO_DEEP, path) from None


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
        return NumberText(str(value))
    if isinstance(value, bytes):
        return value.decode("ascii", "replace")
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return str(value)
