"""A note's summary, in qipu's order, as one line of plain text.

1. the front matter ``summary`` field;
2. the first paragraph under a heading named ``Summary`` (any level, up to the next
   heading of the same or a higher level);
3. the first paragraph of the body;
4. empty.

A paragraph is a top-level one (not a list item, not a quote). Its text is what a
reader sees: emphasis markers and link targets dropped, a wiki link shown by its alias
(or target), line breaks and runs of spaces made one space.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from markdown_it.token import Token

__all__ = ["extract_summary", "inline_text"]

_SUMMARY_HEADING = "summary"


def extract_summary(front_summary: str, tokens: Sequence[Token]) -> str:
    if front_summary.strip():
        return " ".join(front_summary.split())
    return _under_summary_heading(tokens) or _first_paragraph(tokens)


def inline_text(token: Token) -> str:
    """The plain text of an ``inline`` token, whitespace collapsed."""
    parts: list[str] = []
    for child in token.children or ():  # an image is one child: its alt text is left out
        if child.type in ("text", "code_inline", "wikilink"):
            parts.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            parts.append(" ")
    return " ".join("".join(parts).split())


def _under_summary_heading(tokens: Sequence[Token]) -> str:
    for i, token in enumerate(tokens):
        if token.type != "heading_open":
            continue
        if inline_text(tokens[i + 1]).casefold() != _SUMMARY_HEADING:
            continue
        level = int(token.tag[1:])
        for j in range(i + 3, len(tokens)):
            later = tokens[j]
            if later.type == "heading_open" and int(later.tag[1:]) <= level:
                break
            if later.type == "paragraph_open" and later.level == 0:
                text = inline_text(tokens[j + 1])
                if text:
                    return text
        return ""
    return ""


def _first_paragraph(tokens: Sequence[Token]) -> str:
    for i, token in enumerate(tokens):
        if token.type == "paragraph_open" and token.level == 0:
            text = inline_text(tokens[i + 1])
            if text:
                return text
    return ""
