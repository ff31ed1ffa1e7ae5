"""Word documents (.docx), read by python-docx: pageless (Word decides its pages only as
it lays a document out, and the file does not say where they fall).

The body's paragraphs and tables in their order, content controls opened. A paragraph's
kind comes from its style: Title is the title; "Heading N", or an outline level, a
heading of level N; Caption a caption; a numbered or bulleted paragraph (numPr, or a
"List ..." style) a list item. A table keeps its cells with the spans Word gives them
(gridSpan across, vMerge down); its leading rows marked to repeat as a header
(tblHeader) are header cells. Each header and footer a section defines is a page_header
or page_footer block, once however many sections share it: furniture, kept out of chunks.
Footnotes follow the body.
"""

from __future__ import annotations

import re
from typing import BinaryIO

import docx
from docx.document import Document
from docx.enum.style import WD_STYLE_TYPE
from docx.exceptions import PythonDocxError
from docx.opc.constants import RELATIONSHIP_TYPE as RT
from docx.opc.exceptions import OpcError
from docx.oxml.ns import qn
from docx.section import _Footer, _Header
from docx.table import Table
from docx.text.paragraph import Paragraph
from lxml import etree  # type: ignore[import-untyped]

from search.pipeline.formats import zipguard
from search.pipeline.formats.reading import (
    Blocks,
    FormatReading,
    clean,
    damaged_as,
    pageless,
    parse_xml,
)
from search.pipeline.layout.model import (
    CAPTION,
    FOOTNOTE,
    HEADING,
    LIST_ITEM,
    PAGE_FOOTER,
    PAGE_HEADER,
    PARAGRAPH,
    TITLE,
    Cell,
)
from search.pipeline.page import OnPages

SAID = "Word document"
_HEADING_STYLE = re.compile(r"^heading\s+([1-9])$", re.IGNORECASE)
_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"


def read_docx(fp: BinaryIO, *, max_pages: int, on_pages: OnPages) -> FormatReading:
    zipguard.open_checked(fp, SAID).close()
    fp.seek(0)
    on_pages(0, 1)
    with damaged_as(SAID, PythonDocxError, OpcError):
        document = docx.Document(fp)
        body = _Body(document)
        body.read(document.element.body)
        blocks = Blocks()
        blocks.extend(_furniture(document, headers=True))
        blocks.extend(body.blocks)
        blocks.extend(_footnotes(document))
        blocks.extend(_furniture(document, headers=False))
        metadata = _metadata(document)
    on_pages(1, 1)
    return pageless(blocks, metadata=metadata)


class _Body:
    """The blocks of a story (the body, a header) in order, a style's kind found once."""

    def __init__(self, document: Document) -> None:
        self.document = document
        self.blocks = Blocks()
        self.kinds: dict[str | None, tuple[str, int]] = {}

    def read(self, container: etree._Element) -> None:
        for child in container.iterchildren():
            if child.tag == qn("w:p"):
                paragraph = Paragraph(child, self.document)
                kind, level = self.kind(paragraph)
                self.blocks.add(kind, paragraph.text, level=level)
            elif child.tag == qn("w:tbl"):
                self.blocks.add_table(_cells(Table(child, self.document)))
            elif child.tag in (qn("w:sdt"), qn("w:sdtContent"), qn("w:customXml")):
                self.read(child)

    def kind(self, paragraph: Paragraph) -> tuple[str, int]:
        style_id = paragraph._p.style
        if style_id not in self.kinds:
            self.kinds[style_id] = _style_kind(self.document, style_id)
        kind, level = self.kinds[style_id]
        if kind == PARAGRAPH:
            own = _outline_level(paragraph._p)
            if own is not None:
                return HEADING, own
            if paragraph._p.find(f"{_W}pPr/{_W}numPr") is not None:
                return LIST_ITEM, 0
        return kind, level


def _style_kind(document: Document, style_id: str | None) -> tuple[str, int]:
    style = document.part.get_style(style_id, WD_STYLE_TYPE.PARAGRAPH)
    name = (style.name or "").strip()
    heading = _HEADING_STYLE.match(name)
    if name.lower() == "title":
        return TITLE, 0
    if heading:
        return HEADING, int(heading.group(1))
    outline = _outline_level(style.element)
    if outline is not None:
        return HEADING, outline
    if name.lower() == "caption":
        return CAPTION, 0
    if name.lower().startswith("list") or style.element.find(f"{_W}pPr/{_W}numPr") is not None:
        return LIST_ITEM, 0
    return PARAGRAPH, 0


def _outline_level(element: etree._Element) -> int | None:
    """Word's outline level (0 for a top heading, 9 for body text) as a heading level."""
    found = element.find(f"{_W}pPr/{_W}outlineLvl")
    if found is None:
        return None
    try:
        level = int(found.get(f"{_W}val", "9"))
    except ValueError:
        return None
    return level + 1 if 0 <= level < 9 else None


def _cells(table: Table) -> list[Cell]:
    """The table's cells on its grid. A cell that continues a vertical merge adds a row
    to the cell it continues; leading rows that repeat as a header are header rows."""
    found: list[dict] = []
    open_above: dict[int, dict] = {}  # column: the cell a vertical merge there started
    heading_rows = True
    for r, tr in enumerate(table._tbl.tr_lst):
        header_val = tr.find(f"{_W}trPr/{_W}tblHeader")
        heading_rows = heading_rows and header_val is not None and _on(header_val)
        column = tr.grid_before
        for tc in tr.tc_lst:
            span = max(tc.grid_span, 1)
            if tc.vMerge == "continue" and column in open_above:
                open_above[column]["rows"] += 1
            else:
                text = "\n".join(Paragraph(p, table).text for p in tc.iter(qn("w:p")))
                cell = {"row": r, "column": column, "text": clean(text), "columns": span}
                cell |= {"rows": 1, "header": heading_rows}
                found.append(cell)
                if tc.vMerge == "restart":
                    open_above[column] = cell
                else:
                    open_above.pop(column, None)
            column += span
    return [Cell(**cell) for cell in found]


def _on(element: etree._Element) -> bool:
    return element.get(f"{_W}val", "true").lower() not in ("0", "false", "off")


def _furniture(document: Document, *, headers: bool) -> Blocks:
    """Each header (or footer) the sections define, once: a section that links to the
    one before has no definition of its own, and is not asked for one (asking would make
    python-docx add an empty one)."""
    blocks, seen = Blocks(), set()
    kind = PAGE_HEADER if headers else PAGE_FOOTER
    for section in document.sections:
        stories: tuple[_Header | _Footer, ...] = (
            (section.header, section.first_page_header, section.even_page_header)
            if headers
            else (section.footer, section.first_page_footer, section.even_page_footer)
        )
        for story in stories:
            if story.is_linked_to_previous:
                continue
            body = _Body(document)
            body.read(story._element)
            text = clean(" ".join(block.text for block in body.blocks))
            if text and text not in seen:
                seen.add(text)
                blocks.add(kind, text)
    return blocks


def _footnotes(document: Document) -> Blocks:
    blocks = Blocks()
    for rel in document.part.rels.values():
        if rel.reltype != RT.FOOTNOTES or rel.is_external:
            continue
        notes = parse_xml(rel.target_part.blob)
        for note in notes.iterchildren(f"{_W}footnote"):
            if note.get(f"{_W}type") in ("separator", "continuationSeparator"):
                continue
            blocks.add(FOOTNOTE, " ".join("".join(p.itertext()) for p in note.iter(f"{_W}p")))
    return blocks


def _metadata(document: Document) -> dict[str, str]:
    properties = document.core_properties
    found = {"title": clean(properties.title or ""), "author": clean(properties.author or "")}
    return {key: value for key, value in found.items() if value}
