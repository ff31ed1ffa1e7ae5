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


CANDIDATES["structure (PDFium boxes, ours)"] = structured
