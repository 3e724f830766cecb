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
import re
from pathlib import Path

from agentout.sources.testing.model import Run

__all__ = ["add_text_sites", "site_shape", "text_shape"]

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


# -- other languages: the failing line's text -------------------------------------------

_CALLEE = re.compile(r"([A-Za-z_$][\w$.:]*!?)\s*\(")
_STRING = re.compile(r"\"(?:[^\"\\\n]|\\.)*\"|'(?:[^'\\\n]|\\.)*'|`[^`\n]*`")
_NUMBER = re.compile(r"\d+")
_KEYWORDS = frozenset({"if", "for", "while", "switch", "return", "new", "await", "match"})
_STATEMENT_LINES = 6
# Where a JVM runner's file (com/example/CartTest.java) lives in a project.
_JVM_ROOTS = ("", "src/test/java", "src/test/kotlin", "src/test/scala", "src/it/java")


def text_shape(text: str) -> str:
    """The shape of a statement in any language: what it calls, and its string literals
    with numbers folded (``t.Errorf("got %d, want %d", got, 200)`` and the same call with
    other values are one shape); "" when it calls nothing."""
    calls = [c for c in _CALLEE.findall(text) if c not in _KEYWORDS]
    if not calls:
        return ""
    strings = [_NUMBER.sub("N", s) for s in _STRING.findall(text)]
    return " ".join([*dict.fromkeys(calls), *strings])[:_SHAPE_CHARS]


def _statement_text(path: Path, line: int) -> str:
    """The line and, while its brackets are open, the lines after it."""
    text = ""
    for number in range(line, line + _STATEMENT_LINES):
        more = linecache.getline(str(path), number)
        if not more:
            break
        text += more
        bare = _STRING.sub("", text)
        if sum(bare.count(c) for c in "([{") <= sum(bare.count(c) for c in ")]}"):
            break
    return text


def add_text_sites(run: Run, cwd: Path) -> Run:
    """``run`` with each failed assertion's ``site`` read from its test file's line, for
    runners whose results name a file and line but no statement (JavaScript, Go, Rust,
    the JVM). A file that is not on disk under ``cwd`` gives no site."""
    from dataclasses import replace

    failures = []
    for failure in run.failures:
        if not failure.site and failure.line and failure.is_assertion and failure.file:
            for base in _JVM_ROOTS if failure.file.endswith((".java", ".kt", ".scala")) else ("",):
                path = cwd / base / failure.file
                if path.is_file():
                    failure = replace(failure, site=text_shape(_statement_text(path, failure.line)))
                    break
        failures.append(failure)
    return replace(run, failures=tuple(failures))
