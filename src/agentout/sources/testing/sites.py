"""The shape of a failing statement: what makes two failures "the same assertion site".

Two tests of one class (or module) that fail in ``self.assertEqual(...)``, or in the same
helper call (``self.check_wrap(...)``), or in asserts that compare the results of the same
calls (``assert list(intersperse(...)) == [...]``), fail at one site, whatever values they
compared. The shape is read from the test file's source (parsed once per file): the
innermost statement holding the failing line, reduced to what it calls; a statement that
calls nothing (``assert actual == expected``) is its own shape.
"""

from __future__ import annotations

import ast
import functools
import linecache
from pathlib import Path

__all__ = ["site_shape"]

_SHAPE_CHARS = 200


@functools.lru_cache(maxsize=64)
def _tree(path: str) -> ast.Module | None:
    source = "".join(linecache.getlines(path))
    if not source:
        return None
    try:
        return ast.parse(source, filename=path)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None


def _statement(tree: ast.Module, line: int) -> ast.stmt | None:
    """The innermost statement whose lines hold ``line``."""
    best: ast.stmt | None = None
    for node in ast.walk(tree):
        if not isinstance(node, ast.stmt):
            continue
        end = getattr(node, "end_lineno", None) or node.lineno
        if node.lineno <= line <= end and (
            best is None or end - node.lineno <= (best.end_lineno or best.lineno) - best.lineno
        ):
            best = node
    return best


def _callee(func: ast.expr) -> str:
    """``self.assertEqual``, ``mi.intersperse``, ``assert_that().is_equal_to``."""
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return f"{_callee(func.value)}.{func.attr}"
    if isinstance(func, ast.Call):
        return f"{_callee(func.func)}()"
    return type(func).__name__


def _calls(node: ast.AST) -> list[str]:
    """The names of everything called in ``node``, in order, each once."""
    names = [_callee(n.func) for n in ast.walk(node) if isinstance(n, ast.Call)]
    return list(dict.fromkeys(names))


def _shape(node: ast.stmt) -> str:
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
        return _callee(node.value.func)  # a helper call: its arguments do not matter
    if isinstance(node, (ast.With, ast.AsyncWith)):
        return "with " + " ".join(_calls(ast.Tuple([i.context_expr for i in node.items])))
    calls = _calls(node)
    kind = type(node).__name__.lower()
    if isinstance(node, ast.Assert):
        ops = node.test.ops if isinstance(node.test, ast.Compare) else []
        kind = " ".join(["assert", *(type(op).__name__ for op in ops)])
        node = ast.Assert(node.test)  # the message does not make a site
    if calls:
        return f"{kind} {' '.join(calls)}"
    return ast.unparse(node)  # nothing called: the statement itself


def site_shape(path: Path, line: int) -> str:
    """The shape of the statement at ``line`` of ``path``; "" when it cannot be read."""
    tree = _tree(str(path))
    if tree is None:
        return ""
    node = _statement(tree, line)
    if node is None:
        return ""
    try:
        return _shape(node)[:_SHAPE_CHARS]
    except (ValueError, RecursionError, MemoryError):
        return ""
