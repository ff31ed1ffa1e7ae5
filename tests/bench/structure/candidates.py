"""The readers the structure benchmark compares, each a PDF's bytes to blocks in reading
order (checks.Block). Today's pipeline reads each page as one flat string: its blocks are
one paragraph a page, by pdfminer.six or by PDFium, as INGEST_EXTRACTOR chooses."""

from __future__ import annotations

import functools
import io
from collections.abc import Callable
from typing import TYPE_CHECKING

from search.pipeline.clean import clean_text
from search.pipeline.reader import read_pdf
from tests.bench.structure.checks import Block

if TYPE_CHECKING:
    from search.pipeline.layout.model import Structure
    from search.pipeline.ocr import Engine

Reader = Callable[[bytes], list[Block]]


def flat(extractor: str) -> Reader:
    def read(pdf: bytes) -> list[Block]:
        pages = read_pdf(io.BytesIO(pdf), max_pages=1000, extractor=extractor)
        return [
            Block("paragraph", clean_text(text), number)
            for number, text in enumerate(pages, start=1)
        ]

    return read


CANDIDATES: dict[str, Reader] = {
    "flat (pdfminer, today)": flat("pdfminer"),
    "flat (PDFium)": flat("pdfium"),
}


def structured(pdf: bytes) -> list[Block]:
    """Ours: search/pipeline/layout, on PDFium's character boxes; a page with no text is
    read by OCR, from Tesseract's words and their boxes, as the service's OCR lane does."""
    return [
        Block(
            block.kind,
            block.text,
            block.page,
            block.level,
            tuple(tuple(row) for row in block.rows()),
        )
        for block in _with_ocr(pdf).blocks
    ]


def _with_ocr(pdf: bytes) -> Structure:
    import pypdfium2  # type: ignore[import-untyped]

    from search.pipeline.layout.document import structure
    from search.pipeline.layout.glyphs import read_ink
    from search.pipeline.ocr import render
    from search.pipeline.page import OcrOrder

    document = pypdfium2.PdfDocument(pdf)
    inks = []
    for index in range(len(document)):
        page = document[index]
        ink = read_ink(page)
        page.close()
        if not ink.spans:
            scanned = _engine().read(render(document, index, OcrOrder(mode="read")))
            ink = scanned.ink or ink
        inks.append(ink)
    document.close()
    return structure(inks)


@functools.cache
def _engine() -> Engine:
    from config.common.tessdata import default_tessdata
    from search.pipeline.ocr import Engine

    return Engine("eng", default_tessdata())


def plumbed(pdf: bytes) -> list[Block]:
    """pdfplumber (on pdfminer.six's character boxes): its tables, found by their rules,
    and each page's text outside them, as pdfplumber lays it out. It finds no heading and
    no furniture: it has no notion of either."""
    import pdfplumber  # a dev requirement, for this comparison only

    blocks: list[Block] = []
    with pdfplumber.open(io.BytesIO(pdf)) as document:
        for number, page in enumerate(document.pages, start=1):
            tables = page.find_tables()
            boxes = [table.bbox for table in tables]

            def outside(obj: dict, boxes: list = boxes) -> bool:
                return not any(
                    x0 <= obj.get("x0", -1)
                    and obj.get("x1", 1e9) <= x1
                    and top <= obj.get("top", -1)
                    and obj.get("bottom", 1e9) <= bottom
                    for x0, top, x1, bottom in boxes
                )

            text = page.filter(outside).extract_text() or ""
            blocks.append(Block("paragraph", clean_text(text), number))
            for table in tables:
                rows = tuple(tuple(cell or "" for cell in row) for row in table.extract())
                blocks.append(Block("table", "", number, cells=rows))
    return blocks


CANDIDATES["pdfplumber 0.11 (rules' tables, its text)"] = plumbed
CANDIDATES["structure (PDFium boxes, ours)"] = structured
