"""OpenDocument text (.odt), and the blocks of any ODF text container (a slide's text box
too): text:h with its outline level is a heading, text:p a paragraph (in the Title style,
the title; in Caption, a caption), text:list-item a list item, table:table a table whose
header rows are header cells. Footnotes and endnotes follow the body; each header and
footer the master pages define, once, is furniture (from styles.xml).
"""

from __future__ import annotations

from lxml import etree  # type: ignore[import-untyped]

from search.pipeline.formats.opendocument.xml import (
    cell_text,
    inline_text,
    q,
    spans,
    table_cells,
)
from search.pipeline.formats.reading import Blocks
from search.pipeline.formats.sheets import Counter
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

_P, _H, _LIST, _TABLE = q("text:p"), q("text:h"), q("text:list"), q("table:table")
_ITEMS = (q("text:list-item"), q("text:list-header"))
_FRAME, _TEXT_BOX = q("draw:frame"), q("draw:text-box")
# Elements with no text of the document's own: declarations, forms, change tracking.
_SKIPPED = frozenset(
    q(name)
    for name in ("text:sequence-decls", "office:forms", "text:tracked-changes", "table:shapes")
)
_STYLE_KINDS = {"Title": TITLE, "Caption": CAPTION}
_HEADERS = ("style:header", "style:header-left", "style:header-first")
_FOOTERS = ("style:footer", "style:footer-left", "style:footer-first")


class TextReader:
    """Blocks of ODF text containers, in order; `styles` maps an automatic style's name
    to its parent's, so a paragraph in "P3" (based on "Title") is the title."""

    def __init__(self, styles: dict[str, str], counter: Counter) -> None:
        self.styles = styles
        self.counter = counter
        self.blocks = Blocks()
        self.notes: list[str] = []

    def read(self, container: etree._Element, *, in_list: bool = False) -> None:
        for child in container:
            tag = child.tag
            if tag == _H:
                level = _level(child.get(q("text:outline-level")))
                self.add(HEADING, child, level=level)
            elif tag == _P:
                kind = LIST_ITEM if in_list else self._style_kind(child)
                self.add(kind, child)
            elif tag == _LIST:
                for item in child:
                    if item.tag in _ITEMS:
                        self.read(item, in_list=True)
            elif tag == _TABLE:
                self.blocks.add_table(self.cells(child))
            elif isinstance(tag, str) and tag not in _SKIPPED:
                self.read(child, in_list=in_list)

    def add(self, kind: str, paragraph: etree._Element, *, level: int = 0) -> None:
        self.blocks.add(kind, inline_text(paragraph, self.notes), level=level)
        # A frame anchored in the paragraph (a text box, a captioned figure) comes after it.
        for box in paragraph.iter(_TEXT_BOX):
            self.read(box)

    def cells(self, table: etree._Element) -> list[Cell]:
        cells = []
        for row, column, cell, header in self.counter.each(table_cells(table)):
            rows, columns = spans(cell)
            text = cell_text(cell)
            cells.append(Cell(row, column, text, rows=rows, columns=columns, header=header))
        return cells

    def footnotes(self) -> None:
        for note in self.notes:
            self.blocks.add(FOOTNOTE, note)
        self.notes = []

    def _style_kind(self, paragraph: etree._Element) -> str:
        name = paragraph.get(q("text:style-name"), "")
        for _ in range(5):  # a parent chain longer than this is not one a writer makes
            if name in _STYLE_KINDS:
                return _STYLE_KINDS[name]
            if name not in self.styles:
                break
            name = self.styles[name]
        return PARAGRAPH


def _level(value: str | None) -> int:
    try:
        return min(max(int(value or 1), 1), 10)
    except ValueError:
        return 1


def parent_styles(*roots: etree._Element) -> dict[str, str]:
    """Each style's parent style, by name, from content.xml and styles.xml."""
    found = {}
    for root in roots:
        for style in root.iter(q("style:style")):
            parent = style.get(q("style:parent-style-name"))
            if parent:
                found[style.get(q("style:name"), "")] = parent
    return found


def furniture(styles_xml: etree._Element | None, counter: Counter) -> tuple[Blocks, Blocks]:
    """The page headers and footers of the master pages, each text once."""
    headers, footers = Blocks(), Blocks()
    if styles_xml is None:
        return headers, footers
    seen: set[str] = set()
    for master in styles_xml.iter(q("style:master-page")):
        for names, kind, blocks in (
            (_HEADERS, PAGE_HEADER, headers),
            (_FOOTERS, PAGE_FOOTER, footers),
        ):
            for name in names:
                for part in master.iter(q(name)):
                    reader = TextReader({}, counter)
                    reader.read(part)
                    text = " ".join(block.text for block in reader.blocks)
                    if text and text not in seen:
                        seen.add(text)
                        blocks.add(kind, text)
    return headers, footers
