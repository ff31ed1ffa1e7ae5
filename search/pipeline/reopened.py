"""A PDFium document that lets go of what it has parsed every few pages."""

import os
from typing import Any, BinaryIO

import pypdfium2  # type: ignore[import-untyped]

# Pages asked of one opening of a large document: a bound on the images PDFium holds at
# once. Opening again costs a read of the cross-reference table (of the whole file, for one
# whose table is broken), so a file under REOPEN_ABOVE_BYTES is opened once.
PAGES_PER_OPENING = 8
REOPEN_ABOVE_BYTES = 64 << 20


class Reopened:
    """A PdfDocument of `source` (the file, open, or its bytes) opened again every
    PAGES_PER_OPENING pages asked of it, when the file is over REOPEN_ABOVE_BYTES.

    PDFium keeps each object it parses for as long as the document stays open, images
    included: pages read one after another would hold every image of a long file at once,
    a 1 GiB scan its whole size. Raises PdfiumError as PdfDocument does.
    """

    def __init__(self, source: bytes | BinaryIO) -> None:
        self.source = source
        self.pdf = pypdfium2.PdfDocument(source)
        self.pages = 0
        self.large = _size(source) > REOPEN_ABOVE_BYTES

    def __len__(self) -> int:
        return len(self.pdf)

    def __getitem__(self, index: int) -> Any:
        if self.large and self.pages == PAGES_PER_OPENING:
            self.pdf.close()
            self.pdf = pypdfium2.PdfDocument(self.source)
            self.pages = 0
        self.pages += 1
        return self.pdf[index]

    def close(self) -> None:
        self.pdf.close()


def _size(source: bytes | BinaryIO) -> int:
    if isinstance(source, bytes):
        return len(source)
    return source.seek(0, os.SEEK_END)  # PDFium seeks where it reads: the position is free
