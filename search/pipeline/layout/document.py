"""A whole document's structure: each page's ink, then what needs every page at once
(furniture, the body text's size, heading levels), then each page's tables, reading order
and blocks, then what crosses a page or column break (a paragraph or a table continued).

`read_structure` is the entry point: the blocks of a PDF in reading order, furniture
included (each page's headers first, its footers last).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, BinaryIO

from search.pipeline.layout import blocks as paragraphs
from search.pipeline.layout import furniture, order, tables, upright
from search.pipeline.layout.glyphs import read_ink
from search.pipeline.layout.model import (
    FIGURE,
    FOOTNOTE,
    HEADING,
    PARAGRAPH,
    TABLE,
    TITLE,
    Block,
    Box,
    Cell,
    Ink,
    Line,
    PageSize,
    Span,
    Structure,
    rows_text,
)
from search.pipeline.page import OnPages
from search.pipeline.reopened import Reopened

CONTINUES = re.compile(r"[^.!?:;…\"\u201d\u2019')\]]$")


@dataclass
class _Item:
    """A thing to put in reading order: a span, a table or a figure."""

    box: Box
    span: Span | None = None
    table: tables.Found | None = None


def read_structure(
    source: bytes | BinaryIO, *, max_pages: int, on_pages: OnPages | None = None
) -> Structure:
    """The structure of the PDF `source`: its blocks page by page in reading order."""
    pdf = Reopened(source)
    try:
        count = min(len(pdf), max_pages)
        inks = []
        for index in range(count):
            if on_pages is not None:
                on_pages(index, count)
            inks.append(_ink(pdf, index))
        if on_pages is not None:
            on_pages(count, count)
    finally:
        pdf.close()
    return structure(inks)


def _ink(pdf: Any, index: int) -> Ink:
    page = pdf[index]
    try:
        return read_ink(page)
    finally:
        page.close()


def structure(shown: Sequence[Ink]) -> Structure:
    """The structure of a document whose pages' ink is `shown` (as each page is shown)."""
    turns = [upright.turn_of(ink) for ink in shown]
    inks = [upright.turned(ink, turn) for ink, turn in zip(shown, turns, strict=True)]
    body_size = _body_size(inks)
    ruled = []
    for ink in inks:
        taken: set[int] = set()
        ruled.append(tables.ruled(ink.rules, ink.spans, taken))
    kinds = furniture.find(
        inks, [[(t.box.x0, t.box.y0, t.box.x1, t.box.y1) for t in page] for page in ruled]
    )
    pages: list[list[tuple[Block, tuple[float, bool] | None]]] = []
    for number, (ink, found, furnished) in enumerate(zip(inks, ruled, kinds, strict=True), 1):
        pages.append(_page(number, ink, found, furnished, body_size))
    _levels([pair for page in pages for pair in page])
    blocks = _continued([block for page in pages for block, _ in page])
    upright.back(blocks, turns, list(shown))
    return Structure([PageSize(ink.width, ink.height) for ink in shown], blocks)


def _body_size(inks: Sequence[Ink]) -> float:
    sizes: Counter[float] = Counter()
    for ink in inks:
        for span in ink.spans:
            sizes[round(span.size * 2) / 2] += len(span.text)
    return sizes.most_common(1)[0][0] if sizes else 10.0


def _page(
    number: int,
    ink: Ink,
    ruled: list[tables.Found],
    furnished: dict[int, str],
    body_size: float,
) -> list[tuple[Block, tuple[float, bool] | None]]:
    taken = set(furnished)
    for table in ruled:
        taken.update(table.spans)
    found = ruled + tables.unruled(ink.spans, taken)
    items = [_Item(span.box, span=span) for i, span in enumerate(ink.spans) if i not in taken]
    items += [_Item(table.box, table=table) for table in found]
    items += [_Item(image) for image in ink.images if not _inside_any(image, found)]
    ordered = order.reading_order(items, lambda item: item.box, body_size)
    head = [
        (_furniture(ink.spans[i], kind, number), None)
        for i, kind in sorted(furnished.items(), key=lambda pair: ink.spans[pair[0]].box.y0)
    ]
    top = [pair for pair in head if pair[0].box.cy < ink.height / 2]
    bottom = [pair for pair in head if pair[0].box.cy >= ink.height / 2]
    body: list[tuple[Block, tuple[float, bool] | None]] = []
    run: list[Span] = []

    def flush() -> None:
        for draft in paragraphs.drafts(paragraphs.lines_of(run)):
            block = paragraphs.block_of(draft, number, body_size, ink.height)
            body.append((block, paragraphs.style(draft) if block.kind == HEADING else None))
        run.clear()

    for item in ordered:
        if item.span is not None:
            run.append(item.span)
            continue
        flush()
        if item.table is not None:
            body.append((_table(item.table, number), None))
        else:
            body.append((Block(FIGURE, "", number, item.box), None))
    flush()
    found_here = top + body + bottom
    for block, _ in found_here:
        block.source, block.confidence = ink.source, ink.confidence
    return found_here


def _inside_any(box: Box, found: list[tables.Found]) -> bool:
    return any(t.box.contains_point(box.cx, box.cy) for t in found)


def _furniture(span: Span, kind: str, page: int) -> Block:
    return Block(kind=kind, text=span.text, page=page, box=span.box)


def _table(found: tables.Found, page: int) -> Block:
    rows = rows_text(found.cells)
    return Block(kind=TABLE, text=rows, page=page, box=found.box, cells=found.cells)


def _levels(pairs: list[tuple[Block, tuple[float, bool] | None]]) -> None:
    """Heading levels by style, largest first; the document's first heading is its title
    (level 0) when it is on the first page in a style no other heading has, the largest."""
    _demote_runs(pairs)
    headings = [(block, style) for block, style in pairs if style is not None]
    if not headings:
        return
    styles = sorted({style for _, style in headings}, key=lambda s: (-s[0], not s[1]))
    first, first_style = headings[0]
    counts = Counter(style for _, style in headings)
    titled = first.page == 1 and first_style == styles[0] and counts[first_style] == 1
    for block, style in headings:
        rank = styles.index(style)
        if titled and block is first:
            block.kind, block.level = TITLE, 0
        else:
            block.level = rank if titled else rank + 1


def _demote_runs(pairs: list[tuple[Block, tuple[float, bool] | None]]) -> None:
    """Blocks one after another in one heading style are not headings: an author's name
    and a date under a title, a list set large. A heading heads something."""
    body = [(i, style) for i, (block, style) in enumerate(pairs) if not block.furniture]
    start = 0
    while start < len(body):
        end = start
        style = body[start][1]
        while style is not None and end + 1 < len(body) and body[end + 1][1] == style:
            end += 1
        if end > start:
            for i, _ in body[start : end + 1]:
                block = pairs[i][0]
                block.kind = PARAGRAPH
                pairs[i] = (block, None)
        start = end + 1


def _continued(blocks: list[Block]) -> list[Block]:
    """Paragraphs and tables broken by a page or column break, made one."""
    kept: list[Block] = []
    last: Block | None = None  # the last body block, footnotes and furniture aside
    for block in blocks:
        if block.furniture or block.kind == FOOTNOTE:
            kept.append(block)
            continue
        if last is not None and _breaks(last, block) and _joins(last, block):
            _merge(last, block)
            continue
        kept.append(block)
        last = block
    return kept


def _breaks(before: Block, after: Block) -> bool:
    """A page or column break lies between the two."""
    if after.page != before.page:
        return True
    moved_up = after.box.y0 < before.box.y0 - 1
    side_by_side = after.box.x0 >= before.box.x1 - 1 or after.box.x1 <= before.box.x0 + 1
    return moved_up and side_by_side


def _joins(before: Block, after: Block) -> bool:
    if before.kind == PARAGRAPH and after.kind == PARAGRAPH:
        return bool(CONTINUES.search(before.text)) and bool(after.text)
    if before.kind == TABLE and after.kind == TABLE:
        width = {max(c.column + c.columns for c in b.cells) for b in (before, after)}
        return len(width) == 1
    return False


def _merge(into: Block, more: Block) -> None:
    into.parts.append((more.page, more.box))
    if into.kind == TABLE:
        rows = into.rows()
        offset = len(rows)
        cells = more.cells
        if rows and more.rows() and more.rows()[0] == rows[0]:  # the header row repeated
            cells = [c for c in cells if c.row > 0]
            offset -= 1
        into.cells.extend(
            Cell(c.row + offset, c.column, c.text, c.box, c.rows, c.columns, False, more.page)
            for c in cells
        )
        into.text = rows_text(into.cells)
        return
    into.text, (_, start) = paragraphs.join([into.text, more.text])
    into.lines += [Line(line.page, line.box, line.start + start) for line in more.lines]
