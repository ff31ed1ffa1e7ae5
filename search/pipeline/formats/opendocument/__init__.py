"""OpenDocument files (.odt, .ods, .odp), parsed from their XML parts with lxml.

lxml rather than odfpy: odfpy builds its own tree of every node in Python (several times
lxml's time and memory on a large spreadsheet) and parses with the standard library's
expat, whose entity handling we would have to wall in ourselves; lxml's parser is told
outright to load no DTD, resolve no entity and fetch nothing (reading.parse_xml), and
the three readers need only a walk of content.xml (styles.xml for page headers, footers
and slide sizes; meta.xml for the title and author).
"""

from __future__ import annotations

import zipfile
import zlib
from typing import BinaryIO

from lxml import etree  # type: ignore[import-untyped]

from search.pipeline.formats import zipguard
from search.pipeline.formats.opendocument import slides
from search.pipeline.formats.opendocument.text import TextReader, furniture, parent_styles
from search.pipeline.formats.opendocument.xml import cell_value, q, table_cells
from search.pipeline.formats.reading import (
    Blocks,
    FormatReading,
    at_most,
    clean,
    damaged_as,
    pageless,
    parse_xml,
)
from search.pipeline.formats.sheets import Counter, sheet_blocks
from search.pipeline.page import OnPages

TEXT, SPREADSHEET, PRESENTATION = (
    "OpenDocument text",
    "OpenDocument spreadsheet",
    "OpenDocument presentation",
)


class Parts:
    """The XML parts of an ODF package: content.xml (which every one has), styles.xml
    and meta.xml (None when missing or damaged), and what meta.xml says of the file."""

    def __init__(self, fp: BinaryIO, said: str) -> None:
        with zipguard.open_checked(fp, said) as archive, damaged_as(said):
            self.content = parse_xml(archive.read("content.xml"))
            self.styles = _optional(archive, "styles.xml")
            meta = _optional(archive, "meta.xml")
        self.metadata = _metadata(meta)

    def body(self, kind: str) -> etree._Element:
        found = self.content.find(f"{q('office:body')}/{q(kind)}")
        if found is None:
            raise KeyError(f"content.xml holds no {kind}")
        return found


def _optional(archive: zipfile.ZipFile, name: str) -> etree._Element | None:
    """A part the text can be read without, or None when it is missing or damaged.

    Damage to one part need not reach the others: a package with a byte lost inside its
    thumbnail (real ones exist) has every entry before the loss at an offset the central
    directory no longer matches, and meta.xml or styles.xml may be among them while
    content.xml is whole. Losing the title or the page headers beats losing the file."""
    try:
        return parse_xml(archive.read(name))
    except KeyError:
        return None
    except (zipfile.BadZipFile, zlib.error, etree.XMLSyntaxError):
        return None


def _metadata(meta: etree._Element | None) -> dict[str, str]:
    if meta is None:
        return {}
    title = clean(meta.findtext(f".//{q('dc:title')}") or "")
    author = meta.findtext(f".//{q('meta:initial-creator')}") or meta.findtext(
        f".//{q('dc:creator')}"
    )
    found = {"title": title, "author": clean(author or "")}
    return {key: value for key, value in found.items() if value}


def read_odt(fp: BinaryIO, *, max_pages: int, on_pages: OnPages) -> FormatReading:
    parts = Parts(fp, TEXT)
    on_pages(0, 1)
    counter = Counter(TEXT)
    with damaged_as(TEXT):
        reader = TextReader(parent_styles(parts.content, *_present(parts.styles)), counter)
        reader.read(parts.body("office:text"))
        reader.footnotes()
        headers, footers = furniture(parts.styles, counter)
    on_pages(1, 1)
    return pageless([*headers, *reader.blocks, *footers], metadata=parts.metadata)


def read_ods(fp: BinaryIO, *, max_pages: int, on_pages: OnPages) -> FormatReading:
    parts = Parts(fp, SPREADSHEET)
    counter = Counter(SPREADSHEET)
    with damaged_as(SPREADSHEET):
        tables = parts.body("office:spreadsheet").findall(q("table:table"))
        at_most(len(tables), max_pages, SPREADSHEET, "sheets")
        on_pages(0, len(tables))
        blocks = Blocks()
        for done, table in enumerate(tables, start=1):
            cells = (
                (row, column, cell_value(cell))
                for row, column, cell, _ in counter.each(table_cells(table))
            )
            sheet_blocks(blocks, table.get(q("table:name"), f"Sheet {done}"), cells)
            on_pages(done, len(tables))
    return pageless(blocks, metadata=parts.metadata)


def read_odp(fp: BinaryIO, *, max_pages: int, on_pages: OnPages) -> FormatReading:
    parts = Parts(fp, PRESENTATION)
    with damaged_as(PRESENTATION):
        return slides.read(
            parts.body("office:presentation"),
            parts.styles,
            parent_styles(parts.content, *_present(parts.styles)),
            max_pages=max_pages,
            on_pages=on_pages,
            metadata=parts.metadata,
        )


def _present(root: etree._Element | None) -> list[etree._Element]:
    return [root] if root is not None else []
