"""Markdown, parsed by markdown-it-py as CommonMark with GitHub's tables.

Headings (ATX "## Costs" and setext, underlined) keep their level; paragraphs and list
items are blocks of their own (a nested item after its parent); a table keeps its cells,
its head row as header cells; fenced and indented code is a paragraph that keeps its
line breaks. Inline marks go and their text stays: a link is its words, an image its alt
text. A YAML front matter block at the start is skipped, and so is raw HTML.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from markdown_it import MarkdownIt
from markdown_it.token import Token

from search.pipeline.formats.encoding import decode
from search.pipeline.formats.reading import Blocks, FormatReading, clean, pageless
from search.pipeline.layout.model import HEADING, LIST_ITEM, PARAGRAPH, Cell

# "---" on the first line, then YAML up to a line of "---" or "...".
_FRONT_MATTER = re.compile(r"\A(?:\ufeff)?---[ \t]*\n.*?\n(?:---|\.\.\.)[ \t]*(?:\n|\Z)", re.DOTALL)


def read_markdown(data: bytes) -> FormatReading:
    return pageless(markdown_blocks(decode(data)))


def markdown_blocks(text: str) -> Blocks:
    text = _FRONT_MATTER.sub("", text, count=1)
    tokens = MarkdownIt("commonmark").enable("table").parse(text)
    blocks = Blocks()
    items = 0  # how many list items the token at hand is inside
    at = 0
    while at < len(tokens):
        token = tokens[at]
        if token.type == "heading_open":
            blocks.add(HEADING, _inline(tokens[at + 1]), level=int(token.tag[1:]))
            at += 2
        elif token.type == "list_item_open":
            items += 1
        elif token.type == "list_item_close":
            items -= 1
        elif token.type == "paragraph_open":
            blocks.add(LIST_ITEM if items else PARAGRAPH, _inline(tokens[at + 1]))
            at += 2
        elif token.type in ("fence", "code_block"):
            blocks.add(PARAGRAPH, token.content, keep_lines=True)
        elif token.type == "table_open":
            end = _closing(tokens, at)
            blocks.add_table(_cells(tokens[at:end]))
            at = end
        at += 1
    return blocks


def _inline(token: Token) -> str:
    """An inline token's words, marks left out."""
    words = []
    for child in token.children or []:
        if child.type in ("text", "code_inline", "html_inline"):
            words.append(child.content if child.type != "html_inline" else "")
        elif child.type in ("softbreak", "hardbreak"):
            words.append(" ")
        elif child.type == "image":
            words.append(_inline(child))
    return "".join(words)


def _closing(tokens: Sequence[Token], start: int) -> int:
    depth = 0
    for at in range(start, len(tokens)):
        depth += tokens[at].nesting
        if depth == 0:
            return at
    return len(tokens) - 1


def _cells(tokens: Sequence[Token]) -> list[Cell]:
    cells: list[Cell] = []
    row, column = -1, 0
    for at, token in enumerate(tokens):
        if token.type == "tr_open":
            row, column = row + 1, 0
        elif token.type in ("th_open", "td_open"):
            text = clean(_inline(tokens[at + 1]))
            cells.append(Cell(row, column, text, header=token.tag == "th"))
            column += 1
    return cells
