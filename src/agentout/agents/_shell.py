"""A shell command as a hook sees it: parsed by tree-sitter's bash grammar, never by regexes.

``analyse(command)`` returns a ``Script``: the command split into its simple commands
(``Segment``) at the operators bash and Claude Code split at (``&&``, ``||``, ``;``, ``|``,
``|&``, newlines), each with its source text and, when every word is a plain literal,
its words as the program will see them. ``Script.plain`` says whether the whole command
is made only of such commands joined by those operators, with no redirection other
than to ``/dev/null`` or ``2>&1``: nothing a shell would expand (``$VAR``, ``$(...)``,
globs, ``~``, braces), no heredoc, no background job, no subshell, group, loop,
function or comment, and no character on which bash and tree-sitter may split words
differently (``splits_alike``). Only a plain script is ever rewritten; anything else, or anything
the grammar cannot parse, is left as it was.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing is not imported at run time: the hook is timed
if TYPE_CHECKING:
    from typing import Any

__all__ = ["Script", "Segment", "analyse", "joined", "splits_alike"]

_SEPARATORS = {"&&", "||", ";", "|", "|&", "\n", ";;"}
_NULL_TARGETS = {"/dev/null"}
_GLOB_OR_EXPANSION = set("*?[]{}~$`")


class Segment:
    """One simple command: its source text, and its literal words (None if any word is
    not a plain literal, or if it has a variable assignment); ``redirected``: output sent
    to /dev/null (``2>&1`` alone is not counted: stdout and stderr merged is how agentout
    reads a command anyway; any other redirection makes the script not plain)."""

    __slots__ = ("redirected", "text", "words")

    def __init__(self, text: str, words: tuple[str, ...] | None, redirected: bool = False):
        self.text, self.words, self.redirected = text, words, redirected

    def __repr__(self) -> str:
        return f"Segment({self.text!r}, {self.words!r}, redirected={self.redirected})"


class Script:
    """A parsed command: its simple commands, the operators between them, and whether
    it is plain (see the module docstring)."""

    __slots__ = ("operators", "plain", "segments", "text")

    def __init__(
        self,
        text: str,
        segments: tuple[Segment, ...],
        plain: bool,
        operators: tuple[str, ...] = (),
    ) -> None:
        self.text, self.segments, self.plain, self.operators = text, segments, plain, operators

    @property
    def simple(self) -> bool:
        """One command, no operator, no redirection but ``2>&1``: it can run as argv, with
        no shell."""
        return len(self.segments) == 1 and not self.operators and not self.segments[0].redirected


_PARSER: Any = None


def _parser() -> Any:
    global _PARSER
    if _PARSER is None:
        core = _binding("tree_sitter")
        _PARSER = core.Parser(core.Language(_binding("tree_sitter_bash").language()))
    return _PARSER


def _binding(package: str) -> Any:
    """A package's ``_binding`` extension module, loaded from its file without running the
    package's ``__init__``: tree-sitter's imports typing, tree-sitter-bash's imports
    importlib.resources and pathlib, together more than the parse itself costs."""
    import importlib
    import importlib.machinery
    import importlib.util
    import os

    spec = importlib.util.find_spec(package)  # finds the package, does not run it
    suffixes = tuple(importlib.machinery.EXTENSION_SUFFIXES)
    for location in (spec.submodule_search_locations or []) if spec is not None else []:
        for name in sorted(os.listdir(location)):
            if name.startswith("_binding.") and name.endswith(suffixes):
                loader = importlib.machinery.ExtensionFileLoader(
                    f"{package}._binding", os.path.join(location, name)
                )
                module_spec = importlib.util.spec_from_loader(loader.name, loader)
                assert module_spec is not None
                module = importlib.util.module_from_spec(module_spec)
                loader.exec_module(module)
                return module
    return importlib.import_module(f"{package}._binding")  # an unusual install


def splits_alike(command: str) -> bool:
    """Whether bash and tree-sitter surely split ``command`` into the same words: not when
    it holds a character other than tab and newline that is not printable (``\\r``, form
    feed, vertical tab, no-break space, line separator, zero-width characters...), which
    one of them may take for a blank and the other for part of a word (``git checkout\\r.``
    is ``git checkout .`` to tree-sitter, and ``git`` with the one word ``checkout\\r.``
    to bash)."""
    return command.replace("\n", "").replace("\t", "").isprintable()


def joined(command: str) -> str:
    """``command`` with its line continuations joined as bash joins them before it splits
    words: a backslash before a newline is taken out with the newline, but in single
    quotes, ``$'...'`` and comments, and after a backslash that is itself quoted.
    tree-sitter's grammar splits a word at such a newline that bash does not split at:
    ``--format=%s\\<newline>--output=f`` is one word to bash, two to tree-sitter. A
    command with a heredoc is left as it is (its body has rules of its own; a heredoc
    is never plain)."""
    if "\\\n" not in command or "<<" in command:
        return command
    out: list[str] = []
    state = ""  # "": unquoted; "'", '"', "$'" (ANSI-C), "#" (a comment)
    index = 0
    while index < len(command):
        char = command[index]
        if state in ("", '"', "$'") and char == "\\" and index + 1 < len(command):
            following = command[index + 1]
            if following == "\n" and state != "$'":
                index += 2
                continue
            out += (char, following)
            index += 2
            continue
        if state == "":
            if char == "#" and (not out or out[-1] in " \t\n;&|()<>"):
                state = "#"
            elif char == "'" and out and out[-1] == "$":
                state = "$'"
            elif char in "'\"":
                state = char
        elif char == {"'": "'", "$'": "'", '"': '"', "#": "\n"}[state]:
            state = ""  # the quote or the comment ends
        out.append(char)
        index += 1
    return "".join(out)


def analyse(command: str) -> Script | None:
    """The command's structure; None if bash's grammar cannot parse all of it. Its words
    are read after its line continuations are joined, as bash reads them (``joined``)."""
    source = joined(command).encode("utf-8", "surrogatepass")
    tree = _parser().parse(source)
    root = tree.root_node
    if root.has_error or root.type != "program":
        return None
    walker = _Walker(source)
    walker.statements(root)
    if not walker.segments:
        return None
    if not splits_alike(command):
        walker.plain = False
    return Script(command, tuple(walker.segments), walker.plain, tuple(walker.operators))


class _Walker:
    def __init__(self, source: bytes) -> None:
        self.source = source
        self.segments: list[Segment] = []
        self.operators: list[str] = []
        self.plain = True

    def text(self, node: Any) -> str:
        return self.source[node.start_byte : node.end_byte].decode("utf-8", "surrogatepass")

    def blank_between(self, node: Any) -> bool:
        """Whether only blanks lie between ``node``'s children (and its ends): the grammar
        skips a stray backslash there (``f \\ ;``) that bash reads as part of a word."""
        end = node.start_byte
        for child in [*node.children, None]:
            start = node.end_byte if child is None else child.start_byte
            if self.source[end:start].strip(b" \t\n"):
                return False
            end = end if child is None else child.end_byte
        return True

    def statements(self, node: Any) -> None:
        if not self.blank_between(node):
            self.plain = False
        for child in node.children:
            if child.is_named:
                self.statement(child)
            elif child.type in _SEPARATORS:
                self.operators.append(child.type)
            else:  # "&": a background job
                self.plain = False

    def statement(self, node: Any) -> None:
        kind = node.type
        if kind in ("list", "pipeline"):
            self.statements(node)
        elif kind == "command":
            self.segments.append(self.command(node, redirected=False))
        elif kind == "redirected_statement":
            if not self.blank_between(node):
                self.plain = False
            body = node.child_by_field_name("body")
            # The bindings give a new Node object on every access: compare by position.
            span = None if body is None else (body.start_byte, body.end_byte)
            redirects = [
                c for c in node.children if c.is_named and (c.start_byte, c.end_byte) != span
            ]
            kinds = [self.harmless_redirect(r) for r in redirects]
            if None in kinds:
                self.plain = False
            if body is None:
                self.plain = False
                return
            if body.type == "command":  # stdout and stderr merged is how agentout reads
                self.segments.append(self.command(body, redirected=kinds != ["merge"] * len(kinds)))
            else:
                self.statement(body)
        else:  # subshell, group, if/for/while/case, function, negation, test, comment...
            self.plain = False
            self.segments.append(Segment(self.text(node), None))

    def harmless_redirect(self, node: Any) -> str | None:
        """``"null"`` for ``>/dev/null``, ``2>/dev/null``, ``&>/dev/null`` (output dropped),
        ``"merge"`` for ``2>&1`` (output merged), None for anything else: nothing read or
        written."""
        if node.type != "file_redirect":
            return None
        operator = next((c.type for c in node.children if not c.is_named), "")
        destinations = node.children_by_field_name("destination")
        if len(destinations) != 1 or not self.blank_between(node):
            return None  # ``2>&1 a``: the grammar takes the command's next word for a target
        target = self.text(destinations[0])
        if operator in (">", ">>", "&>", "&>>") and target in _NULL_TARGETS:
            return "null"
        return "merge" if operator == ">&" and target in ("1", "2") else None

    def command(self, node: Any, *, redirected: bool) -> Segment:
        words: list[str] | None = [] if self.blank_between(node) else None
        for child in node.children:
            if not child.is_named:  # a word the grammar takes for an operator (``==``, ``=~``)
                words = None
                continue
            if child.type == "command_name":
                value = self.literal(child.named_children[0] if child.named_children else child)
            elif child.type in ("word", "string", "raw_string", "number", "concatenation"):
                value = self.literal(child)
            else:  # variable_assignment, expansions, substitutions, herestrings
                value = None
            if value is None or words is None:
                words = None
                continue
            words.append(value)
        if words is None or not words:
            self.plain = False
            return Segment(self.text(node), None, redirected)
        return Segment(self.text(node), tuple(words), redirected)

    def literal(self, node: Any) -> str | None:
        """The value bash gives this word, if it is a literal that expands to itself."""
        kind = node.type
        if kind == "concatenation":
            parts = [self.literal(c) for c in node.children]
            return None if any(p is None for p in parts) else "".join(p or "" for p in parts)
        raw = self.text(node)
        if kind == "raw_string":
            return raw[1:-1]
        if kind == "string":
            if any(c.is_named and c.type != "string_content" for c in node.children):
                return None
            return _unescape(raw[1:-1], inside_quotes=True)
        if kind in ("word", "number"):
            return _unescape(raw, inside_quotes=False)
        return None


def _unescape(raw: str, *, inside_quotes: bool) -> str | None:
    """Remove bash's backslash quoting; None if an unquoted character would expand."""
    out: list[str] = []
    index = 0
    while index < len(raw):
        char = raw[index]
        if char == "\\" and index + 1 < len(raw):
            following = raw[index + 1]
            if following == "\n":
                index += 2
                continue
            if inside_quotes and following not in '$`"\\':
                out.append(char)
                index += 1
                continue
            out.append(following)
            index += 2
            continue
        if inside_quotes and char in "$`":
            return None
        if not inside_quotes and (char in _GLOB_OR_EXPANSION or char in "\"'"):
            return None
        out.append(char)
        index += 1
    return "".join(out)
