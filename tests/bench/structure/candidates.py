"""The readers the structure benchmark compares, each a PDF's bytes to blocks in reading
order (checks.Block). Today's pipeline reads each page as one flat string: its blocks are
one paragraph a page, by pdfminer.six or by PDFium, as INGEST_EXTRACTOR chooses."""

from __future__ import annotations

import io
from collections.abc import Callable

from search.pipeline.clean import clean_text
from search.pipeline.reader import read_pdf
from tests.bench.structure.checks import Block

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
    """Ours: search/pipeline/layout, on PDFium's character boxes."""
    from search.pipeline.layout.document import read_structure

    return [
        Block(
            block.kind,
            block.text,
            block.page,
            block.level,
            tuple(tuple(row) for row in block.rows()),
        )
        for block in read_structure(pdf, max_pages=1000).blocks
    ]


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
