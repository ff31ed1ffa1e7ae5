"""OpenDocument presentations (.odp): each draw:page is a slide, a page the size of its
master page's layout (fo:page-width and fo:page-height, in points), with boxes.

A slide's blocks are its frames' and shapes' text in reading order (its title first,
then top to bottom and left to right), each with its frame's box (svg:x, svg:y,
svg:width, svg:height, clamped to the slide; a group's shapes placed where they say).
The title frame is a heading (level 1; on the first slide, the title), an outline
frame's paragraphs are list items, a table keeps its cells, an image's title or
description is a figure. Speaker notes (presentation:notes) come after the slide's
content as footnote blocks whose box is the whole slide.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

from lxml import etree  # type: ignore[import-untyped]

from search.pipeline.formats.opendocument.text import TextReader
from search.pipeline.formats.opendocument.xml import points, q
from search.pipeline.formats.reading import (
    DEFAULT_SLIDE,
    FormatReading,
    at_most,
    clean,
    whole_text,
)
from search.pipeline.formats.sheets import Counter
from search.pipeline.layout.model import (
    FIGURE,
    FOOTNOTE,
    HEADING,
    LIST_ITEM,
    PARAGRAPH,
    TITLE,
    Block,
    Box,
    PageSize,
    Structure,
)
from search.pipeline.page import OnPages

SAID = "OpenDocument presentation"
_PAGE, _GROUP, _NOTES = q("draw:page"), q("draw:g"), q("presentation:notes")
_SHAPES = frozenset(
    q(name)
    for name in ("draw:frame", "draw:custom-shape", "draw:rect", "draw:ellipse", "draw:polygon")
)
_IMAGE = q("draw:image")
_CLASS = q("presentation:class")


def read(
    presentation: etree._Element,
    styles: etree._Element | None,
    parents: dict[str, str],
    *,
    max_pages: int,
    on_pages: OnPages,
    metadata: dict[str, str],
) -> FormatReading:
    slides = presentation.findall(_PAGE)
    at_most(len(slides), max_pages, SAID, "slides")
    on_pages(0, len(slides))
    sizes = _sizes(styles)
    counter = Counter(SAID)
    pages, blocks, texts = [], [], []
    for number, slide in enumerate(slides, start=1):
        size = sizes.get(slide.get(q("draw:master-page-name"), ""), DEFAULT_SLIDE)
        found = _slide(slide, number, size, parents, counter)
        pages.append(size)
        blocks.extend(found)
        texts.append(whole_text(found))
        on_pages(number, len(slides))
    return FormatReading(texts=texts, structure=Structure(pages, blocks), metadata=metadata)


def _sizes(styles: etree._Element | None) -> dict[str, PageSize]:
    """Each master page's slide size, by the master page's name."""
    if styles is None:
        return {}
    layouts = {}
    for layout in styles.iter(q("style:page-layout")):
        properties = layout.find(q("style:page-layout-properties"))
        if properties is None:
            continue
        width = points(properties.get(q("fo:page-width")))
        height = points(properties.get(q("fo:page-height")))
        if width and height and width > 0 and height > 0:
            layouts[layout.get(q("style:name"), "")] = PageSize(width, height)
    return {
        master.get(q("style:name"), ""): layouts[master.get(q("style:page-layout-name"), "")]
        for master in styles.iter(q("style:master-page"))
        if master.get(q("style:page-layout-name"), "") in layouts
    }


def _slide(
    slide: etree._Element, number: int, size: PageSize, parents: dict[str, str], counter: Counter
) -> list[Block]:
    page = Box(0.0, 0.0, size.width, size.height)
    shapes = sorted(
        _shapes(slide, page),
        key=lambda found: (found[0].get(_CLASS) != "title", found[1].y0, found[1].x0),
    )
    blocks = []
    for shape, box in shapes:
        blocks.extend(_shape_blocks(shape, box, number, parents, counter))
    for notes in slide.iter(_NOTES):
        reader = TextReader(parents, counter)
        for shape in notes.iter(*_SHAPES):
            reader.read(shape)
        blocks.extend(
            Block(FOOTNOTE, block.text, number, page) for block in reader.blocks if block.text
        )
    return blocks


def _shapes(container: etree._Element, page: Box) -> Iterator[tuple[etree._Element, Box]]:
    for child in container:
        if child.tag == _GROUP:
            yield from _shapes(child, page)
        elif child.tag in _SHAPES:
            yield child, _box(child, page)


def _box(shape: etree._Element, page: Box) -> Box:
    x, y = points(shape.get(q("svg:x"))), points(shape.get(q("svg:y")))
    width, height = points(shape.get(q("svg:width"))), points(shape.get(q("svg:height")))
    if x is None or y is None or width is None or height is None:
        return page
    x0, x1 = sorted(min(max(v, 0.0), page.x1) for v in (x, x + width))
    y0, y1 = sorted(min(max(v, 0.0), page.y1) for v in (y, y + height))
    return Box(x0, y0, x1, y1)


def _shape_blocks(
    shape: etree._Element, box: Box, number: int, parents: dict[str, str], counter: Counter
) -> list[Block]:
    image = shape.find(_IMAGE)
    if image is not None:
        said = shape.findtext(q("svg:title")) or shape.findtext(q("svg:desc")) or ""
        text = clean(said)
        return [Block(FIGURE, text, number, box)] if text else []
    reader = TextReader(parents, counter)
    reader.read(shape)
    reader.footnotes()
    kind = {"title": TITLE if number == 1 else HEADING, "outline": LIST_ITEM}.get(
        shape.get(_CLASS, "")
    )
    found = []
    for block in reader.blocks:
        if kind is not None and block.kind in (PARAGRAPH, HEADING, LIST_ITEM):
            block = dataclasses.replace(block, kind=kind, level=1 if kind == HEADING else 0)
        found.append(dataclasses.replace(block, page=number, box=box))
    return found
