"""Split page texts into overlapping chunks that never cross a page boundary: the chunks of
a document read without its structure (search/pipeline/structured.py cuts the others)."""

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from search.pipeline.page import Page


@dataclass(frozen=True)
class Piece:
    index: int
    page: int
    text: str
    source: str = "text"  # where its page's text came from: "text" (its layer) or "ocr"
    confidence: float | None = None  # the OCR engine's mean confidence on that page
    section: str = ""  # its heading path, "Results > Costs"
    page_end: int | None = None  # the last page it runs onto, when past `page`
    boxes: tuple[tuple[int, float, float, float, float], ...] = ()  # (page, x0, y0, x1, y1)


def split_pages(pages: Iterable[Page], *, size: int, overlap: int) -> Iterator[Piece]:
    """Chunks of at most `size` characters, cut at whitespace where one is near,
    each starting `overlap` characters before the previous one ended."""
    if not 0 <= overlap < size:
        raise ValueError(f"overlap ({overlap}) must be at least 0 and below size ({size})")
    index = 0
    for page in pages:
        for text in split_text(page.text, size, overlap):
            yield Piece(
                index=index,
                page=page.number,
                text=text,
                source=page.source,
                confidence=page.confidence,
            )
            index += 1


def split_text(text: str, size: int, overlap: int) -> Iterator[str]:
    """Pieces of at most `size` characters, cut at whitespace where one is near, each
    starting `overlap` characters before the previous one ended."""
    for start, end in split_spans(text, size, overlap):
        yield text[start:end]


def split_spans(text: str, size: int, overlap: int) -> Iterator[tuple[int, int]]:
    """Where split_text's pieces are in `text`: (start, end) of each, whitespace off."""
    start = 0
    while start < len(text):
        end = min(start + size, len(text))
        if end < len(text):
            cut = text.rfind(" ", start + size // 2, end)
            cut = max(cut, text.rfind("\n", start + size // 2, end))
            if cut > start:
                end = cut
        piece = text[start:end]
        if piece.strip():
            first = start + len(piece) - len(piece.lstrip())
            yield first, start + len(piece.rstrip())
        if end >= len(text):
            return
        start = _next_start(text, start, end, overlap)


def _next_start(text: str, start: int, end: int, overlap: int) -> int:
    """Back up `overlap` characters, then forward to a word start; always progress."""
    candidate = max(end - overlap, start + 1)
    space = text.find(" ", candidate, end)
    return space + 1 if space != -1 else candidate
