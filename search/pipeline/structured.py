"""Chunks that follow a document's structure (search/pipeline/layout): cut at headings,
never across sections, furniture left out.

- A heading starts a chunk. Each chunk carries its heading path (`section`, the headings
  above it from the top level down; the title is the document's, not a section's).
- A section's blocks fill a chunk up to the size limit (INGEST_CHUNK_SIZE), on one page: a
  chunk runs onto the next page only inside a block that does (a paragraph, a table), so
  a passage's page is its chunk's. A paragraph longer than the limit is cut at
  whitespace, the pieces overlapping by INGEST_CHUNK_OVERLAP.
- Sections too small to fill a chunk share one with the sections that follow, while they
  fit and have the same parent: the chunk's section is then the parent.
- A table is Markdown (HTML where a cell spans rows or columns), never cut inside a row.
  A table longer than the limit is cut into runs of rows, each under the header row; its
  caption travels with every piece.
- Each chunk has its page range and the box of each block it holds, with its page.
"""

from __future__ import annotations

import html
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace

from search.pipeline.layout.model import (
    CAPTION,
    FIGURE,
    HEADING,
    TABLE,
    TITLE,
    Block,
    Box,
    Cell,
    Structure,
    grid,
)
from search.pipeline.split import Piece, split_spans

SECTION_JOIN = " > "


def section_path(section: str) -> list[str]:
    """A chunk's stored section ("Results > Costs") as its headings, top level first."""
    return section.split(SECTION_JOIN) if section else []


@dataclass
class _Unit:
    """Text that goes into a chunk whole (but a paragraph longer than a chunk)."""

    text: str
    blocks: list[Block]
    table: Block | None = None  # a table: cut by rows, never inside one
    caption: Block | None = None


@dataclass
class _Section:
    path: tuple[str, ...]
    units: list[_Unit] = field(default_factory=list)

    @property
    def size(self) -> int:
        return sum(len(unit.text) + 2 for unit in self.units)


Where = list[tuple[int, Box]]  # boxes, each with its page


def split_structure(structure: Structure, *, size: int, overlap: int) -> list[Piece]:
    """The chunks of a document read with its structure."""
    if not 0 <= overlap < size:
        raise ValueError(f"overlap ({overlap}) must be at least 0 and below size ({size})")
    pieces: list[Piece] = []
    for path, units in _merged(_sections(structure.blocks), size):
        for text, blocks, where in _pack(units, size, overlap):
            pieces.append(_piece(len(pieces), text, blocks, where, path))
    if not structure.paged:  # no page a person sees: its one notional page, and no boxes
        return [replace(piece, boxes=()) for piece in pieces]
    return pieces


def _sections(blocks: Sequence[Block]) -> list[_Section]:
    """The body's blocks by section: each heading opens one, under the headings above it."""
    sections = [_Section(())]
    path: list[tuple[int, str]] = []  # (level, text) of the open headings
    body = [block for block in blocks if not block.furniture and _has_text(block)]
    caption: Block | None = None
    for at, block in enumerate(body):
        if block.kind == HEADING:
            level = max(block.level, 1)
            path = [(lvl, text) for lvl, text in path if lvl < level] + [(level, block.text)]
            sections.append(_Section(tuple(text for _, text in path)))
            sections[-1].units.append(_Unit(f"{'#' * min(level, 6)} {block.text}", [block]))
            continue
        if block.kind == CAPTION and _next_is_table(body, at):
            caption = block  # it goes with the table below
            continue
        if block.kind == TABLE:
            sections[-1].units.append(_table_unit(block, caption))
            caption = None
            continue
        if block.kind == CAPTION and sections[-1].units and sections[-1].units[-1].table:
            sections[-1].units[-1].caption = sections[-1].units[-1].caption or block
            sections[-1].units[-1].blocks.append(block)
            continue
        text = f"# {block.text}" if block.kind == TITLE else block.text
        sections[-1].units.append(_Unit(text, [block]))
    return [section for section in sections if section.units]


def _has_text(block: Block) -> bool:
    return bool(block.text.strip()) or bool(block.cells)


def _next_is_table(body: Sequence[Block], at: int) -> bool:
    return at + 1 < len(body) and body[at + 1].kind == TABLE


def _merged(sections: list[_Section], size: int) -> Iterator[tuple[tuple[str, ...], list[_Unit]]]:
    """Sections in order; small ones that fit together, under the same parent as the
    first, as one, whose path is what their paths share."""
    at = 0
    while at < len(sections):
        first = sections[at]
        parent = first.path[:-1]
        group, total = [first], first.size
        following = at + 1
        while following < len(sections):
            other = sections[following]
            under = len(other.path) > len(parent) and other.path[: len(parent)] == parent
            if total + other.size > size or not under:
                break
            group.append(other)
            total += other.size
            following += 1
        path = first.path
        for other in group[1:]:
            path = _common(path, other.path)
        yield path, [unit for section in group for unit in section.units]
        at = following


def _common(a: tuple[str, ...], b: tuple[str, ...]) -> tuple[str, ...]:
    shared = []
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        shared.append(x)
    return tuple(shared)


def _pack(units: list[_Unit], size: int, overlap: int) -> Iterator[tuple[str, list[Block], Where]]:
    """The units' text in chunks of at most `size` characters (a table's row that is
    longer stays whole), each with its blocks and where its text is."""
    texts: list[str] = []
    blocks: list[Block] = []
    length = 0
    for unit in units:
        full = length + 2 + len(unit.text) > size
        if length and (full or unit.blocks[0].page > _last_page(blocks)):
            yield "\n\n".join(texts), blocks, _whole(blocks)
            texts, blocks, length = [], [], 0
        if len(unit.text) <= size:
            texts.append(unit.text)
            blocks.extend(unit.blocks)
            length += len(unit.text) + 2
        elif unit.table is not None:
            for text, where in _table_pieces(unit, size):
                yield text, unit.blocks, where
        else:
            [block] = unit.blocks
            offset = len(unit.text) - len(block.text)  # a title's or heading's mark
            for start, end in split_spans(unit.text, size, overlap):
                where = block.where(max(0, start - offset), end - offset)
                yield unit.text[start:end], unit.blocks, where
    if texts:
        yield "\n\n".join(texts), blocks, _whole(blocks)


def _last_page(blocks: list[Block]) -> int:
    return max(page for block in blocks for page, _ in block.where())


def _whole(blocks: list[Block]) -> Where:
    return [where for block in blocks if block.kind != FIGURE for where in block.where()]


def _table_unit(table: Block, caption: Block | None) -> _Unit:
    blocks = [caption, table] if caption else [table]
    text = table_markdown(table.cells)
    if caption is not None:
        text = f"{caption.text}\n\n{text}"
    return _Unit(text, blocks, table=table, caption=caption)


def _table_pieces(unit: _Unit, size: int) -> Iterator[tuple[str, Where]]:
    """A long table in runs of whole rows, each under the header row and the caption,
    with where its rows are."""
    table = unit.table
    assert table is not None
    rows = grid(table.cells)
    render = _html_rows if _spanned(table.cells) else _markdown_rows
    head = f"{unit.caption.text}\n\n" if unit.caption else ""
    caption = unit.caption.where() if unit.caption else []
    header = rows[:1]
    run: list[int] = []
    for number in range(1, len(rows)):
        candidate = head + render(header + [rows[n] for n in [*run, number]])
        if run and len(candidate) > size:
            yield head + render(header + [rows[n] for n in run]), caption + _rows_where(table, run)
            run = []
        run.append(number)
    if run or len(rows) <= 1:
        yield head + render(header + [rows[n] for n in run]), caption + _rows_where(table, run)


def _rows_where(table: Block, rows: list[int]) -> Where:
    """The boxes of a table's rows, one per page they are on."""
    wanted = set(rows)
    boxes: dict[int, Box] = {}
    for cell in table.cells:
        if cell.row in wanted and cell.box is not None:
            page = cell.page or table.page
            boxes[page] = boxes[page].union(cell.box) if page in boxes else cell.box
    return sorted(boxes.items()) or [(table.page, table.box)]


def _spanned(cells: Sequence[Cell]) -> bool:
    return any(cell.rows > 1 or cell.columns > 1 for cell in cells)


def table_markdown(cells: Sequence[Cell]) -> str:
    """A table's cells as Markdown, or HTML when a cell spans rows or columns."""
    return _html(cells) if _spanned(cells) else _markdown_rows(grid(cells))


def _markdown_rows(rows: list[list[str]]) -> str:
    if not rows:
        return ""

    def line(row: list[str]) -> str:
        return "| " + " | ".join(cell.replace("|", "\\|").replace("\n", " ") for cell in row) + " |"

    return "\n".join([line(rows[0]), "|" + "---|" * len(rows[0]), *map(line, rows[1:])])


def _html(cells: Sequence[Cell]) -> str:
    rows: dict[int, list[Cell]] = {}
    for cell in cells:
        rows.setdefault(cell.row, []).append(cell)
    lines = ["<table>"]
    for number in sorted(rows):
        tag = "th" if number == 0 else "td"
        parts = []
        for cell in sorted(rows[number], key=lambda c: c.column):
            spans = (f' rowspan="{cell.rows}"' if cell.rows > 1 else "") + (
                f' colspan="{cell.columns}"' if cell.columns > 1 else ""
            )
            parts.append(f"<{tag}{spans}>{html.escape(cell.text)}</{tag}>")
        lines.append("<tr>" + "".join(parts) + "</tr>")
    lines.append("</table>")
    return "\n".join(lines)


def _html_rows(rows: list[list[str]]) -> str:
    """Rows cut from a spanned table, each cell on its own (the spans are lost at a cut)."""
    lines = ["<table>"]
    for number, row in enumerate(rows):
        tag = "th" if number == 0 else "td"
        lines.append("<tr>" + "".join(f"<{tag}>{html.escape(c)}</{tag}>" for c in row) + "</tr>")
    lines.append("</table>")
    return "\n".join(lines)


def _piece(
    index: int, text: str, blocks: list[Block], where: Where, path: tuple[str, ...]
) -> Piece:
    pages = [page for page, _ in where] or [block.page for block in blocks]
    ocr = [block for block in blocks if block.source == "ocr"]
    confidences = [block.confidence for block in ocr if block.confidence is not None]
    return Piece(
        index=index,
        page=min(pages),
        text=text,
        source="ocr" if ocr else "text",
        confidence=min(confidences) if confidences else None,
        section=SECTION_JOIN.join(path),
        page_end=max(pages) if max(pages) != min(pages) else None,
        boxes=tuple(
            (page, round(box.x0, 1), round(box.y0, 1), round(box.x1, 1), round(box.y1, 1))
            for page, box in where
        ),
    )
