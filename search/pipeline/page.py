"""A page of extracted text, pdfminer's mark for a glyph it could not map, and what the
worker and its sandboxed reader say to each other of OCR (an order, a reading).

A leaf: the extractor, the reader, the classifier, the cleaner, the splitter and the
worker all use these, and it imports none of them (so no PDF library either).
"""

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from search.pipeline.layout.model import Ink, Structure


@dataclass(frozen=True)
class Page:
    number: int  # 1-based
    text: str
    source: str = "text"  # "ocr": read from the page's image, not its text layer
    confidence: float | None = None  # the OCR engine's mean confidence, 0 to 1


# Told of the pages read so far as a reader goes: (pages read, pages in the file). Called
# once with 0 when the count is known, before any page is read, then after each page.
OnPages = Callable[[int, int], None]


# pdfminer's stand-in for a glyph it cannot map to a character: not text anyone can search.
UNMAPPED_GLYPH = re.compile(r"\(cid:\d+\)")


@dataclass(frozen=True)
class OcrOrder:
    """What the worker asks of OCR in one reading, sent with the request
    (search/pipeline/sandbox/process.py; search/pipeline/ocr.py carries it out in the child).

    `mode`: "find" says which pages need OCR and reads none; "read" reads them. `force`:
    every page needs it, whatever its text layer. The limits: `dpi` to render at,
    `max_pixels` per page (an image larger is `too_complex`; a page larger is rendered at
    a lower resolution), `page_seconds` of CPU time per page, `max_pages` to read by OCR
    (more is `too_many_pages`)."""

    mode: str
    force: bool = False
    dpi: int = 300
    max_pixels: int = 40_000_000
    page_seconds: float = 60.0
    max_pages: int = 500

    def as_request(self) -> dict[str, object]:
        return {
            "mode": self.mode,
            "force": self.force,
            "dpi": self.dpi,
            "max_pixels": self.max_pixels,
            "page_seconds": self.page_seconds,
            "max_pages": self.max_pages,
        }

    @classmethod
    def from_request(cls, request: dict) -> "OcrOrder":
        return cls(
            mode=str(request["mode"]),
            force=bool(request["force"]),
            dpi=int(request["dpi"]),
            max_pixels=int(request["max_pixels"]),
            page_seconds=float(request["page_seconds"]),
            max_pages=int(request["max_pages"]),
        )


@dataclass(frozen=True)
class Scanned:
    """One page read by OCR: its text and the engine's mean confidence (0 to 1); in the
    child, the words it read with their boxes, as the page's ink (never sent)."""

    text: str
    confidence: float
    ink: "Ink | None" = field(default=None, compare=False)


@dataclass(frozen=True)
class Attachment:
    """A file that came inside another (an e-mail's attachment), to be read on its own."""

    filename: str
    media_type: str
    data: bytes = field(repr=False)


@dataclass(frozen=True)
class Reading:
    """What one reading of a file found: each page's raw text from its text layer, the
    0-based indexes of the pages that need OCR (`scans`), what OCR read on those it was
    asked to read (`scanned`, by index), and the document's structure."""

    texts: list[str]
    scans: list[int] = field(default_factory=list)
    scanned: dict[int, Scanned] = field(default_factory=dict)
    structure: "Structure | None" = None  # when asked for, and PDFium read the file
    unreadable: dict[int, str] = field(default_factory=dict)  # index: why its text is not
    metadata: dict[str, str] = field(default_factory=dict)  # what the file says of itself
    attachments: list[Attachment] = field(default_factory=list)
