"""PowerPoint presentations (.pptx), read by python-pptx: each slide is a page the size of
the presentation's slides, in points (EMU / 12700), with boxes.

A slide's blocks are its shapes' text in reading order: its title first, then top to
bottom and left to right, a group's shapes placed as the group places them. Each
paragraph of a shape is a block with the shape's box (clamped to the slide): the title
placeholder's a heading (level 1; on the first slide, the title), a body placeholder's
list items, a text box's paragraphs; a table keeps its cells and spans (its first row is
a header row when the table says so); a picture with alt text is a figure. Speaker notes
come after the slide's content as footnote blocks whose box is the whole slide.

The slides are counted from the presentation's own list before python-pptx opens any
(it parses them all as it opens the file), so too many is TooManyPages at once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import BinaryIO

import pptx
from pptx.enum.shapes import MSO_SHAPE_TYPE, PP_PLACEHOLDER
from pptx.exc import PythonPptxError
from pptx.shapes.base import BaseShape
from pptx.slide import Slide

from search.pipeline.formats import zipguard
from search.pipeline.formats.reading import (
    DEFAULT_SLIDE,
    FormatReading,
    at_most,
    clean,
    damaged_as,
    parse_xml,
    table_block,
    whole_text,
)
from search.pipeline.layout.model import (
    FIGURE,
    FOOTNOTE,
    HEADING,
    LIST_ITEM,
    PARAGRAPH,
    TITLE,
    Block,
    Box,
    Cell,
    PageSize,
    Structure,
)
from search.pipeline.page import OnPages

SAID = "PowerPoint presentation"
EMU_PER_POINT = 12700
_TITLES = (PP_PLACEHOLDER.TITLE, PP_PLACEHOLDER.CENTER_TITLE, PP_PLACEHOLDER.VERTICAL_TITLE)
_BODIES = (PP_PLACEHOLDER.BODY, PP_PLACEHOLDER.OBJECT, PP_PLACEHOLDER.VERTICAL_BODY)
_P = "{http://schemas.openxmlformats.org/presentationml/2006/main}"
_R = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}"
_RELS = "{http://schemas.openxmlformats.org/package/2006/relationships}"

# Where a shape's position (EMU) lands on the slide: the identity, or a group's mapping.
Place = Callable[[float, float], tuple[float, float]]


def read_pptx(fp: BinaryIO, *, max_pages: int, on_pages: OnPages) -> FormatReading:
    with zipguard.open_checked(fp, SAID) as archive, damaged_as(SAID):
        count = slide_count(archive.read(_main_part(archive)))
    at_most(count, max_pages, SAID, "slides")
    fp.seek(0)
    with damaged_as(SAID, PythonPptxError):
        deck = pptx.Presentation(fp)
        width, height = deck.slide_width, deck.slide_height
        size = (
            PageSize(width / EMU_PER_POINT, height / EMU_PER_POINT)
            if width and height
            else DEFAULT_SLIDE
        )
        on_pages(0, len(deck.slides))
        pages, blocks, texts = [], [], []
        for number, slide in enumerate(deck.slides, start=1):
            found = slide_blocks(slide, number, size)
            pages.append(size)
            blocks.extend(found)
            texts.append(whole_text(found))
            on_pages(number, len(deck.slides))
        metadata = {"title": clean(deck.core_properties.title or "")}
        metadata["author"] = clean(deck.core_properties.author or "")
    return FormatReading(
        texts=texts,
        structure=Structure(pages, blocks),
        metadata={key: value for key, value in metadata.items() if value},
    )


def _main_part(archive: object) -> str:
    rels = parse_xml(archive.read("_rels/.rels"))  # type: ignore[attr-defined]
    for rel in rels.iter(f"{_RELS}Relationship"):
        if rel.get("Type", "").endswith("/officeDocument"):
            return rel.get("Target", "").lstrip("/")
    raise KeyError("the package names no presentation part")


def slide_count(presentation_xml: bytes) -> int:
    return sum(1 for _ in parse_xml(presentation_xml).iter(f"{_P}sldId"))


def slide_blocks(slide: Slide, number: int, size: PageSize) -> list[Block]:
    page = Box(0.0, 0.0, size.width, size.height)
    shapes = sorted(
        _shapes(slide.shapes, _unmoved),
        key=lambda found: (not _is_title(found[0]), found[1].y0, found[1].x0),
    )
    blocks = []
    for shape, box in shapes:
        blocks.extend(_shape_blocks(shape, _clamped(box, page), number))
    if slide.has_notes_slide:
        frame = slide.notes_slide.notes_text_frame
        for paragraph in frame.paragraphs if frame is not None else ():
            _add(blocks, FOOTNOTE, paragraph.text, number, page)
    return blocks


def _shapes(shapes: object, place: Place) -> Iterator[tuple[BaseShape, Box]]:
    for shape in shapes:  # type: ignore[attr-defined]
        if shape.shape_type == MSO_SHAPE_TYPE.GROUP:
            yield from _shapes(shape.shapes, _group_place(shape, place))
            continue
        if None in (shape.left, shape.top, shape.width, shape.height):
            yield shape, Box(0.0, 0.0, float("inf"), float("inf"))
            continue
        x0, y0 = place(shape.left, shape.top)
        x1, y1 = place(shape.left + shape.width, shape.top + shape.height)
        yield (
            shape,
            Box(x0 / EMU_PER_POINT, y0 / EMU_PER_POINT, x1 / EMU_PER_POINT, y1 / EMU_PER_POINT),
        )


def _unmoved(x: float, y: float) -> tuple[float, float]:
    return x, y


def _group_place(group: BaseShape, outer: Place) -> Place:
    """A group's children are placed in its own frame (chOff, chExt), which the group
    maps onto its box on the slide (off, ext)."""
    xfrm = group._element.grpSpPr.find(
        "{http://schemas.openxmlformats.org/drawingml/2006/main}xfrm"
    )
    a = "{http://schemas.openxmlformats.org/drawingml/2006/main}"
    child_off = xfrm.find(f"{a}chOff") if xfrm is not None else None
    child_ext = xfrm.find(f"{a}chExt") if xfrm is not None else None
    if child_off is None or child_ext is None or group.left is None or group.top is None:
        return outer
    cx, cy = int(child_off.get("x", 0)), int(child_off.get("y", 0))
    cw, ch = int(child_ext.get("cx", 0)) or 1, int(child_ext.get("cy", 0)) or 1
    sx, sy = (group.width or cw) / cw, (group.height or ch) / ch
    left, top = group.left, group.top
    return lambda x, y: outer(left + (x - cx) * sx, top + (y - cy) * sy)


def _clamped(box: Box, page: Box) -> Box:
    x0, x1 = sorted((min(max(box.x0, 0.0), page.x1), min(max(box.x1, 0.0), page.x1)))
    y0, y1 = sorted((min(max(box.y0, 0.0), page.y1), min(max(box.y1, 0.0), page.y1)))
    return Box(x0, y0, x1, y1)


def _placeholder(shape: BaseShape) -> object:
    return shape.placeholder_format.type if shape.is_placeholder else None


def _is_title(shape: BaseShape) -> bool:
    return _placeholder(shape) in _TITLES


def _shape_blocks(shape: BaseShape, box: Box, number: int) -> list[Block]:
    blocks: list[Block] = []
    if getattr(shape, "has_table", False):
        cells = _cells(shape.table)  # type: ignore[attr-defined]
        table = table_block(cells, page=number, box=box)
        return [table] if table is not None else []
    if shape.shape_type == MSO_SHAPE_TYPE.PICTURE:
        _add(blocks, FIGURE, shape._element._nvXxPr.cNvPr.get("descr", ""), number, box)
        return blocks
    if not shape.has_text_frame:
        return blocks
    kind = PARAGRAPH
    if _is_title(shape):
        kind = TITLE if number == 1 else HEADING
    elif _placeholder(shape) in _BODIES:
        kind = LIST_ITEM
    for paragraph in shape.text_frame.paragraphs:  # type: ignore[attr-defined]
        _add(blocks, kind, paragraph.text, number, box, level=1 if kind == HEADING else 0)
    return blocks


def _add(blocks: list[Block], kind: str, text: str, number: int, box: Box, level: int = 0) -> None:
    text = clean(text)
    if text:
        blocks.append(Block(kind, text, number, box, level=level))


def _cells(table: object) -> list[Cell]:
    header = bool(table.first_row)  # type: ignore[attr-defined]
    cells = []
    for r, row in enumerate(table.rows):  # type: ignore[attr-defined]
        for c, cell in enumerate(row.cells):
            if cell.is_spanned:
                continue
            rows, columns = (cell.span_height, cell.span_width) if cell.is_merge_origin else (1, 1)
            cells.append(
                Cell(r, c, clean(cell.text), rows=rows, columns=columns, header=header and r == 0)
            )
    return cells
